/**
 * Event bus port: topics with keyed partitions and consumer groups, at-least-once.
 *
 * - `publish` resolves once the bus has accepted the message, never after (or while) handlers ran:
 *   delivery always happens on a later event-loop turn.
 * - Messages with the same key are handled in publish order within a consumer group.
 * - Each consumer group receives every message once (per delivery attempt); within a group, one
 *   handler handles it. A handler that throws sees the message again (at-least-once): handlers are
 *   idempotent.
 * - Payloads are bytes (protobuf-encoded bus payloads), never live objects.
 */
export interface BusMessage {
  readonly topic: string;
  readonly key: string;
  readonly value: Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}

export type BusHandler = (message: BusMessage) => Promise<void>;

export interface SubscribeOptions {
  /**
   * Handlers in flight at once for this subscription (default 1 per partition, as before). Above 1, messages
   * with different keys are handled concurrently while one key's messages stay in publish order; a message
   * is acknowledged only when it and every earlier message of its partition settled, so a crash redelivers
   * whatever was not finished (at-least-once holds). Long handlers (agent runs) then hold one slot, not a
   * whole partition.
   */
  readonly concurrency?: number;
  /**
   * Failures this predicate calls transient (an engine outage) are retried with capped backoff for as long
   * as they last, without counting toward the adapter's attempt limit: an outage must never dead-letter a
   * message. Other failures are retried a bounded number of times, then dead-lettered.
   */
  readonly isTransient?: (error: unknown) => boolean;
}

export interface BusSubscription {
  close(): Promise<void>;
}

export interface Bus {
  publish(message: BusMessage): Promise<void>;
  subscribe(topic: string, group: string, handler: BusHandler, options?: SubscribeOptions): Promise<BusSubscription>;
  /** Resolves when the engine answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
