/**
 * What the task concerns share (task lifecycle, run-event application, push configs): the collections, the
 * dependencies, the stream tails, and the few operations each of them needs: one compare-and-set change
 * of a task with its event logged, the event log append, the Task as clients see it, and the run request.
 */
import type { Artifact, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { InvalidParamsError, isOutage, TaskNotFoundError } from '@a2a-inbound/errors';
import {
  acceptsLazyEvents,
  isSpilled,
  LargePayloads,
  RunLeases,
  mentionsSpill,
  updateWithRetry,
  type AppendOptions,
} from '@a2a-inbound/ports';

/** Appends one write's events to the log (encoded now, or when first read: `LazyEventLog`). */
type AppendEntries = (stream: string, options?: AppendOptions) => Promise<number>;
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
import { encodeShared, eventsV1 } from '@a2a-inbound/proto';
import { runtimeDefinition } from '@a2a-inbound/agent-definitions';
import { InFlightLimit } from '@a2a-inbound/runtime';
import type { AgentView, ControlPlane } from './control-plane';
import type { Secrets } from './secrets';
import type {
  LastEvent,
  MessageIdDoc,
  PushConfigDoc,
  PushConfigInput,
  StoredStatus,
  TaskDoc,
  TaskState,
} from './model';
import { endsStream, isTerminal } from './model';
import { memoryWindow } from './memory';
import type { LookupCollections } from './task-lookups';
import { contextKey, openLookupCollections } from './task-lookups';
import type { StreamItem } from './task-tails';
import { sleep, TaskTails } from './task-tails';
import { RunPublishRetries, type Sleep } from './run-publish-retries';
import { TaskAnnouncements } from './announcements';
import { SettleWaiters } from './settle-waiters';

export type { StreamItem } from './task-tails';

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
  /** Already in the blob store (the gateway streamed it there as the body arrived): `data` is empty. */
  blob?: { id: string; size: number; sha256: string };
}

export interface SendOptions {
  historyLength?: number | undefined;
  blocking?: boolean | undefined;
  files?: FileUpload[];
  /** A push config given with the message (1.0 inline config), checked by the caller: stored with the task. */
  pushConfig?: PushConfigInput | undefined;
  /** Called once the send is accepted (stored, charged, its run requested): the caller stops counting it as queued. */
  accepted?: () => void;
  /**
   * True once the caller gave up waiting for acceptance: a send not yet charged is then dropped. A check, not an
   * AbortSignal: it is read once, and a controller with a listener per send cost more than the read.
   */
  gaveUp?: () => boolean;
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
  /**
   * Sends this process accepts at once (claim, charge, store, run request); one more is refused with
   * OVERLOADED before anything is charged. Bounds the queue in front of the store, not the runs.
   */
  maxPendingSends: number;
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
  maxPendingSends: 32,
};

export const TRACER = '@a2a-inbound/tasks';
/**
 * A messageId claim older than this whose task does not exist was left by a process that died (another
 * replica may still be storing a younger one). A process that owns its data alone needs no such wait for the
 * claims made before it started: see `TaskCore.earlierClaimsBeforeMs`.
 */
export const CLAIM_STALE_MS = 10_000;
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
export type StoredTask = TaskDoc & { state: TaskState };

/** What the task concerns depend on. */
export interface TaskDeps {
  control: ControlPlane;
  blobs: BlobStore;
  bus: Bus;
  eventLog: EventLog;
  cache: Cache;
  clock: Clock;
  ids: IdGenerator;
  log: Logger;
  config: TaskServiceConfig;
  /** Sealed values of the secrets a definition references travel with its run requests. */
  secrets?: Secrets;
  /** How background retries wait (tests inject one that moves a manual clock). */
  sleep?: Sleep;
  /**
   * A runner of this process takes a run request directly (the embedded mode, ADR 0053): no encoding, no
   * bus hop. False: it cannot now (stopping, at its bound, tracing on), and the request goes on the bus.
   */
  runHandOff?: (req: eventsV1.RunRequested) => boolean;
  /**
   * Every write of these tasks is made by this process (the embedded mode: one tasks service on its engines,
   * which applies every run event): a blocking send is woken by the write that settles its task instead of
   * tailing the event log (ADR 0053). Never with replicas: another one may apply the events.
   */
  localSettles?: boolean;
}

/**
 * A change of a stored task and the event it emits (`seq`, `eventJson`, `final`: the last one); `earlier`:
 * the events a batch of run events emits before it, in seq order (ADR 0025).
 */
export interface TaskChange {
  doc: StoredTask;
  seq: number;
  eventJson: string;
  final: boolean;
  earlier?: LastEvent[];
}

