import { AppError } from '@a2a-inbound/errors';
import {
  consecutiveSeqs,
  systemClock,
  type AppendOptions,
  type Clock,
  type EventLog,
  type LoggedEvent,
} from '@a2a-inbound/ports';
import { key, num, rangeEnd, str } from './keys';
import { LmdbDatabase } from './lmdb-database';

interface StreamMeta {
  last: number;
  exp?: number;
}

/** How many streams' records the read path keeps in memory (the recent ones: tails and blocking sends read them). */
const META_CACHE_SIZE = 10_000;
/** Stream records the retention sweep reads per turn of the event loop. */
const SWEEP_PAGE = 1_000;
const ZERO = Buffer.from([0]);

export interface LmdbEventLogOptions {
  readonly clock?: Clock;
  /** How often streams past their retention are deleted (default 60 s). */
  readonly sweepIntervalMs?: number;
}

/**
 * The event log port on LMDB: one process owns the data directory (the embedded mode), so live tails are woken
 * in-process after each commit, and a stream outlives the process (a client resumes by Last-Event-ID after
 * a restart).
 */
export class LmdbEventLog implements EventLog {
  readonly #release: () => Promise<void>;
  readonly #clock: Clock;
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #closeWaiters = new Set<() => void>();
  /**
   * Stream records as committed (null: no stream), for the reads outside a write: a tail checks its stream's
   * record on every wake, a read before each range. Set from the database on a miss and after each write
   * commits (from what it wrote, in commit order); writes read the database itself. Only this process writes
   * the event log (the data directory's lock), so nothing else makes an entry stale.
   */
  readonly #metas = new Map<string, StreamMeta | null>();
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;
  #tails = 0;

