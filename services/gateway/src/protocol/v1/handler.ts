import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { controlV1 } from '@a2a-inbound/proto';
import { setActiveSpanAttribute } from '@a2a-inbound/telemetry';
import { servesVersion } from '../cards';
import type { AgentOperations, OperationContext, TaskEventStream, TaskStreamEvent } from '../operations';
import { afterSeqOf, assertPushEnabled, assertStreams } from '../operations';
import { historyLengthOf, isObject, LIMITS, taskIdParam, validateSendParams, type ValidatedSend } from '../validate';
import {
  inlinePushConfigFromV1,
  mintPushToken,
  PROTOCOL_VERSION_V1,
  pushConfigFromV1,
  pushConfigToV1,
  sendParamsFromV1,
  stateFromV1,
  streamResponseOf,
  taskToV1,
} from '@a2a-inbound/a2a-wire';

/**
 * The A2A 1.0 transport handler: one operation of `lf.a2a.v1.A2AService`, named as the proto names it, with
 * its request in ProtoJSON form → the agent operation, answered in ProtoJSON form. The three 1.0 bindings only
 * bring their wire onto this shape: JSON-RPC (method and params as they are), HTTP+JSON (path and query
 * parameters folded into the request) and gRPC (the decoded message's `toJSON`).
 */

export const V1_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;
export type V1Method = (typeof V1_METHODS)[number];

const V1_METHOD_SET: ReadonlySet<string> = new Set(V1_METHODS);
export const isV1Method = (m: string): m is V1Method => V1_METHOD_SET.has(m);

/** The 1.0 methods answered with a stream (refusals included). */
export const V1_STREAMING_METHODS: ReadonlySet<string> = new Set(['SendStreamingMessage', 'SubscribeToTask']);

/** One event of a 1.0 stream: its sequence number (the SSE id), whether it ends the stream, the StreamResponse. */
export interface V1StreamEvent {
  seq: number;
  final: boolean;
  response: Record<string, unknown>;
}

export type V1Outcome =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'stream'; open: (signal: AbortSignal) => Promise<TaskEventStream> | TaskEventStream };

/** The supported A2A versions of the 1.0 interfaces, by Major.Minor (patch versions are ignored, spec 3.6). */
const SUPPORTED = new Set(['1.0']);

/** The Major.Minor a request asks for; empty means 0.3 (spec 3.6.2). */
export function requestedMajorMinor(requested: string | undefined): string {
  if (requested === '1.0') return requested; // what every 1.0 client sends: no trim, no pattern
  const raw = (requested ?? '').trim();
  if (raw === '') return '0.3';
  const m = /^(\d{1,4})\.(\d{1,4})(?:\.\d{1,4})?$/.exec(raw);
  return m ? `${Number(m[1])}.${Number(m[2])}` : raw.slice(0, 20);
}

/** Whether a request speaks the 0.x generation (no header included): its refusals are shaped for 0.3. */
export const asksForV0 = (requested: string | undefined): boolean => requestedMajorMinor(requested).startsWith('0.');

/** Version negotiation (spec 3.6.2): the 1.0 interfaces serve 1.0; VersionNotSupportedError otherwise. */
export function negotiateV1(requested: string | undefined, agent: Pick<controlV1.AgentView, 'a2aVersions'>): '1.0' {
  const majorMinor = requestedMajorMinor(requested);
  if (!SUPPORTED.has(majorMinor))
    throw new AppError(
      'VERSION_NOT_SUPPORTED',
      `A2A protocol version "${majorMinor}" is not supported by this interface; it serves 1.0 (send A2A-Version: 1.0)`,
      { details: { requestedVersion: majorMinor, supportedVersions: '1.0' } },
    );
  if (!servesVersion(agent, '1.0'))
    throw new AppError('VERSION_NOT_SUPPORTED', 'This agent does not serve A2A 1.0 (its a2aVersions setting)', {
      details: { requestedVersion: majorMinor, supportedVersions: agent.a2aVersions.join(',') },
    });
  return '1.0';
}

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

export class V1Handler {
  constructor(private readonly ops: AgentOperations) {}

