/**
 * Event log port: per-stream (per-task) ordered events with sequence numbers 1, 2, 3…, held centrally so
 * any replica can replay and tail them (SSE resume, tasks/resubscribe, blocking waits).
 *
 * - `append(stream, seq, data)` is idempotent: appending a seq that is already present resolves false and
 *   changes nothing; a seq must be exactly `last + 1`, otherwise it resolves false as well (a gap or a
 *   duplicate is the caller's bug or a redelivery).
 * - `append(stream, seq, data, { allowGap: true })` also appends a seq beyond `last + 1` (never one at or
 *   below `last`): the writer knows from its authoritative store that the events in between are lost (an
 *   engine restarted without persistence, an expired stream). Readers see the jump in seq and can rebuild
 *   what they missed from that store.
 * - `appendBatch(stream, events, options)` appends several events with consecutive seqs in one step (ADR 0025):
 *   the ones at or below `last` are skipped (already there: a redelivery), the rest are appended all
 *   together when the first of them is exactly `last + 1` (with `allowGap`: anything above `last`), or none
 *   are. Resolves how many were appended (always the trailing ones of the list), 0 when refused. A reader
 *   never sees part of a batch.
 * - `read(stream, afterSeq)` returns the stored events with seq > afterSeq, in order (copies).
 * - `tail(stream, afterSeq, signal)` yields the stored events after `afterSeq`, then live ones as they are
 *   appended (by any process), until the signal aborts or the log closes. Tails are cheap: an adapter must
 *   not hold a connection (or any other scarce resource) per tail, so thousands can wait in one process.
 *   A tail that was waiting while the stream was lost yields the events appended after the loss.
 * - `expire(stream, ttlMs)` sets retention for the whole stream.
 */
export interface LoggedEvent {
  readonly seq: number;
  readonly data: Uint8Array;
}

/**
 * An event whose bytes are made only if something reads them (`LazyEventLog`): `encode` is called at most once,
 * at the first read, and must give what an eager append would have stored.
 */
export interface LazyLoggedEvent {
  readonly seq: number;
  encode(): Uint8Array;
}

/**
 * An event log that can hold events unencoded until they are read. Only a log that keeps its events in the
 * appender's own memory (the in-memory one) offers it: one that persists them needs the bytes at the append. In
 * one process most events of a send are never read in their encoded form (a blocking send is woken by the write,
 * ADR 0053; only streams and resubscriptions read the log), so their encoding is saved (ADR 0067).
 */
export interface LazyEventLog extends EventLog {
  /** `appendBatch` with each event's bytes made at its first read. */
  appendBatchLazy(stream: string, events: readonly LazyLoggedEvent[], options?: AppendOptions): Promise<number>;
}

/** Whether `log` can take events unencoded (`LazyEventLog`). */
export function acceptsLazyEvents(log: EventLog): log is LazyEventLog {
  return typeof (log as Partial<LazyEventLog>).appendBatchLazy === 'function';
}

export interface AppendOptions {
  /** Append even when seq > last + 1 (the events in between are known to be lost); duplicates still refused. */
  readonly allowGap?: boolean;
  /**
   * Also give the stream this time to live (as `expire`), in the same write: set whether or not anything was
   * appended, so a redelivered final batch still sets it. Saves the separate write per finished task.
   */
  readonly expireAfterMs?: number;
}

export interface EventLog {
  append(stream: string, seq: number, data: Uint8Array, options?: AppendOptions): Promise<boolean>;
  appendBatch(stream: string, events: readonly LoggedEvent[], options?: AppendOptions): Promise<number>;
  read(stream: string, afterSeq: number, limit?: number): Promise<LoggedEvent[]>;
  last(stream: string): Promise<number>;
  tail(stream: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent>;
  expire(stream: string, ttlMs: number): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
