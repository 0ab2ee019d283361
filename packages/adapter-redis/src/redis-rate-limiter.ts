import { AppError } from '@a2a-inbound/errors';
import type { RateDecision, RateLimiter } from '@a2a-inbound/ports';
import type { Redis } from 'ioredis';
import type { RedisConnectOptions } from './connection';
import { LuaScript, openRedis, quitRedis, unavailable } from './connection';

export interface RedisRateLimiterOptions extends RedisConnectOptions {
  /** Key prefix of the window counters. */
  readonly prefix?: string;
}

/*
 * Fixed window, one atomic script per hit. The window is computed from the Redis server's clock
 * (TIME), so every replica agrees on window boundaries whatever its own clock says. One hash per
 * (key, window length): s = window start, c = hits counted in it. A refused hit is not counted, and a
 * new window resets the count. The key expires when its window ends.
 * Returns {allowed (1/0), count, resetAtMs}.
 */
const HIT = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local start = now - (now % window)
local cur = redis.call('HMGET', KEYS[1], 's', 'c')
local count = 0
if cur[1] and tonumber(cur[1]) == start then count = tonumber(cur[2]) or 0 end
if count >= limit then return {0, count, start + window} end
count = count + 1
redis.call('HSET', KEYS[1], 's', string.format('%d', start), 'c', count)
redis.call('PEXPIREAT', KEYS[1], string.format('%d', start + window))
return {1, count, start + window}
`);

/** Rate limiter port on Redis: correct across replicas because the whole decision is one script. */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #prefix: string;
  #closing: Promise<void> | undefined;

  private constructor(redis: Redis, options: RedisRateLimiterOptions) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'a2a:rl:';
  }

  static async connect(options: RedisRateLimiterOptions): Promise<RedisRateLimiter> {
    const redis = await openRedis({ ...options, connectionName: options.connectionName ?? 'a2a-rate-limiter' });
    return new RedisRateLimiter(redis, options);
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    if (this.#closing) throw new AppError('UNAVAILABLE', 'rate limiter is closed');
    const window = Math.max(1, Math.floor(windowMs));
    let reply: unknown;
    try {
      reply = await HIT.run(
        this.#redis,
        [`${this.#prefix}${window}:${key}`],
        [String(Math.max(0, Math.floor(limit))), String(window)],
      );
    } catch (err) {
      throw unavailable('Redis rate limiter failed', err);
    }
    const [allowed, count, resetAtMs] = reply as [number, number, number];
    return { allowed: allowed === 1, count, limit, resetAtMs };
  }

  close(): Promise<void> {
    this.#closing ??= quitRedis(this.#redis);
    return this.#closing;
  }
}
