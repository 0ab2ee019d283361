import type { Message, Part } from '@a2a-js/sdk';
import { parseModelConfig, type HttpToolDefinition, type ModelConfig } from '@a2a-inbound/agent-definitions';
import type { Logger } from '@a2a-inbound/logger';
import { SecretUnavailableError, agentText, type AgentRuntime, type RunContext } from '../domain/agent-runtime';
import {
  ProviderError,
  chatCompletion,
  type ChatContentPart,
  type ChatMessage,
  type ChatTool,
  type ChatToolCall,
  type Usage,
} from './chat-completions';
import type { GuardedFetch } from './guarded-fetch';
import { FILE_URN_PREFIX } from './common';
import { callHttpTool } from './http-tools';
import { McpConnectError, McpSessions } from './mcp-tools';

/** Status-message metadata: the checkpoint marker (as the demo approval agent) and the stored run state. */
export const CHECKPOINT_KEY = 'a2a-inbound/checkpoint';
export const MODEL_STATE_KEY = 'a2a-inbound/model-state';
/** Token usage of the run, on its final status message. */
export const USAGE_KEY = 'a2a-inbound/usage';

/** Text of an inline text file given to the model at most (the rest is cut, and said so). */
const MAX_INLINE_TEXT_BYTES = 200 * 1024;

/** What a paused run needs to resume (stored in its `input-required` status message, so any runner can). */
interface ModelState {
  v: 1;
  /** Model calls made so far. */
  step: number;
  /** The conversation as the provider saw it, without the system instructions (read from the version). */
  messages: ChatMessage[];
  /** Tool calls of the last assistant turn not yet answered; the first waits for approval. */
  pending: ChatToolCall[];
  usage: Usage;
  /** Segments of output so far (each run after a checkpoint writes its own artifact). */
  segment: number;
}

export interface ModelUsageRecord extends Usage {
  taskId: string;
  model: string;
  outcome: 'completed' | 'failed' | 'input-required';
}

export interface ModelRuntimeDeps {
  fetch: GuardedFetch;
  log: Logger;
  /** Token usage of each run (metrics); the run's final status message carries it too. */
  onUsage?(record: ModelUsageRecord): void;
}

/** A message's parts as text (history: files described, never inlined again). */
function describeParts(parts: readonly Part[]): string {
  return parts
    .map((p) => {
      if (p.kind === 'text') return p.text;
      if (p.kind === 'data') return JSON.stringify(p.data);
      const f = p.file as { name?: string; mimeType?: string; uri?: string };
      return `[file: ${f.name || f.uri || 'unnamed'} (${f.mimeType || 'application/octet-stream'})]`;
    })
    .filter(Boolean)
    .join('\n');
}

/**
 * The user's message as the model gets it: text inline, images as data URLs (vision), other files described.
 * Files the tasks service stored (`urn:a2a-inbound:file:<id>`) are read back through `readFile`.
 */