  async handle(
    method: V1Method,
    p: Record<string, unknown>,
    ctx: OperationContext,
    info: { lastEventId?: string | undefined } = {},
  ): Promise<V1Outcome> {
    const ops = this.ops;
    const result = (value: Record<string, unknown>): V1Outcome => ({ kind: 'result', result: value });
    switch (method) {
      case 'SendMessage': {
        const task = await ops.send(ctx, validatedSend(p, ctx));
        if (typeof task.id === 'string') setActiveSpanAttribute('a2a.task_id', task.id);
        return result({ task: taskToV1(task) });
      }
      case 'SendStreamingMessage': {
        assertStreams(ctx);
        const v = validatedSend(p, ctx);
        return { kind: 'stream', open: (signal) => ops.stream(ctx, v, signal) };
      }
      case 'GetTask': {
        const task = await ops.get(ctx, taskIdParam(p), historyLengthOf(p.historyLength, 'historyLength'));
        return result(taskToV1(task));
      }
      case 'ListTasks':
        return result(await this.#listTasks(ctx, p));
      case 'CancelTask':
        return result(taskToV1(await ops.cancel(ctx, taskIdParam(p))));
      case 'SubscribeToTask': {
        assertStreams(ctx);
        const taskId = taskIdParam(p);
        // Spec 3.1.6: a task in a terminal state cannot be subscribed to.
        const task = await ops.get(ctx, taskId, 0);
        const state = isObject(task.status) ? task.status.state : undefined;
        if (typeof state === 'string' && TERMINAL.has(state))
          throw new AppError('UNSUPPORTED_OPERATION', `Task is ${state}; a terminal task cannot be subscribed to`, {
            details: { taskId },
          });
        // Spec 3.1.6: the Task first ("representing the current state of the task at the time of subscription");
        // a stream resumed by its Last-Event-ID gets the events it missed instead.
        const afterSeq = afterSeqOf(info.lastEventId);
        return { kind: 'stream', open: (signal) => ops.resubscribe(ctx, taskId, afterSeq, signal, afterSeq === 0) };
      }
      case 'CreateTaskPushNotificationConfig': {
        assertPushEnabled(ctx);
        const taskId = taskIdParam(p, 'taskId');
        const config = pushConfigFromV1(p);
        // 1.0's token is optional (a2a.proto `string token = 5;`); every push is still signed (Authentication
        // rule 9), so a config without one gets a minted token, answered here only, then write-only (ADR 0063).
        const minted = withMintedToken(config);
        const created = pushConfigToV1(await ops.setPushConfig(ctx, taskId, config, PROTOCOL_VERSION_V1));
        return result(minted ? withToken(created, minted) : created);
      }
      case 'GetTaskPushNotificationConfig': {
        assertPushEnabled(ctx);
        // Spec 3.1.8: the named config or an error (TaskNotFoundError: "The push notification configuration does
        // not exist"); 0.3's get falls back to a task's only config, 1.0's does not.
        const taskId = taskIdParam(p, 'taskId');
        const id = taskIdParam(p, 'id');
        const found = (await ops.listPushConfigs(ctx, taskId)).find((c) => c.pushNotificationConfig.id === id);
        if (!found)
          throw new AppError('TASK_NOT_FOUND', 'Push notification config not found', { details: { taskId, id } });
        return result(pushConfigToV1(found));
      }
      case 'ListTaskPushNotificationConfigs': {
        assertPushEnabled(ctx);
        const configs = await ops.listPushConfigs(ctx, taskIdParam(p, 'taskId'));
        return result({ configs: configs.map(pushConfigToV1), nextPageToken: '' });
      }
      case 'DeleteTaskPushNotificationConfig': {
        assertPushEnabled(ctx);
        // Spec 3.1.10: "This operation MUST be idempotent": a config already gone is deleted (0.3 answers -32602);
        // an unknown task is still TaskNotFoundError (the task is checked first).
        const taskId = taskIdParam(p, 'taskId');
        const id = taskIdParam(p, 'id');
        try {
          await ops.deletePushConfig(ctx, taskId, id);
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'INVALID_PARAMS')) throw err;
        }
        return result({});
      }
      case 'GetExtendedAgentCard':
        // Spec 3.3.4: our cards do not declare capabilities.extendedAgentCard, so the operation is unsupported
        // (NotConfigured is for an agent that declares it); authenticated callers only, as every operation.
        throw new AppError(
          'UNSUPPORTED_OPERATION',
          'GetExtendedAgentCard is not supported: the Agent Card does not declare capabilities.extendedAgentCard',
        );
    }
  }

  async #listTasks(ctx: OperationContext, p: Record<string, unknown>): Promise<Record<string, unknown>> {
    const pageSize = p.pageSize === undefined || p.pageSize === null ? 50 : p.pageSize;
    if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
      throw new InvalidParamsError('pageSize must be an integer from 1 to 100');
    const contextId = p.contextId ?? '';
    if (typeof contextId !== 'string' || contextId.length > LIMITS.maxIdChars)
      throw new InvalidParamsError('contextId must be a string');
    let updatedSinceMs: number | undefined;
    if (p.statusTimestampAfter !== undefined && p.statusTimestampAfter !== null) {
      updatedSinceMs = typeof p.statusTimestampAfter === 'string' ? Date.parse(p.statusTimestampAfter) : NaN;
      if (Number.isNaN(updatedSinceMs))
        throw new InvalidParamsError('statusTimestampAfter must be an ISO 8601 timestamp');
    }
    if (p.includeArtifacts !== undefined && typeof p.includeArtifacts !== 'boolean')
      throw new InvalidParamsError('includeArtifacts must be a boolean');
    const page = await this.ops.listTasks(ctx, {
      pageSize,
      ...pageTokenIn(p.pageToken),
      contextId,
      state: stateFromV1(p.status, 'status'),
      updatedSinceMs,
      historyLength: historyLengthOf(p.historyLength, 'historyLength'),
    });
    const includeArtifacts = p.includeArtifacts === true;
    return {
      tasks: page.tasks.map((t) => {
        const v1 = taskToV1(t, { includeArtifacts });
        // Spec 3.1.4: with includeArtifacts the field is present, an empty array when there are none.
        if (includeArtifacts && v1.artifacts === undefined) v1.artifacts = [];
        return v1;
      }),
      nextPageToken: page.next ? pageTokenOut(page.next) : '',
      pageSize,
      // A deviation (docs/conformance-notes.md): the page's count; a total would read the whole history.
      totalSize: page.tasks.length,
    };
  }
}

