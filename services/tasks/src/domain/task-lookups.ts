import { AppError, DuplicateKeyError } from '@a2a-inbound/errors';
import type { Collection, DocumentStore } from '@a2a-inbound/ports';
import { upsertWithRetry } from '@a2a-inbound/ports';
import type { PushConfigDoc, TaskDoc } from './model';

/**
 * Lookup documents that keep the hot path and the sweeper off collection scans (ADR 0015). A query on a
 * field other than `_id` scans the whole collection on FerretDB v1 (only an exact `{_id}` filter reaches
 * SQLite), so its cost grows with every stored task. Instead:
 *
 * - `contexts/<subscriptionId>:<contextId>` lists the context's latest task ids: conversation memory is
 *   one read by id plus one per recent task, never a query on `contextId`. A context a send starts is named
 *   after its first task and gets its entry only when a second task joins (ADR 0037).
 * - `active_runs/<taskId>` marks a task whose run may be in progress: the stuck-run sweeper reads this small
 *   collection instead of querying `tasks` by state. A marker is written before the task becomes `working`;
 *   the write that finishes a task deletes its marker by id, and the sweeper removes the markers of tasks
 *   that are no longer working otherwise (interrupted, or a failed delete), so it stays as small as the work
 *   in flight.
 */
export interface ContextDoc {
  subscriptionId: string;
  contextId: string;
  /** Latest task ids of the context, oldest first (bounded). */
  taskIds: string[];
}

/** `push_config_lists/<taskId>`: the ids of a task's push configs (at most 10), read instead of a query. */
export interface PushConfigListDoc {
  taskId: string;
  configIds: string[];
}

export interface ActiveRunDoc {
  taskId: string;
  sinceMs: number;
  /** The run marked (absent on markers written before it was recorded): the sweeper forgets the marker as
   * soon as its task is not working with this run as its current one. */
  runId?: string;
}

/** Task ids kept per context: memory needs at most one task per remembered message. */
export const CONTEXT_TASKS = 200;
/** A `contexts` document saying the one-time backfill from `tasks` (data stored before the lookups) is done. */
const BACKFILLED = '#backfilled';

export interface LookupCollections {
  contexts: Collection<ContextDoc>;
  activeRuns: Collection<ActiveRunDoc>;
  pushConfigLists: Collection<PushConfigListDoc>;
}

export async function openLookupCollections(
  store: DocumentStore,
  tasks: Collection<TaskDoc>,
  backfillExpiresAt: number,
): Promise<LookupCollections> {
  const lookups: LookupCollections = {
    contexts: await store.collection<ContextDoc>({ name: 'contexts' }),
    activeRuns: await store.collection<ActiveRunDoc>({ name: 'active_runs', indexes: [{ fields: ['sinceMs'] }] }),
    pushConfigLists: await store.collection<PushConfigListDoc>({ name: 'push_config_lists' }),
  };
  await backfill(lookups, tasks, await store.collection<PushConfigDoc>({ name: 'push_configs' }), backfillExpiresAt);
  return lookups;
}

export function contextKey(subscriptionId: string, contextId: string): string {
  return `${subscriptionId}:${contextId}`;
}

/** Adds a task to its context's list (creating the list for a new context); kept as long as a task is. */
export async function rememberInContext(
  contexts: Collection<ContextDoc>,
  task: Pick<TaskDoc, 'id' | 'subscriptionId' | 'contextId'>,
  expiresAt: number,
  taskIds: string[] = [task.id],
): Promise<void> {
  const id = contextKey(task.subscriptionId, task.contextId);
  // A context started by a send is named after its first task, which has no entry of its own (readers keep
  // only tasks of this subscription and context, so an id that names no such task is skipped).
  const first = taskIds.includes(task.contextId) ? [] : [task.contextId];
  const fresh = (): ContextDoc => ({
    subscriptionId: task.subscriptionId,
    contextId: task.contextId,
    taskIds: [...first, ...taskIds].slice(-CONTEXT_TASKS),
  });
  await upsertWithRetry(
    contexts,
    id,
    (cur) => {
      if (!cur) return fresh(); // swept meanwhile
      const added = taskIds.filter((t) => !cur.doc.taskIds.includes(t));
      // Appended to by a racing send of the same context: the helper reads it again.
      return { ...cur.doc, taskIds: [...cur.doc.taskIds, ...added].slice(-CONTEXT_TASKS) };
    },
    {
      attempts: 50,
      // Insert first: most tasks start a new context, and an insert needs no read.
      insertFirst: fresh,
      writeOptions: (_next, cur) => ({ expiresAt: Math.max(expiresAt, cur?.expiresAt ?? 0) }),
      exhausted: () => new AppError('UNAVAILABLE', `context ${task.contextId} is changing too fast`),
    },
  );
}

