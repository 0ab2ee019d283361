import type { Message, Part } from '@a2a-js/sdk';
import { EgressPolicy } from '@a2a-inbound/runtime';
import type { AgentRuntime, RunContext } from '../domain/agent-runtime';
import { agentText } from '../domain/agent-runtime';
import {
  authHeaders,
  CallBudget,
  ConfigChecker,
  fail,
  failureReason,
  intOr,
  outboundParts,
  turnMessageId,
  UpstreamFailure,
  withMetadata,
  type ConfigProblem,
} from './common';

/**
 * Runtime `http`: an agent written in any language behind one HTTP endpoint, by the contract in
 * docs/agent-http-contract.md: we POST the turn as JSON; it answers JSON, or SSE with deltas, progress and a
 * final event. Called through the guarded egress like `a2a-upstream`.
 */
export interface HttpAgentConfig {
  /** The endpoint that takes the POST. */
  url: string;
  /** The agent's token (the resolved secret): `Authorization: Bearer <token>`, or in `authHeader`. */
  tokenSecret?: string;
  authHeader?: string;
  /** Budget of the whole call (default 300 000). */
  timeoutMs?: number;
  /** Longest silence: before the response starts, and between two SSE events (default 60 000). */
  idleTimeoutMs?: number;
  /** Cap of the response body, JSON or the whole SSE stream (default 1 MiB, at most 16 MiB). */
  maxResponseBytes?: number;
  /** Conversation messages sent as `history`, newest kept (default 20, 0 = none). */
  historyMessages?: number;
  /** The agent answers with SSE: the card claims `capabilities.streaming` (default false; no effect on the call). */
  streaming?: boolean;
}

const FIELDS = [
  'url',
  'tokenSecret',
  'authHeader',
  'timeoutMs',
  'idleTimeoutMs',
  'maxResponseBytes',
  'historyMessages',
  'streaming',
] as const;
export const HTTP_AGENT_DEFAULTS = {
  timeoutMs: 300_000,
  idleTimeoutMs: 60_000,
  maxResponseBytes: 1024 * 1024,
  historyMessages: 20,
} as const;
/** Cap of the `resume` state an agent may keep with us between turns. */
export const MAX_RESUME_BYTES = 16 * 1024;
export const HTTP_CONTRACT_VERSION = '1';
/** Metadata of our input-required message holding the agent's `resume` state. */
export const RESUME_KEY = 'a2a-inbound/http-resume';

export function validateHttpAgentConfig(config: unknown, policy: EgressPolicy = new EgressPolicy()): ConfigProblem[] {
  const c = new ConfigChecker(config, FIELDS);
  if (!c.isObject) return c.problems;
  c.url('url', policy);
  c.optionalSecret('tokenSecret');
  c.headerName('authHeader');
  c.optionalInt('timeoutMs', 1_000, 3_600_000);
  c.optionalInt('idleTimeoutMs', 1_000, 3_600_000);
  c.optionalInt('maxResponseBytes', 1_024, 16 * 1024 * 1024);
  c.optionalInt('historyMessages', 0, 200);
  c.optionalBoolean('streaming');
  return c.problems;
}

/** The `final` event and the JSON answer: how the turn ends. */
interface FinalAnswer {
  state?: 'completed' | 'input-required' | 'failed';
  text?: string;
  parts?: Part[];
  message?: string;
  resume?: unknown;
}

export interface HttpAgentDeps {
  fetch: typeof fetch;
  policy: EgressPolicy;
}

const enc = new TextEncoder();

export function createHttpAgentRuntime(deps: HttpAgentDeps): AgentRuntime {
  return async (ctx) => {
    const problems = validateHttpAgentConfig(ctx.config, deps.policy);
    if (problems.length > 0) {
      await fail(
        ctx,
        `The agent version's http configuration is invalid: ${problems.map((p) => `${p.path} ${p.reason}`).join('; ')}.`,
      );
      return;
    }
    const config = ctx.config as unknown as HttpAgentConfig;
    const budget = new CallBudget(
      ctx.signal,
      intOr(config.timeoutMs, HTTP_AGENT_DEFAULTS.timeoutMs),
      intOr(config.idleTimeoutMs, HTTP_AGENT_DEFAULTS.idleTimeoutMs),
    );
    try {
      await new HttpTurn(ctx, config, deps, budget).execute();
    } catch (err) {
      if (ctx.signal.aborted) throw err; // canceled: the closed connection tells the agent
      await fail(ctx, failureReason(err, 'The HTTP agent', config.url, budget.timedOut()));
    } finally {
      budget.close();
    }
  };
}

