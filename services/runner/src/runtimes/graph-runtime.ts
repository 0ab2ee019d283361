import type { Message } from '@a2a-js/sdk';
import jsonata from 'jsonata';
import {
  parseGraphConfig,
  UrlTemplateError,
  type GraphConfig,
  type GraphStep,
  type HttpStep,
  type ModelStep,
} from '@a2a-inbound/agent-definitions';
import { SecretUnavailableError, agentText, type AgentRuntime, type RunContext } from '../domain/agent-runtime';
import { ProviderError, chatCompletion, type ChatMessage, type Usage } from './chat-completions';
import { blockedCause, readCapped, type GuardedFetch } from './guarded-fetch';
import { toolRequest } from './http-tools';
import { USAGE_KEY, type ModelUsageRecord } from './model-runtime';

/** Status-message metadata of a graph paused at an approval step: the marker and the state to resume from. */
export const GRAPH_CHECKPOINT = 'graph-approval';
export const GRAPH_STATE_KEY = 'a2a-inbound/graph-state';
const CHECKPOINT_KEY = 'a2a-inbound/checkpoint';

/** The artifact of one step's output (what run details list as `steps`). */
export const STEP_ARTIFACT_PREFIX = 'step:';
/** A step's output as stored (checkpoint, approval state) at most. */
const MAX_STEP_OUTPUT_BYTES = 1024 * 1024;
/** The outputs of one run together at most (they live in the run checkpoint). */
const MAX_RUN_OUTPUT_BYTES = 8 * 1024 * 1024;
/**
 * The outputs carried by an approval prompt at most: they ride in its status event (bus messages stay under
 * 900 KiB) and in the reply's run request.
 */
const MAX_APPROVAL_STATE_BYTES = 256 * 1024;

/** Guardrails of one expression (JSONata's own): a runaway expression fails its step, not the runner. */
const EVAL_LIMITS = { timeout: 5_000, stack: 500, sequence: 1_000_000 };

/** The tokens a model step used (kept with its record: a run replayed after a crash still reports them). */
interface StepUsage extends Usage {
  model: string;
}

/** One step's outcome: it ran (with its output) or was skipped (no active incoming edge). */
interface StepRecord {
  id: string;
  ran: boolean;
  output?: unknown;
  usage?: StepUsage;
}

/** The run checkpoint (RunContext.checkpoint): the steps this run completed, in order. */
interface GraphCheckpoint {
  v: 1;
  done: StepRecord[];
}

/** What a run paused at an approval needs to resume (stored in the `input-required` status message). */
interface GraphState {
  v: 1;
  /** The approval step waiting for the reply. */
  pending: string;
  done: StepRecord[];
  /** The run's input (what the graph started with), for the steps after the approval. */
  input?: unknown;
}

export interface GraphRuntimeDeps {
  fetch: GuardedFetch;
  /** Token usage of the model steps of each run, per model (metrics, the `model usage` log line). */
  onUsage?(record: ModelUsageRecord): void;
  /** How long one expression may evaluate (default 5 s). */
  expressionTimeoutMs?: number;
}

