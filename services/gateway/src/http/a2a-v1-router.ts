import { type NextFunction, type Request, type Response, Router } from 'express';
import { acceptProtoFieldNames } from '@a2a-inbound/a2a-wire';
import { AppError, jsonRpcHttpStatus, toAppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { BlobStore, Clock, RateLimiter } from '@a2a-inbound/ports';
import type { Resolver, EgressPolicy } from '@a2a-inbound/runtime';
import { withSpan } from '@a2a-inbound/telemetry';
import type { GatewayClients, Lookups } from '../clients';
import { AgentOperations, type OperationContext } from '../protocol/operations';
import { idOf, LIMITS, parseEnvelope, type JsonRpcRequest } from '../protocol/validate';
import { SpilledFiles } from '../protocol/spill-scanner';
import { toV1JsonRpcError, toV1RestError } from '../protocol/v1/errors';
import {
  asksForV0,
  isV1Method,
  negotiateV1,
  V1Handler,
  v1StreamEvent,
  type V1Method,
  type V1Outcome,
} from '../protocol/v1/handler';
import type { GatewayAdmission } from './agent-access';
import { agentGuard, assertJsonDepth, callContextOf, closeIfBodyUnread, parseJsonBytes } from './body';
import { BodyAbortedError, readSpilledBody, type SpilledBody } from './spilled-body';
import { authChallenge, logServerFault, retryAfter, sendJsonRpcError } from './errors';
import type { A2aMetricLocals } from './metrics';
import { isTransient, writeEventStream, type SseWriter } from './sse';
import type { A2aEndpoint } from './a2a-router';
import { knownRestPath, matchRestRoute, restParams } from './v1-rest-routes';

/**
 * The A2A 1.0 endpoints of an agent, mounted at `/agents/{id}/a2a/v1`: JSON-RPC 2.0 at the mount point
 * (1.0 method names) and HTTP+JSON under `/rest` (the URL patterns of spec 11.3). Both map their wire onto
 * `V1Handler` (protocol/v1/handler.ts); errors follow the 1.0 table (protocol/v1/errors.ts).
 */

export interface A2aV1RouterDeps {
  admission: GatewayAdmission;
  clients: GatewayClients;
  lookups: Lookups;
  limiter: RateLimiter;
  clock: Clock;
  log: Logger;
  /** Where file bytes are stored as the body arrives (ADR 0031), as on the 0.3 endpoint. */
  blobs: BlobStore;
  bodyLimitBytes: number;
  sseHeartbeatMs: number;
  resolver?: Resolver;
  /** Push receivers allowed at registration (PUSH_ALLOW_*); default: public https only. */
  pushPolicy?: EgressPolicy;
  streams: Set<SseWriter>;
}

const A2A_CONTENT_TYPE = 'application/a2a+json';
export const REST_CONTENT_TYPE = `${A2A_CONTENT_TYPE}; charset=utf-8`;
export const JSON_RPC_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A 200 answer written as it is: what Express's `res.json`/`res.send` add on every call (re-parsing the
 * Content-Type to append the charset, the freshness check of conditional GETs, the JSON replacer and spacing
 * settings) is work a fixed JSON answer does not need (issue 21: a 1.0 request costs no more than a 0.3 one).
 */
