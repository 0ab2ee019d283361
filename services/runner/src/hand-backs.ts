import type { Logger } from '@a2a-inbound/logger';
import type { Bus } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { TOPICS } from './domain/runner';

/** Backoff of a hand-back the bus refused: doubling from the first delay up to the last. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/**
 * Run requests handed over in this process (ADR 0053) and handed back (a drain, an outage): published on the
 * bus so it redelivers them, as it would a request it had delivered. A publish the bus refuses (it is down,
 * which is often why the run was handed back) is retried with backoff until it goes or the runner closes;
 * given up, the task stays `working` until the sweeper fails it.
 */
export class HandBacks {
  readonly #closed = new AbortController();
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  publish(req: eventsV1.RunRequested): void {
    const p = this.#publish(req).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /** Stops retrying (after the drain, whose hand-backs had their attempts) and waits for the attempts in flight. */
  async close(): Promise<void> {
    this.#closed.abort();
    await Promise.allSettled([...this.#pending]);
  }

  async #publish(req: eventsV1.RunRequested): Promise<void> {
    const value = eventsV1.RunRequested.encode(req).finish();
    const ids = { taskId: req.taskId, runId: req.runId };
    for (let delay = FIRST_RETRY_MS, attempt = 1; ; delay = Math.min(delay * 2, MAX_RETRY_MS), attempt++) {
      try {
        await this.bus.publish({ topic: TOPICS.runRequested, key: req.taskId, value });
        if (attempt > 1) this.log.info({ ...ids, attempt }, 'handed-back run request published');
        return;
      } catch (err) {
        if (this.#closed.signal.aborted) {
          this.log.error({ err, ...ids, attempt }, 'handed-back run request not published (runner closed)');
          return;
        }
        if (attempt === 1) this.log.warn({ err, ...ids }, 'handed-back run request not published: retrying');
      }
      await pause(delay, this.#closed.signal);
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (the next attempt is then the last). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
