import { AppError } from '@a2a-inbound/errors';
import { consecutiveSeqs, type AppendOptions, type EventLog, type LoggedEvent } from '@a2a-inbound/ports';
import type { Redis } from 'ioredis';
import type { AdapterLog, RedisConnectOptions } from './connection';
import { LuaScript, attachErrorLog, openRedis, quitRedis, silentLog, unavailable } from './connection';

export interface RedisEventLogOptions extends RedisConnectOptions {
  /** Key prefix of the per-task streams (also names the append notification channel). */
  readonly prefix?: string;
  /** Appends beyond this many events in one stream fail with UNAVAILABLE (like the in-memory twin). */
  readonly maxEventsPerStream?: number;
  /**
   * Live tails of this client at once; one more fails with UNAVAILABLE. A tail costs a map entry and a
   * timer, no connection: this bounds memory, the service puts its own (lower) cap in front.
   */
  readonly maxTails?: number;
  /** A waiting tail re-reads its stream this often even without a notification (a lost notification heals). */
  readonly rereadMs?: number;
  /** Events per XRANGE round trip. */
  readonly batchSize?: number;
  /** Told of every Redis command the log sends (`evalsha`, `xrange`, ...): the bench counts them per send. */
  readonly onOperation?: (command: string) => void;
}

/*
 * Appends consecutive seqs (ARGV[6] is the first, ARGV[7..] the data; one event is a batch of one) atomically,
 * announcing them on the notification channel ARGV[3] as "<last seq> <stream>" so waiting tails of every
 * process read at once. Entry ids are explicit `<seq>-1`, so the stream's own id order is the sequence order
 * and XRANGE can start after any seq. The ones at or below last are skipped (a redelivery), the rest are
 * appended when the first of them is last + 1 (with ARGV[2] = '1', anything above last), or none are.
 * When it appended and ARGV[5] is not empty, the stream expires ARGV[5] ms later (the retention of a final batch).
 * Returns how many were appended, 0 refused, -1 stream full.
 */
const APPEND_BATCH = new LuaScript(`
local first = tonumber(ARGV[6])
local n = #ARGV - 6
local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local last = 0
if #top > 0 then last = tonumber(string.match(top[1][1], '^(%d+)-')) end
local skip = 0
if first <= last then skip = last - first + 1 end
if skip >= n then return 0 end
if ARGV[2] ~= '1' and first + skip ~= last + 1 then return 0 end
if redis.call('XLEN', KEYS[1]) + n - skip > tonumber(ARGV[1]) then return -1 end
for i = skip + 1, n do
  redis.call('XADD', KEYS[1], tostring(first + i - 1) .. '-1', 'd', ARGV[6 + i])
end
if ARGV[5] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
redis.call('PUBLISH', ARGV[3], tostring(first + n - 1) .. ' ' .. ARGV[4])
return n - skip
`);

/** One waiting tail: `dirty` says an append was announced since its last read; `wake` ends its wait. */
interface Waiter {
  dirty: boolean;
  wake: (() => void) | undefined;
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
 * script for the "exactly last + 1" append that also publishes a notification, XRANGE for replay and for
 * live reads. Live tails share one subscriber connection per client: a notification wakes the waiters of
 * its stream, which read on the shared command connection. See docs/adr/0014-event-log-tails-and-rebuild.md.
 */
export class RedisEventLog implements EventLog {
  readonly #redis: Redis;
  readonly #log: AdapterLog;
  readonly #prefix: string;
  readonly #channel: string;
  readonly #maxEvents: number;
  readonly #maxTails: number;
  readonly #rereadMs: number;
  readonly #batch: number;
  readonly #notifyName: string;
  readonly #onOperation: ((command: string) => void) | undefined;
  readonly #waiters = new Map<string, Set<Waiter>>();
  #tails = 0;
  #sub: Redis | undefined;
  #subscribed: Promise<void> | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;

  private constructor(redis: Redis, options: RedisEventLogOptions) {
    this.#redis = redis;
    this.#log = options.log ?? silentLog;
    this.#prefix = options.prefix ?? 'a2a:ev:';
    this.#channel = `${this.#prefix}appended`;
    this.#maxEvents = options.maxEventsPerStream ?? 10_000;
    this.#maxTails = options.maxTails ?? 100_000;
    this.#rereadMs = options.rereadMs ?? 30_000;
    this.#batch = options.batchSize ?? 500;
    this.#notifyName = `${options.connectionName ?? 'a2a-event-log'}-notify`;
    this.#onOperation = options.onOperation;
  }

  static async connect(options: RedisEventLogOptions): Promise<RedisEventLog> {
    const redis = await openRedis({ ...options, connectionName: options.connectionName ?? 'a2a-event-log' });
    return new RedisEventLog(redis, options);
  }

  #key(stream: string): string {
    return this.#prefix + stream;
  }

  /** Live tails of this client now (operators and tests). */
  get tailCount(): number {
    return this.#tails;
  }

  async append(stream: string, seq: number, data: Uint8Array, options: AppendOptions = {}): Promise<boolean> {
    return (await this.appendBatch(stream, [{ seq, data }], options)) > 0;
  }