  constructor(
    private readonly db: LmdbDatabase,
    options: LmdbEventLogOptions = {},
  ) {
    this.#release = db.acquire();
    this.#clock = options.clock ?? systemClock;
    this.#sweeper = setInterval(() => {
      this.sweepExpired().catch(() => undefined); // the next round tries again
    }, options.sweepIntervalMs ?? 60_000);
    this.#sweeper.unref();
  }

  #meta(stream: string): StreamMeta | undefined {
    let meta = this.#metas.get(stream);
    if (meta === undefined) {
      const raw = this.db.streams.get(str(stream));
      meta = raw === undefined ? null : (JSON.parse(raw) as StreamMeta);
      this.#remember(stream, meta);
    }
    if (meta === null) return undefined;
    return meta.exp !== undefined && meta.exp <= this.#clock.now() ? undefined : meta;
  }

  #remember(stream: string, meta: StreamMeta | null): void {
    this.#metas.delete(stream); // the most recent last: the oldest is evicted first
    this.#metas.set(stream, meta);
    if (this.#metas.size > META_CACHE_SIZE) this.#metas.delete(this.#metas.keys().next().value!);
  }

  /** Inside a write transaction: deletes a stream's events and its record. */
  #drop(stream: string): void {
    const prefix = str(stream);
    for (const k of this.db.events.getKeys({ start: prefix, end: rangeEnd(prefix) })) void this.db.events.remove(k);
    void this.db.streams.remove(prefix);
  }

  async append(stream: string, seq: number, data: Uint8Array, options: AppendOptions = {}): Promise<boolean> {
    return (await this.appendBatch(stream, [{ seq, data }], options)) > 0;
  }

  async appendBatch(stream: string, events: readonly LoggedEvent[], options: AppendOptions = {}): Promise<number> {
    this.#assertOpen();
    if (!consecutiveSeqs(events)) return 0;
    const prefix = str(stream);
    const { appended, meta } = await this.db.write(() => {
      const raw = this.db.streams.get(prefix);
      let meta = raw === undefined ? null : (JSON.parse(raw) as StreamMeta);
      if (meta?.exp !== undefined && meta.exp <= this.#clock.now()) {
        this.#drop(stream); // past its retention: a new stream under the same name
        meta = null;
      }
      const last = meta?.last ?? 0;
      const fresh = events.filter((e) => e.seq > last);
      const first = fresh[0];
      if (!first || (!options.allowGap && first.seq !== last + 1)) return { appended: 0, meta };
      // The bytes are copied into the page by the put itself (inside this transaction): no copy of ours.
      for (const e of fresh) void this.db.events.put(key(prefix, num(e.seq)), e.data as Buffer);
      const next: StreamMeta = { last: fresh.at(-1)!.seq };
      // The retention in the append's own commit: a final append and its `expire` were two commits.
      if (options.expireAfterMs !== undefined) next.exp = this.#clock.now() + options.expireAfterMs;
      else if (meta?.exp !== undefined) next.exp = meta.exp;
      void this.db.streams.put(prefix, JSON.stringify(next));
      return { appended: fresh.length, meta: next };
    });
    this.#remember(stream, meta);
    if (appended > 0) this.#wake(stream);
    return appended;
  }

  #wake(stream: string): void {
    const waiters = this.#waiters.get(stream);
    if (!waiters) return;
    this.#waiters.delete(stream);
    // On a later turn: never inside the appender's stack.
    setImmediate(() => waiters.forEach((w) => w()));
  }

  async read(stream: string, afterSeq: number, limit = 1000): Promise<LoggedEvent[]> {
    this.#assertOpen();
    await Promise.resolve();
    if (!this.#meta(stream)) return [];
    const prefix = str(stream);
    const out: LoggedEvent[] = [];
    for (const { key: k, value } of this.db.events.getRange({
      start: key(prefix, num(afterSeq + 1)),
      end: rangeEnd(prefix),
      limit,
    })) {
      // lmdb-js hands out a copy of the value already: a view of it, not a second copy.
      const data = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      out.push({ seq: Number(k.subarray(prefix.length).toString('latin1')), data });
    }
    return out;
  }

  async last(stream: string): Promise<number> {
    this.#assertOpen();
    await Promise.resolve();
    return this.#meta(stream)?.last ?? 0;
  }

  /** Live tails now (operators and tests). */
  get tailCount(): number {
    return this.#tails;
  }

  async *tail(stream: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    this.#tails += 1;
    try {
      let cursor = afterSeq;
      while (!signal.aborted && !this.#closed) {
        const batch = await this.read(stream, cursor);
        for (const e of batch) {
          cursor = e.seq;
          yield e;
          if (signal.aborted) return;
        }
        if (batch.length > 0) continue;
        // Checked and registered in one synchronous step: an append that commits after this check wakes us.
        if ((this.#meta(stream)?.last ?? 0) > cursor) continue;
        let set = this.#waiters.get(stream);
        if (!set) {
          set = new Set();
          this.#waiters.set(stream, set);
        }
        const waiters = set;
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiters.delete(wake);
            this.#closeWaiters.delete(wake);
            signal.removeEventListener('abort', wake);
            resolve();
          };
          waiters.add(wake);
          this.#closeWaiters.add(wake);
          signal.addEventListener('abort', wake, { once: true });
        });
        if (set.size === 0 && this.#waiters.get(stream) === set) this.#waiters.delete(stream);
      }
    } finally {
      this.#tails -= 1;
    }
  }

  async expire(stream: string, ttlMs: number): Promise<void> {
    this.#assertOpen();
    const prefix = str(stream);
    const exp = this.#clock.now() + ttlMs;
    const meta = await this.db.write(() => {
      const raw = this.db.streams.get(prefix);
      if (raw === undefined) return null;
      const next: StreamMeta = { ...(JSON.parse(raw) as StreamMeta), exp };
      void this.db.streams.put(prefix, JSON.stringify(next));
      return next;
    });
    this.#remember(stream, meta);
  }

  /** Deletes the streams past their retention that no tail waits on; resolves how many. */
  /**
   * Deletes the streams past their retention. The stream records are read a page at a time with a turn of the
   * event loop between pages (a log holds one stream per task kept, so reading them all at once held the loop
   * for as long as the log was large), and every expired stream goes, not only the first 500 of a sweep.
   */
  async sweepExpired(): Promise<number> {
    this.#assertOpen();
    const now = this.#clock.now();
    let total = 0;
    let after: Buffer | undefined;
    for (;;) {
      const expired: Buffer[] = [];
      let read = 0;
      // Resumes just after the last key read (0x00 is the smallest byte that extends it).
      const range = this.db.streams.getRange({
        ...(after ? { start: Buffer.concat([after, ZERO]) } : {}),
        limit: SWEEP_PAGE,
      });
      for (const { key: k, value } of range) {
        read += 1;
        after = Buffer.from(k); // a copy: the key's bytes may be a view the next read reuses
        const meta = JSON.parse(value) as StreamMeta;
        if (meta.exp !== undefined && meta.exp <= now) expired.push(after);
      }
      if (expired.length > 0) total += await this.db.write(() => this.#dropExpired(expired, now));
      if (read < SWEEP_PAGE || this.#closed) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // Keyed by the stream's key bytes: forget them all (a sweep is rare, and a miss reads the database).
    if (total > 0) this.#metas.clear();
    return total;
  }

  /** Inside a write transaction: deletes the streams of `keys` still past their retention at `now`. */
  #dropExpired(keys: readonly Buffer[], now: number): number {
    let n = 0;
    for (const prefix of keys) {
      const raw = this.db.streams.get(prefix);
      const meta = raw === undefined ? undefined : (JSON.parse(raw) as StreamMeta);
      if (meta?.exp === undefined || meta.exp > now) continue;
      for (const ek of this.db.events.getKeys({ start: prefix, end: rangeEnd(prefix) })) void this.db.events.remove(ek);
      void this.db.streams.remove(prefix);
      n += 1;
    }
    return n;
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    await Promise.resolve();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#sweeper);
    for (const w of [...this.#closeWaiters]) w();
    await this.#release();
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'event log is closed');
  }
}
