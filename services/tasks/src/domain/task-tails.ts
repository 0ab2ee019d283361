import type { TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { AppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { Collection, EventLog, LoggedEvent } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import type { TaskDoc } from './model';
import { endsStream } from './model';

export interface StreamItem {
  seq: number;
  eventJson: string;
  final: boolean;
}

export interface TaskTailsConfig {
  /** Streams and blocking waits this process serves at once; one more is refused (OVERLOADED) before it starts. */
  maxStreams: number;
  /** A stream with no event for this long compares its position with the stored task (a lost log heals). */
  storeCheckMs: number;
  /**
   * A resume of an ended task waits this long for the log to catch up with the stored task before it rebuilds
   * the rest from the task (the log is appended right after the task is written).
   */
  catchUpMs: number;
}

/** Releases an admitted slot; idempotent. */
export type Release = () => void;

const IDLE = Symbol('idle');

/**
 * Why a follower ends its log tail. A prepared reason: `abort()` without one builds a DOMException (and
 * captures a stack) on every blocking send, 1 % of the embedded send profile (docs/performance.md).
 */
const FOLLOW_ENDED = new Error('the follower ended its event log tail');

/**
 * How blocking sends and streams follow a task (ADR 0014). The event log is a fast, shared copy of what the
 * stored task already says; the stored task is authoritative. So a follower:
 * - reads the log (replay, then live: the adapter shares one notification connection per process);
 * - on a jump in seq (events lost: Redis restarted without persistence, or a race between two writers)
 *   rebuilds what it missed from the stored task: one artifact-update per artifact (full content,
 *   `append: false`) and the current status, under the stored task's seq;
 * - after `storeCheckMs` without an event, or while the log is unreachable, compares with the stored task
 *   and rebuilds from it when the log will not deliver (an event lost for good would otherwise hang the
 *   stream forever); so every stream still ends with `final: true` and a blocking send returns.
 * Admission is counted here: a full process refuses before the caller charges or starts anything.
 */
export class TaskTails {
  #open = 0;

  constructor(
    private readonly deps: {
      tasks: Collection<TaskDoc>;
      eventLog: EventLog;
      log: Logger;
      config: TaskTailsConfig;
    },
  ) {}

  /** Streams and blocking waits open now. */
  get open(): number {
    return this.#open;
  }

  /** Takes a slot or refuses with OVERLOADED (nothing charged or started yet: the client may retry). */
  admit(): Release {
    if (this.#open >= this.deps.config.maxStreams) {
      this.deps.log.warn({ open: this.#open, max: this.deps.config.maxStreams }, 'stream refused: process at its cap');
      throw new AppError('OVERLOADED', 'Server busy: too many open streams; retry shortly', {
        details: { retryAfterSeconds: 1 },
      });
    }
    this.#open += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#open -= 1;
    };
  }

  /** The task's events after `afterSeq` until one ends the stream (or the signal aborts). */
  async *follow(taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StreamItem> {
    let cursor = afterSeq;
    while (!signal.aborted) {
      const ac = new AbortController();
      const onAbort = (): void => ac.abort(FOLLOW_ENDED);
      signal.addEventListener('abort', onAbort, { once: true });
      const it = this.deps.eventLog.tail(taskId, cursor, ac.signal)[Symbol.asyncIterator]();
      let pending: PendingRead<IteratorResult<LoggedEvent>> | undefined;
      let failed = false;
      try {
        for (;;) {
          pending ??= new PendingRead(it.next());
          let next: IteratorResult<LoggedEvent> | typeof IDLE;
          try {
            next = await pending.orIdle(this.deps.config.storeCheckMs, signal);
          } catch (err) {
            if (signal.aborted) return;
            // The log is unreachable: the stored task still says how the task goes on.
            this.deps.log.warn({ err, taskId }, 'event log tail failed: following the stored task');
            pending = undefined;
            failed = true;
            break;
          }
          if (next === IDLE) {
            if (signal.aborted) return;
            const rebuilt = await this.#fromStore(taskId, cursor, true);
            if (rebuilt) {
              yield* rebuilt;
              cursor = rebuilt.at(-1)!.seq;
              if (rebuilt.at(-1)!.final) return;
            }
            continue;
          }
          pending = undefined;
          if (next.done) return;
          const e = next.value;
          if (e.seq <= cursor) continue; // already rebuilt from the store
          if (e.seq > cursor + 1) {
            const rebuilt = await this.#fromStore(taskId, cursor, false);
            if (rebuilt && rebuilt.at(-1)!.seq >= e.seq) {
              this.deps.log.info(
                { taskId, after: cursor, next: e.seq, rebuiltAt: rebuilt.at(-1)!.seq },
                'events missing from the log: rebuilt from the stored task',
              );
              yield* rebuilt;
              cursor = rebuilt.at(-1)!.seq;
              if (rebuilt.at(-1)!.final) return;
              continue;
            }
          }
          const logged = eventsV1.LoggedTaskEvent.decode(e.data);
          cursor = e.seq;
          yield { seq: logged.seq, eventJson: logged.eventJson, final: logged.final };
          if (logged.final) return;
        }
      } finally {
        signal.removeEventListener('abort', onAbort);
        ac.abort(FOLLOW_ENDED);
        it.return?.().catch(() => undefined);
      }
      if (failed) {
        const rebuilt = await this.#fromStore(taskId, cursor, false).catch(() => undefined);
        if (rebuilt) {
          yield* rebuilt;
          cursor = rebuilt.at(-1)!.seq;
          if (rebuilt.at(-1)!.final) return;
        }
        await sleep(this.deps.config.storeCheckMs, signal);
      }
    }
  }

  /**
   * A resumed stream of a task that has ended streams (finished, or waiting for input): its events after
   * `afterSeq` up to the first final one, from the log while it holds them in order; from the first event the
   * log lost, the stored task rebuilt as in `follow`. A log that ends before the task's last event may only be
   * behind (the task is written first, then its events appended): it gets `catchUpMs` without an event before
   * that counts as lost; a gap counts at once. Ends without a final item only when the task went on meanwhile
   * (a reply to `input-required`): the caller then follows it live.
   */
  async *replayEnded(task: TaskDoc, afterSeq: number, signal: AbortSignal): AsyncIterable<StreamItem> {
    let cursor = afterSeq;
    const ac = new AbortController();
    const onAbort = (): void => ac.abort(FOLLOW_ENDED);
    signal.addEventListener('abort', onAbort, { once: true });
    const it = this.deps.eventLog.tail(task.id, cursor, ac.signal)[Symbol.asyncIterator]();
    try {
      while (cursor < task.lastSeq) {
        let next: IteratorResult<LoggedEvent> | typeof IDLE;
        try {
          next = await new PendingRead(it.next()).orIdle(this.deps.config.catchUpMs, signal);
        } catch (err) {
          this.deps.log.warn(
            { err, taskId: task.id },
            'event log unreadable: the resumed stream rebuilt from the stored task',
          );
          break;
        }
        if (signal.aborted) return;
        if (next === IDLE || next.done) break;
        const e = next.value;
        if (e.seq <= cursor) continue;
        if (e.seq !== cursor + 1) break;
        const logged = eventsV1.LoggedTaskEvent.decode(e.data);
        // The task's last event must end the stream: if the log's copy does not, the rebuild below does.
        if (e.seq >= task.lastSeq && !logged.final) break;
        cursor = e.seq;
        yield { seq: logged.seq, eventJson: logged.eventJson, final: logged.final };
        if (logged.final) return;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      ac.abort(FOLLOW_ENDED);
      it.return?.().catch(() => undefined);
    }
    const stored = (await this.deps.tasks.get(task.id))?.doc ?? task;
    if (stored.lastSeq <= cursor) return; // went on, and the log holds it all: the caller follows it live
    this.deps.log.info(
      { taskId: task.id, after: afterSeq, logUpTo: cursor, stored: stored.lastSeq },
      'events missing from the log: the resumed stream rebuilt from the stored task',
    );
    yield* snapshotItems(stored);
  }

  /**
   * The stored task's state as stream items when it is ahead of `cursor`, else undefined. When `onlyIfLost`,
   * only if the log does not hold that seq either (otherwise the tail is about to deliver it).
   */
  async #fromStore(taskId: string, cursor: number, onlyIfLost: boolean): Promise<StreamItem[] | undefined> {
    const t = await this.deps.tasks.get(taskId);
    if (!t || t.doc.lastSeq <= cursor) return undefined;
    if (onlyIfLost) {
      // Kept in the task for the run's first write to log (ADR 0060): not lost, and that write wakes the tail.
      if (t.doc.logPending && t.doc.lastSeq === cursor + 1) return undefined;
      const last = await this.deps.eventLog.last(taskId).catch(() => 0);
      if (last >= t.doc.lastSeq) return undefined;
      this.deps.log.info(
        { taskId, after: cursor, stored: t.doc.lastSeq, logLast: last },
        'the log will not deliver what the stored task holds: rebuilt from the stored task',
      );
    }
    return snapshotItems(t.doc);
  }
}

/**
 * The stored task as stream items: each artifact in full (replacing what a client holds), then the status. Only
 * the last item carries the stored seq (its SSE id): the items stand for everything up to that seq together, so
 * a client has it only once the last one arrived. The others go without an id (seq 0): two frames with one id
 * would repeat an id on the wire, and a client cut off between them would resume after events it never got.
 */
export function snapshotItems(task: TaskDoc): StreamItem[] {
  const ended = endsStream(task.status.state);
  const items: StreamItem[] = task.artifacts.map((artifact) => {
    const evt: TaskArtifactUpdateEvent = {
      kind: 'artifact-update',
      taskId: task.id,
      contextId: task.contextId,
      artifact: structuredClone(artifact),
      append: false,
      lastChunk: ended,
    };
    return { seq: 0, eventJson: JSON.stringify(evt), final: false };
  });
  const status: TaskStatusUpdateEvent = {
    kind: 'status-update',
    taskId: task.id,
    contextId: task.contextId,
    status: task.status,
    final: ended,
  };
  items.push({ seq: task.lastSeq, eventJson: JSON.stringify(status), final: ended });
  return items;
}

/**
 * A read a follower waits on across idle periods. One reaction on the read however many periods pass: racing
 * the same pending promise once per period would add a reaction to it each time, which an idle stream keeps
 * until its next event (one per `storeCheckMs`, for hours).
 */
class PendingRead<T> {
  #result: { value: T } | { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  constructor(read: Promise<T>) {
    read.then(
      (value) => this.#settle({ value }),
      (error: unknown) => this.#settle({ error }),
    );
  }

  #settle(result: { value: T } | { error: unknown }): void {
    this.#result = result;
    this.#wake?.();
  }

  /** The read's result (or its error), IDLE while it is pending. */
  #outcome(): T | typeof IDLE {
    const r = this.#result;
    if (!r) return IDLE;
    if ('error' in r) throw r.error;
    return r.value;
  }

  /** The read's result, or IDLE after `ms` or when the signal aborts (the read stays pending). */
  orIdle(ms: number, signal: AbortSignal): Promise<T | typeof IDLE> {
    if (this.#result || signal.aborted) return new Promise((resolve) => resolve(this.#outcome()));
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#wake = undefined;
        try {
          resolve(this.#outcome());
        } catch (err) {
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the event log threw, as is
          reject(err);
        }
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }
}

/** Waits `ms`, or until the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
