import type { Logger } from '@a2a-inbound/logger';
import type { Clock, Collection } from '@a2a-inbound/ports';
import { a2aMeter } from '@a2a-inbound/telemetry';
import type { TaskState } from './domain/model';

/** Every state a stored task can be in (the label values of `a2a_tasks`). */
export const TASK_STATES = [
  'working',
  'input-required',
  'completed',
  'failed',
  'canceled',
] as const satisfies readonly TaskState[];

export interface TaskStateGaugeOptions {
  clock: Clock;
  log: Logger;
  /** Counts are reused for this long: scrapes from several Prometheus servers cost one count per interval. */
  minIntervalMs?: number;
  /** A count slower than this is abandoned: the scrape reports the last counts rather than waiting. */
  timeoutMs?: number;
}

export interface TaskStateGauge {
  /** The counts the next scrape reports (refreshed when older than `minIntervalMs`) and when they were taken. */
  counts(): Promise<{ atMs: number; counts: Record<TaskState, number> } | undefined>;
  close(): void;
}

/**
 * `a2a_tasks{state}`: the stored tasks in each state, counted in the document store at scrape time, and
 * `a2a_tasks_count_age_seconds`: how old those counts are.
 *
 * Why a count and not counters of transitions: the tasks collection is the truth shared by every tasks
 * replica, so a count is right whatever replica answers, after restarts (an up/down counter kept in memory
 * restarts at 0 while the tasks it counted remain) and after the retention sweep deletes tasks (no
 * transition marks that). Each replica reports the same number: aggregate with `max by (state)`, not `sum`.
 * The cost: one count per state on the indexed top-level `state` field, at most once per `minIntervalMs`
 * per replica, bounded by `timeoutMs`. A failed or slow count keeps the last counts (the OpenTelemetry SDK
 * repeats an observable's last values anyway) and logs a warning once per outage; the age then grows, which
 * is what the alert watches.
 */
export function registerTaskStateGauge(
  tasks: Pick<Collection<object>, 'count'>,
  options: TaskStateGaugeOptions,
): TaskStateGauge {
  const minIntervalMs = options.minIntervalMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  let last: { atMs: number; counts: Record<TaskState, number> } | undefined;
  type Taken = { atMs: number; counts: Record<TaskState, number> };
  let pending: Promise<Taken | undefined> | undefined;
  let failing = false;

  const countAll = async (): Promise<Record<TaskState, number>> => {
    const values = await Promise.all(TASK_STATES.map((state) => tasks.count({ state })));
    return Object.fromEntries(TASK_STATES.map((s, i) => [s, values[i]!])) as Record<TaskState, number>;
  };

  const refresh = async (): Promise<Taken | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const counts = await Promise.race([
        countAll(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`task counts took longer than ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      last = { atMs: options.clock.now(), counts };
      if (failing) options.log.info('task state counts work again');
      failing = false;
      return last;
    } catch (err) {
      if (!failing)
        options.log.warn({ err }, 'task state counts failed: a2a_tasks keeps its last values, its age grows');
      failing = true;
      return last;
    } finally {
      clearTimeout(timer);
    }
  };

  const counts = (): Promise<Taken | undefined> => {
    if (last && options.clock.now() - last.atMs < minIntervalMs) return Promise.resolve(last);
    pending ??= refresh().finally(() => {
      pending = undefined;
    });
    return pending;
  };

  const gauge = a2aMeter().createObservableGauge('a2a_tasks', {
    description: 'Stored tasks by state (the same value from every tasks replica: aggregate with max)',
  });
  const age = a2aMeter().createObservableGauge('a2a_tasks_count_age_seconds', {
    description: 'Age of the counts a2a_tasks reports (grows while the store cannot count)',
    unit: 's',
  });
  const meter = a2aMeter();
  const callback = async (result: {
    observe(instrument: typeof gauge, value: number, attributes?: { state: string }): void;
  }): Promise<void> => {
    const taken = await counts();
    if (!taken) return;
    for (const state of TASK_STATES) result.observe(gauge, taken.counts[state], { state });
    result.observe(age, (options.clock.now() - taken.atMs) / 1000);
  };
  meter.addBatchObservableCallback(callback, [gauge, age]);
  return { counts, close: () => meter.removeBatchObservableCallback(callback, [gauge, age]) };
}
