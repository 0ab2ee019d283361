import { AppError } from '@a2a-inbound/errors';
import type { Clock } from '../clock';
import { systemClock } from '../clock';
import type { AppendOptions, LazyEventLog, LazyLoggedEvent, LoggedEvent } from '../event-log';
import { EvictionOrder } from './eviction-order';

/** A stored event: its bytes, or how to make them (a lazy append), replaced by the bytes at the first read. */
interface Held {
  readonly seq: number;
  data: Uint8Array | undefined;
  encode: (() => Uint8Array) | undefined;
}

const bytesOf = (e: Held): Uint8Array => {
  if (e.data === undefined) {
    // The encoder's own buffer may be reused by the next encode: keep a copy.
    e.data = e.encode!().slice();
    e.encode = undefined;
  }
  return e.data;
};

interface Stream {
  events: Held[];
  expiresAt?: number;
  waiters: Set<() => void>;
}

export interface InMemoryEventLogOptions {
  readonly maxStreams?: number;
  readonly maxEventsPerStream?: number;
  readonly clock?: Clock;
}

export class InMemoryEventLog implements LazyEventLog {
  readonly #streams = new Map<string, Stream>();
  /** The streams' names, oldest first (not the Map's own order: eviction-order.ts). */
  readonly #order = new EvictionOrder();
  readonly #maxStreams: number;
  readonly #maxEvents: number;
  readonly #clock: Clock;
  readonly #closeWaiters = new Set<() => void>();
  #closed = false;
  #tails = 0;

  constructor(options: InMemoryEventLogOptions = {}) {
    this.#maxStreams = options.maxStreams ?? 50_000;
    this.#maxEvents = options.maxEventsPerStream ?? 10_000;
    this.#clock = options.clock ?? systemClock;
  }

  #stream(name: string, create: boolean): Stream | undefined {
    let s = this.#streams.get(name);
    if (s?.expiresAt !== undefined && s.expiresAt <= this.#clock.now() && s.waiters.size === 0) {
      this.#streams.delete(name);
      this.#order.delete(name);
      s = undefined;
    }
    if (!s && create) {
      if (this.#streams.size >= this.#maxStreams) this.#evictOne();
      s = { events: [], waiters: new Set() };
      this.#streams.set(name, s);
      this.#order.toEnd(name);
    }
    return s;
  }

  /**
   * Makes room for one stream: the oldest one no tail waits on (`#order`). Never a scan of
   * the whole map: with every stream unexpired (the usual case, retention outlives a bench or a busy hour), a
   * first pass looking for an expired one walked all 50,000 streams on every new task once the log was full.
   * An expired stream further in is dropped when it is next touched, or when it becomes the oldest.
   */
  #evictOne(): void {
    const name = this.#order.oldest((n) => this.#streams.get(n)?.waiters.size === 0);
    if (name === undefined) return;
    this.#streams.delete(name);
    this.#order.delete(name);
  }

  async append(stream: string, seq: number, data: Uint8Array, options: AppendOptions = {}): Promise<boolean> {
    return (await this.appendBatch(stream, [{ seq, data }], options)) > 0;
  }

  async appendBatch(stream: string, events: readonly LoggedEvent[], options: AppendOptions = {}): Promise<number> {
    this.#assertOpen();
    await Promise.resolve();
    return this.#appendNow(stream, events, options, (e) => ({ seq: e.seq, data: e.data.slice(), encode: undefined }));
  }

  async appendBatchLazy(
    stream: string,
    events: readonly LazyLoggedEvent[],
    options: AppendOptions = {},
  ): Promise<number> {
    this.#assertOpen();
    await Promise.resolve();
    return this.#appendNow(stream, events, options, (e) => ({ seq: e.seq, data: undefined, encode: () => e.encode() }));
  }

  #appendNow<E extends { readonly seq: number }>(
    stream: string,
    events: readonly E[],
    options: AppendOptions,
    hold: (e: E) => Held,
  ): number {
    if (!consecutiveSeqs(events)) return 0;
    const s = this.#stream(stream, true)!;
    // As `expire`, on every outcome (a redelivered final batch still sets it).
    if (options.expireAfterMs !== undefined) s.expiresAt = this.#clock.now() + options.expireAfterMs;
    const last = s.events.at(-1)?.seq ?? 0;
    const fresh = events.filter((e) => e.seq > last);
    const first = fresh[0];
    if (!first || (!options.allowGap && first.seq !== last + 1)) return 0;
    if (s.events.length + fresh.length > this.#maxEvents)
      throw new AppError('UNAVAILABLE', `event log stream ${stream} is full`);
    for (const e of fresh) s.events.push(hold(e));
    const waiters = [...s.waiters];
    s.waiters.clear();
    // Wake tails on a later turn: never inside the appender's stack.
    setImmediate(() => waiters.forEach((w) => w()));
    return fresh.length;
  }

  async read(stream: string, afterSeq: number, limit = 1000): Promise<LoggedEvent[]> {
    this.#assertOpen();
    await Promise.resolve();
    const s = this.#stream(stream, false);
    if (!s) return [];
    return s.events
      .filter((e) => e.seq > afterSeq)
      .slice(0, limit)
      .map((e) => ({ seq: e.seq, data: bytesOf(e).slice() }));
  }

  async last(stream: string): Promise<number> {
    this.#assertOpen();
    await Promise.resolve();
    return this.#stream(stream, false)?.events.at(-1)?.seq ?? 0;
  }

  /** Live tails now (as `RedisEventLog.tailCount`: operators and tests). */
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
        const s = this.#stream(stream, true)!;
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            s.waiters.delete(wake);
            this.#closeWaiters.delete(wake);
            signal.removeEventListener('abort', wake);
            resolve();
          };
          s.waiters.add(wake);
          this.#closeWaiters.add(wake);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
    } finally {
      this.#tails -= 1;
    }
  }

  /**
   * Loses a stream's events the way an engine restarted without persistence does (tests of the rebuild
   * path); tails waiting on it keep waiting and see what is appended afterwards.
   */
  async dropEvents(stream: string): Promise<void> {
    await Promise.resolve();
    const s = this.#streams.get(stream);
    if (s) s.events = [];
  }

  async expire(stream: string, ttlMs: number): Promise<void> {
    this.#assertOpen();
    await Promise.resolve();
    const s = this.#stream(stream, false);
    if (s) s.expiresAt = this.#clock.now() + ttlMs;
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    await Promise.resolve();
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const w of [...this.#closeWaiters]) w();
    await Promise.resolve();
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'event log is closed');
  }
}

/** Seqs 1 or above, each the previous + 1 (what `appendBatch` accepts). */
export function consecutiveSeqs(events: readonly { readonly seq: number }[]): boolean {
  for (let i = 0; i < events.length; i++) {
    const seq = events[i]!.seq;
    if (!Number.isSafeInteger(seq) || seq < 1 || (i > 0 && seq !== events[i - 1]!.seq + 1)) return false;
  }
  return true;
}
