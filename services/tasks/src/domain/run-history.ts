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
    options: { limit: number; createdBeforeMs: number; contextId?: string },
  ): Promise<RunSummary[]> {
    const limit = Math.min(Math.max(options.limit || 20, 1), 100);
    const byContext = options.contextId !== undefined && options.contextId.length > 0;
    const rows = await this.tasks.find(
      byContext ? { subscriptionId, contextId: options.contextId! } : { subscriptionId, agentId },
      // Filters are equality only: read a bounded window, newest first, and cut by time (and agent) here.
      { sort: { field: 'createdAtMs', direction: -1 }, limit: options.createdBeforeMs > 0 || byContext ? 1000 : limit },
    );
    return rows
      .filter((r) => r.doc.agentId === agentId)
      .filter((r) => options.createdBeforeMs <= 0 || r.doc.createdAtMs < options.createdBeforeMs)
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