  async appendBatch(stream: string, events: readonly LoggedEvent[], options: AppendOptions = {}): Promise<number> {
    this.#assertOpen();
    if (events.length === 0 || !consecutiveSeqs(events)) return 0;
    const result = await this.#call('evalsha', () =>
      APPEND_BATCH.run(
        this.#redis,
        [this.#key(stream)],
        [
          String(this.#maxEvents),
          options.allowGap ? '1' : '0',
          this.#channel,
          stream,
          options.expireAfterMs === undefined ? '' : String(Math.max(0, Math.floor(options.expireAfterMs))),
          String(events[0]!.seq),
          ...events.map((e) => Buffer.from(e.data.buffer, e.data.byteOffset, e.data.byteLength)),
        ],
      ),
    );
    if (result === -1) throw new AppError('UNAVAILABLE', `event log stream ${stream} is full`);
    return Number(result);
  }

  async read(stream: string, afterSeq: number, limit = 1000): Promise<LoggedEvent[]> {
    this.#assertOpen();
    if (limit <= 0) return [];
    const start = afterSeq >= 1 ? `(${Math.floor(afterSeq)}-1` : '-';
    const entries = (await this.#call('xrange', () =>
      this.#redis.xrangeBuffer(this.#key(stream), start, '+', 'COUNT', limit),
    )) as StreamEntry[];
    return entries.map(toEvent);
  }

  async last(stream: string): Promise<number> {
    this.#assertOpen();
    const top = await this.#call('xrevrange', () => this.#redis.xrevrange(this.#key(stream), '+', '-', 'COUNT', 1));
    const first = top[0];
    return first ? seqOf(first[0]) : 0;
  }

  async *tail(stream: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    if (signal.aborted || this.#closed) return;
    // Refuse before any event is yielded: the caller learns it while it can still answer an error.
    if (this.#tails >= this.#maxTails) {
      throw new AppError('UNAVAILABLE', `too many concurrent event log tails (${this.#maxTails})`);
    }
    this.#tails += 1;
    const waiter: Waiter = { dirty: false, wake: undefined };
    let set = this.#waiters.get(stream);
    if (!set) this.#waiters.set(stream, (set = new Set()));
    set.add(waiter);
    try {
      // Registered and subscribed before the first read: no append can fall between the read and the wait.
      await this.#subscribe();
      let cursor = Math.max(0, Math.floor(afterSeq));
      let failures = 0;
      while (!signal.aborted && !this.#closed) {
        waiter.dirty = false;
        let batch: LoggedEvent[];
        try {
          batch = await this.read(stream, cursor, this.#batch);
          failures = 0;
        } catch (err) {
          if (signal.aborted || this.#closed) return; // closing ends tails quietly, like the in-memory twin
          failures += 1;
          if (failures === 1) this.#log.warn({ err, stream }, 'event log tail: read failed, retrying');
          await this.#wait(waiter, signal, Math.min(100 * 2 ** failures, 2_000));
          continue;
        }
        for (const e of batch) {
          cursor = e.seq;
          yield e;
          if (signal.aborted) return;
        }
        if (batch.length >= this.#batch || waiter.dirty) continue;
        await this.#wait(waiter, signal, this.#rereadMs);
      }
    } finally {
      set.delete(waiter);
      if (set.size === 0 && this.#waiters.get(stream) === set) this.#waiters.delete(stream);
      this.#tails -= 1;
    }
  }

  /** Resolves on a notification for the waiter's stream, on abort, on close, or after `ms`. */
  #wait(waiter: Waiter, signal: AbortSignal, ms: number): Promise<void> {
    if (waiter.dirty || signal.aborted || this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        waiter.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      waiter.wake = done;
    });
  }

  #notify(stream: string): void {
    const set = this.#waiters.get(stream);
    if (!set) return;
    for (const w of set) {
      w.dirty = true;
      w.wake?.();
    }
  }

  #wakeAll(): void {
    for (const set of this.#waiters.values()) {
      for (const w of set) {
        w.dirty = true;
        w.wake?.();
      }
    }
  }

  /**
   * One subscriber connection per client for every tail. ioredis re-subscribes after a reconnect; the
   * notifications sent while it was away are lost, so every waiter re-reads once it is subscribed again.
   */
  #subscribe(): Promise<void> {
    this.#subscribed ??= (async () => {
      const sub = this.#redis.duplicate({
        lazyConnect: true,
        enableAutoPipelining: false,
        connectionName: this.#notifyName,
      });
      attachErrorLog(sub, this.#log, this.#notifyName);
      sub.on('message', (_channel: string, message: string) => {
        const space = message.indexOf(' ');
        if (space > 0) this.#notify(message.slice(space + 1));
      });
      let first = true;
      sub.on('ready', () => {
        if (first) return;
        // 'ready' comes before ioredis re-sends SUBSCRIBE: a PING queued after it answers once it is active.
        setImmediate(() => {
          sub.ping().then(
            () => this.#wakeAll(),
            () => this.#wakeAll(),
          );
        });
      });
      try {
        await sub.connect();
        await sub.subscribe(this.#channel);
        first = false;
      } catch (err) {
        sub.disconnect();
        this.#subscribed = undefined;
        throw unavailable('cannot subscribe to event log notifications', err);
      }
      if (this.#closed) {
        sub.disconnect();
        throw new AppError('UNAVAILABLE', 'event log is closed');
      }
      this.#sub = sub;
    })();
    return this.#subscribed;
  }

  async expire(stream: string, ttlMs: number): Promise<void> {
    this.#assertOpen();
    await this.#call('pexpire', () => this.#redis.pexpire(this.#key(stream), Math.max(0, Math.floor(ttlMs))));
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    await this.#call('ping', () => this.#redis.ping());
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      // Waiting tails wake up, see #closed and end.
      this.#wakeAll();
      this.#sub?.disconnect();
      await quitRedis(this.#redis);
    })();
    return this.#closing;
  }

  async #call<T>(command: string, fn: () => Promise<T>): Promise<T> {
    this.#onOperation?.(command);
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
