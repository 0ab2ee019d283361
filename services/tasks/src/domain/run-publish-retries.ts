import type { Clock } from '@a2a-inbound/ports';
import type { Logger } from '@a2a-inbound/logger';

/** How long `close` waits for a publish in flight. */
const CLOSE_WAIT_MS = 2_000;

/** Waits `ms`, or less when the signal aborts (injected: tests move time by hand). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export interface RunPublishRetriesConfig {
  /** The first retry's delay; each next one doubles, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Retries stop this long after the first failure: from then on the sweeper republishes (`runStallMs`). */
  giveUpAfterMs: number;
  /** Runs retried at once per process; beyond, a failed publish is left to the sweeper (memory stays bounded). */
  maxPending: number;
}

/** One retry of a run's publish: `published`, or `unneeded` (the task was canceled, continued or swept). */
export type PublishAttempt = () => Promise<'published' | 'unneeded'>;

/**
 * Publishes again, in the background, a run request that a send could not publish (the bus, or the store it
 * reads the run's memory from, was restarting): with a doubling delay, so a run waits for the outage plus a
 * second or so, not for the sweeper's `runStallMs` (issue 19). The send is answered without waiting for it.
 * The sweeper stays the last resort: after a crash of this process, or an outage longer than `giveUpAfterMs`.
 * A duplicate request (this retry and the sweeper's both publish) is harmless (ADR 0011).
 */
export class RunPublishRetries {
  readonly #pending = new Set<Promise<void>>();
  readonly #closing = new AbortController();

  constructor(private readonly deps: { clock: Clock; sleep: Sleep; log: Logger; config: RunPublishRetriesConfig }) {}

  /** Runs retried now. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Starts retrying the run's publish; returns at once. */
  retry(run: { taskId: string; runId: string }, attempt: PublishAttempt): void {
    if (this.#closing.signal.aborted) return;
    if (this.#pending.size >= this.deps.config.maxPending) {
      this.deps.log.warn({ ...run, pending: this.#pending.size }, 'run request not published: the sweeper will');
      return;
    }
    const p = this.#loop(run, attempt).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  async #loop(run: { taskId: string; runId: string }, attempt: PublishAttempt): Promise<void> {
    const { clock, sleep, log, config } = this.deps;
    const signal = this.#closing.signal;
    const since = clock.now();
    for (let n = 0; ; n++) {
      await sleep(Math.min(config.maxDelayMs, config.firstDelayMs * 2 ** n), signal);
      if (signal.aborted) return; // closing: the sweeper of a running replica takes it
      try {
        const outcome = await attempt();
        if (outcome === 'published')
          log.info({ ...run, retries: n + 1, afterMs: clock.now() - since }, 'run request published on retry');
        return;
      } catch (err) {
        if (clock.now() - since >= config.giveUpAfterMs) {
          log.warn({ err, ...run, retries: n + 1 }, 'run request still not published: the sweeper will publish it');
          return;
        }
      }
    }
  }

  /**
   * Stops every retry at its next step, and waits a little for a publish in flight: not for as long as the bus
   * client may take to give up on an engine that is down (shutdown has a budget; the sweeper takes the run).
   */
  async close(): Promise<void> {
    this.#closing.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#pending]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
  }
}
