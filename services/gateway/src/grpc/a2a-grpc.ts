import { AppError, ERROR_TABLE, toAppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { Clock, RateLimiter } from '@a2a-inbound/ports';
import { a2aV1, googleRpcErrorDetails, googleRpcStatus } from '@a2a-inbound/proto';
import { grpc, serverStream, unary, type Resolver, type EgressPolicy } from '@a2a-inbound/runtime';
import { withSpan } from '@a2a-inbound/telemetry';
import type { GatewayClients, Lookups } from '../clients';
import { agentForCaller, enforceRateLimit, type GatewayAdmission } from '../http/agent-access';
import { authenticateToken, bearerOfHeader } from '../http/auth';
import { a2aRequestInstruments } from '../http/metrics';
import { AgentOperations, type OperationContext } from '../protocol/operations';
import { errorInfoOf, V1_ERROR_TABLE, wireMessageOf } from '../protocol/v1/errors';
import { negotiateV1, V1Handler, v1StreamEvent, type V1Method } from '../protocol/v1/handler';
import { LIMITS } from '../protocol/validate';

/**
 * The A2A 1.0 gRPC binding: `lf.a2a.v1.A2AService` (generated from the official a2a.proto) for every agent on
 * one port. The request's `tenant` names the agent (each card's GRPC interface declares it), the bearer key
 * and `a2a-version` come in metadata; each RPC is the decoded message's ProtoJSON handed to `V1Handler`, the
 * answer decoded back. Errors carry the 1.0 table's status and a `google.rpc.Status` with ErrorInfo.
 */

export interface A2aGrpcDeps {
  /** The HTTP endpoints' admission bound and accept timeout: one budget for every binding (ADR 0030). */
  admission: Pick<GatewayAdmission, 'pending' | 'acceptTimeoutMs'>;
  clients: GatewayClients;
  lookups: Lookups;
  limiter: RateLimiter;
  clock: Clock;
  log: Logger;
  resolver?: Resolver;
  /** Push receivers allowed at registration (PUSH_ALLOW_*); default: public https only. */
  pushPolicy?: EgressPolicy;
}

const STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** AppError → a gRPC error of the 1.0 table, with `grpc-status-details-bin` (google.rpc.Status + ErrorInfo). */
export function toV1GrpcError(err: unknown, log?: Logger): grpc.ServiceError {
  const app = toAppError(err);
  if (!ERROR_TABLE[app.code].exposeMessage) log?.error({ err }, 'internal error');
  const code = V1_ERROR_TABLE[app.code].grpc;
  const message = wireMessageOf(app);
  const info = errorInfoOf(app);
  // An answer that says when to come back (OVERLOADED) carries google.rpc.RetryInfo, gRPC's Retry-After.
  const retryAfterSeconds = app.details?.retryAfterSeconds;
  const retry =
    typeof retryAfterSeconds === 'number'
      ? [
          {
            typeUrl: 'type.googleapis.com/google.rpc.RetryInfo',
            value: Buffer.from(
              googleRpcErrorDetails.RetryInfo.encode({ retryDelay: { seconds: retryAfterSeconds, nanos: 0 } }).finish(),
            ),
          },
        ]
      : [];
  const status = googleRpcStatus.Status.encode({
    code,
    message,
    details: [
      ...retry,
      {
        typeUrl: String(info['@type']),
        value: Buffer.from(
          googleRpcErrorDetails.ErrorInfo.encode({
            reason: String(info.reason),
            domain: String(info.domain),
            metadata: (info.metadata as Record<string, string> | undefined) ?? {},
          }).finish(),
        ),
      },
    ],
  }).finish();
  const metadata = new grpc.Metadata();
  metadata.set(STATUS_DETAILS_KEY, Buffer.from(status));
  const e = new Error(message) as grpc.ServiceError;
  e.code = code;
  e.details = message;
  e.metadata = metadata;
  return e;
}

const first = (md: grpc.Metadata, key: string): string | undefined => {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
};

interface JsonCodec<T> {
  toJSON(message: T): unknown;
}
interface JsonDecoder<T> {
  fromJSON(object: unknown): T;
}

/** What one call learnt for its metrics and request line: the agent, once the key and the tenant were checked. */
interface CallRecord {
  agent?: string;
}

export function a2aGrpcService(deps: A2aGrpcDeps): a2aV1.A2AServiceServer {
  const { log } = deps;
  const instruments = a2aRequestInstruments();

  /**
   * The request metrics and the request log line of one call, as the HTTP bindings record them (http/metrics.ts,
   * app.ts): every RPC, refused ones included, counted once it ended (a stream: when it ends or the client goes).
   */
  const recorded = (op: V1Method, record: CallRecord, start: bigint, err: unknown, aborted = false): void => {
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const code = err === undefined ? undefined : toAppError(err).code;
    const agent = record.agent ?? '_unknown';
    if (code === 'RATE_LIMITED') instruments.refused(agent);
    instruments.record(
      { binding: 'grpc', version: '1.0', method: op, agent, outcome: code ? code.toLowerCase() : 'ok' },
      seconds,
    );
    log.info(
      {
        rpc: op,
        ...(record.agent ? { agent: record.agent } : {}),
        status: code ? V1_ERROR_TABLE[code].grpc : grpc.status.OK,
        ms: Math.round(seconds * 1e5) / 100,
        ...(aborted ? { aborted: true } : {}),
      },
      'request',
    );
  };
  const handler = new V1Handler(
    new AgentOperations({
      tasks: deps.clients.tasks,
      acceptTimeoutMs: deps.admission.acceptTimeoutMs,
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
      ...(deps.pushPolicy ? { pushPolicy: deps.pushPolicy } : {}),
    }),
  );

  /**
   * The caller: key from metadata, agent from `tenant`, rate limit, version; then a slot of the gateway's
   * admission bound (OVERLOADED when full), held until tasks accepted the call or the call ended: the caller
   * gives it back with `ctx.accepted` in a `finally`.
   */
  async function contextOf(
    tenant: string,
    md: grpc.Metadata,
    record: CallRecord,
  ): Promise<OperationContext & { accepted: () => void }> {
    if (!tenant || tenant.length > LIMITS.maxIdChars)
      throw new AppError('INVALID_PARAMS', "tenant is required: the agent's id, as its card's GRPC interface gives it");
    const auth = await authenticateToken(bearerOfHeader(first(md, 'authorization')), 'a2a', deps.lookups, deps.clock);
    const agent = await agentForCaller(deps.lookups, tenant, auth, true);
    record.agent = agent.agentId;
    await enforceRateLimit({ setHeader: () => undefined }, deps.limiter, agent, deps.clock);
    negotiateV1(first(md, 'a2a-version'), agent);
    return { auth, agent, version: '1.0', accepted: deps.admission.pending.admit() };
  }

  const traced = <T>(op: V1Method, ctx: OperationContext, run: () => Promise<T>): Promise<T> =>
    withSpan(
      '@a2a-inbound/gateway',
      `a2a ${op}`,
      { 'rpc.system': 'grpc', 'rpc.method': op, 'a2a.agent_id': ctx.agent.agentId, 'a2a.protocol_version': '1.0' },
      run,
    );

  function unaryOp<Req extends { tenant: string }, Res>(
    op: V1Method,
    req: JsonCodec<Req>,
    res: JsonDecoder<Res>,
  ): grpc.handleUnaryCall<Req, Res> {
    return unary<Req, Res>(
      async (request, call) => {
        const start = process.hrtime.bigint();
        const record: CallRecord = {};
        try {
          const ctx = await contextOf(request.tenant, call.metadata, record);
          try {
            const answer = await traced(op, ctx, async () => {
              const outcome = await handler.handle(op, req.toJSON(request) as Record<string, unknown>, ctx);
              if (outcome.kind !== 'result') throw new AppError('INTERNAL', `${op} answered a stream`);
              return res.fromJSON(outcome.result);
            });
            recorded(op, record, start, undefined);
            return answer;
          } finally {
            ctx.accepted();
          }
        } catch (err) {
          recorded(op, record, start, err);
          throw err;
        }
      },
      log,
      toV1GrpcError,
    );
  }

  function streamOp<Req extends { tenant: string }>(
    op: V1Method,
    req: JsonCodec<Req>,
  ): grpc.handleServerStreamingCall<Req, a2aV1.StreamResponse> {
    return serverStream<Req, a2aV1.StreamResponse>(
      async function* (request, signal, call) {
        const start = process.hrtime.bigint();
        const record: CallRecord = {};
        let failure: unknown;
        try {
          const ctx = await contextOf(request.tenant, call.metadata, record);
          try {
            const outcome = await traced(op, ctx, () =>
              handler.handle(op, req.toJSON(request) as Record<string, unknown>, ctx),
            );
            if (outcome.kind !== 'stream') throw new AppError('INTERNAL', `${op} answered a single result`);
            for await (const e of await outcome.open(signal)) {
              yield a2aV1.StreamResponse.fromJSON(v1StreamEvent(e));
              // A stream ends at a terminal or interrupted state (spec 3.1.2): no `final` flag in 1.0.
              if (e.final) return;
            }
          } finally {
            ctx.accepted();
          }
        } catch (err) {
          failure = err;
          throw err;
        } finally {
          // Also when the client went (serverStream stops iterating; what the abort made the stream throw is
          // nobody's answer): `ok`, as the HTTP bindings count an SSE stream its reader left.
          recorded(op, record, start, signal.aborted ? undefined : failure, signal.aborted);
        }
      },
      log,
      toV1GrpcError,
    );
  }

  return {
    sendMessage: unaryOp('SendMessage', a2aV1.SendMessageRequest, a2aV1.SendMessageResponse),
    sendStreamingMessage: streamOp('SendStreamingMessage', a2aV1.SendMessageRequest),
    getTask: unaryOp('GetTask', a2aV1.GetTaskRequest, a2aV1.Task),
    listTasks: unaryOp('ListTasks', a2aV1.ListTasksRequest, a2aV1.ListTasksResponse),
    cancelTask: unaryOp('CancelTask', a2aV1.CancelTaskRequest, a2aV1.Task),
    subscribeToTask: streamOp('SubscribeToTask', a2aV1.SubscribeToTaskRequest),
    createTaskPushNotificationConfig: unaryOp(
      'CreateTaskPushNotificationConfig',
      a2aV1.TaskPushNotificationConfig,
      a2aV1.TaskPushNotificationConfig,
    ),
    getTaskPushNotificationConfig: unaryOp(
      'GetTaskPushNotificationConfig',
      a2aV1.GetTaskPushNotificationConfigRequest,
      a2aV1.TaskPushNotificationConfig,
    ),
    listTaskPushNotificationConfigs: unaryOp(
      'ListTaskPushNotificationConfigs',
      a2aV1.ListTaskPushNotificationConfigsRequest,
      a2aV1.ListTaskPushNotificationConfigsResponse,
    ),
    getExtendedAgentCard: unaryOp('GetExtendedAgentCard', a2aV1.GetExtendedAgentCardRequest, a2aV1.AgentCard),
    deleteTaskPushNotificationConfig: unaryOp(
      'DeleteTaskPushNotificationConfig',
      a2aV1.DeleteTaskPushNotificationConfigRequest,
      { fromJSON: () => ({}) },
    ),
  };
}
