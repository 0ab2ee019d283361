/**
 * Event log port: per-stream (per-task) ordered events with sequence numbers 1, 2, 3…, held centrally so
 * any replica can replay and tail them (SSE resume, tasks/resubscribe, blocking waits).
 *
 * - `append(stream, seq, data)` is idempotent: appending a seq that is already present resolves false and
 *   changes nothing; a seq must be exactly `last + 1`, otherwise it resolves false as well (a gap or a
 *   duplicate is the caller's bug or a redelivery).
 * - `read(stream, afterSeq)` returns the stored events with seq > afterSeq, in order (copies).
 * - `tail(stream, afterSeq, signal)` yields the stored events after `afterSeq`, then live ones as they are
 *   appended (by any process), until the signal aborts or the log closes.
 * - `expire(stream, ttlMs)` sets retention for the whole stream.
 */
export interface LoggedEvent {
  readonly seq: number;
  readonly data: Uint8Array;
}

export interface EventLog {
  append(stream: string, seq: number, data: Uint8Array): Promise<boolean>;
  read(stream: string, afterSeq: number, limit?: number): Promise<LoggedEvent[]>;
  last(stream: string): Promise<number>;
  tail(stream: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent>;
  expire(stream: string, ttlMs: number): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