/** A concern of the tasks domain: works on the shared `TaskCore`. */
export abstract class TaskConcern {
  protected readonly c: TaskCollections;
  protected readonly deps: TaskDeps;

  constructor(protected readonly core: TaskCore) {
    this.c = core.c;
    this.deps = core.deps;
  }
}

/** How long a resume of an ended task waits for the log to catch up with the stored task (ADR 0014). */
const LOG_CATCH_UP_MS = 1_000;
/**
 * Tasks this process wrote last, by id (a bounded map, oldest forgotten first): the next write of a run's
 * events starts from it instead of a read, and a blocking send answers from the final applied event. A task
 * another replica changed meanwhile costs a compare-and-set conflict and a read, as before.
 */
const RECENT_TASKS = 1_000;
/** Retries of a run request a send could not publish: 0.25 s, 0.5 s, 1 s, 2 s, 4 s, then every 5 s. */
const PUBLISH_RETRY = { firstDelayMs: 250, maxDelayMs: 5_000, maxPending: 10_000 };

export class TaskCore {
  readonly leases: RunLeases;
  readonly tails: TaskTails;
  readonly payloads: LargePayloads;
  readonly publishRetries: RunPublishRetries;
  /** Task updates to webhooks, batched while a publish is in flight (ADR 0041). */
  readonly announcements: TaskAnnouncements;
  /** Sends between arrival and acceptance (TASKS_MAX_PENDING_SENDS). */
  readonly pendingSends: InFlightLimit;
  /** Blocking sends woken by this process's writes (`localSettles`), not by tailing the log. */
  readonly settles = new SettleWaiters();
  readonly #recent = new Map<string, Versioned<TaskDoc>>();
  /**
   * Set when this process owns its data alone (the durable embedded mode: the data-directory lock): a claim
   * made before this time was made by a process that is gone, so it is dead at once. Undefined with replicas
   * (the distributed mode), where only `CLAIM_STALE_MS` tells a dead claim from another replica's live one.
   */
  earlierClaimsBeforeMs: number | undefined;

  constructor(
    readonly c: TaskCollections,
    readonly deps: TaskDeps,
  ) {
    this.leases = new RunLeases(deps.cache);
    this.announcements = new TaskAnnouncements(deps.bus, TOPICS.taskUpdates);
    this.payloads = new LargePayloads(deps.blobs);
    this.pendingSends = new InFlightLimit(deps.config.maxPendingSends, 'sends waiting to be accepted');
    this.tails = new TaskTails({
      tasks: c.tasks,
      eventLog: deps.eventLog,
      log: deps.log,
      config: {
        maxStreams: deps.config.maxStreams,
        storeCheckMs: deps.config.streamStoreCheckMs,
        catchUpMs: Math.min(LOG_CATCH_UP_MS, deps.config.streamStoreCheckMs),
      },
    });
    // Until the sweeper's turn: it republishes a run that no runner started after `runStallMs`.
    this.publishRetries = new RunPublishRetries({
      clock: deps.clock,
      sleep: deps.sleep ?? sleep,
      log: deps.log,
      config: { ...PUBLISH_RETRY, giveUpAfterMs: deps.config.runStallMs },
    });
  }