/** A step that could not produce an output: the run ends `failed` with this reason (user-facing). */
class StepFailure extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The run input: the first data part's data, else the text of the message. */
export function graphInput(message: Message): unknown {
  const data = message.parts.find((p) => p.kind === 'data');
  if (data?.kind === 'data') return data.data;
  return message.parts
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** The approval state of this task's newest agent message, when it paused a graph. */
function pausedState(ctx: RunContext): GraphState | undefined {
  const last = [...ctx.history].reverse().find((m) => m.role === 'agent' && m.taskId === ctx.taskId);
  if (last?.metadata?.[CHECKPOINT_KEY] !== GRAPH_CHECKPOINT) return undefined;
  const s = last.metadata[GRAPH_STATE_KEY] as GraphState | undefined;
  return s?.v === 1 && typeof s.pending === 'string' && Array.isArray(s.done) ? s : undefined;
}

const addUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

const isApproval = (reply: string): boolean => /^(approve|approved|yes|y|ok|okay)\b/i.test(reply.trim());

/**
 * The `graph` runtime (Task Agent): runs the version's steps in topological order. After each step its output
 * is saved in the run checkpoint, then sent as an artifact (`step:<id>`) that lands in the stored task. A run
 * executed again (its runner died and the request was redelivered) replays the checkpoint: the same events
 * for the completed steps (the tasks service drops those it already applied, ADR 0005) without running them,
 * then continues at the next step. An approval step pauses the task in `input-required`; the reply resumes it
 * from the state stored with the prompt.
 */
export function createGraphRuntime(deps: GraphRuntimeDeps): AgentRuntime {
  return async (ctx) => {
    await new GraphRun(ctx, parseGraphConfig(ctx.config), deps).execute();
  };
}

class GraphRun {
  readonly #steps: Map<string, GraphStep>;
  readonly #records = new Map<string, StepRecord>();
  /** Steps completed by this run (the checkpoint). */
  readonly #thisRun: StepRecord[] = [];
  /** Every step that ran, in order (earlier runs of the task included). */
  readonly #ranOrder: string[] = [];
  readonly #secretValues: string[] = [];
  #input: unknown;
  #outputBytes = 0;
  /** Usage of the model step that just ran (taken into its record). */
  #stepUsage: StepUsage | undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly config: GraphConfig,
    private readonly deps: GraphRuntimeDeps,
  ) {
    this.#steps = new Map(config.steps.map((s) => [s.id, s]));
    this.#input = graphInput(ctx.message);
  }

  async execute(): Promise<void> {
    const { ctx } = this;
    const paused = pausedState(ctx);
    if (paused) {
      // The input of the run is the one the graph started with (this message is the approval reply): kept in
      // the paused state; a state from before it was kept there falls back on the task's first user message.
      const first = ctx.history.find((m) => m.role === 'user' && m.taskId === ctx.taskId);
      this.#input = 'input' in paused ? paused.input : first ? graphInput(first) : this.#input;
      for (const r of paused.done) this.#remember(r);
    }
    const saved = (await ctx.checkpoint.load()) as GraphCheckpoint | undefined;
    try {
      if (saved?.v === 1 && Array.isArray(saved.done)) {
        for (const r of saved.done) {
          this.#remember(r);
          this.#thisRun.push(r);
          if (r.ran) await this.#emitStep(r);
        }
      } else if (paused) {
        await this.#resolveApproval(paused);
      }
      for (const id of this.config.order) {
        if (this.#records.has(id)) continue;
        const step = this.#steps.get(id)!;
        if (!this.#isActive(id)) {
          await this.#complete({ id, ran: false });
          continue;
        }
        if (step.kind === 'approval') return await this.#pause(step.id, step.prompt);
        this.#stepUsage = undefined;
        const output = await this.#runStep(step);
        const usage = this.#stepUsage;
        await this.#complete({ id, ran: true, output, ...(usage ? { usage } : {}) });
      }
      const output = this.config.output
        ? await this.#eval(this.config.output, 'output')
        : this.#records.get(this.#ranOrder.at(-1) ?? '')?.output;
      const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
      await ctx.artifact({
        artifactId: `${ctx.taskId}-output`,
        name: 'agent_response',
        parts: [{ kind: 'text', text }],
        append: false,
        lastChunk: true,
      });
      await ctx.status('completed', agentText(ctx, text, 'output', this.#usage('completed')));
    } catch (err) {
      if (ctx.signal.aborted || !(err instanceof StepFailure)) throw err;
      await ctx.status('failed', agentText(ctx, this.#redact(err.message), 'failure', this.#usage('failed')));
    }
  }

  /**
   * Token usage at the end of a run: this run's model steps reported (per model; steps of earlier runs of the
   * task were reported by those runs), and the task's total so far as status-message metadata (run details).
   */
  #usage(outcome: ModelUsageRecord['outcome']): Record<string, unknown> | undefined {
    const byModel = new Map<string, Usage>();
    for (const r of this.#thisRun) {
      if (!r.usage) continue;
      const u = byModel.get(r.usage.model) ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
      byModel.set(r.usage.model, addUsage(u, r.usage));
    }
    for (const [model, u] of byModel) this.deps.onUsage?.({ ...u, taskId: this.ctx.taskId, model, outcome });
    let total: Usage | undefined;
    const models = new Set<string>();
    for (const r of this.#records.values()) {
      if (!r.usage) continue;
      total = addUsage(total ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 }, r.usage);
      models.add(r.usage.model);
    }
    return total ? { [USAGE_KEY]: { ...total, models: [...models] } } : undefined;
  }

  /** The paused approval is answered by this run's message: record the step, or stop on a rejection. */
  async #resolveApproval(paused: GraphState): Promise<void> {
    const step = this.#steps.get(paused.pending);
    if (step?.kind !== 'approval') throw new StepFailure(`The graph changed: step "${paused.pending}" is gone.`);
    const reply = this.ctx.message.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('\n');
    const approved = isApproval(reply);
    if (!approved && step.onReject === 'fail')
      throw new StepFailure(`Step "${step.id}" (approval) was rejected: the run stopped there.`);
    await this.#complete({ id: step.id, ran: true, output: { approved, reply } });
  }

  #remember(r: StepRecord): void {
    this.#records.set(r.id, r);
    this.#outputBytes += Buffer.byteLength(JSON.stringify(r.output ?? null));
    if (r.ran) this.#ranOrder.push(r.id);
  }

  /** Saved first, then sent: a crash between the two re-sends it from the checkpoint (never re-runs it). */
  async #complete(r: StepRecord): Promise<void> {
    this.#remember(r);
    this.#thisRun.push(r);
    await this.ctx.checkpoint.save({ v: 1, done: this.#thisRun } satisfies GraphCheckpoint);
    if (r.ran) await this.#emitStep(r);
  }

  async #emitStep(r: StepRecord): Promise<void> {
    const step = this.#steps.get(r.id);
    await this.ctx.artifact({
      artifactId: `${this.ctx.taskId}-step-${r.id}`,
      name: `${STEP_ARTIFACT_PREFIX}${r.id}`,
      parts: [{ kind: 'data', data: { step: r.id, kind: step?.kind ?? 'unknown', output: r.output ?? null } }],
      append: false,
      lastChunk: true,
    });
  }

  /** A step runs when it has no incoming edge or one of them is active (its source ran, on the taken side). */
  #isActive(id: string): boolean {
    const incoming = this.config.edges.filter((e) => e.to === id);
    if (incoming.length === 0) return true;
    return incoming.some((e) => {
      const from = this.#records.get(e.from);
      if (!from?.ran) return false;
      const src = this.#steps.get(e.from);
      if (src?.kind !== 'branch') return true;
      const taken = from.output === true ? src.then : src.else;
      const onASide = src.then.includes(id) || src.else.includes(id);
      return !onASide || taken.includes(id);
    });
  }

  #scope(): Record<string, unknown> {
    const steps: Record<string, unknown> = {};
    for (const [id, r] of this.#records) if (r.ran) steps[id] = r.output;
    return { input: this.#input, steps };
  }

  async #eval(expr: string, where: string): Promise<unknown> {
    try {
      const limits = { ...EVAL_LIMITS, timeout: this.deps.expressionTimeoutMs ?? EVAL_LIMITS.timeout };
      return (await jsonata(expr, limits).evaluate(this.#scope())) as unknown;
    } catch (err) {
      const e = err as { message?: string; code?: string };
      const m = e.message ?? (e.code ? `JSONata error ${e.code}` : String(err));
      throw new StepFailure(`${where}: the expression failed: ${m}`);
    }
  }

  async #runStep(step: GraphStep): Promise<unknown> {
    const where = `Step "${step.id}" (${step.kind})`;
    let output: unknown;
    try {
      switch (step.kind) {
        case 'transform':
          output = await this.#eval(step.expression, where);
          break;
        case 'branch':
          output = Boolean(await this.#eval(step.condition, where));
          break;
        case 'http':
          output = await this.#http(step);
          break;
        case 'model':
          output = await this.#model(step);
          break;
        case 'approval':
          throw new Error('approval steps pause the run');
      }
    } catch (err) {
      if (this.ctx.signal.aborted || !(err instanceof StepFailure)) throw err;
      throw new StepFailure(err.message.startsWith(where) ? err.message : `${where} failed: ${err.message}`);
    }
    // JSONata's "no match" is undefined: stored as null so the record survives JSON.
    const stored = output === undefined ? null : output;
    const bytes = Buffer.byteLength(JSON.stringify(stored));
    if (bytes > MAX_STEP_OUTPUT_BYTES)
      throw new StepFailure(`${where} failed: its output is larger than ${MAX_STEP_OUTPUT_BYTES} bytes.`);
    if (this.#outputBytes + bytes > MAX_RUN_OUTPUT_BYTES)
      throw new StepFailure(`${where} failed: the run's step outputs together exceed ${MAX_RUN_OUTPUT_BYTES} bytes.`);
    return stored;
  }

  #secret(name: string): string {
    try {
      const v = this.ctx.secret(name);
      this.#secretValues.push(v);
      return v;
    } catch (err) {
      if (err instanceof SecretUnavailableError) throw new StepFailure(`${err.message}; the agent version needs it`);
      throw err;
    }
  }

  #redact(text: string): string {
    let out = text;
    for (const v of this.#secretValues) if (v.length >= 4) out = out.split(v).join('[redacted]');
    return out;
  }

  async #http(step: HttpStep): Promise<unknown> {
    const params = step.params === undefined ? {} : await this.#eval(step.params, 'params');
    if (!isObj(params)) throw new StepFailure('params must evaluate to an object');
    const headers = Object.fromEntries(Object.entries(step.headerSecrets).map(([h, s]) => [h, this.#secret(s)]));
    let req: ReturnType<typeof toolRequest>;
    try {
      req = toolRequest(
        {
          type: 'http',
          name: step.id,
          description: '',
          method: step.method,
          url: step.url,
          parameters: { type: 'object' },
          headerSecrets: {},
          timeoutMs: step.timeoutMs,
          maxResponseBytes: step.maxResponseBytes,
          requiresApproval: false,
        },
        params,
      );
    } catch (err) {
      // A value that would leave the URL's path or query: nothing is sent (ADR 0020, decision 8).
      if (err instanceof UrlTemplateError) throw new StepFailure(err.message);
      throw err;
    }
    const host = new URL(req.url).host;
    const timeout = AbortSignal.timeout(step.timeoutMs);
    let res: Response;
    try {
      res = await this.deps.fetch(req.url, {
        method: req.method,
        headers: {
          accept: 'application/json, text/plain;q=0.9, */*;q=0.1',
          ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(req.body !== undefined ? { body: req.body } : {}),
        signal: AbortSignal.any([this.ctx.signal, timeout]),
      });
    } catch (err) {
      if (this.ctx.signal.aborted) throw err;
      if (timeout.aborted) throw new StepFailure(`${host} did not answer within ${step.timeoutMs} ms (timeoutMs)`);
      const blocked = blockedCause(err);
      if (blocked)
        throw new StepFailure(
          `${blocked.host} is a private address; private destinations need the operator allow-list (EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS)`,
        );
      throw new StepFailure(`${host} could not be reached`);
    }
    const { text, truncated } = await readCapped(res, step.maxResponseBytes);
    if (truncated) throw new StepFailure(`the answer of ${host} is larger than ${step.maxResponseBytes} bytes`);
    if (!res.ok) throw new StepFailure(`${host} answered HTTP ${res.status}`);
    let body: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    return { status: res.status, body };
  }

  async #model(step: ModelStep): Promise<unknown> {
    const apiKey = step.apiKeySecret ? this.#secret(step.apiKeySecret) : undefined;
    const prompt = await this.#eval(step.prompt, 'prompt');
    const messages: ChatMessage[] = [
      ...(step.instructions ? [{ role: 'system' as const, content: step.instructions }] : []),
      { role: 'user', content: typeof prompt === 'string' ? prompt : JSON.stringify(prompt ?? null) },
    ];
    try {
      const r = await chatCompletion(this.deps.fetch, {
        baseUrl: step.baseUrl,
        apiKey,
        model: step.model,
        messages,
        tools: [],
        temperature: step.temperature,
        maxOutputTokens: step.maxOutputTokens,
        stream: false,
        timeoutMs: step.requestTimeoutMs,
        maxRetries: step.maxRetries,
        signal: this.ctx.signal,
        onDelta: async () => Promise.resolve(),
        sleep: (ms) => this.ctx.sleep(ms),
      });
      this.#stepUsage = { ...r.usage, model: step.model };
      return r.content;
    } catch (err) {
      if (err instanceof ProviderError && !this.ctx.signal.aborted) throw new StepFailure(err.message);
      throw err;
    }
  }

  async #pause(stepId: string, promptExpr: string): Promise<void> {
    const prompt = await this.#eval(promptExpr, `Step "${stepId}" (approval)`);
    const text = typeof prompt === 'string' ? prompt : JSON.stringify(prompt ?? null);
    const done = [...this.#records.values()];
    const state: GraphState = { v: 1, pending: stepId, done, input: this.#input };
    if (Buffer.byteLength(JSON.stringify(state)) > MAX_APPROVAL_STATE_BYTES)
      throw new StepFailure(
        `Step "${stepId}" (approval) failed: the outputs of the steps before it exceed ${MAX_APPROVAL_STATE_BYTES} bytes, ` +
          'more than an approval can carry; shape them smaller with a transform step.',
      );
    await this.ctx.status(
      'input-required',
      agentText(this.ctx, `${text}\nReply "approve" to continue or "reject" to stop.`, `approval-${stepId}`, {
        [CHECKPOINT_KEY]: GRAPH_CHECKPOINT,
        [GRAPH_STATE_KEY]: state,
        ...this.#usage('input-required'),
      }),
    );
  }
}
