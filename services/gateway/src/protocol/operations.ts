import { checkPushConfig, DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE, PROTOCOL_VERSION_V1 } from '@a2a-inbound/a2a-wire';
import { AppError } from '@a2a-inbound/errors';
import type { controlV1, tasksV1 } from '@a2a-inbound/proto';
import {
  call,
  callAccepted,
  dnsResolver,
  overloadedError,
  streamOf,
  type EgressPolicy,
  type Resolver,
} from '@a2a-inbound/runtime';
import type { ProtocolVersion } from './cards';
import type { SpilledFiles } from './spill-scanner';
import { checkFileUris, isObject, type ValidatedSend } from './validate';

/**
 * The gateway's request handler (the layer the official A2A SDK calls `DefaultRequestHandler`): every agent
 * operation the public surface offers, free of HTTP and of any wire shape. The A2A JSON-RPC handler, the
 * legacy REST router and the invoke router map their own shapes onto these operations; the caller identity,
 * the request sent to `tasks`, deadlines, defaults, the file rules and streams live only here.
 */

/**
 * Agent settings' defaults, applied when an agent view carries none (0). The same values as the control
 * plane's (`services/tasks/src/domain/control-model.ts`), which fills them in before a view reaches us.
 */
export const AGENT_DEFAULTS = {
  blockingBudgetMs: 120_000,
  rateLimitPerMinute: DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE,
} as const;

/** gRPC deadlines of the calls to `tasks`. */
export const DEADLINES = {
  /** Reads, cancels, push configs, listings. */
  unaryMs: 30_000,
  /**
   * Added to the agent's blocking budget for a send: the send stores up to 10 × 20 MB of files and, when it
   * blocks, waits for the budget; the grace covers both.
   */
  sendGraceMs: 60_000,
  /** How long a send or stream may wait for `tasks` to accept it (the queue, not the run). */
  acceptMs: 10_000,
} as const;

/** How many runs a conversation reads at the most, and how much of each run's history. */
export const CONVERSATION_LIMITS = { runs: 100, historyLength: 1_000 } as const;

/** The authenticated caller of an agent operation. */
export interface OperationContext {
  auth: { subscriptionId: string; keyId: string };
  agent: controlV1.AgentView;
  /** The A2A version the answer is shaped for (legacy and invoke endpoints speak 0.3.0). */
  version: ProtocolVersion;
  /** Told once `tasks` accepted the request (the gateway's admission slot is given back). */
  accepted?: () => void;
  /** File bytes the body reader already stored in the blob store (JSON-RPC sends). */
  spilled?: SpilledFiles;
}

/** One event of a task's stream: its sequence number in the task's event log, whether it ends the stream. */
export interface TaskStreamEvent {
  seq: number;
  final: boolean;
  /** The A2A event (Task snapshot, status-update or artifact-update). */
  event: Record<string, unknown>;
}

/** A stream of task events; aborting the signal it was opened with cancels the gRPC call. */
export type TaskEventStream = AsyncIterable<TaskStreamEvent>;

/** TaskPushNotificationConfig as A2A answers it (the token is never returned). */
export interface TaskPushConfig {
  taskId: string;
  pushNotificationConfig: Record<string, unknown>;
}

/** One message of a conversation, with the run (task) it belongs to. */
export interface ConversationMessage {
  runId: string;
  message: Record<string, unknown>;
}

/** A page of tasks (A2A ListTasks): the filters a caller may give, the cursor where the page starts. */
export interface TaskPageQuery {
  /** 1 to 100. */
  pageSize: number;
  /** Only tasks created before this time (ms; 0 = from the newest): the cursor of the previous page. */
  createdBeforeMs: number;
  /** With createdBeforeMs: the previous page's last task, so tasks of the same millisecond are not skipped. */
  createdBeforeTaskId: string;
  contextId: string;
  /** Only tasks in this (stored) state. */
  state?: string | undefined;
  /** Only tasks whose status changed at or after this time (ms). */
  updatedSinceMs?: number | undefined;
  historyLength?: number | undefined;
}

/** How many summaries one ListTasks reads at the most while it filters (10 rounds of 100). */
export const TASK_PAGE_SCAN = { rounds: 10, perRound: 100 } as const;