  /**
   * The one way a stored task changes with its events: compare-and-set (retried on a concurrent writer, with
   * `change` applied to the fresh task), a finished task kept for the retention period, then its events (one,
   * or a batch of run events: ADR 0025) appended to the log and announced. `change` returns undefined to
   * leave the task; it may throw to refuse. `retried`: the caller is retried on an outage (the bus
   * consumer), so the log append may fail it.
   */
  async changeTask(
    taskId: string,
    change: (cur: Versioned<TaskDoc>) => TaskChange | undefined | Promise<TaskChange | undefined>,
    options: { current?: Versioned<TaskDoc>; attempts?: number; retried?: boolean; exhausted?: () => Error } = {},
  ): Promise<{ saved: TaskDoc; change: TaskChange } | undefined> {
    let made: TaskChange | undefined;
    let result: { saved: TaskDoc; change: TaskChange } | undefined;
    // The event the task's previous write stored without logging it (ADR 0060): appended with this write's.
    let pending: LastEvent | undefined;
    // Whether this write is the one that finished the task (its active-run marker is then forgotten).
    let finishes = false;
    // Taken, not peeked: whatever happens to this write, the entry comes back only as what was stored.
    const current = options.current ?? this.#recent.get(taskId);
    this.#recent.delete(taskId);
    await updateWithRetry<TaskDoc>(
      this.c.tasks,
      taskId,
      async (cur) => {
        made = await change(cur);
        if (!made) return undefined;
        const unlogged = cur.doc.logPending ? cur.doc.lastEvent : undefined;
        pending = unlogged && unlogged.seq === firstSeq(made) - 1 ? unlogged : undefined;
        delete made.doc.logPending;
        // The stored task names every event of this write, for the redelivery repair (ADR 0025): the pending
        // one too, which this write appends first (a repair without it would leave the log a gap at its seq).
        const batch = pending ? [pending, ...(made.earlier ?? [])] : made.earlier;
        if (batch?.length) made.doc.lastBatch = batch;
        else delete made.doc.lastBatch;
        finishes = !isTerminal(cur.doc.status.state) && isTerminal(made.doc.status.state);
        return made.doc;
      },
      {
        ...(current ? { current } : {}),
        ...(options.attempts ? { attempts: options.attempts } : {}),
        ...(options.exhausted ? { exhausted: options.exhausted } : {}),
        writeOptions: (next) =>
          isTerminal(next.status.state)
            ? { expiresAt: this.deps.clock.now() + this.deps.config.retentionMs }
            : undefined,
        afterWrite: async (saved) => {
          const m = made!;
          result = { saved: saved.doc, change: m };
          this.rememberTask(saved);
          await this.appendLoggedBatch(
            saved.doc,
            [
              ...(pending ? [pending] : []),
              ...(m.earlier ?? []),
              { seq: m.seq, eventJson: m.eventJson, final: m.final },
            ],
            { retried: options.retried ?? false },
          );
          // A finished task never works again: its marker goes now, by id (one delete, nothing read), instead
          // of the sweeper reading it, reading the task and deleting it by version (three commands and a claim
          // per send on FerretDB). Not awaited: a marker left by a failed delete is forgotten by the sweeper.
          if (finishes) void this.c.activeRuns.delete(taskId).catch(() => false);
        },
      },
    );
    return result;
  }

