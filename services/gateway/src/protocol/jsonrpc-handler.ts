import { AppError } from '@a2a-inbound/errors';
import { tracingOn } from '@a2a-inbound/runtime';
import { setActiveSpanAttribute } from '@a2a-inbound/telemetry';
import type { AgentOperations, OperationContext, TaskEventStream } from './operations';
import { afterSeqOf, assertPushEnabled, assertStreams } from './operations';
import { historyLengthOf, taskIdParam, validateSendParams, type JsonRpcRequest } from './validate';

/**
 * The A2A JSON-RPC transport handler (the official SDK's `JsonRpcTransportHandler`): a parsed JSON-RPC request
 * → the agent operation it names, with the A2A params read and checked. It knows no HTTP: the HTTP handler
 * (`http/a2a-router.ts`) writes a result as a JSON-RPC response and a stream as Server-Sent Events.
 */

/** A result already serialised (the Task JSON tasks answered), written into the response as it is. */
export class RawJson {
  constructor(readonly json: string) {}
}

/** The JSON-RPC response carrying `raw` as its result: the envelope serialised with a placeholder, spliced. */
export function spliceRawResult(id: JsonRpcRequest['id'], raw: RawJson): string {
  const envelope = JSON.stringify({ jsonrpc: '2.0', id, result: 0 });
  return `${envelope.slice(0, -2)}${raw.json}}`;
}

/** What a request answers: one result, or a stream of A2A events (each sent as a JSON-RPC response). */
export type JsonRpcOutcome =
  | { kind: 'result'; result: unknown }
  | { kind: 'raw'; result: RawJson }
  | { kind: 'stream'; open: (signal: AbortSignal) => Promise<TaskEventStream> | TaskEventStream };

/** What the transport carries beside the body: the `Last-Event-ID` a resubscribing client sent. */
export interface JsonRpcTransportInfo {
  lastEventId?: string | undefined;
}

export class JsonRpcHandler {
  constructor(private readonly ops: AgentOperations) {}

  async handle(rpc: JsonRpcRequest, ctx: OperationContext, info: JsonRpcTransportInfo = {}): Promise<JsonRpcOutcome> {
    const p = rpc.params;
    const ops = this.ops;
    const result = (value: unknown): JsonRpcOutcome => ({ kind: 'result', result: value });
    switch (rpc.method) {
      case 'message/send': {
        // The Task JSON of tasks goes into the answer as it is: not parsed and serialised again (ADR 0053).
        const json = await ops.sendJson(ctx, validateSendParams(p, ctx.agent, ctx.spilled));
        if (tracingOn()) {
          const id = (JSON.parse(json) as { id?: unknown }).id;
          if (typeof id === 'string') setActiveSpanAttribute('a2a.task_id', id);
        }
        return { kind: 'raw', result: new RawJson(json) };
      }
      case 'message/stream': {
        assertStreams(ctx);
        const v = validateSendParams(p, ctx.agent, ctx.spilled);
        return { kind: 'stream', open: (signal) => ops.stream(ctx, v, signal) };
      }
      case 'tasks/get': {
        const historyLength = historyLengthOf(p.historyLength, 'historyLength');
        const task = await ops.get(ctx, taskIdParam(p), historyLength);
        // Task table: artifacts are "empty while working"; partial output is what the streams are for
        // (tasks/resubscribe replays it), the finished task carries all of it.
        if (isWorking(task)) task.artifacts = [];
        return result(task);
      }
      case 'tasks/cancel':
        return result(await ops.cancel(ctx, taskIdParam(p)));
      case 'tasks/resubscribe': {
        assertStreams(ctx);
        const taskId = taskIdParam(p);
        const afterSeq = afterSeqOf(info.lastEventId);
        return { kind: 'stream', open: (signal) => ops.resubscribe(ctx, taskId, afterSeq, signal) };
      }
      case 'tasks/pushNotificationConfig/set':
        // -32003 for an agent without push, before its params are read.
        assertPushEnabled(ctx);
        return result(await ops.setPushConfig(ctx, taskIdParam(p, 'taskId'), p.pushNotificationConfig));
      case 'tasks/pushNotificationConfig/get':
        assertPushEnabled(ctx);
        return result(await ops.getPushConfig(ctx, taskIdParam(p, 'id'), configIdOf(p)));
      case 'tasks/pushNotificationConfig/list':
        assertPushEnabled(ctx);
        return result(await ops.listPushConfigs(ctx, taskIdParam(p, 'id')));
      case 'tasks/pushNotificationConfig/delete':
        assertPushEnabled(ctx);
        await ops.deletePushConfig(ctx, taskIdParam(p, 'id'), configIdOf(p));
        return result(null);
      case 'agent/getAuthenticatedExtendedCard':
        if (ctx.version === '0.2.6')
          throw new AppError(
            'METHOD_NOT_FOUND',
            'Method not found: agent/getAuthenticatedExtendedCard is not part of A2A 0.2',
          );
        throw new AppError('EXTENDED_CARD_NOT_CONFIGURED', 'Authenticated Extended Card is not configured');
      case 'tasks/send':
      case 'tasks/sendSubscribe':
        throw new AppError(
          'UNSUPPORTED_OPERATION',
          `${rpc.method} belongs to A2A 0.1, which is not supported; use message/send`,
        );
      default:
        throw new AppError('METHOD_NOT_FOUND', `Method not found: ${rpc.method.slice(0, 100)}`);
    }
  }
}

const configIdOf = (p: Record<string, unknown>): string =>
  typeof p.pushNotificationConfigId === 'string' ? p.pushNotificationConfigId : '';

const isWorking = (task: Record<string, unknown>): boolean =>
  typeof task.status === 'object' && task.status !== null && (task.status as { state?: unknown }).state === 'working';
