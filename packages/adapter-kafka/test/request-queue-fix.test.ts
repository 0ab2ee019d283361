import { describe, expect, it } from 'vitest';
import RequestQueue from 'kafkajs/src/network/requestQueue/index.js';
import { fixKafkajsIdleTimerLoop } from '../src/request-queue-fix';

interface Queue {
  pending: unknown[];
  throttledUntil: number;
  checkPendingRequests(): void;
  destroy(): void;
}

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A kafkajs request queue of one connection, with its pending-request checks counted. */
function countedQueue(): { queue: Queue; checks: () => number } {
  const Ctor = RequestQueue as unknown as new (o: object) => Queue;
  const queue = new Ctor({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger: silent,
  });
  let n = 0;
  const check = queue.checkPendingRequests.bind(queue);
  queue.checkPendingRequests = () => {
    n += 1;
    check();
  };
  return { queue, checks: () => n };
}

describe('kafkajs request queue fix (ADR 0046)', () => {
  it('an idle connection does not re-arm a timer after a check (kafkajs 2.2.4 spins about 1,000 a second)', async () => {
    fixKafkajsIdleTimerLoop();
    const { queue, checks } = countedQueue();
    queue.checkPendingRequests(); // what every fulfilled request does
    await new Promise((r) => setTimeout(r, 100));
    queue.destroy();
    expect(checks()).toBe(1);
  });

  it('a request queued behind a throttle is still checked once the throttle ends', async () => {
    fixKafkajsIdleTimerLoop();
    const { queue, checks } = countedQueue();
    queue.throttledUntil = Date.now() + 30;
    queue.pending.push({ placeholder: true });
    (queue as unknown as { scheduleCheckPendingRequests(): void }).scheduleCheckPendingRequests();
    await new Promise((r) => setTimeout(r, 15));
    expect(checks()).toBe(0);
    queue.pending.length = 0; // not sendable in this test: the check must find nothing to send
    await new Promise((r) => setTimeout(r, 60));
    queue.destroy();
    expect(checks()).toBe(1);
  });
});
