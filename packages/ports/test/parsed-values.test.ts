import { describe, expect, it } from 'vitest';
import { ParsedValues } from '../src/index';

describe('ParsedValues (cache entries parsed once, shared read-only)', () => {
  it('parses a cached string once and hands out the same frozen value while the entry stays the same', () => {
    let parses = 0;
    const values = new ParsedValues((raw) => {
      parses += 1;
      return JSON.parse(raw) as { a: { b: number[] } };
    });
    const first = values.get('k', '{"a":{"b":[1]}}');
    // An equal string (as a networked cache returns: a new instance each time) is the same entry.
    expect(values.get('k', ['{"a":', '{"b":[1]}}'].join(''))).toBe(first);
    expect(parses).toBe(1);
    expect(Object.isFrozen(first.a.b)).toBe(true);
    expect(() => first.a.b.push(2)).toThrow(TypeError);
    // A changed entry (the cache was invalidated and refilled) is parsed anew.
    expect(values.get('k', '{"a":{"b":[2]}}').a.b).toEqual([2]);
    expect(parses).toBe(2);
  });

  it('stays bounded: when full, it starts over', () => {
    let parses = 0;
    const values = new ParsedValues((raw) => (parses++, { raw }), 2);
    values.get('a', '1');
    values.get('b', '2');
    values.get('c', '3'); // full: emptied, then c kept
    values.get('c', '3');
    expect(parses).toBe(3);
    values.get('a', '1');
    expect(parses).toBe(4);
  });
});
