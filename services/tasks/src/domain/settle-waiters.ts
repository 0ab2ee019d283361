import type { LastEvent, TaskDoc } from './model';
import { endsStream } from './model';

interface Waiter {
  readonly afterSeq: number;
  readonly resolve: (seq: number | undefined) => void;
}

/**
 * Blocking sends waiting for their task to settle, woken by the write of this process that settles it
 * (ADR 0053): used where every write of a task is made by this process (the embedded mode, one tasks service
 * on its engines), so no event log tail is needed to learn it. Each write's events go through `written`.
 */
export class SettleWaiters {
  readonly #waiting = new Map<string, Set<Waiter>>();

  /** Waiters registered now. */
  get size(): number {
    return this.#waiting.size;
  }

  /**
   * Resolves with the seq of the first event after `afterSeq` that ends the task's stream, or undefined when
   * `budgetMs` passes first. `current` is the task as last known (checked once registered: a run fast enough
   * to settle before the wait began is not missed); `check` reads the stored task every `checkMs` meanwhile,
   * a safety net that costs nothing while the wake comes.
   */
  wait(
    taskId: string,
    afterSeq: number,
    budgetMs: number,
    current: () => Promise<TaskDoc | undefined>,
    checkMs: number,
  ): Promise<number | undefined> {
    return new Promise((resolve) => {
      let done = false;
      // One timer per wait, for both the periodic look and the budget (a timer is a measurable share of a send).
      const end = performance.now() + budgetMs;
      const finish = (seq: number | undefined): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const set = this.#waiting.get(taskId);
        set?.delete(waiter);
        if (set?.size === 0) this.#waiting.delete(taskId);
        resolve(seq);
      };
      const waiter: Waiter = { afterSeq, resolve: finish };
      let set = this.#waiting.get(taskId);
      if (!set) this.#waiting.set(taskId, (set = new Set()));
      set.add(waiter);
      const look = (): void => {
        current().then(
          (t) => {
            if (t && t.lastSeq > afterSeq && endsStream(t.status.state)) finish(t.lastSeq);
          },
          () => undefined, // the next look, the wake or the budget ends the wait
        );
      };
      const tick = (): void => {
        const left = end - performance.now();
        if (left <= 0) return finish(undefined);
        look();
        timer = setTimeout(tick, Math.min(checkMs, left));
      };
      let timer = setTimeout(tick, Math.min(checkMs, budgetMs));
      look();
    });
  }

  /** A write of `task` emitted `events` (in seq order): wakes its waiters that one of them settles. */
  written(task: TaskDoc, events: readonly LastEvent[]): void {
    const set = this.#waiting.get(task.id);
    if (!set) return;
    for (const w of [...set]) {
      const ended = events.find((e) => e.final && e.seq > w.afterSeq);
      if (ended) w.resolve(ended.seq);
    }
  }
}