export function writeJson(res: Response, contentType: string, body: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** Where the 1.0 bindings carry file bytes: a Part's `raw` (base64 in ProtoJSON) in the sent message. */
const JSON_RPC_FILE_PATHS = [['params', 'message', 'parts', '*', 'raw']] as const;
const REST_FILE_PATHS = [['message', 'parts', '*', 'raw']] as const;

/** The requested version: the `A2A-Version` header, else the query parameter (spec 3.6.1). */
function requestedVersion(req: Request): string | undefined {
  const h = req.headers['a2a-version'];
  if (typeof h === 'string' && h.length > 0) return h;
  if (!hasQuery(req)) return undefined;
  const q = req.query['A2A-Version'];
  return typeof q === 'string' ? q : undefined;
}

/** Whether the URL has a query string: Express parses `req.query` anew on every read. */
const hasQuery = (req: Request): boolean => req.url.includes('?');

const lastEventIdOf = (req: Request): string | undefined => {
  const v = req.headers['last-event-id'];
  return typeof v === 'string' ? v : undefined;
};

export function createA2aV1Router(deps: A2aV1RouterDeps): Router {
  return createA2aV1Routes(deps).router;
}

/**
 * The 1.0 router, and for the fast path (a2a-fast-path.ts, ADR 0067) its JSON-RPC endpoint (`POST /`) and its
 * HTTP+JSON binding (`/rest/…`: the handler reads the operation from `req.path`, the path under `/rest`).
 */
export function createA2aV1Routes(deps: A2aV1RouterDeps): { router: Router; jsonRpc: A2aEndpoint; rest: A2aEndpoint } {
  const { log } = deps;
  const router = Router({ mergeParams: true });
  const guard = agentGuard(
    { lookups: deps.lookups, limiter: deps.limiter, clock: deps.clock, pending: deps.admission.pending },
    'a2a',
    true,
  );
  /**
   * The body read as a stream, as the 0.3 endpoint reads it (ADR 0031): file bytes go to the blob store as they
   * arrive and never sit in memory as one body; `run` gets the rest. Files of a refused request are deleted.
   */
  const withBody = async (
    req: Request,
    res: Response,
    paths: readonly (readonly string[])[],
    refuse: (err: unknown) => void,
    run: (json: Buffer, spilled: SpilledFiles) => Promise<void>,
  ): Promise<void> => {
    let body: SpilledBody;
    try {
      body = await readSpilledBody(req, {
        limitBytes: deps.bodyLimitBytes,
        blobs: deps.blobs,
        owner: callContextOf(res).auth.subscriptionId,
        gate: deps.admission.largeBodies,
        paths,
        maxFileBytes: LIMITS.maxFileBytes,
      });
    } catch (err) {
      if (err instanceof BodyAbortedError) return; // the client went: nobody to answer
      closeIfBodyUnread(req, res);
      refuse(err);
      return;
    }
    const spilled = new SpilledFiles(body.spilled);
    try {
      await run(body.json, spilled);
    } finally {
      await body.discard(spilled.handedOver ? spilled.used : undefined);
    }
  };
  const handler = new V1Handler(
    new AgentOperations({
      tasks: deps.clients.tasks,
      acceptTimeoutMs: deps.admission.acceptTimeoutMs,
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
      ...(deps.pushPolicy ? { pushPolicy: deps.pushPolicy } : {}),
    }),
  );

  const traced = async (
    ctx: OperationContext,
    res: Response,
    binding: 'jsonrpc' | 'rest',
    method: V1Method,
    run: () => Promise<void>,
  ): Promise<void> => {
    Object.assign(res.locals, { a2aMethod: method, a2aAgent: ctx.agent.agentId } satisfies A2aMetricLocals);
    const attributes = {
      'rpc.system': binding === 'jsonrpc' ? 'jsonrpc' : 'http',
      'rpc.method': method,
      'a2a.agent_id': ctx.agent.agentId,
      'a2a.protocol_version': '1.0',
    };
    await withSpan('@a2a-inbound/gateway', `a2a ${method}`, attributes, run);
  };

  const stream = (
    res: Response,
    outcome: Extract<V1Outcome, { kind: 'stream' }>,
    frame: {
      ok: (r: Record<string, unknown>) => unknown;
      error: (err: AppError) => unknown;
      errorEvent?: string;
    },
  ): Promise<void> =>
    writeEventStream(res, outcome.open, {
      heartbeatMs: deps.sseHeartbeatMs,
      streams: deps.streams,
      log,
      frame: (e) => frame.ok(v1StreamEvent(e)),
      errorFrame: (err) =>
        frame.error(
          isTransient(err)
            ? new AppError('UNAVAILABLE', 'Stream interrupted; resume with SubscribeToTask', { cause: err })
            : err,
        ),
      ...(frame.errorEvent ? { errorEvent: frame.errorEvent } : {}),
    });

  // ---- JSON-RPC 2.0 --------------------------------------------------------------------------------------
  const jsonRpcError = (res: Response, id: JsonRpcRequest['id'], err: unknown): void => {
    const app = toAppError(err);
    res.locals.a2aErrorCode = app.code;
    logServerFault(app, err, log);
    const status = jsonRpcHttpStatus(app);
    authChallenge(res, status, app, 'a2a');
    retryAfter(res, app);
    res.status(status).json({ jsonrpc: '2.0', id, error: toV1JsonRpcError(app) });
  };

  const jsonRpcHandler = (req: Request, res: Response): Promise<void> =>
    withBody(
      req,
      res,
      JSON_RPC_FILE_PATHS,
      (err) => jsonRpcError(res, null, err),
      (json, spilled) => answerRpc(req, res, json, spilled),
    );
  router.post('/', guard, jsonRpcHandler);

  const answerRpc = async (req: Request, res: Response, json: Buffer, spilled: SpilledFiles): Promise<void> => {
    let raw: unknown;
    let rpc: JsonRpcRequest;
    let ctx: OperationContext;
    try {
      raw = parseJsonBytes(json);
      assertJsonDepth(raw);
      rpc = parseEnvelope(raw);
      const version = requestedVersion(req);
      if (asksForV0(version)) {
        // A 0.x request (no A2A-Version is 0.3): refused as that generation refuses an unserved version.
        sendJsonRpcError(
          res,
          rpc.id,
          new AppError(
            'UNSUPPORTED_OPERATION',
            'This endpoint serves A2A 1.0 (send A2A-Version: 1.0); A2A 0.3 is served at /a2a/v0.3',
          ),
          log,
        );
        return;
      }
      ctx = { ...callContextOf(res), version: '1.0', spilled };
      negotiateV1(version, ctx.agent);
    } catch (err) {
      jsonRpcError(res, idOf(raw), err);
      return;
    }
    const method = rpc.method;
    try {
      if (!isV1Method(method)) {
        throw method.includes('/')
          ? new AppError(
              'UNSUPPORTED_OPERATION',
              `${method.slice(0, 100)} is an A2A 0.3 method; this endpoint serves 1.0`,
            )
          : new AppError('METHOD_NOT_FOUND', `Method not found: ${method.slice(0, 100)}`);
      }
      await traced(ctx, res, 'jsonrpc', method, async () => {
        acceptProtoFieldNames(method, rpc.params);
        const outcome = await handler.handle(method, rpc.params, ctx, { lastEventId: lastEventIdOf(req) });
        if (outcome.kind === 'result') {
          writeJson(res, JSON_RPC_CONTENT_TYPE, JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: outcome.result }));
          return;
        }
        await stream(res, outcome, {
          ok: (r) => ({ jsonrpc: '2.0', id: rpc.id, result: r }),
          error: (e) => ({ jsonrpc: '2.0', id: rpc.id, error: toV1JsonRpcError(e) }),
        });
      });
    } catch (err) {
      if (res.headersSent) {
        log.error({ err }, 'error after the response started');
        res.end();
        return;
      }
      // A refused stream is a JSON answer too: the 1.0 clients read a JSON error in place of the stream.
      jsonRpcError(res, rpc.id, err);
    }
  };

  // ---- HTTP+JSON -----------------------------------------------------------------------------------------
  const restError = (res: Response, err: unknown): void => {
    const app = toAppError(err);
    res.locals.a2aErrorCode = app.code;
    logServerFault(app, err, log);
    const { status, body: errBody } = toV1RestError(app);
    authChallenge(res, status, app, 'a2a');
    retryAfter(res, app);
    res.status(status).type(A2A_CONTENT_TYPE).send(JSON.stringify(errBody));
  };

  const restHandler = (req: Request, res: Response): Promise<void> => {
    // No 1.0 GET or DELETE takes a body: those never read one, so never wait for a large-body slot.
    if (req.method === 'GET' || req.method === 'DELETE') {
      closeIfBodyUnread(req, res);
      return answerRest(req, res, Buffer.alloc(0), new SpilledFiles(new Map()));
    }
    return withBody(
      req,
      res,
      REST_FILE_PATHS,
      (err) => restError(res, err),
      (json, spilled) => answerRest(req, res, json, spilled),
    );
  };
  router.use('/rest', guard, restHandler);

  const answerRest = async (req: Request, res: Response, json: Buffer, spilled: SpilledFiles): Promise<void> => {
    const path = req.path; // a getter that parses the URL on each read
    const match = matchRestRoute(req.method, path);
    if (!match) {
      restError(
        res,
        knownRestPath(path)
          ? new AppError('UNSUPPORTED_OPERATION', `${req.method} is not allowed here`)
          : new AppError('NOT_FOUND', 'No A2A 1.0 operation at this path'),
      );
      return;
    }
    const { route } = match;
    let ctx: OperationContext;
    let params: Record<string, unknown>;
    try {
      ctx = { ...callContextOf(res), version: '1.0', spilled };
      negotiateV1(requestedVersion(req), ctx.agent);
      params = restParams(match, json, hasQuery(req) ? req.query : undefined);
    } catch (err) {
      restError(res, err);
      return;
    }
    try {
      await traced(ctx, res, 'rest', route.op, async () => {
        const outcome = await handler.handle(route.op, params, ctx, { lastEventId: lastEventIdOf(req) });
        if (outcome.kind === 'result') {
          writeJson(res, REST_CONTENT_TYPE, JSON.stringify(outcome.result));
          return;
        }
        await stream(res, outcome, {
          ok: (r) => r,
          error: (e) => toV1RestError(e).body,
          errorEvent: 'error',
        });
      });
    } catch (err) {
      if (res.headersSent) {
        log.error({ err }, 'error after the response started');
        res.end();
        return;
      }
      restError(res, err);
    }
  };

  // Refusals of the guard and the body reader, in the shape of the binding that was asked.
  const refusal = (err: unknown): AppError => {
    const e = err as { type?: string; status?: number };
    return e.type === 'entity.too.large' || e.status === 413
      ? new AppError('PAYLOAD_TOO_LARGE', 'Request body too large')
      : toAppError(err);
  };
  const onError = (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    if (req.path.startsWith('/rest')) restError(res, refusal(err));
    else jsonRpcError(res, null, refusal(err));
  };
  // The same for a request the fast path gave to the HTTP+JSON binding, whose `req.url` is then the path under `/rest`.
  const onRestError = (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    restError(res, refusal(err));
  };
  router.use(onError);
  return {
    router,
    jsonRpc: { guard, handler: jsonRpcHandler, onError },
    rest: { guard, handler: restHandler, onError: onRestError },
  };
}
