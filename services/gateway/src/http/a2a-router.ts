import { type ErrorRequestHandler, type Request, type RequestHandler, type Response, Router } from 'express';
import { AppError, toJsonRpcError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { withSpan } from '@a2a-inbound/telemetry';
import type { BlobStore, Clock, RateLimiter } from '@a2a-inbound/ports';
import type { controlV1 } from '@a2a-inbound/proto';
import type { Resolver, EgressPolicy } from '@a2a-inbound/runtime';
import type { GatewayClients, Lookups } from '../clients';
import { servesVersion, type CardVersion } from '../protocol/cards';
import { JsonRpcHandler, spliceRawResult } from '../protocol/jsonrpc-handler';
import { AgentOperations, type OperationContext } from '../protocol/operations';
import { idOf, isObject, LIMITS, parseEnvelope, STREAMING_METHODS, type JsonRpcRequest } from '../protocol/validate';
import type { GatewayAdmission } from './agent-access';
import { agentGuard, assertJsonDepth, callContextOf, closeIfBodyUnread, parseJsonBytes } from './body';
import { BodyAbortedError, JSON_RPC_FILE_PATHS, readSpilledBody, type SpilledBody } from './spilled-body';
import { SpilledFiles } from '../protocol/spill-scanner';
import type { A2aMetricLocals } from './metrics';
import { jsonRpcBodyErrorHandler, restErrorHandler, sendJsonRpcError, sendJsonRpcErrorAsStream } from './errors';
import { isTransient, writeEventStream, type SseWriter } from './sse';
import { writeJson } from './a2a-v1-router';

export interface A2aRouterDeps {
  admission: GatewayAdmission;
  /** File bytes of a send are streamed here as the body arrives (ADR 0031). */
  blobs: BlobStore;
  clients: GatewayClients;
  lookups: Lookups;
  limiter: RateLimiter;
  clock: Clock;
  log: Logger;
  bodyLimitBytes: number;
  sseHeartbeatMs: number;
  /** Resolves webhook hosts for the SSRF check (tests inject one). */
  resolver?: Resolver;
  /** Push receivers allowed at registration (PUSH_ALLOW_*); default: public https only. */
  pushPolicy?: EgressPolicy;
  /** Streams to end on shutdown. */
  streams: Set<SseWriter>;
}

/**
 * What `res.status(200).json()` wrote for a POST, byte for byte (ETags are off), written as one string: Node sends
 * the head and a string body in one socket write, where `res.send` turns a body of 1,000 characters or more into a
 * Buffer and re-parses the Content-Type (ADR 0067).
 */
const JSON_TYPE = 'application/json; charset=utf-8';

const VERSION_PATHS: Readonly<Record<string, CardVersion>> = { 'v0.3': '0.3.0', 'v0.2': '0.2.6' };

/** Resolves the served protocol version from the path (and an A2A-Version header); -32004 otherwise. */
function versionOf(req: Request, agent: controlV1.AgentView): CardVersion {
  const pathVersion = req.params.version as string | undefined;
  let v: CardVersion;
  if (pathVersion === undefined) v = agent.defaultA2aVersion === '0.2.6' ? '0.2.6' : '0.3.0';
  else {
    const mapped = VERSION_PATHS[pathVersion];
    if (!mapped)
      throw new AppError(
        'UNSUPPORTED_OPERATION',
        `A2A protocol version "${pathVersion}" is not supported; use v0.3 or v0.2`,
      );
    v = mapped;
  }
  const header = req.headers['a2a-version'];
  if (typeof header === 'string' && header.length > 0) {
    const h = header.trim();
    const ok = v === '0.3.0' ? /^0\.3(\.\d+)?$/.test(h) : /^0\.2(\.[1-6])?$/.test(h);
    if (!ok)
      throw new AppError('UNSUPPORTED_OPERATION', `A2A protocol version "${h}" is not supported by this endpoint`);
  }
  if (!servesVersion(agent, v))
    throw new AppError('UNSUPPORTED_OPERATION', `This agent does not serve A2A ${v} (its a2aVersions setting)`);
  return v;
}

/** Methods named in spans as they are; anything else is `_OTHER` (a method name is caller-chosen text). */
const TRACED_METHODS = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
  'tasks/send',
  'tasks/sendSubscribe',
]);