/**
 * A 1.0 SendMessageRequest → the validated send, with the push config it carries (ADR 0071): checked as a created
 * one when the operation runs, its token minted when it has none (a send's answer is the Task: the minted token
 * is nowhere to be answered, so such pushes are signed with a secret only the gateway knows).
 */
function validatedSend(p: Record<string, unknown>, ctx: OperationContext): ValidatedSend {
  const v = validateSendParams(sendParamsFromV1(p, LIMITS), ctx.agent, ctx.spilled);
  const push = p.configuration === undefined ? undefined : inlinePushConfigFromV1(p);
  if (push) {
    assertPushEnabled(ctx);
    withMintedToken(push);
    v.pushConfig = push;
  }
  return v;
}

/** A config without a token (absent, null or "": proto3 cannot tell them apart) gets one: it is returned. */
function withMintedToken(config: Record<string, unknown>): string | undefined {
  if (config.token !== undefined && config.token !== null && config.token !== '') return undefined;
  const minted = mintPushToken();
  config.token = minted;
  return minted;
}

/** A created config with the token the gateway minted for it, where a2a.proto puts it (after `url`). */
function withToken(config: Record<string, unknown>, token: string): Record<string, unknown> {
  const { authentication, ...rest } = config;
  return { ...rest, token, ...(authentication === undefined ? {} : { authentication }) };
}

/** A stream event → its 1.0 StreamResponse. */
export const v1StreamEvent = (e: TaskStreamEvent): Record<string, unknown> => streamResponseOf(e.event);

interface PageCursor {
  createdBeforeMs: number;
  createdBeforeTaskId: string;
}

/**
 * Page tokens are opaque to clients: the cursor in base64url, the last task's creation time and id (tasks
 * created in the same millisecond are told apart by id). A token of the time alone (`c:<ms>`) is still read.
 */
const pageTokenOut = (c: PageCursor): string =>
  Buffer.from(`c:${c.createdBeforeMs}:${c.createdBeforeTaskId}`).toString('base64url');

function pageTokenIn(v: unknown): PageCursor {
  if (v === undefined || v === null || v === '') return { createdBeforeMs: 0, createdBeforeTaskId: '' };
  const m =
    typeof v === 'string' && v.length <= 1024
      ? /^c:(\d{1,15})(?::(.+))?$/s.exec(Buffer.from(v, 'base64url').toString())
      : null;
  if (!m || (m[2] !== undefined && m[2].length > LIMITS.maxIdChars))
    throw new InvalidParamsError('pageToken is not a token this server issued');
  return { createdBeforeMs: Number(m[1]), createdBeforeTaskId: m[2] ?? '' };
}
