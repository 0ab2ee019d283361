import { describe, expect, it } from 'vitest';
import { key, slowElement, str, strs, valueElement } from '../src/keys';

describe('LMDB keys', () => {
  it('the one-allocation path encodes exactly as the escaping one', () => {
    const samples = [
      '',
      'a',
      'sub:demo-subscription:7',
      'tâche-é-漢字-😀',
      'x'.repeat(85),
      'x'.repeat(86),
      'é'.repeat(100),
      'nul\u0000inside',
      'one\u0001inside',
      '\u0002\u00ff\u0100',
    ];
    for (let i = 0; i < 200; i++)
      samples.push(String.fromCharCode(...Array.from({ length: i % 90 }, (_, j) => ((i * 31 + j * 7) % 300) + 1)));
    for (const s of samples) {
      expect(str(s).equals(slowElement('s', s))).toBe(true);
      expect(valueElement(s).equals(slowElement('s', s))).toBe(true);
    }
    expect(valueElement(12.5).equals(slowElement('n', '12.5'))).toBe(true);
    expect(valueElement(null).equals(slowElement('z', ''))).toBe(true);
    // A long value is keyed by its hash: its tag is upper case, so it never equals a short one.
    expect(str('y'.repeat(300))[0]).toBe('S'.charCodeAt(0));
    expect(str('nul\u0000').includes(0x00)).toBe(true); // the terminator only
    expect(str('nul\u0000').indexOf(0x00)).toBe(str('nul\u0000').length - 1);
  });
});

describe('LMDB keys of several strings', () => {
  it('strs(a, b) is key(str(a), str(b)), also when one needs escaping or hashing', () => {
    for (const [a, b] of [
      ['tasks', '4050512a-4a06-48f9-8762-9f22d1710a42'],
      ['credit_buckets', 'sub:7'],
      ['tasks', 'nul\u0000id'],
      ['t', 'z'.repeat(400)],
      ['', ''],
    ])
      expect(strs(a!, b!).equals(key(str(a!), str(b!)))).toBe(true);
  });
});