/** The task id a request names (`id`, `taskId`, or the message's `taskId`), when it looks like one. */
function requestedTaskId(params: Record<string, unknown>): string | undefined {
  const message = params.message;
  const candidates = [params.id, params.taskId, isObject(message) ? message.taskId : undefined];
  return candidates.find((v): v is string => typeof v === 'string' && v.length > 0 && v.length <= LIMITS.maxIdChars);
}

/**
 * What answers `POST /agents/:agentId/a2a[/:version]`, as the router and the `node:http` fast path (a2a-fast-path.ts)
 * both run it: the guard, then the handler; the guard's refusals and the handler's throws go to `onError`.
 */
export interface A2aEndpoint {
  guard: RequestHandler;
  handler: (req: Request, res: Response) => Promise<void>;
  onError: ErrorRequestHandler;
}

export function createA2aEndpoint(deps: A2aRouterDeps): A2aEndpoint {
  const { clients, lookups, limiter, clock, log } = deps;

  // Authenticated (key, agent, rate limit) before a byte of the body is read.
  const guard = agentGuard({ lookups, limiter, clock, pending: deps.admission.pending }, 'a2a', true);

  // The body is read as a stream whatever its Content-Type (clients differ): file bytes go to the blob store
  // as they arrive, the rest is parsed in the handler, so that an empty body, invalid UTF-8 and malformed
  // JSON are all -32700 and never reach express's HTML error page.
  const handler = async (req: Request, res: Response): Promise<void> => {
    const guarded = callContextOf(res);
    let body: SpilledBody;
    try {
      body = await readSpilledBody(req, {
        limitBytes: deps.bodyLimitBytes,
        blobs: deps.blobs,
        owner: guarded.auth.subscriptionId,
        gate: deps.admission.largeBodies,
        paths: JSON_RPC_FILE_PATHS,
        maxFileBytes: LIMITS.maxFileBytes,
      });
    } catch (err) {
      if (err instanceof BodyAbortedError) return; // the client went: nobody to answer
      closeIfBodyUnread(req, res);
      sendJsonRpcError(res, null, err, log);
      return;
    }
    const spilled = new SpilledFiles(body.spilled);
    try {
      await answer(req, res, guarded, body.json, spilled);
    } finally {
      // Files of a refused request are deleted; once handed to tasks, those the message references are its.
      await body.discard(spilled.handedOver ? spilled.used : undefined);
    }
  };

  const answer = async (
    req: Request,
    res: Response,
    guarded: ReturnType<typeof callContextOf>,
    json: Buffer,
    spilled: SpilledFiles,
  ): Promise<void> => {
    let raw: unknown;
    let rpc: JsonRpcRequest | undefined;
    let ctx: OperationContext;
    try {
      raw = parseJsonBytes(json);
      assertJsonDepth(raw);
      rpc = parseEnvelope(raw);
      // After the envelope so that an unsupported version (-32004) echoes the request id.
      ctx = { ...guarded, version: versionOf(req, guarded.agent), spilled };
    } catch (err) {
      refuse(res, rpc, idOf(raw), err);
      return;
    }
    try {
      const method = TRACED_METHODS.has(rpc.method) ? rpc.method : '_OTHER';
      Object.assign(res.locals, {
        a2aMethod: method,
        a2aAgent: ctx.agent.agentId,
        a2aVersion: ctx.version,
      } satisfies A2aMetricLocals);
      const taskId = requestedTaskId(rpc.params);
      const attributes = {
        'rpc.system': 'jsonrpc',
        'rpc.method': method,
        'a2a.agent_id': ctx.agent.agentId,
        'a2a.protocol_version': ctx.version,
        ...(taskId ? { 'a2a.task_id': taskId } : {}),
      };
      await withSpan('@a2a-inbound/gateway', `a2a ${method}`, attributes, () => dispatch(rpc, ctx, req, res));
    } catch (err) {
      if (res.headersSent) {
        log.error({ err }, 'error after the response started');
        res.end();
        return;
      }
      refuse(res, rpc, rpc.id, err);
    }
  };

  /**
   * A refused request: a JSON-RPC error. A refused `message/stream` or `tasks/resubscribe` (params, unknown
   * task, credits, version) is a stream of one error frame, because streaming clients (the official SDKs)
   * only read `text/event-stream` answers and would lose the code of a JSON one.
   */
  const refuse = (res: Response, rpc: JsonRpcRequest | undefined, id: JsonRpcRequest['id'], err: unknown): void => {
    if (rpc && STREAMING_METHODS.has(rpc.method)) sendJsonRpcErrorAsStream(res, id, err, log);
    else sendJsonRpcError(res, id, err, log);
  };

  const ops = new AgentOperations({
    tasks: clients.tasks,
    acceptTimeoutMs: deps.admission.acceptTimeoutMs,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    ...(deps.pushPolicy ? { pushPolicy: deps.pushPolicy } : {}),
  });
  const jsonRpc = new JsonRpcHandler(ops);

  /** The operation's outcome on the wire: a JSON-RPC response, or SSE frames that each carry one. */
  async function dispatch(rpc: JsonRpcRequest, ctx: OperationContext, req: Request, res: Response): Promise<void> {
    const lastEventId = req.headers['last-event-id'];
    const outcome = await jsonRpc.handle(rpc, ctx, {
      lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
    });
    if (outcome.kind === 'result') {
      writeJson(res, JSON_TYPE, JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: outcome.result }));
      return;
    }
    if (outcome.kind === 'raw') {
      writeJson(res, JSON_TYPE, spliceRawResult(rpc.id, outcome.result));
      return;
    }
    await writeEventStream(res, outcome.open, {
      heartbeatMs: deps.sseHeartbeatMs,
      streams: deps.streams,
      log,
      frame: (e) => ({ jsonrpc: '2.0', id: rpc.id, result: e.event }),
      errorFrame: (err) => ({
        jsonrpc: '2.0',
        id: rpc.id,
        error: isTransient(err)
          ? {
              code: -32603,
              message: 'Stream interrupted; resume with tasks/resubscribe',
              data: { code: 'UNAVAILABLE' },
            }
          : toJsonRpcError(err),
      }),
    });
  }

  return { guard, handler, onError: jsonRpcBodyErrorHandler(log) };
}