export async function userContent(
  message: Message,
  vision: boolean,
  readFile?: RunContext['readFile'],
): Promise<string | ChatContentPart[]> {
  const out: ChatContentPart[] = [];
  for (const p of message.parts) {
    if (p.kind === 'text') out.push({ type: 'text', text: p.text });
    else if (p.kind === 'data') out.push({ type: 'text', text: JSON.stringify(p.data) });
    else {
      const f = { ...(p.file as { name?: string; mimeType?: string; bytes?: string; uri?: string }) };
      if (f.uri?.startsWith(FILE_URN_PREFIX) && readFile) {
        const stored = await readFile(f.uri.slice(FILE_URN_PREFIX.length));
        if (stored) {
          f.bytes = Buffer.from(stored.data).toString('base64');
          f.mimeType ||= stored.mimeType;
          if (!f.name && stored.name) f.name = stored.name;
          delete f.uri;
        }
      }
      const mime = (f.mimeType || 'application/octet-stream').toLowerCase();
      const name = f.name || f.uri || 'unnamed';
      if (f.bytes !== undefined && (mime.startsWith('text/') || mime === 'application/json')) {
        const buf = Buffer.from(f.bytes, 'base64');
        const cut = buf.byteLength > MAX_INLINE_TEXT_BYTES;
        const text = buf.subarray(0, MAX_INLINE_TEXT_BYTES).toString('utf8');
        out.push({
          type: 'text',
          text: `File ${name} (${mime}):\n${text}${cut ? `\n[… cut at ${MAX_INLINE_TEXT_BYTES} bytes of ${buf.byteLength}]` : ''}`,
        });
      } else if (f.bytes !== undefined && mime.startsWith('image/') && vision) {
        out.push({ type: 'image_url', image_url: { url: `data:${mime};base64,${f.bytes}` } });
      } else {
        const size =
          f.bytes !== undefined ? `, ${Buffer.byteLength(f.bytes, 'base64')} bytes` : f.uri ? `, at ${f.uri}` : '';
        out.push({ type: 'text', text: `[Attached file: ${name} (${mime}${size}); its content is not shown to you]` });
      }
    }
  }
  if (out.every((c) => c.type === 'text')) return out.map((c) => (c as { text: string }).text).join('\n');
  return out;
}

/** The memory window: the newest `max` messages of the conversation, as chat messages. */
function memoryMessages(history: readonly Message[], max: number): ChatMessage[] {
  if (max === 0) return [];
  const out: ChatMessage[] = [];
  for (const m of history.slice(-max)) {
    const text = describeParts(m.parts);
    if (!text) continue;
    out.push(m.role === 'user' ? { role: 'user', content: text } : { role: 'assistant', content: text });
  }
  return out;
}

/** The pending checkpoint of this task: its newest agent message, when that is a model approval. */
function pendingCheckpoint(ctx: RunContext): ModelState | undefined {
  const last = [...ctx.history].reverse().find((m) => m.role === 'agent' && m.taskId === ctx.taskId);
  if (last?.metadata?.[CHECKPOINT_KEY] !== 'model-approval') return undefined;
  const state = last.metadata[MODEL_STATE_KEY] as ModelState | undefined;
  return state?.v === 1 && Array.isArray(state.messages) && Array.isArray(state.pending) ? state : undefined;
}

const isApproval = (reply: string): boolean => /^(approve|approved|yes|y|ok|okay)\b/i.test(reply.trim());

const addUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

/**
 * Streams the answer as one artifact: each delta an `append: true` chunk, one delta held back so that the
 * last chunk can say `lastChunk: true`.
 */
class AnswerArtifact {
  #held: string | undefined;
  #sent = false;
  text = '';
  constructor(
    private readonly ctx: RunContext,
    private readonly artifactId: string,
  ) {}

  async delta(text: string): Promise<void> {
    this.text += text;
    if (this.#held !== undefined) await this.#emit(this.#held, false);
    this.#held = text;
  }

  /** Sends what is held as the last chunk (nothing when no text was produced). */
  async finish(): Promise<void> {
    if (this.#held === undefined) return;
    const held = this.#held;
    this.#held = undefined;
    await this.#emit(held, true);
  }

  async #emit(text: string, last: boolean): Promise<void> {
    await this.ctx.artifact({
      artifactId: this.artifactId,
      name: 'answer',
      parts: [{ kind: 'text', text }],
      append: this.#sent,
      lastChunk: last,
    });
    this.#sent = true;
  }
}

/**
 * The `model` runtime (AI Agent): an OpenAI-compatible Chat Completions provider with instructions, memory by
 * context, streaming deltas, a bounded tool-calling loop over HTTP tools, approvals that pause the task in
 * `input-required` and resume from the state stored with it (on any runner, after a restart too). A provider
 * fault never leaves the task `working`: it ends `failed` with a reason the user can act on.
 */
export function createModelRuntime(deps: ModelRuntimeDeps): AgentRuntime {
  return async (ctx) => {
    const config = parseModelConfig(ctx.config);
    const run = new ModelRun(ctx, config, deps);
    await run.execute();
  };
}

class ModelRun {
  #usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  /** Usage of earlier runs of this task (before a checkpoint): already reported. */
  #reported: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  readonly #secretValues: string[] = [];
  readonly #tools: Map<string, HttpToolDefinition>;
  /** The MCP sessions of this run (tools listed once), when the version has MCP servers. */
  #mcp: McpSessions | undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly config: ModelConfig,
    private readonly deps: ModelRuntimeDeps,
  ) {
    this.#tools = new Map(config.tools.map((t) => [t.name, t]));
  }