/** The gRPC methods of `tasks` the operations use (tests give a fake). */
export type TasksClient = Pick<
  tasksV1.TasksServiceClient,
  | 'sendMessage'
  | 'sendMessageStream'
  | 'getTask'
  | 'cancelTask'
  | 'resubscribe'
  | 'listTasks'
  | 'setPushConfig'
  | 'getPushConfig'
  | 'listPushConfigs'
  | 'deletePushConfig'
>;

export interface AgentOperationsDeps {
  tasks: TasksClient;
  /**
   * A send or stream `tasks` has not accepted within this long (a saturated or starved process) is cancelled
   * and refused with OVERLOADED; nothing is charged (TASKS_ACCEPT_TIMEOUT_MS; default DEADLINES.acceptMs).
   */
  acceptTimeoutMs?: number;
  /** Resolves file-URI and webhook hosts for the public-address checks (tests inject one). */
  resolver?: Resolver;
  /** Where push configs may point: public https, plus the operator's PUSH_ALLOW_* list (default: none). */
  pushPolicy?: EgressPolicy;
}

/** `Last-Event-ID` (or a legacy `last_event_id`) → the sequence number to resume after; 0 = from the start. */
export function afterSeqOf(raw: unknown): number {
  if (typeof raw !== 'string') return 0;
  const s = raw.trim();
  return /^\d{1,15}$/.test(s) ? Number(s) : 0;
}

export class AgentOperations {
  readonly #tasks: TasksClient;
  readonly #resolver: Resolver;
  readonly #acceptTimeoutMs: number;
  readonly #pushPolicy: EgressPolicy | undefined;

  constructor(deps: AgentOperationsDeps) {
    this.#pushPolicy = deps.pushPolicy;
    this.#tasks = deps.tasks;
    this.#acceptTimeoutMs = deps.acceptTimeoutMs ?? DEADLINES.acceptMs;
    this.#resolver = deps.resolver ?? dnsResolver;
  }

  /** message/send, POST /tasks, POST /runs and POST /run: the task as it stands when the call returns. */
  async send(ctx: OperationContext, v: ValidatedSend): Promise<Record<string, unknown>> {
    return parseObject(await this.sendJson(ctx, v));
  }