/**
 * Changes a task's push config list (created when missing); `change` returns the new ids, or undefined
 * to leave them (it runs again when the list changed under it). Resolves the ids after the change.
 */
export async function updatePushConfigList(
  lists: Collection<PushConfigListDoc>,
  taskId: string,
  expiresAt: number,
  change: (ids: string[]) => string[] | undefined | Promise<string[] | undefined>,
): Promise<string[]> {
  const saved = await upsertWithRetry(
    lists,
    taskId,
    async (cur) => {
      const ids = await change(cur?.doc.configIds ?? []);
      return ids ? { taskId, configIds: ids } : undefined;
    },
    {
      attempts: 50,
      writeOptions: () => ({ expiresAt }),
      exhausted: () => new AppError('UNAVAILABLE', `push configs of ${taskId} are changing too fast`),
    },
  );
  return saved?.doc.configIds ?? [];
}

/**
 * Marks a task's run as possibly in progress. An existing marker is touched (a new version), so a sweeper
 * that read it before the task went back to `working` cannot delete it (its delete is versioned).
 */
export async function markActive(
  activeRuns: Collection<ActiveRunDoc>,
  taskId: string,
  nowMs: number,
  runId?: string,
): Promise<void> {
  const doc: ActiveRunDoc = runId === undefined ? { taskId, sinceMs: nowMs } : { taskId, sinceMs: nowMs, runId };
  try {
    await activeRuns.insert(taskId, doc);
    return;
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
  }
  const cur = await activeRuns.get(taskId);
  if (!cur) return markActive(activeRuns, taskId, nowMs, runId);
  try {
    await activeRuns.replace(taskId, cur.version, doc);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'VERSION_CONFLICT')) throw err; // touched by someone else: as good
  }
}

/**
 * Data stored before the lookups existed: one pass over `tasks` at startup (once per database; replicas
 * racing here write the same documents), never on a request.
 */
async function backfill(
  lookups: LookupCollections,
  tasks: Collection<TaskDoc>,
  pushConfigs: Collection<PushConfigDoc>,
  expiresAt: number,
): Promise<void> {
  if (await lookups.contexts.get(BACKFILLED)) return;
  for (const config of await pushConfigs.find({})) {
    await updatePushConfigList(lookups.pushConfigLists, config.doc.taskId, expiresAt, (ids) =>
      ids.includes(config.doc.configId) ? undefined : [...ids, config.doc.configId],
    );
  }
  const byContext = new Map<string, { task: TaskDoc; ids: string[] }>();
  const page = 500;
  for (let skip = 0; ; skip += page) {
    const batch = await tasks.find({}, { limit: page, skip, sort: { field: 'createdAtMs', direction: 1 } });
    for (const t of batch) {
      const key = contextKey(t.doc.subscriptionId, t.doc.contextId);
      const entry = byContext.get(key) ?? { task: t.doc, ids: [] };
      entry.ids.push(t.id);
      byContext.set(key, entry);
      // Start unknown (a reply may have restarted it): 0 makes the sweeper look at it on its next pass.
      if (t.doc.status.state === 'working') await markActive(lookups.activeRuns, t.id, 0);
    }
    if (batch.length < page) break;
  }
  for (const { task, ids } of byContext.values()) await rememberInContext(lookups.contexts, task, expiresAt, ids);
  try {
    await lookups.contexts.insert(BACKFILLED, { subscriptionId: '', contextId: '', taskIds: [] });
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
  }
}
