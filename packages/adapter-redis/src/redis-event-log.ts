import { AppError } from '@a2a-inbound/errors';
import type { EventLog, LoggedEvent } from '@a2a-inbound/ports';
import type { Redis } from 'ioredis';
import type { AdapterLog, RedisConnectOptions } from './connection';
import { LuaScript, attachErrorLog, openRedis, quitRedis, silentLog, unavailable } from './connection';

export interface RedisEventLogOptions extends RedisConnectOptions {
  /** Key prefix of the per-task streams. */
  readonly prefix?: string;
  /** Appends beyond this many events in one stream fail with UNAVAILABLE (like the in-memory twin). */
  readonly maxEventsPerStream?: number;
  /** Concurrent live tails (each holds one blocking connection); one more fails with UNAVAILABLE. */
  readonly maxTails?: number;
  /** Blocking connections kept open for reuse after a tail ends. */
  readonly maxIdleTailConnections?: number;
  /** XREAD BLOCK timeout: how often a waiting tail wakes up on its own. */
  readonly blockMs?: number;
  /** Events per XRANGE / XREAD round trip. */
  readonly batchSize?: number;
}

/*
 * Appends `seq` only when it is exactly last + 1, atomically. Entry ids are explicit `<seq>-1`, so the
 * stream's own id order is the sequence order and XRANGE/XREAD can start after any seq.
 * Returns 1 appended, 0 refused (duplicate or gap), -1 stream full.
 */
const APPEND = new LuaScript(`
local seq = tonumber(ARGV[1])
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local last = 0
if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)-')) end
if seq ~= last + 1 then return 0 end
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('XADD', KEYS[1], ARGV[1] .. '-1', 'd', ARGV[2])
return 1
`);

interface TailConnection {
  readonly redis: Redis;
  /** CLIENT ID, refreshed on every reconnect, for CLIENT UNBLOCK. */
  id: number | undefined;
  /** Set when an abort is ending a blocked read: resolves true when the connection stayed usable. */
  unblock?: Promise<boolean>;
}

type StreamEntry = [id: Buffer, fields: Buffer[]];

function seqOf(id: Buffer | string): number {
  const s = typeof id === 'string' ? id : id.toString('latin1');
  return Number(s.slice(0, s.indexOf('-')));
}

function toEvent(entry: StreamEntry): LoggedEvent {
  const [id, fields] = entry;
  let data: Buffer | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i]!.toString('latin1') === 'd') data = fields[i + 1];
  }
  // Copy out of ioredis' reply buffer into a plain Uint8Array of our own.
  return { seq: seqOf(id), data: new Uint8Array(data ?? new Uint8Array(0)) };
}

/**
 * Event log port on Redis Streams: one stream per task (`<prefix><stream>`), entry id `<seq>-1`, a Lua
 * script for the "exactly last + 1" append, XRANGE for replay and XREAD BLOCK on a dedicated connection
 * per live tail. See docs/adr/0004-event-log-redis-streams.md.
 */
export class RedisEventLog implements EventLog {
  readonly #redis: Redis;
  readonly #log: AdapterLog;
  readonly #prefix: string;
  readonly #maxEvents: number;
  readonly #maxTails: number;
  readonly #maxIdle: number;
  readonly #blockMs: number;
  readonly #batch: number;
  readonly #tailName: string;
  readonly #idle: TailConnection[] = [];
  readonly #active = new Set<TailConnection>();
  #opening = 0;
  #closed = false;
  #closing: Promise<void> | undefined;

  private constructor(redis: Redis, options: RedisEventLogOptions) {
    this.#redis = redis;
    this.#log = options.log ?? silentLog;
    this.#prefix = options.prefix ?? 'a2a:ev:';
    this.#maxEvents = options.maxEventsPerStream ?? 10_000;
    this.#maxTails = options.maxTails ?? 512;
    this.#maxIdle = options.maxIdleTailConnections ?? 8;
    this.#blockMs = options.blockMs ?? 5_000;
    this.#batch = options.batchSize ?? 500;
    this.#tailName = `${options.connectionName ?? 'a2a-event-log'}-tail`;
  }

  static async connect(options: RedisEventLogOptions): Promise<RedisEventLog> {
    const redis = await openRedis({ ...options, connectionName: options.connectionName ?? 'a2a-event-log' });
    return new RedisEventLog(redis, options);
  }