  /**
   * `send`, the task as the JSON text tasks answered: a caller that only writes it out splices it into its
   * answer (ADR 0053) instead of parsing it and serialising it again.
   */
  async sendJson(ctx: OperationContext, v: ValidatedSend): Promise<string> {
    await checkFileUris(v, this.#resolver);
    const push = v.pushConfig ? await this.#checkedPush(v.pushConfig, PROTOCOL_VERSION_V1) : undefined;
    const t = this.#tasks;
    const r = await callAccepted(t.sendMessage.bind(t), sendRequest(ctx, v, push), {
      deadlineMs: sendDeadlineMs(ctx.agent),
      acceptWithinMs: this.#acceptTimeoutMs,
      ...(ctx.accepted ? { onAccepted: ctx.accepted } : {}),
      notAccepted: notAcceptedInTime,
    });
    // tasks serialises an object (its A2A Task); anything else is its bug, refused as `parseObject` would.
    if (r.taskJson.charCodeAt(0) !== 0x7b)
      throw new AppError('INTERNAL', 'tasks answered a value that is not an object');
    return r.taskJson;
  }

  /**
   * message/stream and POST /run/stream. The file rules are checked before the stream opens (a refusal is
   * thrown here, never in the stream); the stream opens with the A2A Task snapshot.
   */
  async stream(ctx: OperationContext, v: ValidatedSend, signal: AbortSignal): Promise<TaskEventStream> {
    await checkFileUris(v, this.#resolver);
    const push = v.pushConfig ? await this.#checkedPush(v.pushConfig, PROTOCOL_VERSION_V1) : undefined;
    return this.#accepted(ctx, this.#tasks.sendMessageStream(sendRequest(ctx, v, push)), signal);
  }

  /**
   * tasks/resubscribe and GET /tasks/{id}/events: the task's events after `afterSeq`, then live ones.
   * `snapshotFirst` (1.0 SubscribeToTask, spec 3.1.6): the Task as it is now, then the events after it.
   */
  resubscribe(
    ctx: OperationContext,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    snapshotFirst = false,
  ): TaskEventStream {
    return this.#accepted(
      ctx,
      this.#tasks.resubscribe({ caller: callerOf(ctx), taskId, afterSeq, snapshotFirst }),
      signal,
    );
  }

  /**
   * A stream is accepted when `tasks` sends its headers (it does once the stream is admitted and, for a send,
   * stored and charged) or its first event; one without either within the accept timeout is cancelled and
   * ends with OVERLOADED.
   */
  #accepted(
    ctx: OperationContext,
    stream: ReturnType<TasksClient['resubscribe']>,
    signal: AbortSignal,
  ): TaskEventStream {
    // Armed when the call starts, not when the stream is first read: the headers may come before that.
    let refused = false;
    const timer = setTimeout(() => {
      refused = true;
      stream.cancel();
    }, this.#acceptTimeoutMs);
    const accepted = (): void => {
      clearTimeout(timer);
      ctx.accepted?.();
    };
    stream.once('metadata', accepted);
    return (async function* () {
      try {
        for await (const e of events(stream, signal)) {
          accepted();
          yield e;
        }
      } catch (err) {
        if (refused) throw notAcceptedInTime();
        throw err;
      } finally {
        clearTimeout(timer);
      }
      if (refused) throw notAcceptedInTime();
    })();
  }

  async get(ctx: OperationContext, taskId: string, historyLength?: number): Promise<Record<string, unknown>> {
    const t = this.#tasks;
    const r = await call(
      t.getTask.bind(t),
      { caller: callerOf(ctx), taskId, historyLength },
      { deadlineMs: DEADLINES.unaryMs },
    );
    return parseObject(r.taskJson);
  }

  async cancel(ctx: OperationContext, taskId: string): Promise<Record<string, unknown>> {
    const t = this.#tasks;
    const r = await call(t.cancelTask.bind(t), { caller: callerOf(ctx), taskId }, { deadlineMs: DEADLINES.unaryMs });
    return parseObject(r.taskJson);
  }

  /**
   * tasks/pushNotificationConfig/set: `config` is the caller's PushNotificationConfig, checked here (url public
   * https, a token that signs deliveries, an optional id); -32003 when push is off for the agent.
   * `protocolVersion` ("1.0", or empty for 0.3) is recorded with it: deliveries take that version's shape.
   */
  async setPushConfig(
    ctx: OperationContext,
    taskId: string,
    config: unknown,
    protocolVersion = '',
  ): Promise<TaskPushConfig> {
    assertPushEnabled(ctx);
    const t = this.#tasks;
    const r = await call(
      t.setPushConfig.bind(t),
      { caller: callerOf(ctx), taskId, config: await this.#checkedPush(config, protocolVersion) },
      { deadlineMs: DEADLINES.unaryMs },
    );
    return pushConfigOut(r);
  }

  /** A caller's push config, checked (SSRF guard included) and shaped for `tasks`: set, or sent with a message. */
  async #checkedPush(config: unknown, protocolVersion: string): Promise<tasksV1.PushConfig> {
    // Without an operator allow-list, Webhook rule 1 exactly (public https, the same check as file URIs).
    const policy = this.#pushPolicy;
    const checked = await checkPushConfig(
      config,
      this.#resolver,
      policy && !policy.empty ? (url, resolver) => policy.checkUrl(url, resolver) : undefined,
    );
    return {
      id: checked.id,
      url: checked.url,
      token: checked.token,
      authenticationJson: checked.authentication ? JSON.stringify(checked.authentication) : '',
      protocolVersion,
    };
  }

  /** tasks/pushNotificationConfig/get; an empty `configId` names the task's only (or first) config. */
  async getPushConfig(ctx: OperationContext, taskId: string, configId: string): Promise<TaskPushConfig> {
    assertPushEnabled(ctx);
    const t = this.#tasks;
    const r = await call(
      t.getPushConfig.bind(t),
      { caller: callerOf(ctx), taskId, configId },
      { deadlineMs: DEADLINES.unaryMs },
    );
    return pushConfigOut(r);
  }

  async listPushConfigs(ctx: OperationContext, taskId: string): Promise<TaskPushConfig[]> {
    assertPushEnabled(ctx);
    const t = this.#tasks;
    const r = await call(
      t.listPushConfigs.bind(t),
      { caller: callerOf(ctx), taskId, configId: '' },
      { deadlineMs: DEADLINES.unaryMs },
    );
    return r.configs.map(pushConfigOut);
  }

  async deletePushConfig(ctx: OperationContext, taskId: string, configId: string): Promise<void> {
    assertPushEnabled(ctx);
    const t = this.#tasks;
    await call(
      t.deletePushConfig.bind(t),
      { caller: callerOf(ctx), taskId, configId },
      { deadlineMs: DEADLINES.unaryMs },
    );
  }

  /**
   * POST /run: an AI Agent's blocking run (Task Agents run in the background only). The agent's type is
   * checked before the request is built (`build` validates the caller's body).
   */
  async run(ctx: OperationContext, build: () => ValidatedSend): Promise<Record<string, unknown>> {
    aiAgentOnly(ctx);
    return this.send(ctx, build());
  }

  /** POST /run/stream: an AI Agent's run as a stream (the same checks as `run`). */
  async runStream(ctx: OperationContext, build: () => ValidatedSend, signal: AbortSignal): Promise<TaskEventStream> {
    aiAgentOnly(ctx);
    return this.stream(ctx, build(), signal);
  }

  /** GET /runs: the agent's runs (tasks), newest first, created before `createdBeforeMs` (0 = now). */
  async listRuns(
    ctx: OperationContext,
    page: { limit: number; createdBeforeMs: number },
  ): Promise<tasksV1.TaskSummary[]> {
    const t = this.#tasks;
    const r = await call(
      t.listTasks.bind(t),
      {
        caller: callerOf(ctx),
        limit: page.limit,
        createdBeforeMs: page.createdBeforeMs,
        createdBeforeTaskId: '',
        contextId: '',
      },
      { deadlineMs: DEADLINES.unaryMs },
    );
    return r.tasks;
  }

  /**
   * A2A ListTasks: the caller's tasks of this agent, newest first, filtered, as full tasks. Filters apply to
   * the summaries before a task is read, so a page costs one read per task it returns; `next` (the last
   * summary seen: its creation time and id) is absent on the last page.
   */
  async listTasks(
    ctx: OperationContext,
    q: TaskPageQuery,
  ): Promise<{ tasks: Record<string, unknown>[]; next?: { createdBeforeMs: number; createdBeforeTaskId: string } }> {
    const t = this.#tasks;
    const picked: tasksV1.TaskSummary[] = [];
    let cursor = q.createdBeforeMs;
    let cursorId = q.createdBeforeTaskId;
    let more = true;
    for (let round = 0; round < TASK_PAGE_SCAN.rounds && more && picked.length < q.pageSize; round++) {
      const r = await call(
        t.listTasks.bind(t),
        {
          caller: callerOf(ctx),
          limit: TASK_PAGE_SCAN.perRound,
          createdBeforeMs: cursor,
          createdBeforeTaskId: cursorId,
          contextId: q.contextId,
        },
        { deadlineMs: DEADLINES.unaryMs },
      );
      more = r.tasks.length === TASK_PAGE_SCAN.perRound;
      for (const s of r.tasks) {
        cursor = s.createdAtMs;
        cursorId = s.taskId;
        if (q.state !== undefined && s.state !== q.state) continue;
        if (q.updatedSinceMs !== undefined && s.updatedAtMs < q.updatedSinceMs) continue;
        picked.push(s);
        if (picked.length === q.pageSize) {
          more = more || s !== r.tasks.at(-1);
          break;
        }
      }
    }
    const tasks = await Promise.all(picked.map((s) => this.get(ctx, s.taskId, q.historyLength)));
    return more && cursor > 0 ? { tasks, next: { createdBeforeMs: cursor, createdBeforeTaskId: cursorId } } : { tasks };
  }

  /**
   * GET /conversations/{contextId}: the messages of a context's runs, oldest run first, each run's history in
   * order. NOT_FOUND when the context has no run of this caller.
   */
  async conversation(
    ctx: OperationContext,
    contextId: string,
  ): Promise<{ runs: number; messages: ConversationMessage[] }> {
    const t = this.#tasks;
    const r = await call(
      t.listTasks.bind(t),
      {
        caller: callerOf(ctx),
        limit: CONVERSATION_LIMITS.runs,
        createdBeforeMs: 0,
        createdBeforeTaskId: '',
        contextId,
      },
      { deadlineMs: DEADLINES.unaryMs },
    );
    if (r.tasks.length === 0)
      throw new AppError('NOT_FOUND', 'Conversation not found', { details: { context_id: contextId } });
    const messages: ConversationMessage[] = [];
    for (const summary of [...r.tasks].reverse()) {
      const task = await this.get(ctx, summary.taskId, CONVERSATION_LIMITS.historyLength);
      const history = Array.isArray(task.history) ? task.history : [];
      for (const m of history) if (isObject(m)) messages.push({ runId: summary.taskId, message: m });
    }
    return { runs: r.tasks.length, messages };
  }
}

/** The identity `tasks` checks every call against. */
function callerOf(ctx: OperationContext): tasksV1.Caller {
  return {
    subscriptionId: ctx.auth.subscriptionId,
    deploymentId: ctx.agent.deploymentId,
    agentId: ctx.agent.agentId,
    keyId: ctx.auth.keyId,
    protocolVersion: ctx.version,
  };
}

/** The one mapping of a validated send onto the gRPC request: the message without bytes, the files beside it. */
function sendRequest(
  ctx: OperationContext,
  v: ValidatedSend,
  pushConfig?: tasksV1.PushConfig,
): tasksV1.SendMessageRequest {
  if (ctx.spilled) ctx.spilled.handedOver = true; // from here the stored files may be referenced by a task
  return {
    pushConfig,
    caller: callerOf(ctx),
    messageJson: JSON.stringify(v.message),
    historyLength: v.historyLength,
    blocking: v.blocking,
    files: v.files.map((f) => ({
      partIndex: f.partIndex,
      name: f.name,
      mimeType: f.mimeType,
      data: f.data ?? Buffer.alloc(0),
      blobId: f.blob?.id ?? '',
      size: f.blob?.size ?? 0,
      sha256: f.blob?.sha256 ?? '',
    })),
  };
}

const notAcceptedInTime = (): AppError =>
  overloadedError('Server busy: the tasks service did not accept the request in time; retry shortly');

function sendDeadlineMs(agent: controlV1.AgentView): number {
  const budget = Number(agent.blockingBudgetMs) || AGENT_DEFAULTS.blockingBudgetMs;
  return budget + DEADLINES.sendGraceMs;
}

function events(stream: ReturnType<TasksClient['resubscribe']>, signal: AbortSignal): TaskEventStream {
  return streamOf(stream, signal, (e): TaskStreamEvent => ({
    seq: e.seq,
    final: e.final,
    event: parseObject(e.eventJson),
  }));
}

function parseObject(json: string): Record<string, unknown> {
  const v = JSON.parse(json) as unknown;
  if (!isObject(v)) throw new AppError('INTERNAL', 'tasks answered a value that is not an object');
  return v;
}

/**
 * With `capabilities.streaming` false on the card, the streaming operations are unsupported: 1.0 spec 3.3.4
 * ("MUST return UnsupportedOperationError"), and 0.3's message/stream and tasks/resubscribe, which "require
 * the server to have AgentCard.capabilities.streaming: true" (our card rule: capabilities are truthful).
 */
export function assertStreams(ctx: OperationContext): void {
  if (!ctx.agent.streaming)
    throw new AppError(
      'UNSUPPORTED_OPERATION',
      'This agent does not stream: its Agent Card says capabilities.streaming false',
    );
}

/** PUSH_NOT_SUPPORTED (-32003) unless an operator enabled push notifications for the agent. */
export function assertPushEnabled(ctx: OperationContext): void {
  if (!ctx.agent.pushNotificationsEnabled)
    throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
}

function aiAgentOnly(ctx: OperationContext): void {
  if (ctx.agent.type !== 'AI Agent')
    throw new AppError(
      'FAILED_PRECONDITION',
      'Task Agent runs are asynchronous: start them with POST /agents/{id}/runs',
    );
}

/** The stored config → A2A's TaskPushNotificationConfig, without the token. */
function pushConfigOut(r: tasksV1.PushConfigResponse): TaskPushConfig {
  const cfg: Record<string, unknown> = { id: r.config?.id ?? '', url: r.config?.url ?? '' };
  if (r.config?.authenticationJson) cfg.authentication = JSON.parse(r.config.authenticationJson) as unknown;
  return { taskId: r.taskId, pushNotificationConfig: cfg };
}
