import { describe, expect, it } from 'vitest';
import { InMemoryDocumentStore } from '@a2a-inbound/ports';
import type { TaskDoc } from '../../src/domain/model';
import { RunHistory } from '../../src/domain/run-history';

/** A task row as the history reads it: only the fields it filters and returns matter. */
const task = (id: string, createdAtMs: number): TaskDoc =>
  ({
    id,
    subscriptionId: 'sub-1',
    agentId: 'agent-1',
    contextId: 'ctx-1',
    status: { state: 'completed' },
    createdAtMs,
    updatedAtMs: createdAtMs,
  }) as unknown as TaskDoc;

describe('run history pages (A2A 1.0 ListTasks cursor)', () => {
  it('pages through tasks created in the same millisecond without skipping or repeating one', async () => {
    const store = new InMemoryDocumentStore();
    const history = await RunHistory.open(store);
    const tasks = await store.collection<TaskDoc>({ name: 'tasks' });
    // Seven tasks in one millisecond between two others: pages of 3 cut through the tie.
    const ids = ['t-a', 't-b', 't-c', 't-d', 't-e', 't-f', 't-g'];
    await tasks.insert('t-new', task('t-new', 2_000));
    for (const id of ids) await tasks.insert(id, task(id, 1_500));
    await tasks.insert('t-old', task('t-old', 1_000));

    for (const byContext of [false, true]) {
      const seen: string[] = [];
      let cursor = { createdBeforeMs: 0, createdBeforeTaskId: '' };
      for (let page = 0; page < 10; page++) {
        const rows = await history.list('sub-1', 'agent-1', {
          limit: 3,
          ...cursor,
          ...(byContext ? { contextId: 'ctx-1' } : {}),
        });
        seen.push(...rows.map((r) => r.taskId));
        if (rows.length < 3) break;
        cursor = { createdBeforeMs: rows.at(-1)!.createdAtMs, createdBeforeTaskId: rows.at(-1)!.taskId };
      }
      // Newest first, a tie by task id descending; every task once.
      expect(seen).toEqual(['t-new', ...[...ids].reverse(), 't-old']);
    }
  });

  it('a cursor of the time alone (an older token) still pages strictly before it', async () => {
    const store = new InMemoryDocumentStore();
    const history = await RunHistory.open(store);
    const tasks = await store.collection<TaskDoc>({ name: 'tasks' });
    await tasks.insert('t-1', task('t-1', 1_000));
    await tasks.insert('t-2', task('t-2', 2_000));
    const rows = await history.list('sub-1', 'agent-1', { limit: 5, createdBeforeMs: 2_000 });
    expect(rows.map((r) => r.taskId)).toEqual(['t-1']);
  });
});
