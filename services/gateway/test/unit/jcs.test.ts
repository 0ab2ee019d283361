import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/jcs';

/** An IEEE 754 double from its 16 hex digits (RFC 8785 Appendix B lists numbers this way). */
const f64 = (hex: string): number => Buffer.from(hex, 'hex').readDoubleBE(0);

describe('canonicalJson (RFC 8785)', () => {
  it('serializes the numbers of RFC 8785 Appendix B as listed', () => {
    const vectors: [string, string][] = [
      ['0000000000000000', '0'],
      ['8000000000000000', '0'],
      ['0000000000000001', '5e-324'],
      ['8000000000000001', '-5e-324'],
      ['7fefffffffffffff', '1.7976931348623157e+308'],
      ['ffefffffffffffff', '-1.7976931348623157e+308'],
      ['4340000000000000', '9007199254740992'],
      ['c340000000000000', '-9007199254740992'],
      ['4430000000000000', '295147905179352830000'],
      ['44b52d02c7e14af5', '9.999999999999997e+22'],
      ['44b52d02c7e14af6', '1e+23'],
      ['44b52d02c7e14af7', '1.0000000000000001e+23'],
      ['444b1ae4d6e2ef4e', '999999999999999700000'],
      ['444b1ae4d6e2ef4f', '999999999999999900000'],
      ['444b1ae4d6e2ef50', '1e+21'],
      ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
      ['3eb0c6f7a0b5ed8d', '0.000001'],
      ['41b3de4355555553', '333333333.3333332'],
      ['41b3de4355555554', '333333333.33333325'],
      ['41b3de4355555555', '333333333.3333333'],
      ['41b3de4355555556', '333333333.3333334'],
      ['41b3de4355555557', '333333333.33333343'],
      ['becbf647612f3696', '-0.0000033333333333333333'],
      ['43143ff3c1cb0959', '1424953923781206.2'],
    ];
    for (const [hex, text] of vectors) expect(canonicalJson(f64(hex)), hex).toBe(text);
  });

  it('refuses NaN and Infinity (RFC 8785 Appendix B: errors)', () => {
    expect(() => canonicalJson(f64('7fffffffffffffff'))).toThrow(/finite/);
    expect(() => canonicalJson(f64('7ff0000000000000'))).toThrow(/finite/);
  });

  it('produces the output of RFC 8785 section 3.2.3 for its sample input', () => {
    const input = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    ) as unknown;
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units (RFC 8785 section 3.2.3 sorting example)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    const names = Object.keys(JSON.parse(canonicalJson(input)) as object);
    // Object.keys puts the integer-like "1" first; compare the serialized order instead.
    const order = [...canonicalJson(input).matchAll(/"([^"]*)":"([^"]*)"/g)].map((m) => m[2]);
    expect(order).toEqual([
      'Carriage Return',
      'One',
      'Control',
      'Latin Small Letter O With Diaeresis',
      'Euro Sign',
      'Emoji: Grinning Face',
      'Hebrew Letter Dalet With Dagesh',
    ]);
    expect(names).toHaveLength(7);
  });

  it('refuses what JSON cannot carry: lone surrogates, undefined in arrays, bigints, non-plain objects', () => {
    expect(() => canonicalJson('\ud800')).toThrow(/surrogate/);
    expect(() => canonicalJson({ ['\udc00']: 1 })).toThrow(/surrogate/);
    expect(() => canonicalJson([undefined])).toThrow(/undefined/);
    expect(() => canonicalJson(1n)).toThrow(/bigint/);
    expect(() => canonicalJson(new Date(0))).toThrow(/plain/);
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('agrees with an independent implementation (erdtman/canonicalize) on an agent card', () => {
    const card = {
      name: 'Déjà vu 🤖',
      description: 'quotes " and \\ and \n and \u0001',
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: false },
      skills: [{ id: 'echo', tags: ['b', 'a'], examples: [] }],
      numbers: [0, -0, 1e21, 1e-7, 123.456, -1.5e300],
      supportedInterfaces: [{ url: 'https://x/agents/a/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      nested: { z: null, é: { y: [true, { b: 2, a: 1 }] }, A: 'upper' },
    };
    expect(canonicalJson(card)).toBe(canonicalize(card));
  });
});
