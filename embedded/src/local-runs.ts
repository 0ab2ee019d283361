import type { eventsV1 } from '@a2a-inbound/proto';
import type { RunnerApp, LocalRunEvents } from '@a2a-inbound/runner';
import type { TaskService } from '@a2a-inbound/tasks';
import { tracingOn } from '@a2a-inbound/runtime';

/**
 * Runs handed between the tasks service and the runners of this process without the bus (ADR 0053): a run
 * request goes to a runner as the object tasks built, and the run's events come back to tasks' apply as the
 * objects the runner built. No protobuf encode or decode, no bus hop. Whatever cannot go this way takes the
 * bus as before: a request no runner of this process can take now (stopping, at its bound), a run handed
 * back, events whose direct apply failed, and everything while tracing is on (the bus carries the trace
 * context). Nothing the restart recovery reads changes: the task and its active-run marker are stored
 * before the run is requested, either way.
 */
export class LocalRuns {
  #runners: readonly RunnerApp[] = [];
  #tasks: TaskService | undefined;
  #next = 0;

  /** Both sides are started: from now on runs are handed over directly. */
  connect(tasks: TaskService, runners: readonly RunnerApp[]): void {
    this.#tasks = tasks;
    this.#runners = runners;
  }

  /** Stops handing over (the system is closing): everything takes the bus again. */
  disconnect(): void {
    this.#tasks = undefined;
    this.#runners = [];
  }

  /** The tasks service's `runHandOff`: a runner of this process took the request (round robin). */
  readonly request = (req: eventsV1.RunRequested): boolean => {
    const n = this.#runners.length;
    if (n === 0 || tracingOn()) return false;
    for (let i = 0; i < n; i++) {
      const runner = this.#runners[(this.#next + i) % n]!;
      if (runner.offer(req)) {
        this.#next = (this.#next + i + 1) % n;
        return true;
      }
    }
    return false;
  };

  /** The runners' `localEvents`: the tasks service of this process applies them. */
  readonly events: LocalRunEvents = {
    accepts: () => this.#tasks !== undefined && !tracingOn(),
    apply: (message) => {
      const tasks = this.#tasks;
      if (!tasks) return Promise.reject(new Error('the tasks service of this process is closing'));
      return tasks.applyRunEvent(message);
    },
  };
}
