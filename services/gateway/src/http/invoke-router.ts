import { type Request, type Response, Router } from 'express';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import { AgentOperations, type OperationContext } from '../protocol/operations';
import { LIMITS, validateSendParams, type ValidatedSend } from '../protocol/validate';
import type { AgentRouterDeps } from './agent-access';
import { agentGuard, callContextOf, jsonBody } from './body';
import { intQuery, isObject, restErrors, toSnake } from './rest';
import { writeEventStream } from './sse';

export type InvokeRouterDeps = AgentRouterDeps;

const textOfParts = (parts: unknown): string =>
  Array.isArray(parts)
    ? parts
        .filter(
          (p): p is { kind: 'text'; text: string } => isObject(p) && p.kind === 'text' && typeof p.text === 'string',
        )
        .map((p) => p.text)
        .join('')
    : '';

/** Status-message metadata of a run's token usage (runner model and graph runtimes). */
const USAGE_KEY = 'a2a-inbound/usage';

/** A2A Task → run record (snake_case): state, the text answer, artifacts, the failure or prompt text. */
export function runOut(task: Record<string, unknown>, agentId: string): Record<string, unknown> {
  const status = isObject(task.status) ? task.status : {};
  const artifacts = Array.isArray(task.artifacts) ? (task.artifacts as Record<string, unknown>[]) : [];
  const answer = artifacts.find((a) => a.name === 'agent_response');
  const statusMessage = isObject(status.message) ? textOfParts(status.message.parts) : '';
  const steps = stepsOf(artifacts);
  // Token usage of a model or graph run (the runner puts it on the run's last status message).
  const usage =
    isObject(status.message) && isObject(status.message.metadata) ? status.message.metadata[USAGE_KEY] : undefined;
  return {
    run_id: task.id,
    agent_id: agentId,
    context_id: task.contextId,
    status: status.state,
    status_message: statusMessage || null,
    output: answer ? textOfParts(answer.parts) : null,
    artifacts: toSnake(artifacts),
    updated_at: status.timestamp ?? null,
    // A Task Agent (graph) run: each completed step's output, in the order the steps ran.
    ...(steps.length > 0 ? { steps } : {}),
    ...(isObject(usage) ? { usage: toSnake(usage) } : {}),
  };
}

/** The `step:<id>` artifacts of a graph run (runner graph runtime) as `{ id, kind, output }`. */
function stepsOf(artifacts: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const a of artifacts) {
    if (typeof a.name !== 'string' || !a.name.startsWith('step:') || !Array.isArray(a.parts)) continue;
    const part = (a.parts as unknown[]).find((p) => isObject(p) && p.kind === 'data');
    const data = isObject(part) && isObject(part.data) ? part.data : {};
    out.push({ id: a.name.slice('step:'.length), kind: data.kind ?? null, output: data.output ?? null });
  }
  return out;
}

/**
 * Non-A2A agent endpoints ("Other agent endpoints" of the spec) with a key of scope `invoke`; they count
 * against the agent's rate limit and the subscription's credits like every invocation:
 *   POST /agents/{id}/runs          start a run in the background (Task Agents, also AI Agents): 202 {run_id}
 *   GET  /agents/{id}/runs          run history, newest first
 *   GET  /agents/{id}/runs/{runId}  run details
 *   POST /agents/{id}/run           AI Agent run that waits for the answer (like message/send)
 *   POST /agents/{id}/run/stream    AI Agent run streamed as Server-Sent Events (like message/stream)
 *   GET  /agents/{id}/conversations/{contextId}  the messages of a conversation (context), oldest first
 */