  #secret(name: string): string {
    const v = this.ctx.secret(name);
    this.#secretValues.push(v);
    return v;
  }

  /** Never echo a secret (a provider may quote the key it refused). */
  #redact(text: string): string {
    let out = text;
    for (const v of this.#secretValues) if (v.length >= 4) out = out.split(v).join('[redacted]');
    return out;
  }

  async execute(): Promise<void> {
    const { ctx, config } = this;
    let apiKey: string | undefined;
    try {
      apiKey = config.apiKeySecret ? this.#secret(config.apiKeySecret) : undefined;
    } catch (err) {
      if (err instanceof SecretUnavailableError) return this.#fail(`${err.message}; the agent version needs it.`);
      throw err;
    }
    if (config.mcpServers.length > 0) {
      try {
        this.#mcp = await McpSessions.open(config.mcpServers, {
          fetch: this.deps.fetch,
          log: this.deps.log,
          signal: ctx.signal,
          headers: (server) =>
            Object.fromEntries(Object.entries(server.headerSecrets).map(([h, s]) => [h, this.#secret(s)])),
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        if (err instanceof SecretUnavailableError) return this.#fail(`${err.message}; the agent version needs it.`);
        if (err instanceof McpConnectError) return this.#fail(this.#redact(err.message));
        throw err;
      }
    }
    try {
      return await this.#run(apiKey);
    } finally {
      await this.#mcp?.close();
    }
  }

  #needsApproval(name: string): boolean {
    return this.#tools.get(name)?.requiresApproval ?? this.#mcp?.tools.get(name)?.requiresApproval ?? false;
  }

  async #run(apiKey: string | undefined): Promise<void> {
    const { ctx, config } = this;
    const resumed = pendingCheckpoint(ctx);
    let messages: ChatMessage[];
    let pending: ChatToolCall[] = [];
    let step = 0;
    let segment = 0;
    if (resumed) {
      ({ messages, step, segment } = resumed);
      this.#usage = resumed.usage;
      this.#reported = resumed.usage;
      segment += 1;
      const [first, ...rest] = resumed.pending;
      const approved = isApproval(describeParts(ctx.message.parts));
      if (first)
        messages.push({
          role: 'tool',
          tool_call_id: first.id,
          content: approved
            ? await this.#callTool(first)
            : JSON.stringify({ error: 'the user rejected this call; do not try it again' }),
        });
      pending = rest;
    } else {
      messages = [
        ...memoryMessages(ctx.history, config.memoryMessages),
        { role: 'user', content: await userContent(ctx.message, config.vision, (id) => ctx.readFile(id)) },
      ];
    }
    const answer = new AnswerArtifact(ctx, segment === 0 ? `${ctx.taskId}-answer` : `${ctx.taskId}-answer-${segment}`);
    const tools: ChatTool[] = [
      ...config.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
      ...(this.#mcp ? [...this.#mcp.tools.values()] : []).map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.parameters,
      })),
    ].map((f) => ({ type: 'function', function: f }));
    const system: ChatMessage[] = config.instructions ? [{ role: 'system', content: config.instructions }] : [];
    try {
      for (;;) {
        while (pending.length > 0) {
          const call = pending[0]!;
          if (this.#needsApproval(call.function.name)) {
            await answer.finish();
            return await this.#checkpoint({ v: 1, step, messages, pending, usage: this.#usage, segment });
          }
          pending.shift();
          messages.push({ role: 'tool', tool_call_id: call.id, content: await this.#callTool(call) });
        }
        if (step >= config.maxSteps) {
          await answer.finish();
          return await this.#fail(
            `The agent did not finish within ${config.maxSteps} model calls (maxSteps of this agent version).`,
          );
        }
        step += 1;
        let streamed = '';
        const r = await chatCompletion(this.deps.fetch, {
          baseUrl: config.baseUrl,
          apiKey,
          model: config.model,
          messages: [...system, ...messages],
          tools,
          temperature: config.temperature,
          maxOutputTokens: config.maxOutputTokens,
          stream: config.stream,
          timeoutMs: config.requestTimeoutMs,
          maxRetries: config.maxRetries,
          signal: ctx.signal,
          onDelta: (text) => {
            streamed += text;
            return answer.delta(text);
          },
          sleep: (ms) => ctx.sleep(ms),
        });
        this.#usage = addUsage(this.#usage, r.usage);
        // A non-streaming answer (or a provider that ignored `stream`) arrives whole.
        if (r.content && streamed === '') await answer.delta(r.content);
        if (r.toolCalls.length === 0) {
          await answer.finish();
          return await this.#complete(answer.text);
        }
        messages.push({ role: 'assistant', content: r.content || null, tool_calls: r.toolCalls });
        pending = [...r.toolCalls];
      }
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      if (err instanceof ProviderError) {
        await answer.finish().catch(() => undefined);
        return await this.#fail(this.#redact(err.message));
      }
      throw err;
    }
  }

  async #callTool(call: ChatToolCall): Promise<string> {
    if (this.#mcp?.tools.has(call.function.name))
      return this.#redact(await this.#mcp.call(call.function.name, call.function.arguments));
    const tool = this.#tools.get(call.function.name);
    if (!tool) return JSON.stringify({ error: `there is no tool named "${call.function.name}"` });
    let headers: Record<string, string>;
    try {
      headers = Object.fromEntries(Object.entries(tool.headerSecrets).map(([h, s]) => [h, this.#secret(s)]));
    } catch (err) {
      if (err instanceof SecretUnavailableError)
        return JSON.stringify({ error: 'the tool is not configured (a secret is missing)' });
      throw err;
    }
    const out = await callHttpTool(this.deps.fetch, tool, call.function.arguments, headers, this.ctx.signal);
    return this.#redact(out);
  }

  #record(outcome: ModelUsageRecord['outcome']): Record<string, unknown> {
    const usage = { ...this.#usage };
    const r = this.#reported;
    this.deps.onUsage?.({
      promptTokens: usage.promptTokens - r.promptTokens,
      completionTokens: usage.completionTokens - r.completionTokens,
      totalTokens: usage.totalTokens - r.totalTokens,
      taskId: this.ctx.taskId,
      model: this.config.model,
      outcome,
    });
    return { [USAGE_KEY]: { ...usage, model: this.config.model } };
  }

  async #complete(text: string): Promise<void> {
    await this.ctx.status('completed', agentText(this.ctx, text || '(no answer)', 'answer', this.#record('completed')));
  }

  async #fail(reason: string): Promise<void> {
    await this.ctx.status('failed', agentText(this.ctx, reason, 'failure', this.#record('failed')));
  }

  async #checkpoint(state: ModelState): Promise<void> {
    const call = state.pending[0]!;
    let args = call.function.arguments;
    if (args.length > 500) args = `${args.slice(0, 500)}…`;
    await this.ctx.status(
      'input-required',
      agentText(
        this.ctx,
        `Approval needed: the agent wants to call "${call.function.name}" with ${args}. Reply "approve" to let it make the call, or "reject" to refuse it: the agent is told the call was refused and goes on without it.`,
        `approval-${state.segment}`,
        { [CHECKPOINT_KEY]: 'model-approval', [MODEL_STATE_KEY]: state, ...this.#record('input-required') },
      ),
    );
  }
}
