import type { Task } from '@a2a-js/sdk';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import { isVersionConflict, upsertWithRetry, type Versioned } from '@a2a-inbound/ports';
import type { PushConfigDoc, PushConfigInput } from './model';
import { updatePushConfigList } from './task-lookups';
import { TaskConcern, type CallerContext, type TaskCollections, type TaskCore } from './task-core';

/**
 * Push notification configs of a task (set, get, list, delete: the A2A methods) and what a push delivery of a
 * task needs (the webhooks service's internal read).
 */
export class PushConfigs extends TaskConcern {
  // ---- push notification configs ----------------------------------------------------------------

  async setPushConfig(caller: CallerContext, taskId: string, config: PushConfigInput): Promise<PushConfigView> {
    await this.#pushEnabled(caller);
    await this.core.owned(caller, taskId);
    return pushConfigView((await storePushConfig(this.core, caller.subscriptionId, taskId, config)).doc);
  }

  async getPushConfig(caller: CallerContext, taskId: string, configId: string): Promise<PushConfigView> {
    await this.#pushEnabled(caller);
    await this.core.owned(caller, taskId);
    const all = await this.#pushConfigsOf(taskId);
    const found = configId
      ? (all.find((c) => c.doc.configId === configId) ?? (all.length === 1 ? all[0] : undefined))
      : all[0];
    // A JSON-RPC outcome (HTTP 200), not the HTTP 404 of an unknown agent.
    if (!found)
      throw new InvalidParamsError('no push notification config with this pushNotificationConfigId for the task', {
        taskId,
        pushNotificationConfigId: configId,
      });
    return pushConfigView(found.doc);
  }

  async listPushConfigs(caller: CallerContext, taskId: string): Promise<PushConfigView[]> {
    await this.#pushEnabled(caller);
    await this.core.owned(caller, taskId);
    return (await this.#pushConfigsOf(taskId)).map((v) => pushConfigView(v.doc));
  }

  async deletePushConfig(caller: CallerContext, taskId: string, configId: string): Promise<void> {
    await this.#pushEnabled(caller);
    await this.core.owned(caller, taskId);
    const deleted = await this.c.pushConfigs.delete(`${taskId}:${configId || taskId}`);
    await unlistPushConfig(this.c, taskId, configId || taskId, this.deps.clock.now() + this.deps.config.retentionMs);
    if (!deleted)
      throw new InvalidParamsError('no push notification config with this pushNotificationConfigId for the task', {
        taskId,
        pushNotificationConfigId: configId,
      });
  }

  /** A task's push configs, from its list of ids (reads by id: no query on push_configs). */
  async #pushConfigsOf(taskId: string): Promise<Versioned<PushConfigDoc>[]> {
    const list = await this.c.pushConfigLists.get(taskId);
    const docs = await Promise.all(
      (list?.doc.configIds ?? []).map((configId) => this.c.pushConfigs.get(`${taskId}:${configId}`)),
    );
    return docs.filter((d): d is Versioned<PushConfigDoc> => d !== undefined);
  }

  // ---- push delivery (internal: the webhooks service) ------------------------------------------

