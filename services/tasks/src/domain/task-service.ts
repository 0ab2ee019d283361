import type { Message, Part, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AppError,
  DuplicateKeyError,
  InvalidParamsError,
  isOutage,
  TaskNotCancelableError,
  TaskNotFoundError,
} from '@a2a-inbound/errors';
import { LargePayloads, RunLeases, mentionsSpill } from '@a2a-inbound/ports';
import type {
  BlobStore,
  Bus,
  Cache,
  Clock,
  Collection,
  DocumentStore,
  EventLog,
  IdGenerator,
  Versioned,
} from '@a2a-inbound/ports';
import type { Logger } from '@a2a-inbound/logger';
import { withSpan } from '@a2a-inbound/telemetry';
import { eventsV1 } from '@a2a-inbound/proto';
import type { AgentView, ControlPlane } from './control-plane';
import type { MessageIdDoc, PushConfigDoc, StoredStatus, TaskDoc, TaskState } from './model';
import { canTransition, endsStream, isTerminal } from './model';
import type { StreamItem } from './task-tails';
import { TaskTails } from './task-tails';

export type { StreamItem } from './task-tails';
import { memoryWindow } from './memory';
import type { LookupCollections } from './task-lookups';
import { contextKey, markActive, openLookupCollections, rememberInContext, updatePushConfigList } from './task-lookups';

export const TOPICS = {
  runRequested: 'a2a.run.requested',
  runCancel: 'a2a.run.cancel',
  taskEvents: 'a2a.task.events',
  taskUpdates: 'a2a.task.updates',
} as const;

export interface CallerContext {
  subscriptionId: string;
  deploymentId: string;
  agentId: string;
  keyId: string;
  protocolVersion: string;
}

export interface FileUpload {
  partIndex: number;
  name: string;
  mimeType: string;
  data: Uint8Array;
}

export interface SendOptions {
  historyLength?: number | undefined;
  blocking?: boolean | undefined;
  files?: FileUpload[];
}

export interface TaskServiceConfig {
  /** A run must finish within this time (ms) or the task fails. */
  runTimeoutMs: number;
  /** A run whose runner has not been heard from for this long is failed by the sweeper. */
  runStallMs: number;
  /** Messages of the context handed to the agent as conversation memory. */
  memoryMessages: number;
  /** Bytes of conversation memory (part JSON as the agent receives it) handed to the agent (ADR 0013). */
  memoryMaxBytes: number;
  /** Retention of finished tasks and their event streams. */
  retentionMs: number;
  /** Upper bound on how many history entries a task keeps. */
  maxHistory: number;
  /** Streams and blocking waits one process serves at once; more are refused before anything is charged. */
  maxStreams: number;
  /** A stream idle this long checks the stored task (heals events the event log lost). */
  streamStoreCheckMs: number;
}

export const DEFAULT_TASK_CONFIG: TaskServiceConfig = {
  runTimeoutMs: 15 * 60_000,
  runStallMs: 60_000,
  memoryMessages: 20,
  memoryMaxBytes: 4 * 1024 * 1024,
  retentionMs: 7 * 24 * 3600_000,
  maxHistory: 200,
  maxStreams: 20_000,
  streamStoreCheckMs: 15_000,
};

const TRACER = '@a2a-inbound/tasks';
/** A messageId claim older than this whose task does not exist was left by a process that died. */
const CLAIM_STALE_MS = 10_000;
/**
 * A run request larger than this carries its input (message and memory) as a blob reference instead: bus
 * messages stay far below Kafka's 1 MB limit whatever the metadata of the messages (ADR 0013).
 */
export const RUN_REQUEST_INLINE_MAX_BYTES = 256 * 1024;
const enc = new TextEncoder();
const dec = new TextDecoder();

export interface TaskCollections extends LookupCollections {
  tasks: Collection<TaskDoc>;
  messageIds: Collection<MessageIdDoc>;
  pushConfigs: Collection<PushConfigDoc>;
}

/** `backfillExpiresAt`: retention of the context lists built once from tasks stored before them. */
export async function openTaskCollections(
  store: DocumentStore,
  backfillExpiresAt = Date.now() + DEFAULT_TASK_CONFIG.retentionMs,
): Promise<TaskCollections> {
  const tasks = await store.collection<TaskDoc>({
    name: 'tasks',
    indexes: [{ fields: ['subscriptionId', 'contextId'] }, { fields: ['state'] }],
  });
  return {
    tasks,
    messageIds: await store.collection<MessageIdDoc>({ name: 'message_ids' }),
    pushConfigs: await store.collection<PushConfigDoc>({ name: 'push_configs', indexes: [{ fields: ['taskId'] }] }),
    ...(await openLookupCollections(store, tasks, backfillExpiresAt)),
  };
}

/** TaskDoc as stored, with the top-level `state` copy used by the sweeper's index. */
type StoredTask = TaskDoc & { state: TaskState };

export class TaskService {
  readonly #leases: RunLeases;
  readonly #tails: TaskTails;
  readonly #payloads: LargePayloads;