  #key(stream: string): string {
    return this.#prefix + stream;
  }

  async append(stream: string, seq: number, data: Uint8Array): Promise<boolean> {
    this.#assertOpen();
    if (!Number.isSafeInteger(seq) || seq < 1) return false;
    const result = await this.#call(() =>
      APPEND.run(
        this.#redis,
        [this.#key(stream)],
        [String(seq), Buffer.from(data.buffer, data.byteOffset, data.byteLength), String(this.#maxEvents)],
      ),
    );
    if (result === -1) throw new AppError('UNAVAILABLE', `event log stream ${stream} is full`);
    return result === 1;
  }

  async read(stream: string, afterSeq: number, limit = 1000): Promise<LoggedEvent[]> {
    this.#assertOpen();
    if (limit <= 0) return [];
    const start = afterSeq >= 1 ? `(${Math.floor(afterSeq)}-1` : '-';
    const entries = (await this.#call(() =>
      this.#redis.xrangeBuffer(this.#key(stream), start, '+', 'COUNT', limit),
    )) as StreamEntry[];
    return entries.map(toEvent);
  }

  async last(stream: string): Promise<number> {
    this.#assertOpen();
    const top = await this.#call(() => this.#redis.xrevrange(this.#key(stream), '+', '-', 'COUNT', 1));
    const first = top[0];
    return first ? seqOf(first[0]) : 0;
  }

  async *tail(stream: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    if (signal.aborted || this.#closed) return;
    // Take the blocking connection first: when the cap is reached the caller learns it before any event.
    let conn = await this.#acquire();
    let reusable = true;
    try {
      let cursor = Math.max(0, Math.floor(afterSeq));
      // Replay on the shared connection (no blocking needed while there is a backlog).
      for (;;) {
        let batch: LoggedEvent[];
        try {
          batch = await this.read(stream, cursor, this.#batch);
        } catch (err) {
          if (this.#closed) return; // closing ends tails quietly, like the in-memory twin
          throw err;
        }
        for (const e of batch) {
          cursor = e.seq;
          yield e;
          if (signal.aborted) return;
        }
        if (batch.length < this.#batch || signal.aborted || this.#closed) break;
      }
      let failures = 0;
      while (!signal.aborted && !this.#closed) {
        let entries: StreamEntry[];
        try {
          if (conn.redis.status === 'end') {
            // Dropped for good (not by an abort): take a fresh connection; the cursor makes it seamless.
            this.#release(conn, false);
            reusable = true;
            conn = await this.#acquire();
          }
          entries = await this.#blockingRead(conn, this.#key(stream), cursor, signal);
          failures = 0;
        } catch (err) {
          if (signal.aborted || this.#closed) return;
          reusable = false;
          failures += 1;
          this.#log.warn({ err, stream }, 'event log tail: blocking read failed, retrying');
          await sleep(Math.min(100 * 2 ** failures, 2_000), signal);
          continue;
        }
        for (const entry of entries) {
          const e = toEvent(entry);
          cursor = e.seq;
          yield e;
          if (signal.aborted) return;
        }
      }
    } finally {
      this.#release(conn, reusable);
    }
  }

  async #blockingRead(conn: TailConnection, key: string, cursor: number, signal: AbortSignal): Promise<StreamEntry[]> {
    const onAbort = (): void => {
      conn.unblock ??= this.#unblock(conn);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      if (signal.aborted) return [];
      const reply = await conn.redis.xreadBuffer(
        'COUNT',
        this.#batch,
        'BLOCK',
        this.#blockMs,
        'STREAMS',
        key,
        `${cursor}-1`,
      );
      if (!reply) return []; // timed out (or unblocked): the loop re-checks the signal
      return reply.flatMap(([, entries]) => entries as StreamEntry[]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Ends a blocked XREAD now: CLIENT UNBLOCK when the command is blocked, else drop the connection. */
  async #unblock(conn: TailConnection): Promise<boolean> {
    try {
      if (conn.id !== undefined && (await this.#redis.client('UNBLOCK', conn.id)) === 1) return true;
    } catch {
      // fall through to the hard way
    }
    // Not (yet) blocked, or the id is stale: disconnecting rejects whatever is pending on it.
    conn.redis.disconnect();
    return false;
  }

  async #acquire(): Promise<TailConnection> {
    while (this.#idle.length > 0) {
      const conn = this.#idle.pop()!;
      if (conn.redis.status === 'ready') {
        this.#active.add(conn);
        return conn;
      }
      conn.redis.disconnect();
    }
    if (this.#active.size + this.#opening >= this.#maxTails) {
      throw new AppError('UNAVAILABLE', `too many concurrent event log tails (${this.#maxTails})`);
    }
    this.#opening += 1;
    try {
      const redis = this.#redis.duplicate({
        lazyConnect: true,
        enableAutoPipelining: false,
        connectionName: this.#tailName,
      });
      attachErrorLog(redis, this.#log, this.#tailName);
      const conn: TailConnection = { redis, id: undefined };
      // The id changes on every reconnect; UNBLOCK needs the current one.
      redis.on('ready', () => {
        conn.id = undefined;
        redis.client('ID').then(
          (id) => {
            conn.id = Number(id);
          },
          () => undefined,
        );
      });
      try {
        await redis.connect();
        conn.id = Number(await redis.client('ID'));
      } catch (err) {
        redis.disconnect();
        throw unavailable('cannot open a Redis connection for an event log tail', err);
      }
      if (this.#closed) {
        redis.disconnect();
        throw new AppError('UNAVAILABLE', 'event log is closed');
      }
      this.#active.add(conn);
      return conn;
    } finally {
      this.#opening -= 1;
    }
  }

  #release(conn: TailConnection, reusable: boolean): void {
    this.#active.delete(conn);
    if (conn.unblock) {
      // Pool it only once the UNBLOCK has answered, so it can never hit the connection's next user.
      const pending = conn.unblock;
      delete conn.unblock;
      void pending.then((ok) => this.#release(conn, reusable && ok));
      return;
    }
    if (reusable && !this.#closed && conn.redis.status === 'ready' && this.#idle.length < this.#maxIdle) {
      this.#idle.push(conn);
    } else {
      conn.redis.disconnect();
    }
  }

  async expire(stream: string, ttlMs: number): Promise<void> {
    this.#assertOpen();
    await this.#call(() => this.#redis.pexpire(this.#key(stream), Math.max(0, Math.floor(ttlMs))));
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    await this.#call(() => this.#redis.ping());
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      // Blocked tails see their connection drop and end (they check #closed).
      for (const conn of [...this.#active, ...this.#idle.splice(0)]) conn.redis.disconnect();
      this.#active.clear();
      await quitRedis(this.#redis);
    })();
    return this.#closing;
  }

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw unavailable('Redis command failed', err);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'event log is closed');
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
