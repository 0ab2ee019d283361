import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../cache';

export function describeCacheContract(adapter: string, factory: () => Promise<Cache>): void {
  describe(`Cache contract: ${adapter}`, () => {
    let a: Cache;
    let b: Cache;
    const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    beforeAll(async () => {
      a = await factory();
      b = await factory();
    });
    afterAll(async () => {
      await a.close();
      if (b !== a) await b.close();
    });

    it('returns what was set until it is deleted, for every client', async () => {
      const key = `c:${run}:1`;
      expect(await a.get(key)).toBeUndefined();
      await a.set(key, 'v1', 60_000);
      expect(await b.get(key)).toBe('v1');
      await b.delete(key);
      expect(await a.get(key)).toBeUndefined();
    });

    it('sets a key only when it holds no value: of two clients racing, one does; an expired value counts as none', async () => {
      const key = `c:${run}:nx`;
      const took = await Promise.all([a.setIfAbsent(key, 'a', 60_000), b.setIfAbsent(key, 'b', 60_000)]);
      expect(took.filter(Boolean)).toHaveLength(1);
      expect(await a.get(key)).toBe(took[0] ? 'a' : 'b');
      const short = `c:${run}:nx-ttl`;
      expect(await a.setIfAbsent(short, 'old', 50)).toBe(true);
      await new Promise((r) => setTimeout(r, 120));
      expect(await b.setIfAbsent(short, 'new', 60_000)).toBe(true);
      expect(await a.get(short)).toBe('new');
      await a.delete(key);
      await a.delete(short);
    });

    it('expires entries after their TTL', async () => {
      const key = `c:${run}:ttl`;
      await a.set(key, 'short', 50);
      await new Promise((r) => setTimeout(r, 120));
      expect(await a.get(key)).toBeUndefined();
    });
  });
}
