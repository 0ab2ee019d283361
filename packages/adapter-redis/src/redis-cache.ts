import { AppError } from '@a2a-inbound/errors';
import type { Cache } from '@a2a-inbound/ports';
import type { Redis } from 'ioredis';
import type { RedisConnectOptions } from './connection';
import { openRedis, quitRedis, unavailable } from './connection';

export interface RedisCacheOptions extends RedisConnectOptions {
  /** Prefix of every cache key (one namespace per deployment or purpose). */
  readonly prefix?: string;
}

/**
 * Cache port on Redis: GET / SET PX (NX) / DEL under a prefix. The cache is shared by every replica, so
 * `delete` is the invalidation all of them see at once (no per-replica copies to fan out to).
 * Memory is bounded by Redis itself (TTL on every key; `maxmemory` + an eviction policy in production).
 */
export class RedisCache implements Cache {
  readonly #redis: Redis;
  readonly #prefix: string;
  #closing: Promise<void> | undefined;

  private constructor(redis: Redis, options: RedisCacheOptions) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'a2a:cache:';
  }

  static async connect(options: RedisCacheOptions): Promise<RedisCache> {
    const redis = await openRedis({ ...options, connectionName: options.connectionName ?? 'a2a-cache' });
    return new RedisCache(redis, options);
  }

  async get(key: string): Promise<string | undefined> {
    const value = await this.#call(() => this.#redis.get(this.#prefix + key));
    return value ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const ttl = Math.floor(ttlMs);
    if (ttl <= 0) {
      // Already expired: same as the in-memory twin, the entry is not readable.
      await this.delete(key);
      return;
    }
    await this.#call(() => this.#redis.set(this.#prefix + key, value, 'PX', ttl));
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const ttl = Math.max(1, Math.floor(ttlMs));
    return (await this.#call(() => this.#redis.set(this.#prefix + key, value, 'PX', ttl, 'NX'))) === 'OK';
  }

  async delete(key: string): Promise<void> {
    await this.#call(() => this.#redis.del(this.#prefix + key));
  }

  close(): Promise<void> {
    this.#closing ??= quitRedis(this.#redis);
    return this.#closing;
  }

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closing) throw new AppError('UNAVAILABLE', 'cache is closed');
    try {
      return await fn();
    } catch (err) {
      throw unavailable('Redis cache command failed', err);
    }
  }
}