  /** Keeps a task this process stored (inserted or changed), as stored: never mutated afterwards. */
  rememberTask(task: Versioned<TaskDoc>): void {
    this.#recent.delete(task.id);
    this.#recent.set(task.id, task);
    if (this.#recent.size > RECENT_TASKS) this.#recent.delete(this.#recent.keys().next().value!);
  }

  /** The task as this process last stored it, else as stored (undefined: there is none). */
  async latestTask(taskId: string): Promise<TaskDoc | undefined> {
    return this.#recent.get(taskId)?.doc ?? (await this.c.tasks.get(taskId))?.doc;
  }

  /** The task as this process last stored it, when it did and holds its event `seq` (else undefined). */
  recentTask(taskId: string, seq: number): TaskDoc | undefined {
    const t = this.#recent.get(taskId);
    return t && t.doc.lastSeq >= seq ? t.doc : undefined;
  }

  /** The sealed secrets the served definition references (none for most runtimes: no read). */
  async sealedSecrets(agent: AgentView, subscriptionId: string): Promise<Record<string, string>> {
    const refs = runtimeDefinition(agent.runtime)?.secretRefs(agent.runtimeConfig) ?? [];
    if (refs.length === 0 || !this.deps.secrets) return {};
    return this.deps.secrets.sealedFor(
      subscriptionId,
      refs.map((r) => r.name),
    );
  }

  async publishRun(
    agent: AgentView,
    task: TaskDoc,
    runId: string,
    stored: { message: Message; attachments: eventsV1.Attachment[] },
    options: { newContext?: boolean } = {},
  ): Promise<void> {
    const memory = await this.contextMemory(task, options);
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
      sealedSecrets: await this.sealedSecrets(agent, task.subscriptionId),
    };
    // Handed over in this process: no bus message, so no size limit to keep the input under either.
    if (this.deps.runHandOff?.(req)) return;
    let value = encodeShared(eventsV1.RunRequested, req);
    if (value.byteLength > RUN_REQUEST_INLINE_MAX_BYTES) {
      // Spilled parts keep this rare (many parts' or messages' metadata): the input travels as a blob.
      const input = await this.payloads.putJson({ messageJson, historyJson }, task.subscriptionId, 'a2a-run-input');
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
  async contextMemory(task: TaskDoc, options: { newContext?: boolean } = {}): Promise<Message[]> {
    const { memoryMessages, memoryMaxBytes } = this.deps.config;
    if (memoryMessages === 0) return [];
    // A context this send created (no contextId given) holds this task alone: nothing to read.
    if (options.newContext) return [];
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
    for (const doc of siblings)
      if (doc && doc.subscriptionId === task.subscriptionId && doc.contextId === task.contextId)
        messages.push(...doc.history);
    // The message being answered is sent separately; drop it from the memory.
    const lastUser = task.history.at(-1);
    const filtered = messages.filter((m) => m.messageId !== lastUser?.messageId);
    return memoryWindow(filtered, { maxMessages: memoryMessages, maxBytes: memoryMaxBytes });
  }

  withStatusEvent(task: TaskDoc, status: StoredStatus): TaskChange {
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
    return { doc, seq, eventJson, final };
  }

  /**
   * Appends a stored event to the log and announces it to webhooks (unless its agent has push notifications
   * off). `retried`: the caller is retried on an
   * outage (the bus consumer). Otherwise (a send, a cancel, the sweeper) the event is already in the
   * authoritative stored task, so an unreachable log does not fail the request: followers rebuild from the
   * stored task (ADR 0014) and the update still goes to webhooks. One event of `appendLoggedBatch`.
   */
  async appendLogged(
    task: TaskDoc,
    seq: number,
    eventJson: string,
    final: boolean,
    options: { retried?: boolean } = {},
  ): Promise<void> {
    await this.appendLoggedBatch(task, [{ seq, eventJson, final }], options);
  }

  /**
   * Appends the events of one write (consecutive seqs) to the log in one step and announces them in one bus
   * message (the last event, with the earlier ones as `preceding`) (ADR 0025), together with other tasks'
   * updates announced meanwhile (`TaskAnnouncements`, ADR 0041). The ones the log already has
   * (a redelivery) are skipped and not announced again. `retried` as in `appendLogged`.
   */
  async appendLoggedBatch(
    task: TaskDoc,
    events: readonly LastEvent[],
    options: { retried?: boolean } = {},
  ): Promise<void> {
    if (events.length === 0) return;
    const logged = events.map((e): eventsV1.LoggedTaskEvent => ({
      taskId: task.id,
      seq: e.seq,
      eventJson: e.eventJson,
      final: e.final,
      subscriptionId: task.subscriptionId,
      agentId: task.agentId,
      preceding: [],
      pushOff: false,
    }));
    // A log in this process's memory takes them unencoded: most are never read as bytes (ADR 0067).
    const log = this.deps.eventLog;
    const append: AppendEntries = acceptsLazyEvents(log)
      ? (stream, options) =>
          log.appendBatchLazy(
            stream,
            logged.map((l) => ({ seq: l.seq, encode: () => encodeShared(eventsV1.LoggedTaskEvent, l) })),
            options,
          )
      : (stream, options) =>
          log.appendBatch(
            stream,
            logged.map((l) => ({ seq: l.seq, data: encodeShared(eventsV1.LoggedTaskEvent, l) })),
            options,
          );
    // Read beside the append: webhooks skips its push lookup (a gRPC call to this service) for the updates of
    // an agent with push notifications off, which most agents have (ADR 0046).
    const pushOff = this.#pushOff(task.agentId);
    let appended: number;
    try {
      appended = await this.#appendToLog(
        task,
        append,
        events[0]!.seq,
        events.some((e) => e.final),
      );
    } catch (err) {
      if (options.retried || !isOutage(err)) throw err;
      this.deps.log.warn(
        { err, taskId: task.id, seq: events.at(-1)!.seq },
        'event log unavailable: the events are in the stored task only',
      );
      appended = events.length;
    } finally {
      // The task is stored with these events: a blocking send of this process learns it now (ADR 0053).
      this.settles.written(task, events);
    }
    // An update of an agent with push notifications off is not announced at all (ADR 0055): webhooks, the only
    // reader of the announcements, would skip it (push_off, ADR 0046), and the produce, the fetch and the
    // offset commit per update were a good part of the broker's and both services' CPU per send.
    if (appended === 0 || (await pushOff)) return;
    await this.announcements.announce(logged.slice(-appended));
  }

  /** Whether the agent has push notifications off now (cached view); false when unknown: webhooks then asks. */
  async #pushOff(agentId: string): Promise<boolean> {
    try {
      return !(await this.deps.control.catalog.resolveAgent(agentId)).pushNotificationsEnabled;
    } catch {
      return false;
    }
  }

