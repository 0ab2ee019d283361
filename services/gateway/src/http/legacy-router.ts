import { randomUUID } from 'node:crypto';
import { type NextFunction, type Request, type Response, Router } from 'express';
import { InvalidParamsError } from '@a2a-inbound/errors';
import { afterSeqOf, AgentOperations, type OperationContext } from '../protocol/operations';
import { historyLengthOf, LIMITS, validateSendParams } from '../protocol/validate';
import type { AgentRouterDeps } from './agent-access';
import { agentGuard, callContextOf, jsonBody } from './body';
import { intQuery, isObject, restErrors, toSnake } from './rest';
import { writeEventStream } from './sse';

export type LegacyRouterDeps = AgentRouterDeps;

/** Legacy part (`type`/`content`, snake_case file fields) → A2A part; `kind` parts pass through. */
function partIn(raw: unknown, i: number): unknown {
  if (!isObject(raw)) throw new InvalidParamsError(`message.parts[${i}] must be an object`);
  const kind = raw.kind ?? raw.type;
  const metadata = raw.metadata === undefined ? {} : { metadata: raw.metadata };
  if (kind === 'text') return { kind: 'text', text: raw.text ?? raw.content, ...metadata };
  if (kind === 'data') return { kind: 'data', data: raw.data, ...metadata };
  if (kind === 'file') {
    const f = isObject(raw.file) ? raw.file : {};
    const file: Record<string, unknown> = { mimeType: f.mime_type ?? f.mimeType };
    if (f.name !== undefined) file.name = f.name;
    if (f.bytes !== undefined) file.bytes = f.bytes;
    if (f.uri !== undefined) file.uri = f.uri;
    return { kind: 'file', file, ...metadata };
  }
  return raw; // validation names the problem
}

/** Legacy part out: text parts as `{ type: "text", content }`; files and data with snake_case fields. */
function partOut(p: unknown): unknown {
  if (!isObject(p)) return p;
  if (p.kind === 'text') return { type: 'text', content: p.text, ...(p.metadata ? { metadata: p.metadata } : {}) };
  if (p.kind === 'data') return { type: 'data', data: p.data, ...(p.metadata ? { metadata: p.metadata } : {}) };
  if (p.kind === 'file')
    return { type: 'file', file: toSnake(p.file), ...(p.metadata ? { metadata: p.metadata } : {}) };
  return toSnake(p);
}

function messageOut(m: unknown): unknown {
  if (!isObject(m)) return m;
  const { parts, kind: _kind, ...rest } = m;
  return { ...(toSnake(rest) as object), parts: Array.isArray(parts) ? parts.map(partOut) : [] };
}

/** A2A Task (camelCase) → legacy task (snake_case, legacy parts). */
export function legacyTask(task: unknown): unknown {
  if (!isObject(task)) return task;
  const status = isObject(task.status) ? task.status : {};
  const out: Record<string, unknown> = {
    task_id: task.id,
    context_id: task.contextId,
    status: {
      state: status.state,
      ...(status.timestamp ? { timestamp: status.timestamp } : {}),
      ...(status.message ? { message: messageOut(status.message) } : {}),
    },
    artifacts: Array.isArray(task.artifacts)
      ? task.artifacts.map((a: unknown) =>
          isObject(a)
            ? {
                ...(toSnake({ ...a, parts: undefined }) as object),
                parts: Array.isArray(a.parts) ? a.parts.map(partOut) : [],
              }
            : a,
        )
      : [],
  };
  if (Array.isArray(task.history)) out.history = task.history.map(messageOut);
  if (task.metadata !== undefined) out.metadata = task.metadata;
  return out;
}

/** A2A streaming event → legacy event (snake_case, legacy parts). */
function legacyEvent(e: unknown): unknown {
  if (!isObject(e)) return e;
  if (e.kind === 'task') return { kind: 'task', ...(legacyTask(e) as object) };
  const out = toSnake({ ...e, artifact: undefined, status: undefined }) as Record<string, unknown>;
  if (isObject(e.status)) {
    const s = e.status;
    out.status = {
      state: s.state,
      ...(s.timestamp ? { timestamp: s.timestamp } : {}),
      ...(s.message ? { message: messageOut(s.message) } : {}),
    };
  }
  if (isObject(e.artifact)) {
    const a = e.artifact;
    out.artifact = {
      ...(toSnake({ ...a, parts: undefined }) as object),
      parts: Array.isArray(a.parts) ? a.parts.map(partOut) : [],
    };
  }
  return out;
}

/**
 * Legacy REST task endpoints (deprecated, still working): snake_case in and out, legacy `type`/`content`
 * parts accepted, every answer marked with `Deprecation` and a `Link` to the JSON-RPC successor.
 * Same key scope (`a2a`), same A2A-enabled rule and the same per-agent rate limit as /agents/{id}/a2a.
 */
