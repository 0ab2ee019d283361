import { describe, expect, it } from 'vitest';
import { InMemoryCache } from '../src/memory/in-memory-cache';

const present = async (cache: InMemoryCache, keys: string[]): Promise<string[]> => {
  const out: string[] = [];
  for (const k of keys) if ((await cache.get(k)) !== undefined) out.push(k);
  return out;
};

describe('InMemoryCache eviction (LRU by entry count)', () => {
  it('evicts the entries never read, oldest first', async () => {
    const cache = new InMemoryCache({ maxEntries: 4 });
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) await cache.set(k, k, 60_000);
    expect(await present(cache, ['a', 'b', 'c', 'd', 'e', 'f'])).toEqual(['c', 'd', 'e', 'f']);
  });

  it('a read moves an entry that sat through half a cache of insertions: it outlives the ones inserted after it', async () => {
    const cache = new InMemoryCache({ maxEntries: 4 });
    for (const k of ['a', 'b', 'c', 'd']) await cache.set(k, k, 60_000);
    expect(await cache.get('a')).toBe('a'); // 4 insertions since `a`: moved to the end
    await cache.set('e', 'e', 60_000); // evicts b, the least recently used
    await cache.set('f', 'f', 60_000); // evicts c
    expect(await present(cache, ['a', 'b', 'c', 'd', 'e', 'f'])).toEqual(['a', 'd', 'e', 'f']);
  });

  it('an entry read at least every maxEntries / 2 insertions is never evicted, however many others come', async () => {
    const cache = new InMemoryCache({ maxEntries: 8 });
    await cache.set('hot', 'v', 60_000);
    for (let i = 0; i < 1_000; i++) {
      await cache.set(`k${i}`, 'x', 60_000);
      if (i % 4 === 0) expect(await cache.get('hot')).toBe('v');
    }
    expect(await cache.get('hot')).toBe('v');
    expect(await cache.get('k0')).toBeUndefined();
    expect(await cache.get('k999')).toBe('x');
  });

  it('expired entries read as missing', async () => {
    let now = 0;
    const cache = new InMemoryCache({ clock: { now: () => now }, maxEntries: 4 });
    await cache.set('a', 'a', 10);
    now = 10;
    expect(await cache.get('a')).toBeUndefined();
  });
});