  async #appendToLog(task: TaskDoc, append: AppendEntries, first: number, final: boolean): Promise<number> {
    // A finished task's retention is set by the same write (one Redis round trip, one LMDB commit).
    const retention = final ? { expireAfterMs: this.deps.config.retentionMs } : {};
    let appended = await append(task.id, retention);
    if (appended === 0) {
      // Refused: all duplicates (a redelivery: fine), or the log is behind the stored task, which is
      // authoritative: it lost events (Redis restarted without persistence, or the stream expired). Append
      // with the seqs the store knows so open streams, blocking sends and pushes go on; readers rebuild what
      // they missed from the stored task (ADR 0014).
      const last = await this.deps.eventLog.last(task.id);
      if (last < first - 1) {
        appended = await append(task.id, { allowGap: true, ...retention });
        if (appended > 0)
          this.deps.log.warn(
            { taskId: task.id, seq: first, logLast: last },
            'event log was behind the stored task: appended',
          );
      }
    }
    return appended;
  }

  async owned(caller: CallerContext, taskId: string): Promise<Versioned<TaskDoc>> {
    if (!taskId) throw new InvalidParamsError('task id is required');
    const t = await this.c.tasks.get(taskId);
    if (!t) throw new TaskNotFoundError(taskId);
    return this.assertOwned(caller, t);
  }

  /** Another tenant's (or agent's) task is indistinguishable from a missing one (-32001). */
  assertOwned(caller: CallerContext, t: Versioned<TaskDoc>): Versioned<TaskDoc> {
    if (t.doc.subscriptionId !== caller.subscriptionId || t.doc.agentId !== caller.agentId)
      throw new TaskNotFoundError(t.id);
    return t;
  }

  agentMessage(task: TaskDoc, text: string, kind: string): Message {
    return {
      kind: 'message',
      role: 'agent',
      messageId: `${task.id}-${kind}-${task.lastSeq + 1}`,
      taskId: task.id,
      contextId: task.contextId,
      parts: [{ kind: 'text', text }],
    };
  }

  /**
   * The Task as clients see it: spilled parts resolved to their full content (ADR 0013). It shares what it does
   * not change with `task` (no copy: every caller serialises it at once, and stored documents may be read-only,
   * ADR 0070): only a message or an artifact whose parts are resolved is a new object.
   */
  async toA2A(
    task: TaskDoc,
    historyLength: number | undefined,
    opts: { emptyArtifactsWhileWorking: boolean; forceEmptyArtifacts?: boolean },
  ): Promise<Task> {
    const owner = task.subscriptionId;
    const p = this.payloads;
    const status = task.status.message
      ? { ...task.status, message: await p.resolveMessage(task.status.message, owner) }
      : task.status;
    const out: Task = { kind: 'task', id: task.id, contextId: task.contextId, status, artifacts: [] };
    if (!(opts.forceEmptyArtifacts || (opts.emptyArtifactsWhileWorking && task.status.state === 'working'))) {
      const artifacts = task.artifacts;
      const n = artifacts.length;
      const resolved = new Array<Artifact>(n);
      for (let i = 0; i < n; i++) {
        const a = artifacts[i]!;
        resolved[i] = a.parts.some(isSpilled) ? { ...a, parts: await p.resolveParts(a.parts, owner) } : a;
      }
      out.artifacts = resolved;
    }
    if (historyLength !== undefined)
      out.history =
        historyLength === 0
          ? []
          : await Promise.all(task.history.slice(-historyLength).map((m) => p.resolveMessage(m, owner)));
    if (task.metadata) out.metadata = task.metadata;
    return out;
  }

  /** A stream item as clients see it: the spilled parts of its event resolved (the log holds references). */
  async resolveItem(task: Pick<TaskDoc, 'subscriptionId'>, item: StreamItem): Promise<StreamItem> {
    if (!mentionsSpill(item.eventJson)) return item;
    const evt = JSON.parse(item.eventJson) as TaskStatusUpdateEvent | TaskArtifactUpdateEvent;
    const owner = task.subscriptionId;
    if (evt.kind === 'artifact-update') {
      evt.artifact.parts = await this.payloads.resolveParts(evt.artifact.parts, owner);
    } else if (evt.status.message) {
      evt.status.message = await this.payloads.resolveMessage(evt.status.message, owner);
    }
    return { ...item, eventJson: JSON.stringify(evt) };
  }

  #isoMs = Number.NaN;
  #iso = '';

  /** The clock's time as an ISO string; formatted once per millisecond (a send stamps several events). */
  now(): string {
    const ms = this.deps.clock.now();
    if (ms !== this.#isoMs) {
      this.#iso = new Date(ms).toISOString();
      this.#isoMs = ms;
    }
    return this.#iso;
  }
}

export function decodeUtf8(b: Uint8Array): string {
  return dec.decode(b);
}
export function encodeUtf8(s: string): Uint8Array {
  return enc.encode(s);
}

/** The seq of the first event a change emits. */
function firstSeq(change: TaskChange): number {
  return change.earlier?.[0]?.seq ?? change.seq;
}
