/**
 * The durability of writes an engine already resolved (ADR 0069). An engine that resolves a write before it is
 * durable (the durable embedded mode's LMDB group commit: one commit per event-loop turn, so the writes of a
 * send are one commit) offers this; every effect outside the process (an answer, a stream frame, a run's
 * outbound call, a push) waits for it first, so that a crash never loses a write someone was told about.
 * Engines whose writes are durable when they resolve (MongoDB, Redis, the in-memory ones) have none.
 */
export interface CommitBarrier {
  /**
   * Undefined when every write resolved so far is committed; otherwise a promise that resolves once it is, or
   * rejects when that commit failed (its writes are lost: the effect must fail, not go out).
   */
  committed(): Promise<void> | undefined;
}