export function createLegacyRouter(deps: LegacyRouterDeps): Router {
  const { clients, lookups, limiter, clock, log } = deps;
  const router = Router();

  const deprecation = (req: Request, res: Response, next: NextFunction): void => {
    const base = deps.baseUrl(req);
    const id = encodeURIComponent(String(req.params.agentId));
    res.setHeader('Deprecation', 'true');
    res.setHeader(
      'Link',
      `<${base}/agents/${id}/a2a>; rel="successor-version", <${base}/agents/${id}/.well-known/agent-card.json>; rel="describedby"`,
    );
    next();
  };
  // Same key scope, A2A rule and rate limit as /agents/{id}/a2a, checked before the body is read.
  const guard = agentGuard({ lookups, limiter, clock, pending: deps.admission.pending }, 'a2a', true);
  const body = jsonBody(deps.bodyLimitBytes);
  const ops = new AgentOperations({
    tasks: clients.tasks,
    acceptTimeoutMs: deps.admission.acceptTimeoutMs,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    ...(deps.pushPolicy ? { pushPolicy: deps.pushPolicy } : {}),
  });
  // Legacy endpoints answer in A2A 0.3.0 shapes (then mapped to snake_case).
  const ctxOf = (res: Response): OperationContext => ({ ...callContextOf(res), version: '0.3.0' });
  const taskIdOf = (req: Request): string => {
    const id = String(req.params.taskId);
    if (id.length === 0 || id.length > LIMITS.maxIdChars) throw new InvalidParamsError('task_id is too long');
    return id;
  };

  router.post('/agents/:agentId/tasks', deprecation, guard, ...body, async (req, res) => {
    const ctx = ctxOf(res);
    const b: unknown = req.body;
    if (!isObject(b)) throw new InvalidParamsError('the body must be a JSON object with a message');
    const m = b.message;
    if (!isObject(m)) throw new InvalidParamsError('message is required');
    if (!Array.isArray(m.parts)) throw new InvalidParamsError('message.parts is required');
    const cfg = isObject(b.configuration) ? b.configuration : {};
    const message: Record<string, unknown> = {
      kind: 'message',
      role: m.role ?? 'user',
      // Legacy clients did not always send an id: a fresh one means no idempotency for that request.
      messageId: m.message_id ?? m.messageId ?? `legacy-${randomUUID()}`,
      parts: m.parts.map(partIn),
    };
    const contextId = m.context_id ?? b.context_id;
    const taskId = m.task_id ?? b.task_id;
    if (contextId !== undefined) message.contextId = contextId;
    if (taskId !== undefined) message.taskId = taskId;
    if (m.metadata !== undefined) message.metadata = m.metadata;
    const configuration: Record<string, unknown> = {};
    const historyLength = cfg.history_length ?? b.history_length;
    const blocking = cfg.blocking ?? b.blocking;
    if (historyLength !== undefined) configuration.historyLength = historyLength;
    if (blocking !== undefined) configuration.blocking = blocking;
    const task = await ops.send(ctx, validateSendParams({ message, configuration }));
    res.json(legacyTask(task));
  });

  router.get('/agents/:agentId/tasks/:taskId', deprecation, guard, async (req, res) => {
    const historyLength = historyLengthOf(intQuery(req, 'history_length', undefined, 100_000), 'history_length');
    res.json(legacyTask(await ops.get(ctxOf(res), taskIdOf(req), historyLength)));
  });

  router.post('/agents/:agentId/tasks/:taskId/cancel', deprecation, guard, async (req, res) => {
    res.json(legacyTask(await ops.cancel(ctxOf(res), taskIdOf(req))));
  });

  router.get('/agents/:agentId/tasks/:taskId/events', deprecation, guard, async (req, res) => {
    const header = req.headers['last-event-id'];
    const afterSeq = afterSeqOf(typeof header === 'string' ? header : req.query.last_event_id);
    const ctx = ctxOf(res);
    const taskId = taskIdOf(req);
    await writeEventStream(res, (signal) => ops.resubscribe(ctx, taskId, afterSeq, signal), {
      heartbeatMs: deps.sseHeartbeatMs,
      streams: deps.streams,
      log,
      frame: (e) => legacyEvent(e.event),
      errorFrame: () => ({
        error: { code: 'UNAVAILABLE', message: 'Stream interrupted; reconnect with Last-Event-ID' },
      }),
    });
  });

  router.all(
    [
      '/agents/:agentId/tasks',
      '/agents/:agentId/tasks/:taskId',
      '/agents/:agentId/tasks/:taskId/events',
      '/agents/:agentId/tasks/:taskId/cancel',
    ],
    deprecation,
    (req, res) => {
      res.setHeader('Allow', req.path.endsWith('/tasks') || req.path.endsWith('/cancel') ? 'POST' : 'GET');
      res
        .status(405)
        .json({ error: { code: 'METHOD_NOT_ALLOWED', message: `Use ${res.getHeader('Allow') as string}` } });
    },
  );
  // Unscoped: it only sees errors of this router's routes (path decoding included).
  router.use(restErrors(log, 'a2a'));
  return router;
}
