import express, { type Request, type Response, Router } from 'express';
import { AppError, InvalidParamsError, toAppError, toJsonRpcError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { setActiveSpanAttribute, withSpan } from '@a2a-inbound/telemetry';
import type { Clock, RateLimiter } from '@a2a-inbound/ports';
import { controlV1, tasksV1 } from '@a2a-inbound/proto';
import { call, checkPublicHttpsUrl, streamOf, type Resolver, dnsResolver } from '@a2a-inbound/runtime';
import type { GatewayClients, Lookups } from '../clients';
import type { CardVersion } from '../protocol/cards';
import {
  checkFileUris,
  historyLengthOf,
  idOf,
  isObject,
  LIMITS,
  parseEnvelope,
  STREAMING_METHODS,
  taskIdParam,
  validateSendParams,
  type JsonRpcRequest,
} from '../protocol/validate';
import type { AgentCallContext } from './agent-access';
import { agentGuard, assertJsonDepth, callContextOf, parseJsonBytes } from './body';
import { jsonRpcBodyErrorHandler, sendJsonRpcError, sendJsonRpcErrorAsStream } from './errors';
import { SseWriter } from './sse';

export interface A2aRouterDeps {
  clients: GatewayClients;
  lookups: Lookups;
  limiter: RateLimiter;
  clock: Clock;
  log: Logger;
  bodyLimitBytes: number;
  sseHeartbeatMs: number;
  /** Resolves webhook hosts for the SSRF check (tests inject one). */
  resolver?: Resolver;
  /** Streams to end on shutdown. */
  streams: Set<SseWriter>;
}

interface Ctx extends AgentCallContext {
  version: CardVersion;
}

/** How long a stream waits for its first event before it opens anyway (errors come well before). */
const STREAM_OPEN_WAIT_MS = 1_000;

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

export function createA2aRouter(deps: A2aRouterDeps): Router {
  const { clients, lookups, limiter, clock, log } = deps;
  const router = Router({ mergeParams: true });

  // Authenticated (key, agent, rate limit) before a byte of the body is read.
  const guard = agentGuard({ lookups, limiter, clock }, 'a2a', true);

  // The body is read as bytes whatever its Content-Type (clients differ) and parsed in the handler, so that an
  // empty body, invalid UTF-8 and malformed JSON are all -32700 and never reach express's HTML error page.
  const body = express.raw({ limit: deps.bodyLimitBytes, type: () => true });

  const handler = async (req: Request, res: Response): Promise<void> => {
    const guarded = callContextOf(res);
    let raw: unknown;
    let rpc: JsonRpcRequest | undefined;
    let ctx: Ctx;
    try {
      raw = parseJsonBytes(req.body);
      assertJsonDepth(raw);
      rpc = parseEnvelope(raw);
      // After the envelope so that an unsupported version (-32004) echoes the request id.
      ctx = { ...guarded, version: versionOf(req, guarded.agent) };
    } catch (err) {
      refuse(res, rpc, idOf(raw), err);
      return;
    }
    try {
      const method = TRACED_METHODS.has(rpc.method) ? rpc.method : '_OTHER';
      const taskId = requestedTaskId(rpc.params);
      const attributes = {
        'rpc.system': 'jsonrpc',
        'rpc.method': method,
        'a2a.agent_id': ctx.agent.agentId,
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

  const caller = (ctx: Ctx): tasksV1.Caller => ({
    subscriptionId: ctx.auth.subscriptionId,
    deploymentId: ctx.agent.deploymentId,
    agentId: ctx.agent.agentId,
    keyId: ctx.auth.keyId,
    protocolVersion: ctx.version,
  });

  const ok = (res: Response, id: JsonRpcRequest['id'], result: unknown): void => {
    res.status(200).json({ jsonrpc: '2.0', id, result });
  };

  async function dispatch(rpc: JsonRpcRequest, ctx: Ctx, req: Request, res: Response): Promise<void> {
    const p = rpc.params;
    const t = clients.tasks;
    switch (rpc.method) {
      case 'message/send': {
        const v = validateSendParams(p, ctx.agent);
        await checkFileUris(v, deps.resolver ?? dnsResolver);
        const budget = Number(ctx.agent.blockingBudgetMs) || 120_000;
        const r = await call(t.sendMessage.bind(t), sendRequest(caller(ctx), v), { deadlineMs: budget + 60_000 });
        const result = JSON.parse(r.taskJson) as unknown;
        if (isObject(result) && typeof result.id === 'string') setActiveSpanAttribute('a2a.task_id', result.id);
        ok(res, rpc.id, result);
        return;
      }
      case 'message/stream': {
        const v = validateSendParams(p, ctx.agent);
        await checkFileUris(v, deps.resolver ?? dnsResolver);
        await stream(rpc, req, res, (signal) => streamOf(t.sendMessageStream(sendRequest(caller(ctx), v)), signal));
        return;
      }
      case 'tasks/get': {
        const historyLength = historyLengthOf(p.historyLength, 'historyLength');
        const r = await call(
          t.getTask.bind(t),
          { caller: caller(ctx), taskId: taskIdParam(p), historyLength },
          { deadlineMs: 30_000 },
        );
        // Task table: artifacts are "empty while working"; partial output is what the streams are for
        // (tasks/resubscribe replays it), the finished task carries all of it.
        const task = JSON.parse(r.taskJson) as { status?: { state?: string }; artifacts?: unknown[] };
        if (task.status?.state === 'working') task.artifacts = [];
        ok(res, rpc.id, task);
        return;
      }
      case 'tasks/cancel': {
        const r = await call(
          t.cancelTask.bind(t),
          { caller: caller(ctx), taskId: taskIdParam(p) },
          { deadlineMs: 30_000 },
        );
        ok(res, rpc.id, JSON.parse(r.taskJson));
        return;
      }
      case 'tasks/resubscribe': {
        const taskId = taskIdParam(p);
        const lastEventId = req.headers['last-event-id'];
        const afterSeq =
          typeof lastEventId === 'string' && /^\d{1,15}$/.test(lastEventId.trim()) ? Number(lastEventId.trim()) : 0;
        await stream(rpc, req, res, (signal) =>
          streamOf(t.resubscribe({ caller: caller(ctx), taskId, afterSeq }), signal),
        );
        return;
      }
      case 'tasks/pushNotificationConfig/set': {
        if (!ctx.agent.pushNotificationsEnabled)
          throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
        const taskId = taskIdParam(p, 'taskId');
        const cfg = p.pushNotificationConfig;
        if (!isObject(cfg)) throw new InvalidParamsError('pushNotificationConfig is required');
        if (typeof cfg.url !== 'string') throw new InvalidParamsError('pushNotificationConfig.url is required');
        if (typeof cfg.token !== 'string' || cfg.token.length === 0 || cfg.token.length > 1024) {
          throw new InvalidParamsError(
            'pushNotificationConfig.token is required (the shared secret that signs deliveries)',
          );
        }
        if (cfg.id !== undefined && (typeof cfg.id !== 'string' || cfg.id.length > LIMITS.maxIdChars))
          throw new InvalidParamsError('pushNotificationConfig.id must be a string');
        const check = await checkPublicHttpsUrl(cfg.url, deps.resolver ?? dnsResolver);
        if (!check.ok) throw new InvalidParamsError(`pushNotificationConfig.url: ${check.reason}`);
        const r = await call(
          t.setPushConfig.bind(t),
          {
            caller: caller(ctx),
            taskId,
            config: {
              id: typeof cfg.id === 'string' ? cfg.id : '',
              url: cfg.url,
              token: cfg.token,
              authenticationJson: isObject(cfg.authentication) ? JSON.stringify(cfg.authentication) : '',
            },
          },
          { deadlineMs: 30_000 },
        );
        ok(res, rpc.id, pushResult(r));
        return;
      }
      case 'tasks/pushNotificationConfig/get': {
        if (!ctx.agent.pushNotificationsEnabled)
          throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
        const taskId = taskIdParam(p, 'id');
        const configId = typeof p.pushNotificationConfigId === 'string' ? p.pushNotificationConfigId : '';
        ok(
          res,
          rpc.id,
          pushResult(
            await call(t.getPushConfig.bind(t), { caller: caller(ctx), taskId, configId }, { deadlineMs: 30_000 }),
          ),
        );
        return;
      }
      case 'tasks/pushNotificationConfig/list': {
        if (!ctx.agent.pushNotificationsEnabled)
          throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
        const taskId = taskIdParam(p, 'id');
        const r = await call(
          t.listPushConfigs.bind(t),
          { caller: caller(ctx), taskId, configId: '' },
          { deadlineMs: 30_000 },
        );
        ok(res, rpc.id, r.configs.map(pushResult));
        return;
      }
      case 'tasks/pushNotificationConfig/delete': {
        if (!ctx.agent.pushNotificationsEnabled)
          throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
        const taskId = taskIdParam(p, 'id');
        const configId = typeof p.pushNotificationConfigId === 'string' ? p.pushNotificationConfigId : '';
        await call(t.deletePushConfig.bind(t), { caller: caller(ctx), taskId, configId }, { deadlineMs: 30_000 });
        ok(res, rpc.id, null);
        return;
      }
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

  /** Streams gRPC events as SSE; an error before the first event is thrown (the caller answers one error frame). */
  async function stream(
    rpc: JsonRpcRequest,
    req: Request,
    res: Response,
    open: (signal: AbortSignal) => AsyncIterable<tasksV1.TaskStreamEvent>,
  ): Promise<void> {
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    const it = open(ac.signal)[Symbol.asyncIterator]();
    // Refusals (unknown task, bad params, credits) come at once and are thrown to the handler. A stream with
    // nothing to send yet (resubscribing to a task that is quiet for minutes) still opens promptly, so that
    // clients and proxies get their headers and the heartbeats keep the connection.
    const firstEvent = it.next();
    let timer: NodeJS.Timeout | undefined;
    let first: IteratorResult<tasksV1.TaskStreamEvent> | undefined;
    try {
      const raced = await Promise.race([
        firstEvent,
        new Promise<'quiet'>((resolve) => {
          timer = setTimeout(() => resolve('quiet'), Math.min(deps.sseHeartbeatMs, STREAM_OPEN_WAIT_MS));
        }),
      ]);
      if (raced !== 'quiet') first = raced;
    } catch (err) {
      ac.abort();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    const sse = new SseWriter(res, deps.sseHeartbeatMs);
    deps.streams.add(sse);
    let sawFinal = false;
    try {
      let cur = first ?? (await firstEvent);
      while (!cur.done) {
        const e = cur.value;
        await sse.send({ jsonrpc: '2.0', id: rpc.id, result: JSON.parse(e.eventJson) as unknown }, e.seq);
        if (e.final) {
          sawFinal = true;
          break;
        }
        if (ac.signal.aborted) break;
        cur = await it.next();
      }
    } catch (err) {
      if (!ac.signal.aborted) {
        const app = toAppError(err);
        log.warn({ err: app }, 'stream ended with an error');
        const transient = app.code === 'INTERNAL' || app.code === 'UNAVAILABLE' || app.code === 'DEADLINE_EXCEEDED';
        const error = transient
          ? {
              code: -32603,
              message: 'Stream interrupted; resume with tasks/resubscribe',
              data: { code: 'UNAVAILABLE' },
            }
          : toJsonRpcError(app);
        await sse.send({ jsonrpc: '2.0', id: rpc.id, error });
      }
    } finally {
      ac.abort();
      void it.return?.(undefined);
      if (!sawFinal) log.debug({ path: req.path }, 'stream closed before final');
      sse.end();
      deps.streams.delete(sse);
    }
  }

  router.post(['/', '/:version'], guard, body, jsonRpcBodyErrorHandler(log), handler);
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
  return router;
}

function sendRequest(caller: tasksV1.Caller, v: ReturnType<typeof validateSendParams>): tasksV1.SendMessageRequest {
  return {
    caller,
    messageJson: JSON.stringify(v.message),
    historyLength: v.historyLength,
    blocking: v.blocking,
    files: v.files.map((f) => ({ partIndex: f.partIndex, name: f.name, mimeType: f.mimeType, data: f.data })),
  };
}

/** TaskPushNotificationConfig without the token (never returned). */
function pushResult(r: tasksV1.PushConfigResponse): Record<string, unknown> {
  const cfg: Record<string, unknown> = { id: r.config?.id ?? '', url: r.config?.url ?? '' };
  if (r.config?.authenticationJson) cfg.authentication = JSON.parse(r.config.authenticationJson) as unknown;
  return { taskId: r.taskId, pushNotificationConfig: cfg };
}
