import { describe, expect, it } from 'vitest';
import { ConfigError, EnvReader } from '../src/index';

describe('EnvReader', () => {
  it('reports every problem together', () => {
    const r = new EnvReader({ PORT: 'abc', FLAG: 'maybe', MODE: 'x' });
    r.int('PORT', 8080);
    r.bool('FLAG', false);
    r.oneOf('MODE', ['a', 'b'], 'a');
    r.string('REQUIRED');
    expect(() => r.done()).toThrow(ConfigError);
    try {
      r.done();
    } catch (err) {
      expect((err as ConfigError).problems).toHaveLength(4);
    }
  });

  it('uses fallbacks and parses values', () => {
    const r = new EnvReader({ PORT: '9000', FLAG: 'true', LIST: 'a, b,,c' });
    expect(r.int('PORT', 8080, { min: 0, max: 65535 })).toBe(9000);
    expect(r.int('OTHER', 7)).toBe(7);
    expect(r.bool('FLAG', false)).toBe(true);
    expect(r.list('LIST', [])).toEqual(['a', 'b', 'c']);
    expect(() => r.done()).not.toThrow();
  });
});
