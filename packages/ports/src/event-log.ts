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
 * - `appendBatch(stream, events, { expireAfterMs })` also sets it, in the same step, when the call appended
 *   something (as `expire` right after it would): a task's final events and its stream's retention in one
 *   write. A call that appended nothing leaves the retention as it was.
 */
export interface LoggedEvent {
  readonly seq: number;
  readonly data: Uint8Array;
}

export interface AppendOptions {
  /** Append even when seq > last + 1 (the events in between are known to be lost); duplicates still refused. */
  readonly allowGap?: boolean;
  /** When this call appends, the stream expires this long after now (`expire` in the same step). */
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
