import RequestQueue from 'kafkajs/src/network/requestQueue/index.js';

/** What the fix touches of kafkajs's per-connection request queue (kafkajs 2.2.4, src/network/requestQueue). */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: ReturnType<typeof setTimeout> | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's own delay for a queue that waits on in-flight requests, not on a throttle. */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;
let applied = false;

/**
 * kafkajs 2.2.4 re-arms a timer for every connection after each check of its pending requests, even with none
 * pending and no throttle, at a negative delay (Node runs it after 1 ms): every broker connection of every
 * process spins about a thousand wake-ups a second for its whole life (kafkajs issues 1556 and 1704,
 * unreleased fix in PR 1667). Measured here: 30–40 ms of CPU a second per idle service process (ADR 0046).
 * This version schedules a check only when requests are pending: a request pushed later is either sent at
 * once or queued, and queueing schedules the check; a fulfilled or timed-out request checks the queue itself.
 */
export function fixKafkajsIdleTimerLoop(): void {
  if (applied) return;
  applied = true;
  const proto = (RequestQueue as unknown as { prototype: RequestQueueInternals }).prototype;
  if (typeof proto.scheduleCheckPendingRequests !== 'function') return; // another kafkajs: leave it alone
  proto.scheduleCheckPendingRequests = function (this: RequestQueueInternals) {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
    );
  };
}
