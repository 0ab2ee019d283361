import { describe, expect, it } from 'vitest';
import { decodeDoc, decodeKey, encodeDoc, encodeKey } from '../src/key-codec';

describe('key codec (no engine)', () => {
  it('round-trips keys with ".", "$", "%", NUL and the empty key', () => {
    for (const key of [
      'a.b',
      '$x',
      '$',
      '.',
      '%',
      '%2E',
      '%25',
      'a%2Eb',
      '',
      'plain',
      'x$y',
      'nul\u0000in',
      '%%',
      'ünï.cödé$',
    ]) {
      const encoded = encodeKey(key);
      expect(encoded).not.toMatch(/[.\u0000]/);
      expect(encoded.startsWith('$')).toBe(false);
      expect(encoded).not.toBe('');
      expect(decodeKey(encoded)).toBe(key);
    }
  });

  it('keeps ordinary keys unchanged (readable in the database, queryable as is)', () => {
    expect(encodeKey('tenant')).toBe('tenant');
    expect(encodeDoc({ tenant: 't', n: 1 })).toEqual({ tenant: 't', n: 1 });
  });

  it('never maps two different keys to one encoding', () => {
    const keys = ['a.b', 'a%2Eb', 'a%252Eb', '$a', '%24a', '', '%'];
    expect(new Set(keys.map(encodeKey)).size).toBe(keys.length);
  });

  it('round-trips nested documents and arrays, with JSON semantics for undefined', () => {
    const doc = { 'a.b': 1, $x: { $y: 2, 'k.': [{ '.': null }, [1, { $: true }]] }, plain: 'v', '': 'empty' };
    const encoded = encodeDoc(doc) as Record<string, unknown>;
    expect(Object.keys(encoded).sort()).toEqual(['%', '%24x', 'a%2Eb', 'plain']);
    expect(decodeDoc(encoded)).toEqual(doc);
    expect(encodeDoc({ a: undefined, b: [undefined, 1] })).toEqual({ b: [null, 1] });
  });

  it('wraps an array held in an array, and never mistakes user data for the wrapper', () => {
    const doc = { args: [[{ lit: '/v1' }], [], [[1]]], user: { '%a': [1] }, userList: [{ '%a': [2] }] };
    const encoded = encodeDoc(doc) as { args: unknown[] };
    expect(encoded.args.every((a) => !Array.isArray(a))).toBe(true);
    expect(decodeDoc(encoded)).toEqual(doc);
  });

  it('keeps a "__proto__" key as data, never as a prototype', () => {
    const doc = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    const back = decodeDoc(encodeDoc(doc)) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(back, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect((back as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(back)).toBe(JSON.stringify(doc));
  });
});
