import type { eventsV1 } from '@a2a-inbound/proto';

/** Events of one bus message: a batch's events, or the message itself (ADR 0025). */
export function runEventsOf(message: eventsV1.TaskEvent): eventsV1.TaskEvent[] {
  return message.batch.length > 0 ? message.batch : [message];
}

export interface EventPipeLimits {
  /** Events in one bus message at most. */
  readonly maxBatchEvents: number;
  /** Encoded bytes of the events in one bus message at most (one larger event goes alone). */
  readonly maxBatchBytes: number;
  /** Queued events beyond which `emit` waits for the queue to be published (back-pressure). */
  readonly maxQueuedEvents: number;
}

export const DEFAULT_EVENT_PIPE_LIMITS: EventPipeLimits = {
  maxBatchEvents: 64,
  // Far below Kafka's 1 MB message limit; large parts are spilled to the blob store before they get here.
  maxBatchBytes: 256 * 1024,
  maxQueuedEvents: 256,
};

interface Queued {
  readonly event: eventsV1.TaskEvent;
  readonly bytes: number;
}

/**
 * A run's events on their way to the bus (ADR 0025). `emit` numbers an event (run_seq, in emit order),
 * queues it and returns at once; the queue goes out on the next turn of the event loop (`setImmediate`: no
 * timer, so a fast agent's frames are not held back), or as soon as the publish in flight is acknowledged.
 * One publish is in flight at a time, so the events keep their order; what queued meanwhile goes out as
 * one bus message (a batch: `TaskEvent.batch`), one event as a plain `TaskEvent` as before. The tasks
 * service applies a batch with one write.
 *
 * `flush` resolves once everything emitted so far is published. A failed publish fails the pipe: every
 * later `emit` and `flush` rejects with that error (the run is handed back, as when one event failed).
 */
export class EventPipe {
  readonly #publish: (message: eventsV1.TaskEvent) => Promise<void>;
  readonly #taskId: string;
  readonly #runId: string;
  readonly #now: () => number;
  readonly #limits: EventPipeLimits;
  #queue: Queued[] = [];
  #seq = 0;
  #inflight: Promise<void> | undefined;
  #scheduled = false;
  #closed = false;
  #failure: { error: Error } | undefined;

  constructor(options: {
    /** Sends one message (an event, or a batch); encoded for the bus by the caller, or handed over as is. */
    publish: (message: eventsV1.TaskEvent) => Promise<void>;
    taskId: string;
    runId: string;
    now: () => number;
    limits?: Partial<EventPipeLimits>;
  }) {
    this.#publish = options.publish;
    this.#taskId = options.taskId;
    this.#runId = options.runId;
    this.#now = options.now;
    this.#limits = { ...DEFAULT_EVENT_PIPE_LIMITS, ...options.limits };
  }

  /** The run_seq of the last event emitted. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Queues the event; waits only when the queue is long (back-pressure). Rejects once the pipe failed. */
  emit(event: eventsV1.TaskEvent['event']): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    if (this.#closed) return Promise.reject(new Error('run event pipe is closed'));
    const message: eventsV1.TaskEvent = {
      taskId: this.#taskId,
      runId: this.#runId,
      runSeq: ++this.#seq,
      event,
      emittedAtMs: this.#now(),
      batch: [],
    };
    this.#queue.push({ event: message, bytes: approximateBytes(message) });
    if (this.#queue.length >= this.#limits.maxQueuedEvents) return this.flush();
    this.#schedule();
    return Promise.resolve();
  }

  /** Resolves when every event emitted so far is published; rejects with the failure if one failed. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.#failure) throw this.#failure.error;
      if (!this.#inflight && this.#queue.length === 0) return;
      this.#pump();
      await this.#inflight;
    }
  }

  /** Drops what is still queued (a canceled run: the tasks service ignores its late events anyway). */
  close(): void {
    this.#closed = true;
    this.#queue = [];
  }

  #schedule(): void {
    if (this.#scheduled || this.#inflight) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#inflight || this.#failure || this.#queue.length === 0) return;
    const taken = this.#take();
    const message: eventsV1.TaskEvent =
      taken.length === 1
        ? taken[0]!
        : {
            taskId: this.#taskId,
            runId: this.#runId,
            runSeq: taken.at(-1)!.runSeq,
            event: undefined,
            emittedAtMs: this.#now(),
            batch: taken,
          };
    this.#inflight = this.#publish(message).then(
      () => {
        this.#inflight = undefined;
        // What queued while this publish was in flight has waited already: out at once.
        this.#pump();
      },
      (error: unknown) => {
        this.#inflight = undefined;
        this.#failure = { error: error instanceof Error ? error : new Error(String(error)) };
        this.#queue = [];
      },
    );
  }

  /** The next bus message's events: the oldest queued, within the batch limits (at least one). */
  #take(): eventsV1.TaskEvent[] {
    const { maxBatchEvents, maxBatchBytes } = this.#limits;
    let n = 0;
    let bytes = 0;
    while (n < this.#queue.length && n < maxBatchEvents) {
      const next = this.#queue[n]!;
      if (n > 0 && bytes + next.bytes > maxBatchBytes) break;
      bytes += next.bytes;
      n += 1;
    }
    return this.#queue.splice(0, n).map((q) => q.event);
  }
}

/** About the encoded size of an event (its JSON payload dominates), without encoding it twice. */
function approximateBytes(e: eventsV1.TaskEvent): number {
  const ev = e.event;
  let payload = 0;
  if (ev?.$case === 'artifact')
    payload = Buffer.byteLength(ev.artifact.partsJson) + ev.artifact.artifactId.length + ev.artifact.name.length;
  else if (ev?.$case === 'status') payload = Buffer.byteLength(ev.status.messageJson) + ev.status.state.length;
  return 64 + e.taskId.length + e.runId.length + payload;
}