class HttpTurn {
  readonly #artifactId: string;
  readonly #maxBytes: number;
  #bytes = 0;
  #deltas = 0;

  constructor(
    readonly ctx: RunContext,
    readonly config: HttpAgentConfig,
    readonly deps: HttpAgentDeps,
    readonly budget: CallBudget,
  ) {
    this.#artifactId = `${ctx.taskId}-agent_response`;
    this.#maxBytes = intOr(config.maxResponseBytes, HTTP_AGENT_DEFAULTS.maxResponseBytes);
  }

  async #body(): Promise<string> {
    const { ctx } = this;
    const keep = intOr(this.config.historyMessages, HTTP_AGENT_DEFAULTS.historyMessages);
    const history = keep === 0 ? [] : ctx.history.slice(-keep);
    const resume = [...ctx.history]
      .reverse()
      .find((m) => m.role === 'agent' && m.taskId === ctx.taskId && m.metadata?.[RESUME_KEY] !== undefined)?.metadata?.[
      RESUME_KEY
    ];
    return JSON.stringify({
      contract: HTTP_CONTRACT_VERSION,
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      message: { messageId: turnMessageId(ctx), role: 'user', parts: await outboundParts(ctx, ctx.message.parts) },
      history: await Promise.all(
        history.map(async (m) => ({
          messageId: m.messageId,
          role: m.role,
          ...(m.taskId ? { taskId: m.taskId } : {}),
          parts: await outboundParts(ctx, m.parts),
        })),
      ),
      ...(resume !== undefined ? { resume } : {}),
    });
  }

  async execute(): Promise<void> {
    const res = await this.deps.fetch(this.config.url, {
      method: 'POST',
      headers: {
        ...authHeaders(this.ctx.config),
        'Content-Type': 'application/json',
        Accept: 'text/event-stream, application/json',
        'A2A-Inbound-Contract': HTTP_CONTRACT_VERSION,
      },
      body: await this.#body(),
      signal: this.budget.signal,
    });
    this.budget.touch();
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!res.ok) {
      // Quoted inside our sentence: without its own final period.
      const excerpt = (await this.#readText(res).catch(() => ''))
        .slice(0, 200)
        .replace(/\s+/g, ' ')
        .replace(/[.\s]+$/, '')
        .trim();
      throw new UpstreamFailure(
        `The HTTP agent at ${new URL(this.config.url).host} answered ${res.status}${excerpt ? `: ${excerpt}` : ''}.`,
      );
    }
    if (type === 'text/event-stream') return this.#sse(res);
    if (type !== 'application/json' && !type.endsWith('+json'))
      throw new UpstreamFailure(
        `The HTTP agent answered ${type || 'no content type'}; the contract needs application/json or text/event-stream.`,
      );
    const text = await this.#readText(res);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new UpstreamFailure('The HTTP agent answered invalid JSON.');
    }
    await this.#final(body);
  }

  /** The body as text, refused past the size cap. */
  async #readText(res: Response): Promise<string> {
    const chunks: string[] = [];
    const dec = new TextDecoder();
    for await (const chunk of this.#chunks(res)) chunks.push(dec.decode(chunk, { stream: true }));
    chunks.push(dec.decode());
    return chunks.join('');
  }

  async *#chunks(res: Response): AsyncGenerator<Uint8Array> {
    if (!res.body) return;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    try {
      for (;;) {
        const next = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (next.done || !next.value) return;
        const value = next.value;
        this.budget.touch();
        this.#bytes += value.byteLength;
        if (this.#bytes > this.#maxBytes)
          throw new UpstreamFailure(`The HTTP agent's answer is larger than ${this.#maxBytes} bytes.`);
        yield value;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }

  async #sse(res: Response): Promise<void> {
    const dec = new TextDecoder();
    let buf = '';
    for await (const chunk of this.#chunks(res)) {
      buf += dec.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let event = 'message';
        const data: string[] = [];
        for (const line of frame.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length === 0) continue;
        if (await this.#event(event, data.join('\n'))) return;
      }
    }
    throw new UpstreamFailure('The HTTP agent ended its event stream without a final event.');
  }

  /** One SSE event; true when it ended the turn. */
  async #event(event: string, raw: string): Promise<boolean> {
    let data: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      data = parsed as Record<string, unknown>;
    } catch {
      throw new UpstreamFailure(`The HTTP agent sent a "${event}" event whose data is not a JSON object.`);
    }
    const { ctx } = this;
    switch (event) {
      case 'delta': {
        if (typeof data.text !== 'string') throw new UpstreamFailure('A "delta" event needs a string "text".');
        await ctx.artifact({
          artifactId: this.#artifactId,
          name: 'agent_response',
          parts: [{ kind: 'text', text: data.text }],
          append: this.#deltas > 0,
          lastChunk: false,
        });
        this.#deltas += 1;
        return false;
      }
      case 'status': {
        if (typeof data.message !== 'string') throw new UpstreamFailure('A "status" event needs a string "message".');
        await ctx.status('working', agentText(ctx, data.message, `progress-${Date.now()}`));
        return false;
      }
      case 'final':
        await this.#final(data);
        return true;
      case 'error': {
        const message = typeof data.message === 'string' ? data.message : 'the agent reported an error';
        await fail(ctx, `The HTTP agent failed: ${message}`);
        return true;
      }
      default:
        return false; // unknown events are ignored: the contract may grow
    }
  }

  async #final(raw: unknown): Promise<void> {
    const { ctx } = this;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new UpstreamFailure('The HTTP agent answered JSON that is not an object.');
    const a = raw as FinalAnswer;
    const state = a.state ?? 'completed';
    if (state !== 'completed' && state !== 'input-required' && state !== 'failed')
      throw new UpstreamFailure(`The HTTP agent answered an unknown state "${String(state)}".`);
    if (a.text !== undefined && typeof a.text !== 'string') throw new UpstreamFailure('"text" must be a string.');
    if (a.message !== undefined && typeof a.message !== 'string')
      throw new UpstreamFailure('"message" must be a string.');
    const parts = a.parts !== undefined ? checkParts(a.parts) : a.text !== undefined ? [textPart(a.text)] : [];
    if (parts.length > 0)
      await ctx.artifact({
        artifactId: this.#artifactId,
        name: 'agent_response',
        parts,
        append: this.#deltas > 0,
        lastChunk: true,
      });
    else if (this.#deltas > 0)
      await ctx.artifact({
        artifactId: this.#artifactId,
        name: 'agent_response',
        parts: [textPart('')],
        append: true,
        lastChunk: true,
      });
    if (state === 'failed') {
      await fail(ctx, `The HTTP agent failed: ${a.message ?? 'no reason given'}`);
      return;
    }
    if (state === 'input-required') {
      let metadata: Record<string, unknown> | undefined;
      if (a.resume !== undefined) {
        if (enc.encode(JSON.stringify(a.resume)).byteLength > MAX_RESUME_BYTES)
          throw new UpstreamFailure(`"resume" is larger than ${MAX_RESUME_BYTES} bytes.`);
        metadata = { [RESUME_KEY]: a.resume };
      }
      const prompt = agentText(ctx, a.message ?? 'The agent needs more input.', `input-${Date.now()}`);
      await ctx.status('input-required', metadata ? withMetadata(prompt, metadata) : prompt);
      return;
    }
    const message: Message | undefined = a.message ? agentText(ctx, a.message, 'answer') : undefined;
    await ctx.status('completed', message);
  }
}

