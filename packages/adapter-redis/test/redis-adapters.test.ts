import { setMaxListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { LoggedEvent } from '@a2a-inbound/ports';
import { RedisCache, RedisEventLog, RedisRateLimiter } from '../src/index';
import { deleteByPrefix, hasRedisServer, privateRedis, type PrivateRedis } from './helpers';

// Redis-specific behaviour beyond the shared suites; real engine only (REDIS_URL).
const url = process.env.REDIS_URL ?? '';
const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function collect(iter: AsyncIterable<LoggedEvent>, into: LoggedEvent[]): Promise<void> {
  for await (const e of iter) into.push(e);
}

describe.runIf(Boolean(url))('RedisEventLog specifics', () => {
  let log: RedisEventLog;
  let other: RedisEventLog;
  let raw: Redis;
  const prefix = `test:${run}:ev:`;
  beforeAll(async () => {
    // A long re-read period so that only a notification (or an abort) can end a waiting tail's wait quickly.
    log = await RedisEventLog.connect({ url, prefix, rereadMs: 60_000, maxTails: 3 });
    other = await RedisEventLog.connect({ url, prefix });
    raw = new Redis(url);
  });
  afterAll(async () => {
    await log.close();
    await other.close();
    await deleteByPrefix(raw, `test:${run}:`);
    raw.disconnect();
  });

  it('stores one stream per key with entry ids <seq>-1 and exact binary payloads', async () => {
    const bytes = new Uint8Array([0, 255, 10, 13, 0, 1]);
    const view = new Uint8Array([9, 9, ...bytes, 9]).subarray(2, 2 + bytes.length);
    expect(await log.append('bin', 1, view)).toBe(true);
    const entries = await raw.xrange(`${prefix}bin`, '-', '+');
    expect(entries.map(([id]) => id)).toEqual(['1-1']);
    expect(Array.from((await other.read('bin', 0))[0]!.data)).toEqual(Array.from(bytes));
  });

  it('lets exactly one of two replicas append the same seq', async () => {
    const results = await Promise.all([log.append('race', 1, enc('a')), other.append('race', 1, enc('b'))]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await log.last('race')).toBe(1);
  });

  it('reads in bounded batches and a tail replays a backlog longer than one batch', async () => {
    for (let seq = 1; seq <= 1_200; seq++) expect(await log.append('long', seq, enc(String(seq)))).toBe(true);
    expect((await log.read('long', 100, 50)).map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 101 + i));
    const ac = new AbortController();
    const got: LoggedEvent[] = [];
    for await (const e of other.tail('long', 0, ac.signal)) {
      got.push(e);
      if (e.seq === 1_200) ac.abort();
    }
    expect(got.map((e) => e.seq)).toEqual(Array.from({ length: 1_200 }, (_, i) => i + 1));
  }, 20_000);

  it('ends a waiting tail promptly on abort (well before its re-read period)', async () => {
    const ac = new AbortController();
    const got: LoggedEvent[] = [];
    const done = collect(log.tail('idle', 0, ac.signal), got);
    await new Promise((r) => setTimeout(r, 200)); // let it wait
    const aborted = Date.now();
    ac.abort();
    await done;
    expect(Date.now() - aborted).toBeLessThan(1_000);
    expect(got).toEqual([]);
  });

  it('refuses a tail beyond maxTails with UNAVAILABLE and serves again once one ends', async () => {
    const controllers = [new AbortController(), new AbortController(), new AbortController()];
    const tails = controllers.map((ac, i) => collect(log.tail(`cap${i}`, 0, ac.signal), []));
    await new Promise((r) => setTimeout(r, 200));
    expect(log.tailCount).toBe(3);
    const extra = new AbortController();
    await expect(collect(log.tail('cap-extra', 0, extra.signal), [])).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    controllers[0]!.abort();
    await tails[0];
    const got: LoggedEvent[] = [];
    const again = collect(log.tail('cap-again', 0, extra.signal), got);
    await other.append('cap-again', 1, enc('x'));
    await expect.poll(() => got.length, { timeout: 5_000 }).toBe(1);
    extra.abort();
    controllers.forEach((ac) => ac.abort());
    await Promise.all([again, ...tails]);
    expect(log.tailCount).toBe(0);
  });

  it('2,000 live tails of one client share one notification connection and each gets its own events promptly', async () => {
    const name = `shared-${run}`;
    const shared = await RedisEventLog.connect({ url, prefix, connectionName: name, rereadMs: 60_000 });
    const named = async (): Promise<string[]> =>
      ((await raw.client('LIST')) as string).split('\n').filter((line) => line.includes(`name=${name}`));
    const n = 2_000;
    const ac = new AbortController();
    setMaxListeners(n + 10, ac.signal);
    const got = new Map<number, string>();
    const tails = Array.from({ length: n }, async (_, i) => {
      for await (const e of shared.tail(`many-${i}`, 0, ac.signal)) {
        got.set(i, new TextDecoder().decode(e.data));
        return;
      }
    });
    await expect.poll(() => shared.tailCount, { timeout: 10_000 }).toBe(n);
    // The command connection and the notification connection: nothing per tail.
    await expect.poll(async () => (await named()).length, { timeout: 5_000 }).toBe(2);
    const t0 = Date.now();
    for (let i = 0; i < n; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, n - i) }, (_, j) => other.append(`many-${i + j}`, 1, enc(`e${i + j}`))),
      );
    }
    await Promise.all(tails);
    // Woken by notifications, not by the 60 s re-read.
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(got.size).toBe(n);
    expect(got.get(1234)).toBe('e1234');
    ac.abort();
    await shared.close();
    await expect.poll(named, { timeout: 3_000 }).toEqual([]);
  }, 60_000);

  it('a tail survives its notification connection being killed (re-subscribes and re-reads)', async () => {
    const name = `kill-${run}`;
    const killable = await RedisEventLog.connect({ url, prefix, connectionName: name, rereadMs: 60_000 });
    const ac = new AbortController();
    const got: LoggedEvent[] = [];
    const done = collect(killable.tail('killed', 0, ac.signal), got);
    await other.append('killed', 1, enc('one'));
    await expect.poll(() => got.length, { timeout: 5_000 }).toBe(1);
    const clients = (await raw.client('LIST')) as string;
    const ids = clients
      .split('\n')
      .filter((line) => line.includes(`name=${name}-notify `))
      .map((line) => /id=(\d+)/.exec(line)![1]!);
    expect(ids).toHaveLength(1);
    await raw.client('KILL', 'ID', ids[0]!);
    // Appended while the notification connection is away: its notifications are lost, the re-read finds them.
    await other.append('killed', 2, enc('two'));
    await other.append('killed', 3, enc('three'));
    await expect.poll(() => got.map((e) => e.seq), { timeout: 10_000 }).toEqual([1, 2, 3]);
    await other.append('killed', 4, enc('four'));
    await expect.poll(() => got.map((e) => e.seq), { timeout: 5_000 }).toEqual([1, 2, 3, 4]);
    ac.abort();
    await done;
    await killable.close();
  }, 20_000);

  it('a waiting tail re-reads on its own: an entry added without a notification still arrives', async () => {
    const rereading = await RedisEventLog.connect({ url, prefix, rereadMs: 200 });
    const ac = new AbortController();
    const got: LoggedEvent[] = [];
    const done = collect(rereading.tail('silent', 0, ac.signal), got);
    await new Promise((r) => setTimeout(r, 100));
    await raw.xadd(`${prefix}silent`, '1-1', 'd', 'quiet');
    await expect.poll(() => got.map((e) => e.seq), { timeout: 3_000 }).toEqual([1]);
    ac.abort();
    await done;
    await rereading.close();
  });

  it('close() ends tails that are waiting', async () => {
    const closing = await RedisEventLog.connect({ url, prefix, rereadMs: 60_000 });
    const ac = new AbortController();
    const done = collect(closing.tail('closing', 0, ac.signal), []);
    await new Promise((r) => setTimeout(r, 200));
    await closing.close();
    await done;
    await closing.close(); // idempotent
    await expect(closing.append('closing', 1, enc('x'))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('expire drops the whole stream after its TTL', async () => {
    await log.append('ttl', 1, enc('a'));
    await log.expire('ttl', 100);
    expect(await raw.pttl(`${prefix}ttl`)).toBeGreaterThan(0);
    await expect.poll(() => log.last('ttl'), { timeout: 3_000, interval: 50 }).toBe(0);
  });
});

// A restart without persistence, on a private redis-server (restarting the shared engine would disturb
// the suites running beside this one).
describe.runIf(Boolean(url) && hasRedisServer())('RedisEventLog across a Redis restart without persistence', () => {
  let server: PrivateRedis;
  beforeAll(async () => {
    server = await privateRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('tails waiting across the restart resume and get what the writer appends afterwards with the seq it knows', async () => {
    const writer = await RedisEventLog.connect({ url: server.url, prefix: 'r:' });
    const reader = await RedisEventLog.connect({ url: server.url, prefix: 'r:', rereadMs: 60_000 });
    const ac = new AbortController();
    const got: LoggedEvent[][] = [[], [], []];
    const tails = got.map((into, i) => collect(reader.tail(`task-${i}`, 0, ac.signal), into));
    for (let i = 0; i < 3; i++) {
      expect(await writer.append(`task-${i}`, 1, enc('working'))).toBe(true);
      expect(await writer.append(`task-${i}`, 2, enc('chunk'))).toBe(true);
    }
    await expect.poll(() => got.map((g) => g.length), { timeout: 5_000 }).toEqual([2, 2, 2]);

    await server.stop();
    // During the outage appends fail with UNAVAILABLE (the caller retries), tails keep waiting.
    await expect(writer.append('task-0', 3, enc('lost'))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await server.start();

    // The log is empty now: the strict next seq is refused, the seq the store knows is appended past the gap.
    await expect.poll(() => writer.last('task-0').catch(() => -1), { timeout: 10_000 }).toBe(0);
    for (let i = 0; i < 3; i++) {
      expect(await writer.append(`task-${i}`, 3, enc('final'))).toBe(false);
      expect(await writer.append(`task-${i}`, 4, enc('final'), { allowGap: true })).toBe(true);
    }
    await expect
      .poll(() => got.map((g) => g.map((e) => e.seq)), { timeout: 10_000 })
      .toEqual([
        [1, 2, 4],
        [1, 2, 4],
        [1, 2, 4],
      ]);
    ac.abort();
    await Promise.all(tails);
    await writer.close();
    await reader.close();
  }, 40_000);
});

describe.runIf(Boolean(url))('RedisRateLimiter specifics', () => {
  let a: RedisRateLimiter;
  let b: RedisRateLimiter;
  beforeAll(async () => {
    a = await RedisRateLimiter.connect({ url, prefix: `test:${run}:rl:` });
    b = await RedisRateLimiter.connect({ url, prefix: `test:${run}:rl:` });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await a.close();
  });

  it('does not count refused hits and opens a fresh window at resetAtMs', async () => {
    const key = 'window';
    const windowMs = 400;
    let d = await a.hit(key, 2, windowMs);
    // Start at the beginning of a window so the three hits below share it.
    await new Promise((r) => setTimeout(r, Math.max(0, d.resetAtMs - Date.now()) + 20));
    d = await a.hit(key, 2, windowMs);
    expect(d).toMatchObject({ allowed: true, count: 1, limit: 2 });
    expect((await b.hit(key, 2, windowMs)).count).toBe(2);
    const refused = await a.hit(key, 2, windowMs);
    expect(refused).toMatchObject({ allowed: false, count: 2, resetAtMs: d.resetAtMs });
    expect((await b.hit(key, 2, windowMs)).count).toBe(2);
    await new Promise((r) => setTimeout(r, Math.max(0, d.resetAtMs - Date.now()) + 20));
    const fresh = await b.hit(key, 2, windowMs);
    expect(fresh).toMatchObject({ allowed: true, count: 1 });
    expect(fresh.resetAtMs).toBeGreaterThan(d.resetAtMs);
  });

  it('holds the limit under 200 concurrent hits from two clients', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).hit('burst', 37, 60_000)));
    expect(results.filter((r) => r.allowed)).toHaveLength(37);
    expect(Math.max(...results.map((r) => r.count))).toBe(37);
  });
});

describe.runIf(Boolean(url))('RedisCache specifics', () => {
  it('keeps entries under its prefix and treats a non-positive TTL as already expired', async () => {
    const prefix = `test:${run}:cache:`;
    const cache = await RedisCache.connect({ url, prefix });
    const raw = new Redis(url);
    try {
      await cache.set('k', 'v', 60_000);
      expect(await raw.get(`${prefix}k`)).toBe('v');
      expect(await raw.pttl(`${prefix}k`)).toBeGreaterThan(59_000);
      await cache.set('k', 'v2', 0);
      expect(await cache.get('k')).toBeUndefined();
    } finally {
      await cache.close();
      await cache.close();
      raw.disconnect();
    }
    await expect(cache.get('k')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});