export function createA2aRouter(deps: A2aRouterDeps, endpoint: A2aEndpoint = createA2aEndpoint(deps)): Router {
  const { log } = deps;
  const { guard, handler, onError } = endpoint;
  const router = Router({ mergeParams: true });
  // Refusals of the guard (401, 403, 404, 429, OVERLOADED) arrive as errors: JSON-RPC errors, never HTML.
  router.post(['/', '/:version'], guard, handler, onError);
  // Anything deeper than /a2a/{version} names no protocol version we serve: -32004, still JSON-RPC.
  router.post('/*rest', guard, (_req, res) => {
    sendJsonRpcError(
      res,
      null,
      new AppError('UNSUPPORTED_OPERATION', 'No A2A endpoint at this path; use /a2a, /a2a/v0.3 or /a2a/v0.2'),
      log,
    );
  });
  router.all(['/', '/:version', '/*rest'], (req, res) => {
    res.setHeader('Allow', 'POST');
    sendJsonRpcError(res.status(405), null, new AppError('INVALID_REQUEST', 'Use POST with a JSON-RPC 2.0 body'), log);
  });
  // A guard's refusal under /*rest leaves the routes above: answered here as the app's last error handler
  // answered it, whatever is mounted after this router (app.ts).
  router.use(restErrorHandler(log));
  return router;
}
