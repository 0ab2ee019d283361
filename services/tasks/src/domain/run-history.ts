import type { Collection, DocumentStore } from '@a2a-inbound/ports';
import type { TaskDoc, TaskState } from './model';

export interface RunSummary {
  taskId: string;
  contextId: string;
  state: TaskState;
  createdAtMs: number;
  updatedAtMs: number;
}

/**
 * Read side of the `tasks` collection for the run-history endpoint: an agent's tasks (runs), newest
 * first. It only reads; the TaskService stays the single writer of task state.
 */
/** The tasks read for a page after the first (or of one context): the history pages within this window. */
const HISTORY_WINDOW = 1000;

export class RunHistory {
  private constructor(private readonly tasks: Collection<TaskDoc>) {}

  static async open(store: DocumentStore): Promise<RunHistory> {
    // Same collection as the TaskService; this handle adds the index the history query needs.
    return new RunHistory(
      await store.collection<TaskDoc>({ name: 'tasks', indexes: [{ fields: ['subscriptionId', 'agentId'] }] }),
    );
  }

  async list(
    subscriptionId: string,
    agentId: string,
    options: { limit: number; createdBeforeMs: number; createdBeforeTaskId?: string; contextId?: string },
  ): Promise<RunSummary[]> {
    const limit = Math.min(Math.max(options.limit || 20, 1), 100);
    const byContext = options.contextId !== undefined && options.contextId.length > 0;
    const windowed = options.createdBeforeMs > 0 || byContext;
    const find = (n: number) =>
      this.tasks.find(
        byContext ? { subscriptionId, contextId: options.contextId! } : { subscriptionId, agentId },
        // Filters are equality only: read a bounded window, newest first, and cut by time (and agent) here.
        { sort: { field: 'createdAtMs', direction: -1 }, limit: n },
      );
    let rows = await find(windowed ? HISTORY_WINDOW : limit + 1);
    // A first page whose last task shares its millisecond with the next: read the window, so the tie is
    // ordered by task id here (the store orders by time only) and the next page continues after it exactly.
    if (!windowed && rows.length > limit && rows[limit]!.doc.createdAtMs === rows[limit - 1]!.doc.createdAtMs)
      rows = await find(HISTORY_WINDOW);
    const { createdBeforeMs: beforeMs, createdBeforeTaskId: beforeId } = options;
    return rows
      .filter((r) => r.doc.agentId === agentId)
      .sort((a, b) => b.doc.createdAtMs - a.doc.createdAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .filter(
        (r) =>
          beforeMs <= 0 ||
          r.doc.createdAtMs < beforeMs ||
          (!!beforeId && r.doc.createdAtMs === beforeMs && r.id < beforeId),
      )
      .slice(0, limit)
      .map((r) => ({
        taskId: r.id,
        contextId: r.doc.contextId,
        state: r.doc.status.state,
        createdAtMs: r.doc.createdAtMs,
        updatedAtMs: r.doc.updatedAtMs,
      }));
  }
}