  constructor(
    private readonly c: TaskCollections,
    private readonly deps: {
      control: ControlPlane;
      blobs: BlobStore;
      bus: Bus;
      eventLog: EventLog;
      cache: Cache;
      clock: Clock;
      ids: IdGenerator;
      log: Logger;
      config: TaskServiceConfig;
    },
  ) {
    this.#leases = new RunLeases(deps.cache);
    this.#payloads = new LargePayloads(deps.blobs);
    this.#tails = new TaskTails({
      tasks: c.tasks,
      eventLog: deps.eventLog,
      log: deps.log,
      config: { maxStreams: deps.config.maxStreams, storeCheckMs: deps.config.streamStoreCheckMs },
    });
  }

  /** Streams and blocking waits this process serves now. */
  get openStreams(): number {
    return this.#tails.open;
  }

  // ---- message/send, message/stream -------------------------------------------------------------

  send(caller: CallerContext, message: Message, options: SendOptions): Promise<Task> {
    return withSpan(TRACER, 'tasks.send', { 'a2a.agent_id': caller.agentId }, async (span) => {
      // A blocking send waits on the log: admitted before anything is charged or started.
      const release = options.blocking !== false ? this.#tails.admit() : undefined;
      try {
        const { task, startSeq, repeated } = await this.#startOrContinue(caller, message, options);
        span.setAttribute('a2a.task_id', task.id);
        return await this.#answerSend(caller, task, startSeq, repeated, options);
      } finally {
        release?.();
      }
    });
  }

  async #answerSend(
    caller: CallerContext,
    task: TaskDoc,
    startSeq: number,
    repeated: boolean,
    options: SendOptions,
  ): Promise<Task> {
    const blocking = options.blocking !== false;
    if (repeated || !blocking)
      return await this.#toA2A(task, options.historyLength, { emptyArtifactsWhileWorking: true });
    const agent = await this.deps.control.resolveAgent(caller.agentId);
    const settled = await this.#waitForSettle(task.id, startSeq, agent.blockingBudgetMs);
    const current = (await this.c.tasks.get(task.id))?.doc ?? task;
    if (!settled && !isTerminal(current.status.state)) {
      // Budget spent: the run is detached and keeps running; answer `working` with empty artifacts.
      return await this.#toA2A({ ...current, status: { ...current.status, state: 'working' } }, options.historyLength, {
        emptyArtifactsWhileWorking: true,
        forceEmptyArtifacts: true,
      });
    }
    return await this.#toA2A(current, options.historyLength, { emptyArtifactsWhileWorking: true });
  }

  async *sendStream(
    caller: CallerContext,
    message: Message,
    options: SendOptions,
    signal: AbortSignal,
  ): AsyncIterable<StreamItem> {
    // Admitted before anything is charged or started: a full process refuses with OVERLOADED.
    const release = this.#tails.admit();
    try {
      yield* this.#sendStream(caller, message, options, signal);
    } finally {
      release();
    }
  }

  async *#sendStream(
    caller: CallerContext,
    message: Message,
    options: SendOptions,
    signal: AbortSignal,
  ): AsyncIterable<StreamItem> {
    const { task, startSeq, repeated } = await withSpan(
      TRACER,
      'tasks.send_stream',
      { 'a2a.agent_id': caller.agentId },
      async (span) => {
        const started = await this.#startOrContinue(caller, message, options);
        span.setAttribute('a2a.task_id', started.task.id);
        return started;
      },
    );
    // The stream starts with the Task as accepted (kind "task", as the A2A SDKs and A2A 1.0 do), then its
    // status and artifact updates. Its SSE id is the event it reflects, so Last-Event-ID resumes after it.
    const snapshot = await this.#toA2A(task, options.historyLength, { emptyArtifactsWhileWorking: true });
    yield { seq: repeated ? 0 : startSeq, eventJson: JSON.stringify(snapshot), final: false };
    if (repeated) {
      // The message was already handled: replay what the log holds for it.
      yield* this.#replayOrSnapshot(task, 0, signal);
      return;
    }
    yield* this.#tailUntilFinal(task, startSeq, signal);
  }

  // ---- tasks/get, tasks/cancel, tasks/resubscribe -----------------------------------------------

  async get(caller: CallerContext, taskId: string, historyLength?: number): Promise<Task> {
    const task = await this.#owned(caller, taskId);
    return await this.#toA2A(task.doc, historyLength, { emptyArtifactsWhileWorking: false });
  }

  async cancel(caller: CallerContext, taskId: string): Promise<Task> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const cur = await this.#owned(caller, taskId);
      if (isTerminal(cur.doc.status.state)) throw new TaskNotCancelableError(taskId, cur.doc.status.state);
      const status: StoredStatus = { state: 'canceled', timestamp: this.#now() };
      const next = this.#withStatusEvent(cur.doc, status);
      try {
        const saved = await this.c.tasks.replace(taskId, cur.version, next.doc, {
          expiresAt: this.deps.clock.now() + this.deps.config.retentionMs,
        });
        await this.#appendLogged(saved.doc, next.seq, next.eventJson, true);
        await this.deps.bus.publish({
          topic: TOPICS.runCancel,
          key: taskId,
          value: eventsV1.RunCancel.encode({ taskId, runId: cur.doc.currentRunId }).finish(),
        });
        return await this.#toA2A(saved.doc, undefined, { emptyArtifactsWhileWorking: false });
      } catch (err) {
        if (err instanceof AppError && err.code === 'VERSION_CONFLICT') continue;
        throw err;
      }
    }
    throw new AppError('UNAVAILABLE', 'task is changing too fast to cancel');
  }

  async *resubscribe(
    caller: CallerContext,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncIterable<StreamItem> {
    const task = await this.#owned(caller, taskId);
    const release = this.#tails.admit();
    try {
      yield* this.#replayOrSnapshot(task.doc, afterSeq, signal);
    } finally {
      release();
    }
  }

  // ---- push notification configs ----------------------------------------------------------------

  async setPushConfig(
    caller: CallerContext,
    taskId: string,
    config: { id?: string; url: string; token: string; authentication?: Record<string, unknown> },
  ): Promise<PushConfigView> {
    await this.#pushEnabled(caller);
    await this.#owned(caller, taskId);
    const configId = config.id && config.id.length > 0 ? config.id : taskId;
    const id = `${taskId}:${configId}`;
    const doc: PushConfigDoc = {
      taskId,
      subscriptionId: caller.subscriptionId,
      configId,
      url: config.url,
      token: config.token,
      createdAtMs: this.deps.clock.now(),
    };
    if (config.authentication) doc.authentication = config.authentication;
    const existing = await this.c.pushConfigs.get(id);
    // Kept as long as a finished task is: the retention sweep deletes both.
    const keep = { expiresAt: this.deps.clock.now() + this.deps.config.retentionMs };
    if (existing) await this.c.pushConfigs.replace(id, existing.version, doc, keep);
    else {
      // The task's list of config ids (read by id, no query) also holds the limit, atomically.
      await updatePushConfigList(this.c.pushConfigLists, taskId, keep.expiresAt, (ids) => {
        if (ids.includes(configId)) return undefined;
        if (ids.length >= 10) throw new InvalidParamsError('at most 10 push notification configs per task');
        return [...ids, configId];
      });
      try {
        await this.c.pushConfigs.insert(id, doc, keep);
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        const again = await this.c.pushConfigs.get(id);
        if (again) await this.c.pushConfigs.replace(id, again.version, doc, keep);
      }
    }
    return pushConfigView(doc);
  }

  async getPushConfig(caller: CallerContext, taskId: string, configId: string): Promise<PushConfigView> {
    await this.#pushEnabled(caller);
    await this.#owned(caller, taskId);
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
    await this.#owned(caller, taskId);
    return (await this.#pushConfigsOf(taskId)).map((v) => pushConfigView(v.doc));
  }

  async deletePushConfig(caller: CallerContext, taskId: string, configId: string): Promise<void> {
    await this.#pushEnabled(caller);
    await this.#owned(caller, taskId);
    const deleted = await this.c.pushConfigs.delete(`${taskId}:${configId || taskId}`);
    const keep = this.deps.clock.now() + this.deps.config.retentionMs;
    await updatePushConfigList(this.c.pushConfigLists, taskId, keep, (ids) =>
      ids.includes(configId || taskId) ? ids.filter((x) => x !== (configId || taskId)) : undefined,
    );
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
  async pushDelivery(taskId: string): Promise<{
    task: Task | undefined;
    enabled: boolean;
    targets: PushConfigDoc[];
  }> {
    const t = taskId ? await this.c.tasks.get(taskId) : undefined;
    if (!t) return { task: undefined, enabled: false, targets: [] };
    let enabled = false;
    try {
      enabled = (await this.deps.control.resolveAgent(t.doc.agentId)).pushNotificationsEnabled;
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
    }
    const targets = enabled ? (await this.#pushConfigsOf(taskId)).map((v) => v.doc) : [];
    return { task: await this.#toA2A(t.doc, undefined, { emptyArtifactsWhileWorking: false }), enabled, targets };
  }

  // ---- runner events (bus consumer) -------------------------------------------------------------

  /**
   * Applies one runner event to the stored task, exactly once (compare-and-set on the version and the
   * run sequence), then appends it to the central event log and fans it out to webhooks. Redeliveries
   * are recognised and only repair a lost log write.
   */
  applyRunEvent(event: eventsV1.TaskEvent): Promise<void> {
    const attributes = {
      'a2a.task_id': event.taskId,
      'a2a.run_id': event.runId,
      'a2a.run_seq': event.runSeq,
      'a2a.event': event.event?.$case ?? 'none',
    };
    return withSpan(TRACER, 'tasks.apply_event', attributes, () => this.#applyRunEvent(event));
  }

  async #applyRunEvent(event: eventsV1.TaskEvent): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const cur = await this.c.tasks.get(event.taskId);
      if (!cur) return; // unknown or swept task: nothing to apply
      const task = cur.doc;
      if (event.runId !== task.currentRunId) return; // a stale run (canceled, or superseded by a reply)
      // Liveness is the run lease in the cache (ADR 0011): a heartbeat event (older runners) costs no write.
      if (event.event?.$case === 'heartbeat') return;
      if (event.runSeq <= task.lastRunSeq) {
        // Redelivery: make sure the log holds the last applied event (the first write may have been lost).
        this.deps.log.info(
          { taskId: task.id, runId: event.runId, runSeq: event.runSeq },
          'run event already applied (redelivered): dropped',
        );
        if (event.runSeq === task.lastRunSeq && task.lastEvent) {
          await this.#appendLogged(task, task.lastEvent.seq, task.lastEvent.eventJson, task.lastEvent.final, {
            retried: true,
          });
        }
        return;
      }
      if (isTerminal(task.status.state)) {
        // Canceled, failed by its deadline, or finished: late events change nothing and never block the stream.
        this.deps.log.debug(
          { taskId: task.id, runId: event.runId, runSeq: event.runSeq, state: task.status.state },
          'run event for a finished task: ignored',
        );
        return;
      }
      if (event.runSeq !== task.lastRunSeq + 1) {
        // One task's events arrive in order (keyed), so a gap is an event lost for good (dead-lettered):
        // waiting cannot fill it, and retrying would hold every other task of the partition. Apply and say so.
        this.deps.log.warn(
          { taskId: task.id, runId: event.runId, runSeq: event.runSeq, lastRunSeq: task.lastRunSeq },
          'run event after a gap: applied',
        );
      }
      const next = await this.#applyToDoc(task, event);
      if (!next) return;
      next.doc.lastRunSeq = event.runSeq;
      next.doc.runSeenAtMs = this.deps.clock.now();
      try {
        const opts = isTerminal(next.doc.status.state)
          ? { expiresAt: this.deps.clock.now() + this.deps.config.retentionMs }
          : {};
        const saved = await this.c.tasks.replace(task.id, cur.version, next.doc, opts);
        // An outage of the log fails the handler: the bus retries it, and the retry re-appends this event.
        await this.#appendLogged(saved.doc, next.seq, next.eventJson, next.final, { retried: true });
        return;
      } catch (err) {
        if (err instanceof AppError && err.code === 'VERSION_CONFLICT') continue;
        throw err;
      }
    }
    throw new AppError('UNAVAILABLE', `could not apply event to ${event.taskId}`);
  }

  /**
   * Retention: deletes finished tasks, idempotency records and push configs whose `expiresAt` passed
   * (no TTL indexes: FerretDB v1 has none). Safe on every replica at once: deletes are idempotent.
   */
  async sweepRetention(): Promise<{ tasks: number; messageIds: number; pushConfigs: number }> {
    const now = this.deps.clock.now();
    await this.c.contexts.sweepExpired(now);
    await this.c.pushConfigLists.sweepExpired(now);
    return {
      tasks: await this.c.tasks.sweepExpired(now),
      messageIds: await this.c.messageIds.sweepExpired(now),
      pushConfigs: await this.c.pushConfigs.sweepExpired(now),
    };
  }

  /**
   * Fails tasks whose run overran its deadline, or whose run was started by a runner that is gone and that
   * no runner took over within `runStallMs` (ADR 0011). Liveness comes from run leases, never from how long
   * a run waited in the queue or how far the task-events consumer lags: a queued run is only bounded by
   * its deadline.
   */
  async sweepStuckRuns(): Promise<number> {
    const now = this.deps.clock.now();
    // The small set of tasks that may be running, not a query on `tasks` (a scan on FerretDB).
    const active = await this.c.activeRuns.find({}, { limit: 500, sort: { field: 'sinceMs', direction: 1 } });
    // A run started less than this ago can be neither overdue nor stalled: its task is not even read.
    const quietMs = Math.min(this.deps.config.runStallMs, this.deps.config.runTimeoutMs);
    let failed = 0;
    for (const marker of active) {
      if (now - marker.doc.sinceMs <= quietMs) continue;
      const v = await this.c.tasks.get(marker.id);
      if (!v ? now - marker.doc.sinceMs > CLAIM_STALE_MS : v.doc.status.state !== 'working') {
        // Finished, waiting for input, or a task that was never stored. Versioned: a reply that made the task
        // work again touched the marker meanwhile, and keeps it.
        await this.c.activeRuns.delete(marker.id, marker.version);
        continue;
      }
      if (!v) continue; // its send may still be storing it
      const t = v.doc;
      const overdue = now > t.runDeadlineMs;
      if (!overdue) {
        if (now - t.runSeenAtMs <= this.deps.config.runStallMs) continue;
        const run = await this.#runState(t, now);
        if (run === 'queued') await this.#republishIfDue(t);
        if (run !== 'lost') continue;
      }
      const reason = overdue
        ? 'The run did not finish within its time limit.'
        : 'The agent runner stopped responding; the run was abandoned.';
      const status: StoredStatus = {
        state: 'failed',
        timestamp: this.#now(),
        message: this.#agentMessage(t, reason, 'failure'),
      };
      const next = this.#withStatusEvent(t, status);
      try {
        const saved = await this.c.tasks.replace(t.id, v.version, next.doc, {
          expiresAt: now + this.deps.config.retentionMs,
        });
        await this.#appendLogged(saved.doc, next.seq, next.eventJson, true);
        await this.deps.bus.publish({
          topic: TOPICS.runCancel,
          key: t.id,
          value: eventsV1.RunCancel.encode({ taskId: t.id, runId: t.currentRunId }).finish(),
        });
        this.deps.log.warn({ taskId: t.id, reason }, 'run failed by the sweeper');
        failed += 1;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'VERSION_CONFLICT')) throw err;
      }
    }
    return failed;
  }

  /**
   * `alive`: a runner holds the run, or it finished and its events are on their way. `queued`: no runner
   * started it yet. `lost`: a runner started it, its lease lapsed, and no runner took it over for
   * `runStallMs`.
   */
  async #runState(t: TaskDoc, now: number): Promise<'alive' | 'queued' | 'lost'> {
    const lease = await this.#leases.get(t.currentRunId);
    if (lease) return 'alive';
    if (!(await this.#leases.started(t.currentRunId))) return 'queued';
    const stallMs = this.deps.config.runStallMs;
    const since = await this.#leases.lostSince(t.currentRunId, now, 4 * stallMs);
    return now - since >= stallMs ? 'lost' : 'alive';
  }

  /**
   * A run not started after `runStallMs` may never have been published (the process died between storing
   * the task and publishing its request): publish it again, at most once per `runStallMs`. A duplicate
   * request is harmless: it is keyed like the first, so it waits behind it, and the runner skips a run
   * whose lease says `done`.
   */
  async #republishIfDue(t: TaskDoc): Promise<void> {
    if (!(await this.#leases.claimRepublish(t.currentRunId, this.deps.config.runStallMs))) return;
    const message = [...t.history].reverse().find((m) => m.role === 'user');
    if (!message) return;
    const agent = await this.deps.control.resolveAgent(t.agentId);
    await this.#publishRun(agent, t, t.currentRunId, { message, attachments: attachmentsOf(message) });
    this.deps.log.info({ taskId: t.id, runId: t.currentRunId }, 'run not started yet: request published again');
  }

  // ---- internals ----------------------------------------------------------------------------------

  async #startOrContinue(
    caller: CallerContext,
    message: Message,
    options: SendOptions,
  ): Promise<{ task: TaskDoc; startSeq: number; repeated: boolean }> {
    const agent = await this.deps.control.resolveAgent(caller.agentId);
    if (agent.subscriptionId !== caller.subscriptionId) throw new AppError('NOT_FOUND', 'agent not found');
    if (!agent.servedVersion) throw new AppError('FAILED_PRECONDITION', 'the agent has no version to serve');

    // Idempotency: the first send of a messageId claims it; later sends get the stored task.
    const idemId = `${caller.subscriptionId}:${message.messageId}`;
    const continuing = typeof message.taskId === 'string' && message.taskId.length > 0;
    let existingTask: Versioned<TaskDoc> | undefined;
    if (continuing) {
      existingTask = await this.c.tasks.get(message.taskId!);
      if (
        !existingTask ||
        existingTask.doc.subscriptionId !== caller.subscriptionId ||
        existingTask.doc.agentId !== caller.agentId
      ) {
        throw new TaskNotFoundError(message.taskId!);
      }
    }
    let taskId = continuing ? message.taskId! : this.deps.ids.next();
    try {
      await this.c.messageIds.insert(
        idemId,
        {
          subscriptionId: caller.subscriptionId,
          messageId: message.messageId,
          taskId,
          createdAtMs: this.deps.clock.now(),
        },
        { expiresAt: this.deps.clock.now() + this.deps.config.retentionMs },
      );
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      const earlier = await this.#repeatedTask(idemId);
      if ('task' in earlier) return { task: earlier.task, startSeq: 0, repeated: true };
      if (!earlier.takeOver) return this.#startOrContinue(caller, message, options); // released: a new send
      // The first request has not stored its message after CLAIM_STALE_MS (it died, or is stuck): this one
      // takes the message over with the claim's task id, so at most one task can ever be stored for it (the
      // loser of the insert returns the winner's task), and the charge is keyed by the messageId.
      taskId = earlier.takeOver;
    }

    try {
      if (continuing && existingTask) {
        if (existingTask.doc.status.state !== 'input-required') {
          throw new InvalidParamsError(
            `task ${taskId} is ${existingTask.doc.status.state} and cannot take a new message`,
            {
              taskId,
              state: existingTask.doc.status.state,
            },
          );
        }
        if (message.contextId && message.contextId !== existingTask.doc.contextId) {
          throw new InvalidParamsError('contextId does not match the task');
        }
      }
      await this.deps.control.charge(caller.subscriptionId, `msg:${message.messageId}`);
    } catch (err) {
      await this.c.messageIds.delete(idemId); // not handled: the same messageId may be sent again
      throw err;
    }

    const runId = this.deps.ids.next();
    const now = this.deps.clock.now();
    let stored: { message: Message; attachments: eventsV1.Attachment[] };
    let continued: { task: TaskDoc; startSeq: number } | undefined;
    try {
      stored = await this.#storeMessageFiles(caller, message, options.files ?? [], taskId);
      // A reply racing another reply to the same task may find it no longer input-required.
      if (continuing && existingTask) continued = await this.#continueTask(existingTask, stored.message, runId);
    } catch (err) {
      // A request that took this message over may have lost the race to the first one: its task has it.
      const handled = continuing ? await this.#taskWithMessage(taskId, message.messageId) : undefined;
      if (handled) return { task: handled, startSeq: 0, repeated: true };
      // Refused before anything ran: a JSON-RPC error is never charged and does not consume the messageId.
      await this.deps.control.refund(caller.subscriptionId, `msg:${message.messageId}`);
      await this.c.messageIds.delete(idemId);
      throw err;
    }
    let task: TaskDoc;
    let startSeq: number;
    if (continued) {
      task = continued.task;
      startSeq = continued.startSeq;
    } else {
      const contextId = message.contextId && message.contextId.length > 0 ? message.contextId : this.deps.ids.next();
      const userMessage: Message = { ...stored.message, taskId, contextId };
      const base: StoredTask = {
        id: taskId,
        subscriptionId: caller.subscriptionId,
        deploymentId: agent.deploymentId,
        agentId: caller.agentId,
        contextId,
        status: { state: 'working', timestamp: this.#now() },
        state: 'working',
        artifacts: [],
        history: [userMessage],
        currentRunId: runId,
        lastRunSeq: 0,
        lastSeq: 0,
        runDeadlineMs: now + this.deps.config.runTimeoutMs,
        runSeenAtMs: now,
        createdAtMs: now,
        updatedAtMs: now,
      };
      if (message.metadata) base.metadata = message.metadata;
      const first = this.#withStatusEvent(base, { state: 'working', timestamp: this.#now() });
      let inserted = false;
      try {
        // Lookups first: a marker or list entry of a task that never appears is harmless (ADR 0015).
        await markActive(this.c.activeRuns, taskId, now);
        await rememberInContext(this.c.contexts, first.doc, now + this.deps.config.retentionMs);
        await this.c.tasks.insert(taskId, first.doc);
        inserted = true;
        await this.#appendLogged(first.doc, first.seq, first.eventJson, false);
      } catch (err) {
        // Two requests for one message (a take-over racing a slow first one) share the task id: the loser of
        // the insert answers with the winner's task, charged once, its run published once.
        if (!inserted && err instanceof DuplicateKeyError) {
          const winner = await this.c.tasks.get(taskId); // a new task's id belongs to this message's claim only
          if (winner) return { task: winner.doc, startSeq: 0, repeated: true };
        }
        // Refused (the store or the event log failed): nothing will run, so nothing is charged, and the
        // messageId may be sent again. A task stored without its first logged event could never stream.
        if (inserted) await this.c.tasks.delete(taskId).catch(() => false);
        await this.deps.control.refund(caller.subscriptionId, `msg:${message.messageId}`);
        await this.c.messageIds.delete(idemId);
        throw err;
      }
      task = first.doc;
      startSeq = first.seq - 1;
    }
    try {
      await this.#publishRun(agent, task, runId, stored);
    } catch (err) {
      // The task is stored and accepted: a run no runner started is published again by the sweeper after
      // RUN_STALL_MS (ADR 0011), so a bus outage here delays the run instead of refusing a charged request.
      this.deps.log.warn({ err, taskId: task.id, runId }, 'run request not published: the sweeper will publish it');
    }
    return { task, startSeq, repeated: false };
  }

  async #continueTask(
    cur: Versioned<TaskDoc>,
    reply: Message,
    runId: string,
  ): Promise<{ task: TaskDoc; startSeq: number }> {
    let version = cur.version;
    let doc = cur.doc;
    for (let attempt = 0; attempt < 20; attempt++) {
      if (doc.status.state !== 'input-required')
        throw new InvalidParamsError(`task ${doc.id} is ${doc.status.state} and cannot take a new message`);
      const now = this.deps.clock.now();
      const base: StoredTask = {
        ...doc,
        state: 'working',
        history: [...doc.history, { ...reply, taskId: doc.id, contextId: doc.contextId }].slice(
          -this.deps.config.maxHistory,
        ),
        currentRunId: runId,
        lastRunSeq: 0,
        runDeadlineMs: now + this.deps.config.runTimeoutMs,
        runSeenAtMs: now,
      };
      const next = this.#withStatusEvent(base, { state: 'working', timestamp: this.#now() });
      try {
        await markActive(this.c.activeRuns, doc.id, now);
        const saved = await this.c.tasks.replace(doc.id, version, next.doc);
        await this.#appendLogged(saved.doc, next.seq, next.eventJson, false);
        return { task: saved.doc, startSeq: next.seq - 1 };
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'VERSION_CONFLICT')) throw err;
        const again = await this.c.tasks.get(doc.id);
        if (!again) throw new TaskNotFoundError(doc.id);
        version = again.version;
        doc = again.doc;
      }
    }
    throw new AppError('UNAVAILABLE', 'task is changing too fast');
  }

  /**
   * The task of a messageId claimed before. The racing first send may still be creating it: wait a little.
   * A claim whose message is still not stored after `CLAIM_STALE_MS` (the claiming process died, or is stuck
   * behind an outage) is taken over: the claim is refreshed by compare-and-set, so one retry at a time takes
   * it, and the caller goes on with the claim's task id. `{ takeOver: undefined }`: the claim was released
   * meanwhile (a refused first send), so the message is new.
   */
  async #repeatedTask(idemId: string): Promise<{ task: TaskDoc } | { takeOver: string | undefined }> {
    for (let i = 0; i < 100; i++) {
      const idem = await this.c.messageIds.get(idemId);
      if (!idem) return { takeOver: undefined };
      const t = await this.#taskWithMessage(idem.doc.taskId, idem.doc.messageId);
      if (t) return { task: t };
      const now = this.deps.clock.now();
      if (now - idem.doc.createdAtMs > CLAIM_STALE_MS) {
        try {
          await this.c.messageIds.replace(idemId, idem.version, { ...idem.doc, createdAtMs: now });
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'VERSION_CONFLICT')) throw err;
          continue; // another retry took it over, or the claim changed: look again
        }
        this.deps.log.warn(
          { taskId: idem.doc.taskId },
          'messageId claimed by a send that has not stored its message: taken over with the same task id',
        );
        return { takeOver: idem.doc.taskId };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new AppError('UNAVAILABLE', 'the first request with this messageId is still being processed');
  }

  /** The stored task `taskId` when it holds the message `messageId` (it was handled), else undefined. */
  async #taskWithMessage(taskId: string, messageId: string): Promise<TaskDoc | undefined> {
    const t = await this.c.tasks.get(taskId);
    return t && t.doc.history.some((m) => m.messageId === messageId) ? t.doc : undefined;
  }

  async #storeMessageFiles(
    caller: CallerContext,
    message: Message,
    files: FileUpload[],
    taskId: string,
  ): Promise<{ message: Message; attachments: eventsV1.Attachment[] }> {
    const parts: Part[] = message.parts.map((p) => structuredClone(p));
    const attachments: eventsV1.Attachment[] = [];
    for (const f of files) {
      const part = parts[f.partIndex];
      if (!part || part.kind !== 'file')
        throw new InvalidParamsError(`file upload for part ${f.partIndex} does not match a file part`);
      const ref = await this.deps.blobs.put(f.data, {
        owner: caller.subscriptionId,
        name: f.name,
        mimeType: f.mimeType,
      });
      // The stored message references the file instead of carrying its bytes.
      parts[f.partIndex] = {
        ...part,
        file: { ...(f.name ? { name: f.name } : {}), mimeType: f.mimeType, uri: `urn:a2a-inbound:file:${ref.id}` },
        metadata: {
          ...(part.metadata ?? {}),
          'a2a-inbound/fileId': ref.id,
          'a2a-inbound/size': ref.size,
          'a2a-inbound/sha256': ref.sha256,
        },
      };
      attachments.push({ blobId: ref.id, name: f.name, mimeType: f.mimeType, size: ref.size, uri: '' });
    }
    for (const p of parts) {
      if (p.kind === 'file' && 'uri' in p.file && !p.file.uri.startsWith('urn:a2a-inbound:file:')) {
        attachments.push({
          blobId: '',
          name: p.file.name ?? '',
          mimeType: p.file.mimeType ?? '',
          size: 0,
          uri: p.file.uri,
        });
      }
    }
    this.deps.log.debug({ taskId, files: attachments.length }, 'message files stored');
    // Large parts go to the blob store too: the task document and the run request carry references.
    const compact = await this.#payloads.compactParts(parts, caller.subscriptionId);
    return { message: { ...message, parts: compact }, attachments };
  }

  async #publishRun(
    agent: AgentView,
    task: TaskDoc,
    runId: string,
    stored: { message: Message; attachments: eventsV1.Attachment[] },
  ): Promise<void> {
    const memory = await this.#contextMemory(task);
    const messageJson = JSON.stringify({ ...stored.message, taskId: task.id, contextId: task.contextId });
    const historyJson = JSON.stringify(memory);
    const req: eventsV1.RunRequested = {
      taskId: task.id,
      contextId: task.contextId,
      subscriptionId: task.subscriptionId,
      deploymentId: task.deploymentId,
      agentId: task.agentId,
      agentVersion: agent.servedVersion,
      runtime: agent.runtime,
      runId,
      messageJson,
      historyJson,
      attachments: stored.attachments,
      deadlineMs: task.runDeadlineMs,
      attempt: 1,
      runtimeConfigJson: JSON.stringify(agent.runtimeConfig),
      trace: {},
      inputBlobId: '',
    };
    let value = eventsV1.RunRequested.encode(req).finish();
    if (value.byteLength > RUN_REQUEST_INLINE_MAX_BYTES) {
      // Spilled parts keep this rare (many parts' or messages' metadata): the input travels as a blob.
      const input = await this.#payloads.putJson({ messageJson, historyJson }, task.subscriptionId, 'a2a-run-input');
      value = eventsV1.RunRequested.encode({
        ...req,
        messageJson: '',
        historyJson: '',
        inputBlobId: input.id,
      }).finish();
    }
    await this.deps.bus.publish({ topic: TOPICS.runRequested, key: task.id, value });
  }

  /**
   * Conversation memory: the latest messages of the context (this task's earlier turns included), bounded by
   * count and by bytes (ADR 0013). Spilled parts stay references; the runner resolves them.
   */
  async #contextMemory(task: TaskDoc): Promise<Message[]> {
    const { memoryMessages, memoryMaxBytes } = this.deps.config;
    if (memoryMessages === 0) return [];
    // The context's list of task ids, then each recent task by id: no query on `contextId` (ADR 0015).
    // At most two rounds of reads by id, newest tasks first: a turn is usually two messages (question and
    // answer), so half as many tasks as messages usually suffice; the rest only when they do not.
    const context = await this.c.contexts.get(contextKey(task.subscriptionId, task.contextId));
    const ids = (context?.doc.taskIds ?? [task.id]).slice(-(memoryMessages + 1));
    const read = (batch: string[]): Promise<(TaskDoc | undefined)[]> =>
      Promise.all(batch.map(async (id) => (id === task.id ? task : (await this.c.tasks.get(id))?.doc)));
    const firstRound = Math.ceil((memoryMessages + 1) / 2);
    let siblings = await read(ids.slice(-firstRound));
    const seen = siblings.reduce((n, d) => n + (d?.history.length ?? 0), 0);
    if (seen <= memoryMessages && ids.length > firstRound)
      siblings = [...(await read(ids.slice(0, -firstRound))), ...siblings];
    const messages: Message[] = [];
    for (const doc of siblings) if (doc) messages.push(...doc.history);
    // The message being answered is sent separately; drop it from the memory.
    const lastUser = task.history.at(-1);
    const filtered = messages.filter((m) => m.messageId !== lastUser?.messageId);
    return memoryWindow(filtered, { maxMessages: memoryMessages, maxBytes: memoryMaxBytes });
  }

  async #applyToDoc(
    task: TaskDoc,
    event: eventsV1.TaskEvent,
  ): Promise<{ doc: StoredTask; seq: number; eventJson: string; final: boolean } | undefined> {
    const ev = event.event;
    if (!ev) return undefined;
    const owner = task.subscriptionId;
    if (ev.$case === 'status') {
      const state = ev.status.state as TaskState;
      if (!canTransition(task.status.state, state)) {
        this.deps.log.warn(
          { taskId: task.id, from: task.status.state, to: state },
          'ignored invalid transition from runner',
        );
        return undefined;
      }
      const status: StoredStatus = { state, timestamp: this.#now() };
      if (ev.status.messageJson) {
        // Runners spill large parts themselves; compacting again bounds what an older runner sends.
        const m = await this.#payloads.compactMessage(JSON.parse(ev.status.messageJson) as Message, owner);
        status.message = { ...m, taskId: task.id, contextId: task.contextId };
      }
      let history = task.history;
      if (status.message) history = [...history, status.message];
      if (state === 'completed') {
        const answer = task.artifacts.find((a) => a.name === 'agent_response');
        if (answer) {
          history = [
            ...history,
            {
              kind: 'message',
              role: 'agent',
              messageId: `${task.id}-answer-${task.lastSeq + 1}`,
              taskId: task.id,
              contextId: task.contextId,
              parts: answer.parts,
            },
          ];
        }
      }
      const next = this.#withStatusEvent(
        { ...task, history: history.slice(-this.deps.config.maxHistory), state } as StoredTask,
        status,
      );
      return { ...next, final: endsStream(state) };
    }
    if (ev.$case === 'artifact') {
      const a = ev.artifact;
      const parts = await this.#payloads.compactParts(JSON.parse(a.partsJson) as Part[], owner);
      const artifacts = task.artifacts.map((x) => structuredClone(x));
      const existing = artifacts.find((x) => x.artifactId === a.artifactId);
      if (existing && a.append) {
        for (const p of parts) {
          const last = existing.parts.at(-1);
          if (last && last.kind === 'text' && p.kind === 'text')
            existing.parts[existing.parts.length - 1] = await this.#payloads.appendText(last, p, owner);
          else existing.parts.push(p);
        }
        // Deltas add up: the stored artifact is spilled as it grows, so the task document stays small.
        existing.parts = await this.#payloads.compactParts(existing.parts, owner);
      } else if (existing) {
        existing.parts = parts;
      } else {
        artifacts.push({ artifactId: a.artifactId, name: a.name, parts });
      }
      const seq = task.lastSeq + 1;
      const evt: TaskArtifactUpdateEvent = {
        kind: 'artifact-update',
        taskId: task.id,
        contextId: task.contextId,
        artifact: { artifactId: a.artifactId, name: a.name, parts },
        append: a.append,
        lastChunk: a.lastChunk,
      };
      const eventJson = JSON.stringify(evt);
      const doc: StoredTask = {
        ...(task as StoredTask),
        artifacts,
        lastSeq: seq,
        lastEvent: { seq, eventJson, final: false },
        updatedAtMs: this.deps.clock.now(),
      };
      return { doc, seq, eventJson, final: false };
    }
    return undefined;
  }

  #withStatusEvent(task: TaskDoc, status: StoredStatus): { doc: StoredTask; seq: number; eventJson: string } {
    const seq = task.lastSeq + 1;
    const final = endsStream(status.state);
    const evt: TaskStatusUpdateEvent = {
      kind: 'status-update',
      taskId: task.id,
      contextId: task.contextId,
      status: status,
      final,
    };
    const eventJson = JSON.stringify(evt);
    const doc: StoredTask = {
      ...(task as StoredTask),
      status,
      state: status.state,
      lastSeq: seq,
      lastEvent: { seq, eventJson, final },
      updatedAtMs: this.deps.clock.now(),
    };
    return { doc, seq, eventJson };
  }

  /**
   * Appends a stored event to the log and announces it to webhooks. `retried`: the caller is retried on an
   * outage (the bus consumer). Otherwise (a send, a cancel, the sweeper) the event is already in the
   * authoritative stored task, so an unreachable log does not fail the request: followers rebuild from the
   * stored task (ADR 0014) and the update still goes to webhooks.
   */
  async #appendLogged(
    task: TaskDoc,
    seq: number,
    eventJson: string,
    final: boolean,
    options: { retried?: boolean } = {},
  ): Promise<void> {
    const logged: eventsV1.LoggedTaskEvent = {
      taskId: task.id,
      seq,
      eventJson,
      final,
      subscriptionId: task.subscriptionId,
      agentId: task.agentId,
    };
    const bytes = eventsV1.LoggedTaskEvent.encode(logged).finish();
    let appended: boolean;
    try {
      appended = await this.#appendToLog(task, seq, bytes, final);
    } catch (err) {
      if (options.retried || !isOutage(err)) throw err;
      this.deps.log.warn({ err, taskId: task.id, seq }, 'event log unavailable: the event is in the stored task only');
      appended = true;
    }
    if (appended) {
      await this.deps.bus.publish({ topic: TOPICS.taskUpdates, key: task.id, value: bytes });
    }
  }

  async #appendToLog(task: TaskDoc, seq: number, bytes: Uint8Array, final: boolean): Promise<boolean> {
    let appended = await this.deps.eventLog.append(task.id, seq, bytes);
    if (!appended) {
      // Refused: a duplicate (a redelivery: fine), or the log is behind the stored task, which is
      // authoritative: it lost events (Redis restarted without persistence, or the stream expired). Append
      // with the seq the store knows so open streams, blocking sends and pushes go on; readers rebuild what
      // they missed from the stored task (ADR 0014).
      const last = await this.deps.eventLog.last(task.id);
      if (last < seq - 1) {
        appended = await this.deps.eventLog.append(task.id, seq, bytes, { allowGap: true });
        if (appended)
          this.deps.log.warn({ taskId: task.id, seq, logLast: last }, 'event log was behind the stored task: appended');
      }
    }
    if (final) await this.deps.eventLog.expire(task.id, this.deps.config.retentionMs);
    return appended;
  }

  async #waitForSettle(taskId: string, afterSeq: number, budgetMs: number): Promise<boolean> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), budgetMs);
    try {
      for await (const item of this.#tails.follow(taskId, afterSeq, ac.signal)) {
        if (item.final) return true;
      }
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async *#tailUntilFinal(task: TaskDoc, afterSeq: number, signal: AbortSignal): AsyncIterable<StreamItem> {
    // Whether from the log or rebuilt from the stored task, large parts travel as references: resolved here.
    for await (const item of this.#tails.follow(task.id, afterSeq, signal)) yield await this.#resolveItem(task, item);
  }

  /** Replays events after `afterSeq` then goes live; a finished task gives one final status event. */
  async *#replayOrSnapshot(task: TaskDoc, afterSeq: number, signal: AbortSignal): AsyncIterable<StreamItem> {
    const current = (await this.c.tasks.get(task.id))?.doc ?? task;
    if (endsStream(current.status.state)) {
      // State table: resubscribing to a finished task gives a single event with `final: true`, whatever
      // Last-Event-ID says (tailing after the last event of a finished task would wait forever).
      yield await this.#resolveItem(current, this.#finalSnapshot(current));
      return;
    }
    // A Last-Event-ID beyond what exists (a client's bug, or another task's id) would skip the final event
    // and wait forever: nobody can have seen more than the task's last event.
    yield* this.#tailUntilFinal(current, Math.min(afterSeq, current.lastSeq), signal);
  }

  #finalSnapshot(task: TaskDoc): StreamItem {
    const evt: TaskStatusUpdateEvent = {
      kind: 'status-update',
      taskId: task.id,
      contextId: task.contextId,
      status: task.status,
      final: true,
    };
    return { seq: task.lastSeq, eventJson: JSON.stringify(evt), final: true };
  }

  async #owned(caller: CallerContext, taskId: string): Promise<Versioned<TaskDoc>> {
    if (!taskId) throw new InvalidParamsError('task id is required');
    const t = await this.c.tasks.get(taskId);
    // Another tenant's task is indistinguishable from a missing one (-32001).
    if (!t || t.doc.subscriptionId !== caller.subscriptionId || t.doc.agentId !== caller.agentId)
      throw new TaskNotFoundError(taskId);
    return t;
  }

  async #pushEnabled(caller: CallerContext): Promise<void> {
    const agent = await this.deps.control.resolveAgent(caller.agentId);
    if (!agent.pushNotificationsEnabled)
      throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
  }

  #agentMessage(task: TaskDoc, text: string, kind: string): Message {
    return {
      kind: 'message',
      role: 'agent',
      messageId: `${task.id}-${kind}-${task.lastSeq + 1}`,
      taskId: task.id,
      contextId: task.contextId,
      parts: [{ kind: 'text', text }],
    };
  }

  /** The Task as clients see it: spilled parts resolved to their full content (ADR 0013). */
  async #toA2A(
    task: TaskDoc,
    historyLength: number | undefined,
    opts: { emptyArtifactsWhileWorking: boolean; forceEmptyArtifacts?: boolean },
  ): Promise<Task> {
    const out: Task = {
      kind: 'task',
      id: task.id,
      contextId: task.contextId,
      status: structuredClone(task.status),
      artifacts:
        opts.forceEmptyArtifacts || (opts.emptyArtifactsWhileWorking && task.status.state === 'working')
          ? []
          : structuredClone(task.artifacts),
    };
    if (historyLength !== undefined)
      out.history = historyLength === 0 ? [] : structuredClone(task.history.slice(-historyLength));
    if (task.metadata) out.metadata = structuredClone(task.metadata);
    const owner = task.subscriptionId;
    const p = this.#payloads;
    if (out.status.message) out.status.message = await p.resolveMessage(out.status.message, owner);
    for (const a of out.artifacts ?? []) a.parts = await p.resolveParts(a.parts, owner);
    if (out.history) out.history = await Promise.all(out.history.map((m) => p.resolveMessage(m, owner)));
    return out;
  }

  /** A stream item as clients see it: the spilled parts of its event resolved (the log holds references). */
  async #resolveItem(task: Pick<TaskDoc, 'subscriptionId'>, item: StreamItem): Promise<StreamItem> {
    if (!mentionsSpill(item.eventJson)) return item;
    const evt = JSON.parse(item.eventJson) as TaskStatusUpdateEvent | TaskArtifactUpdateEvent;
    const owner = task.subscriptionId;
    if (evt.kind === 'artifact-update') {
      evt.artifact.parts = await this.#payloads.resolveParts(evt.artifact.parts, owner);
    } else if (evt.status.message) {
      evt.status.message = await this.#payloads.resolveMessage(evt.status.message, owner);
    }
    return { ...item, eventJson: JSON.stringify(evt) };
  }

  #now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
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

/** The run attachments a stored message refers to (stored files by blob id, external files by URI). */
function attachmentsOf(message: Message): eventsV1.Attachment[] {
  const out: eventsV1.Attachment[] = [];
  for (const p of message.parts) {
    if (p.kind !== 'file' || !('uri' in p.file)) continue;
    const blobId = p.metadata?.['a2a-inbound/fileId'];
    const size = p.metadata?.['a2a-inbound/size'];
    out.push({
      blobId: typeof blobId === 'string' ? blobId : '',
      name: p.file.name ?? '',
      mimeType: p.file.mimeType ?? '',
      size: typeof size === 'number' ? size : 0,
      uri: typeof blobId === 'string' ? '' : p.file.uri,
    });
  }
  return out;
}

export function decodeUtf8(b: Uint8Array): string {
  return dec.decode(b);
}
export function encodeUtf8(s: string): Uint8Array {
  return enc.encode(s);
}