const textPart = (text: string): Part => ({ kind: 'text', text });

/** The agent's parts, checked against the A2A part shapes. */
function checkParts(raw: unknown): Part[] {
  if (!Array.isArray(raw)) throw new UpstreamFailure('"parts" must be an array of A2A parts.');
  return raw.map((p: unknown, i) => {
    const part = p as Record<string, unknown> | null;
    const bad = (): never => {
      throw new UpstreamFailure(`"parts[${i}]" is not an A2A text, data or file part.`);
    };
    if (typeof part !== 'object' || part === null) return bad();
    if (part.kind === 'text' && typeof part.text === 'string') return { kind: 'text', text: part.text };
    if (part.kind === 'data' && typeof part.data === 'object' && part.data !== null && !Array.isArray(part.data))
      return { kind: 'data', data: part.data as Record<string, unknown> };
    if (part.kind === 'file' && typeof part.file === 'object' && part.file !== null) {
      const f = part.file as Record<string, unknown>;
      const name = typeof f.name === 'string' ? { name: f.name } : {};
      const mimeType = typeof f.mimeType === 'string' ? { mimeType: f.mimeType } : {};
      if (typeof f.bytes === 'string') return { kind: 'file', file: { bytes: f.bytes, ...name, ...mimeType } };
      if (typeof f.uri === 'string') return { kind: 'file', file: { uri: f.uri, ...name, ...mimeType } };
    }
    return bad();
  });
}