  /**
   * What a push delivery of the task needs: the Task as tasks/get returns it (no history), whether push is
   * enabled for its agent, and its configs with their tokens. Internal only (never behind the gateway).
   */
  async pushDelivery(
    taskId: string,
    agentId?: string,
  ): Promise<{
    task: Task | undefined;
    enabled: boolean;
    targets: PushConfigDoc[];
  }> {
    const none = { task: undefined, enabled: false, targets: [] };
    // Webhooks asks on every status update of every task: when it names the task's agent and that agent has
    // push notifications off (most agents), the answer comes from the cached agent alone.
    if (agentId && !(await this.#pushEnabledFor(agentId))) return none;
    const t = taskId ? await this.c.tasks.get(taskId) : undefined;
    if (!t || (agentId && t.doc.agentId !== agentId)) return none;
    const enabled = agentId ? true : await this.#pushEnabledFor(t.doc.agentId);
    const targets = enabled ? (await this.#pushConfigsOf(taskId)).map((v) => v.doc) : [];
    // The Task (spilled parts read back from the blob store) only when there is someone to push it to: most
    // tasks have no push config, and webhooks asks on every status update.
    const task =
      targets.length > 0 ? await this.core.toA2A(t.doc, undefined, { emptyArtifactsWhileWorking: false }) : undefined;
    return { task, enabled, targets };
  }

  async #pushEnabledFor(agentId: string): Promise<boolean> {
    try {
      return (await this.deps.control.catalog.resolveAgent(agentId)).pushNotificationsEnabled;
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return false;
      throw err;
    }
  }

  async #pushEnabled(caller: CallerContext): Promise<void> {
    const agent = await this.deps.control.catalog.resolveAgent(caller.agentId);
    if (!agent.pushNotificationsEnabled)
      throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
  }
}

/**
 * Stores a task's push config (a new id up to the limit of 10 per task, a known id replaced), kept as long as
 * the task is. The caller has checked the task is the caller's and push is on: `setPushConfig`, or a send that
 * carries its config (ADR 0071).
 */
export async function storePushConfig(
  core: TaskCore,
  subscriptionId: string,
  taskId: string,
  config: PushConfigInput,
): Promise<StoredPushConfig> {
  const { c, deps } = core;
  const configId = config.id && config.id.length > 0 ? config.id : taskId;
  const id = `${taskId}:${configId}`;
  const doc: PushConfigDoc = {
    taskId,
    subscriptionId,
    configId,
    url: config.url,
    token: config.token,
    createdAtMs: deps.clock.now(),
  };
  if (config.authentication) doc.authentication = config.authentication;
  if (config.protocolVersion) doc.protocolVersion = config.protocolVersion;
  // Kept as long as a finished task is: the retention sweep deletes both.
  const keep = { expiresAt: deps.clock.now() + deps.config.retentionMs };
  const existing = await c.pushConfigs.get(id);
  // The task's list of config ids (read by id, no query) also holds the limit, atomically: a new id takes its
  // place before the config is written.
  if (!existing) await listPushConfig(c, taskId, configId, keep.expiresAt, false);
  let previous: PushConfigDoc | undefined;
  const saved = (await upsertWithRetry(
    c.pushConfigs,
    id,
    (cur) => {
      previous = cur?.doc;
      return doc;
    },
    { ...(existing ? { current: existing } : {}), writeOptions: () => keep },
  ))!;
  if (!previous) {
    // Inserted: a delete of this id that ran since the read above (or between the list update and the insert)
    // has taken it off the list. List it again, with a write even when it is there, so that a delete's list
    // update that saw the config absent before this insert loses its compare-and-set and looks again.
    try {
      await listPushConfig(c, taskId, configId, keep.expiresAt, true);
    } catch (err) {
      // The list filled up meanwhile: this config is not kept (a newer write of the id stays).
      await c.pushConfigs.delete(id, saved.version);
      throw err;
    }
  }
  return { doc, version: saved.version, ...(previous ? { previous } : {}) };
}

/**
 * Adds a config id to its task's list, up to 10 ids per task. `touch` writes the list even when the id is on
 * it already (a new version, which a racing `unlistPushConfig` cannot overwrite without reading again).
 */
async function listPushConfig(
  c: TaskCollections,
  taskId: string,
  configId: string,
  expiresAt: number,
  touch: boolean,
): Promise<void> {
  await updatePushConfigList(c.pushConfigLists, taskId, expiresAt, (ids) => {
    if (ids.includes(configId)) return touch ? [...ids] : undefined;
    if (ids.length >= 10) throw new InvalidParamsError('at most 10 push notification configs per task');
    return [...ids, configId];
  });
}

/**
 * Takes a deleted config's id off its task's list, unless the config is stored again (a racing set): every
 * stored config stays on the list. The config is read after the list, inside the list's compare-and-set, so a
 * set that inserts it later also writes the list (`listPushConfig` with `touch`) and this runs again.
 */
async function unlistPushConfig(c: TaskCollections, taskId: string, configId: string, expiresAt: number) {
  await updatePushConfigList(c.pushConfigLists, taskId, expiresAt, async (ids) => {
    if (!ids.includes(configId)) return undefined;
    if (await c.pushConfigs.get(`${taskId}:${configId}`)) return undefined;
    return ids.filter((x) => x !== configId);
  });
}

/** A config `storePushConfig` wrote (at `version`), and the one of the same id it replaced (if any), to undo it. */
export interface StoredPushConfig {
  doc: PushConfigDoc;
  version: number;
  previous?: PushConfigDoc;
}

/**
 * Undoes `storePushConfig` for a send refused after it stored its inline config (a reply that lost the race
 * to an input-required task): a replaced config comes back, a new one is removed with its id in the task's list.
 */
export async function undoStoredPushConfig(core: TaskCore, stored: StoredPushConfig): Promise<void> {
  const { c, deps } = core;
  const { taskId, configId } = stored.doc;
  const id = `${taskId}:${configId}`;
  const keep = deps.clock.now() + deps.config.retentionMs;
  // Compare-and-set on the version written: a config of the same id set since (by another request) stays.
  if (stored.previous) {
    try {
      await c.pushConfigs.replace(id, stored.version, stored.previous, { expiresAt: keep });
    } catch (err) {
      if (!isVersionConflict(err) && !(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
    }
    return;
  }
  if (!(await c.pushConfigs.delete(id, stored.version))) return;
  await unlistPushConfig(c, taskId, configId, keep);
}

/**
 * A push config as the client may see it again: the delivery secrets are write-only. The token and
 * `authentication.credentials` are stored for delivery (`pushDelivery`, internal) and never returned by
 * set/get/list.
 */
export type PushConfigView = Omit<PushConfigDoc, 'token'>;

export function pushConfigView(doc: PushConfigDoc): PushConfigView {
  const { token: _token, authentication, ...rest } = doc;
  if (!authentication) return rest;
  const { credentials: _credentials, ...publicAuth } = authentication;
  return { ...rest, authentication: publicAuth };
}
