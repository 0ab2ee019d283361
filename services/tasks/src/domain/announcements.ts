import type { Bus } from '@a2a-inbound/ports';
import { encodeShared, eventsV1 } from '@a2a-inbound/proto';

/** Events per announcement message at most (a batch is cut there; an entry is never split). */
const MAX_EVENTS = 256;
/**
 * Characters of event JSON per announcement message at most (an entry larger than this goes alone, as
 * before): three bytes a character at worst, plus the ids, stays under the bus's 900 KiB message limit.
 */
const MAX_BYTES = 200 * 1024;

interface Pending {
  events: eventsV1.LoggedTaskEvent[];
  bytes: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Task updates announced to webhooks in batches (issue 23, ADR 0041): one bus message carries the updates of
 * every task announced while the previous message was being published (the last one, with the others as
 * `preceding`, the shape of ADR 0025's run-event batches, which webhooks already reads). Nothing waits for a
 * timer: when no publish is in flight an announcement goes at once, so a lone send adds no latency, and under
 * load the batch is what queued during one publish, cut at `MAX_EVENTS`/`MAX_BYTES`. `announce` resolves
 * once the message holding its events is accepted by the bus (or rejects with its error), as `publish` did.
 * One task's events stay in call order (one message in flight at a time).
 */
export class TaskAnnouncements {
  readonly #queue: Pending[] = [];
  #flushing = false;

  constructor(
    private readonly bus: Bus,
    private readonly topic: string,
  ) {}

  announce(events: readonly eventsV1.LoggedTaskEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const bytes = events.reduce((s, e) => s + e.eventJson.length, 0);
      this.#queue.push({ events: [...events], bytes, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#take();
        const events = batch.flatMap((p) => p.events);
        try {
          const last = events.at(-1)!;
          const value = encodeShared(eventsV1.LoggedTaskEvent, { ...last, preceding: events.slice(0, -1) });
          // Keyed by the first event's task: a lone announcement is keyed by its task, as before.
          await this.bus.publish({ topic: this.topic, key: events[0]!.taskId, value });
          for (const p of batch) p.resolve();
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }

  /** The next batch: at least one entry, then as many as fit `MAX_EVENTS` and `MAX_BYTES`. */
  #take(): Pending[] {
    let n = 1;
    let events = this.#queue[0]!.events.length;
    let bytes = this.#queue[0]!.bytes;
    while (n < this.#queue.length) {
      const next = this.#queue[n]!;
      if (events + next.events.length > MAX_EVENTS || bytes + next.bytes > MAX_BYTES) break;
      events += next.events.length;
      bytes += next.bytes;
      n += 1;
    }
    return this.#queue.splice(0, n);
  }
}
