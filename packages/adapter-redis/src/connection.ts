import { AppError } from '@a2a-inbound/errors';
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';

/** The subset of a pino logger the adapters use; pass the service logger, or nothing for silence. */
export interface AdapterLog {
  debug?(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLog: AdapterLog = { warn: () => undefined, error: () => undefined };

export interface RedisConnectOptions {
  /** `redis://[user:pass@]host:port[/db]` */
  readonly url: string;
  /** Connection name shown by CLIENT LIST (helps operators). */
  readonly connectionName?: string;
  readonly log?: AdapterLog;
  /** Extra ioredis options (tests, TLS). */
  readonly redisOptions?: Partial<RedisOptions>;
}

/**
 * One ioredis client with the settings every adapter wants: fail a command after a few reconnect
 * attempts instead of queueing it for minutes (callers see UNAVAILABLE quickly), reconnect forever
 * in the background with a capped backoff, and never print to the console (errors go to `log`).
 */
export async function openRedis(options: RedisConnectOptions): Promise<Redis> {
  const log = options.log ?? silentLog;
  const redis = new Redis(options.url, {
    lazyConnect: true,
    connectTimeout: 5_000,
    maxRetriesPerRequest: 2,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
    ...(options.connectionName ? { connectionName: options.connectionName } : {}),
    ...options.redisOptions,
  });
  attachErrorLog(redis, log, options.connectionName ?? 'redis');
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw unavailable('cannot connect to Redis', err);
  }
  return redis;
}

/** ioredis prints unhandled 'error' events to the console; route them to the logger instead. */
export function attachErrorLog(redis: Redis, log: AdapterLog, name: string): void {
  let last = 0;
  redis.on('error', (err: unknown) => {
    // Reconnect loops emit an error per attempt: log at most one every 5 s per connection.
    const now = Date.now();
    if (now - last < 5_000) return;
    last = now;
    log.warn({ err, connection: name }, 'redis connection error (reconnecting)');
  });
}

export function unavailable(message: string, cause: unknown): AppError {
  return new AppError('UNAVAILABLE', message, { cause });
}

/** Closes politely (QUIT), falling back to a hard disconnect when the server does not answer. */
export async function quitRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    await Promise.race([
      redis.quit(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('quit timeout')), 1_000).unref()),
    ]);
  } catch {
    redis.disconnect();
  }
}

/**
 * Runs a Lua script by SHA, loading it on NOSCRIPT (after a server restart or failover the script
 * cache is empty). Keys are declared so the scripts stay cluster-compatible.
 */
export class LuaScript {
  #loaded: string | undefined;

  constructor(readonly body: string) {}

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number | Buffer)[]): Promise<unknown> {
    if (this.#loaded) {
      try {
        return await redis.evalsha(this.#loaded, keys.length, ...keys, ...args);
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      }
    }
    this.#loaded = (await redis.script('LOAD', this.body)) as string;
    return redis.evalsha(this.#loaded, keys.length, ...keys, ...args);
  }
}