export function createInvokeRouter(deps: InvokeRouterDeps): Router {
  const { clients, lookups, limiter, clock, log } = deps;
  const router = Router();

  // Key of scope `invoke`, the agent of its subscription, the rate limit: before the body is read.
  const guard = agentGuard({ lookups, limiter, clock, pending: deps.admission.pending }, 'invoke', false);
  const body = jsonBody(deps.bodyLimitBytes);
  const ops = new AgentOperations({
    tasks: clients.tasks,
    acceptTimeoutMs: deps.admission.acceptTimeoutMs,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    ...(deps.pushPolicy ? { pushPolicy: deps.pushPolicy } : {}),
  });
  // Invoke endpoints answer from A2A 0.3.0 shapes (then mapped to run records).
  const ctxOf = (res: Response): OperationContext => ({ ...callContextOf(res), version: '0.3.0' });

  /** `{ input?: string, data?: object, parts?: Part[], context_id?, message_id?, run_id? }` → a validated A2A send. */
  const sendOf = (req: Request, blocking: boolean): ValidatedSend => {
    const b: unknown = req.body ?? {};
    if (!isObject(b)) throw new InvalidParamsError('the body must be a JSON object');
    const parts: unknown[] = [];
    if (b.input !== undefined) {
      if (typeof b.input !== 'string') throw new InvalidParamsError('input must be a string');
      parts.push({ kind: 'text', text: b.input });
    }
    if (b.data !== undefined) parts.push({ kind: 'data', data: b.data });
    if (b.parts !== undefined) {
      if (!Array.isArray(b.parts)) throw new InvalidParamsError('parts must be an array');
      parts.push(...(b.parts as unknown[]));
    }
    if (parts.length === 0) throw new InvalidParamsError('give input (text), data (object) or parts');
    const message: Record<string, unknown> = {
      kind: 'message',
      role: 'user',
      messageId: b.message_id ?? `run-${crypto.randomUUID()}`,
      parts,
    };
    if (b.context_id !== undefined) message.contextId = b.context_id;
    // The reply to a run waiting for input (`input-required`, e.g. a graph's approval step) continues that run.
    if (b.run_id !== undefined) message.taskId = b.run_id;
    if (b.metadata !== undefined) message.metadata = b.metadata;
    return validateSendParams({ message, configuration: { blocking } });
  };
  const runUrl = (req: Request, agentId: string, runId: string): string =>
    `${deps.baseUrl(req)}/agents/${encodeURIComponent(agentId)}/runs/${encodeURIComponent(runId)}`;

  router.post('/agents/:agentId/runs', guard, ...body, async (req, res) => {
    const ctx = ctxOf(res);
    const task = await ops.send(ctx, sendOf(req, false));
    const url = runUrl(req, ctx.agent.agentId, String(task.id));
    res
      .status(202)
      .location(url)
      .json({
        run_id: task.id,
        context_id: task.contextId,
        status: (task.status as { state?: string } | undefined)?.state ?? 'working',
        run_url: url,
      });
  });

  router.get('/agents/:agentId/runs', guard, async (req, res) => {
    const ctx = ctxOf(res);
    const limit = intQuery(req, 'limit', 20, 100)!;
    const before = intQuery(req, 'before', 0, Number.MAX_SAFE_INTEGER)!;
    const tasks = await ops.listRuns(ctx, { limit, createdBeforeMs: before });
    const runs = tasks.map((x) => ({
      run_id: x.taskId,
      context_id: x.contextId,
      status: x.state,
      created_at: new Date(Number(x.createdAtMs)).toISOString(),
      updated_at: new Date(Number(x.updatedAtMs)).toISOString(),
      run_url: runUrl(req, ctx.agent.agentId, x.taskId),
    }));
    const last = tasks.at(-1);
    res.json({
      agent_id: ctx.agent.agentId,
      runs,
      next_before: runs.length === limit && last ? Number(last.createdAtMs) : null,
    });
  });

  router.get('/agents/:agentId/runs/:runId', guard, async (req, res) => {
    const ctx = ctxOf(res);
    const runId = String(req.params.runId);
    if (runId.length > LIMITS.maxIdChars) throw new InvalidParamsError('run id is too long');
    try {
      res.json(runOut(await ops.get(ctx, runId), ctx.agent.agentId));
    } catch (err) {
      if (err instanceof AppError && err.code === 'TASK_NOT_FOUND')
        throw new AppError('NOT_FOUND', 'Run not found', { details: { run_id: runId } });
      throw err;
    }
  });

  router.post('/agents/:agentId/run', guard, ...body, async (req, res) => {
    const ctx = ctxOf(res);
    const task = await ops.run(ctx, () => sendOf(req, true));
    res.json(runOut(task, ctx.agent.agentId));
  });

  router.post('/agents/:agentId/run/stream', guard, ...body, async (req, res) => {
    const ctx = ctxOf(res);
    await writeEventStream(res, (signal) => ops.runStream(ctx, () => sendOf(req, true), signal), {
      heartbeatMs: deps.sseHeartbeatMs,
      streams: deps.streams,
      log,
      // The A2A stream opens with the Task snapshot; run streams carry status and artifact events only.
      frame: (e) => (e.event.kind === 'task' ? undefined : { run_id: e.event.taskId, ...(toSnake(e.event) as object) }),
      errorFrame: () => ({
        error: { code: 'UNAVAILABLE', message: 'Stream interrupted; read the run with GET /agents/{id}/runs/{run_id}' },
      }),
    });
  });

  router.get('/agents/:agentId/conversations/:contextId', guard, async (req, res) => {
    const ctx = ctxOf(res);
    const contextId = String(req.params.contextId);
    if (contextId.length > LIMITS.maxIdChars) throw new InvalidParamsError('context id is too long');
    const conversation = await ops.conversation(ctx, contextId);
    const messages = conversation.messages.map(({ runId, message: m }) => ({
      run_id: runId,
      message_id: m.messageId,
      role: m.role,
      text: textOfParts(m.parts),
      parts: toSnake(m.parts),
    }));
    res.json({ agent_id: ctx.agent.agentId, context_id: contextId, runs: conversation.runs, messages });
  });

  router.all(
    [
      '/agents/:agentId/runs',
      '/agents/:agentId/runs/:runId',
      '/agents/:agentId/run',
      '/agents/:agentId/run/stream',
      '/agents/:agentId/conversations/:contextId',
    ],
    (req, res) => {
      const allow = /\/runs\/[^/]+$|\/conversations\//.test(req.path)
        ? 'GET'
        : req.path.endsWith('/runs')
          ? 'GET, POST'
          : 'POST';
      res.setHeader('Allow', allow);
      res.status(405).json({ error: { code: 'METHOD_NOT_ALLOWED', message: `Use ${allow}` } });
    },
  );
  // Unscoped: it only sees errors of this router's routes (path decoding included).
  router.use(restErrors(log, 'invoke'));
  return router;
}
