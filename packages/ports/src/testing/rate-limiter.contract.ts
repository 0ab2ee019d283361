import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../rate-limiter';

export function describeRateLimiterContract(adapter: string, factory: () => Promise<RateLimiter>): void {
  describe(`RateLimiter contract: ${adapter}`, () => {
    let a: RateLimiter;
    let b: RateLimiter;
    const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    beforeAll(async () => {
      a = await factory();
      b = await factory();
    });
    afterAll(async () => {
      await a.close();
      if (b !== a) await b.close();
    });

    it('allows `limit` hits in a window and refuses the next, across two clients', async () => {
      const key = `rl:${run}:shared`;
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push(await (i % 2 ? a : b).hit(key, 5, 60_000));
      expect(decisions.every((d) => d.allowed)).toBe(true);
      const sixth = await a.hit(key, 5, 60_000);
      expect(sixth.allowed).toBe(false);
      expect(sixth.limit).toBe(5);
      expect(sixth.resetAtMs).toBeGreaterThan(Date.now() - 1000);
    });

    it('counts concurrent hits atomically', async () => {
      const key = `rl:${run}:concurrent`;
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).hit(key, 10, 60_000)));
      expect(results.filter((r) => r.allowed)).toHaveLength(10);
    });

    it('keeps keys apart', async () => {
      expect((await a.hit(`rl:${run}:k1`, 1, 60_000)).allowed).toBe(true);
      expect((await a.hit(`rl:${run}:k2`, 1, 60_000)).allowed).toBe(true);
      expect((await a.hit(`rl:${run}:k1`, 1, 60_000)).allowed).toBe(false);
    });
  });
}
