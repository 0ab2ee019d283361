import { blockedCause, readCapped, type GuardedFetch } from './guarded-fetch';

/** OpenAI Chat Completions wire types (the subset this runtime uses). */
export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatResult {
  content: string;
  toolCalls: ChatToolCall[];
  usage: Usage;
  finishReason: string;
}

/** A provider fault that ends the run `failed`; `message` is what the user reads (never a secret). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly kind:
      'auth' | 'refused' | 'rate_limited' | 'unavailable' | 'timeout' | 'unreachable' | 'blocked' | 'bad_answer',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface ChatRequest {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  messages: ChatMessage[];
  tools: ChatTool[];
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  stream: boolean;
  timeoutMs: number;
  maxRetries: number;
  signal: AbortSignal;
  /** Text deltas as they arrive (streaming). */
  onDelta(text: string): Promise<void>;
  /** Waits before a retry; rejects when the run is aborted. */
  sleep(ms: number): Promise<void>;
}

const MAX_ERROR_BODY_BYTES = 4 * 1024;
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const RETRY_BASE_MS = 250;
const RETRY_MAX_DELAY_MS = 10_000;

const zeroUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

/** Backoff before retry `n` (1-based): exponential with jitter, or the provider's Retry-After (capped). */
export function retryDelayMs(n: number, retryAfter: string | null): number {
  const seconds = retryAfter !== null ? Number(retryAfter) : NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, RETRY_MAX_DELAY_MS);
  const base = RETRY_BASE_MS * 2 ** (n - 1);
  return Math.min(base + Math.floor(Math.random() * base), RETRY_MAX_DELAY_MS);
}

/**
 * One Chat Completions call, with retries of 429 and 5xx (and connection failures) before any output
 * went out. Streaming answers report text deltas through `onDelta`; tool calls are assembled from their
 * fragments. Every failure becomes a ProviderError with a reason a user can act on.
 */
export async function chatCompletion(fetch: GuardedFetch, req: ChatRequest): Promise<ChatResult> {
  const body: Record<string, unknown> = { model: req.model, messages: req.messages };
  if (req.tools.length > 0) body.tools = req.tools;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.maxOutputTokens !== undefined) body.max_tokens = req.maxOutputTokens;
  if (req.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (req.apiKey) headers.authorization = `Bearer ${req.apiKey}`;
  const url = `${req.baseUrl}/chat/completions`;
  const attempts = req.maxRetries + 1;
  let last: ProviderError | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const signal = AbortSignal.any([req.signal, timeout]);
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (err) {
      if (req.signal.aborted) throw err; // canceled: not a provider fault
      last = connectFailure(err, req, timeout.aborted);
      if (last.kind === 'blocked' || last.kind === 'timeout' || attempt === attempts) throw last;
      await req.sleep(retryDelayMs(attempt, null));
      continue;
    }
    if (res.ok) {
      try {
        return req.stream && isEventStream(res) ? await readStream(res, req) : await readJson(res);
      } catch (err) {
        if (req.signal.aborted) throw err;
        if (err instanceof ProviderError) throw err;
        if (timeout.aborted)
          throw new ProviderError(
            `The model provider stopped answering: no complete answer within ${req.timeoutMs} ms (requestTimeoutMs).`,
            'timeout',
          );
        throw new ProviderError(`The model provider's answer broke off: ${messageOf(err)}.`, 'bad_answer');
      }
    }
    const detail = await errorDetail(res, req.signal);
    if (res.status === 429 || res.status >= 500) {
      last = new ProviderError(
        res.status === 429
          ? `The model provider is rate limiting this agent (HTTP 429) after ${attempt} attempt(s)${detail}. Try again later or raise the provider quota.`
          : `The model provider failed (HTTP ${res.status}) after ${attempt} attempt(s)${detail}. Try again later.`,
        res.status === 429 ? 'rate_limited' : 'unavailable',
        res.status,
      );
      if (attempt === attempts) throw last;
      await req.sleep(retryDelayMs(attempt, res.headers.get('retry-after')));
      continue;
    }
    if (res.status === 401 || res.status === 403)
      throw new ProviderError(
        `The model provider refused the credentials (HTTP ${res.status})${detail}. Check the API key secret of this agent version.`,
        'auth',
        res.status,
      );
    if (res.status === 404)
      throw new ProviderError(
        `The model provider does not know this model or endpoint (HTTP 404)${detail}. Check baseUrl and model of this agent version.`,
        'refused',
        404,
      );
    throw new ProviderError(
      `The model provider refused the request (HTTP ${res.status})${detail}.`,
      'refused',
      res.status,
    );
  }
  throw last ?? new ProviderError('The model provider could not be called.', 'unreachable');
}

function connectFailure(err: unknown, req: ChatRequest, timedOut: boolean): ProviderError {
  const blocked = blockedCause(err);
  if (blocked)
    return new ProviderError(
      `The model provider's address (${blocked.host}) is not allowed by this deployment's egress policy; an operator can allow it (EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS).`,
      'blocked',
    );
  if (timedOut)
    return new ProviderError(
      `The model provider did not answer within ${req.timeoutMs} ms (requestTimeoutMs).`,
      'timeout',
    );
  const code = (err as { cause?: { code?: string } }).cause?.code;
  return new ProviderError(
    `Could not reach the model provider at ${new URL(req.baseUrl).host}${code ? ` (${code})` : ''}. Check baseUrl of this agent version.`,
    'unreachable',
  );
}

const isEventStream = (res: Response): boolean => (res.headers.get('content-type') ?? '').includes('text/event-stream');

/** A cause quoted inside a sentence of ours: without its own final period (no "request.. Try again"). */
const clause = (text: string): string => text.replace(/[.\s]+$/, '');
const messageOf = (err: unknown): string => clause(err instanceof Error ? err.message : String(err));

/** The provider's own error message (`error.message`), short: ": <message>", or nothing. */
async function errorDetail(res: Response, signal: AbortSignal): Promise<string> {
  try {
    if (signal.aborted) return '';
    const { text } = await readCapped(res, MAX_ERROR_BODY_BYTES);
    let msg = text;
    try {
      const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
      const m = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message);
      if (typeof m === 'string') msg = m;
    } catch {
      // not JSON: the text itself
    }
    msg = clause(msg.replace(/\s+/g, ' ').trim().slice(0, 300));
    return msg ? `: ${msg}` : '';
  } catch {
    return '';
  }
}

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

const usageOf = (u: WireUsage | undefined | null): Usage =>
  u
    ? {
        promptTokens: u.prompt_tokens ?? 0,
        completionTokens: u.completion_tokens ?? 0,
        totalTokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0),
      }
    : zeroUsage();

async function readJson(res: Response): Promise<ChatResult> {
  const { text, truncated } = await readCapped(res, MAX_ANSWER_BYTES);
  if (truncated) throw new ProviderError('The model provider answered more than 8 MiB.', 'bad_answer');
  let j: {
    choices?: { message?: { content?: string | null; tool_calls?: ChatToolCall[] }; finish_reason?: string }[];
    usage?: WireUsage;
  };
  try {
    j = JSON.parse(text) as typeof j;
  } catch {
    throw new ProviderError('The model provider answered something that is not JSON.', 'bad_answer');
  }
  const choice = j.choices?.[0];
  if (!choice?.message) throw new ProviderError('The model provider answered without a choice.', 'bad_answer');
  return {
    content: choice.message.content ?? '',
    toolCalls: (choice.message.tool_calls ?? []).filter((c) => c?.function?.name),
    usage: usageOf(j.usage),
    finishReason: choice.finish_reason ?? '',
  };
}

interface StreamChunk {
  choices?: {
    delta?: {
      content?: string | null;
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: WireUsage | null;
  error?: { message?: string };
}

/** Server-sent events: `data: {chunk}` lines until `data: [DONE]` (or the end of the body). */
async function readStream(res: Response, req: ChatRequest): Promise<ChatResult> {
  if (!res.body) throw new ProviderError('The model provider answered an empty stream.', 'bad_answer');
  const decoder = new TextDecoder();
  let buffer = '';
  let content = '';
  let usage = zeroUsage();
  let finishReason = '';
  const calls: { id: string; name: string; args: string }[] = [];
  let bytes = 0;
  let sawDone = false;
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const handle = async (data: string): Promise<boolean> => {
    if (data === '[DONE]') return true;
    let chunk: StreamChunk;
    try {
      chunk = JSON.parse(data) as StreamChunk;
    } catch {
      throw new ProviderError('The model provider streamed something that is not JSON.', 'bad_answer');
    }
    if (chunk.error)
      throw new ProviderError(
        `The model provider failed mid-answer: ${clause(String(chunk.error.message ?? 'error'))}.`,
        'unavailable',
      );
    if (chunk.usage) usage = usageOf(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return false;
    if (choice.finish_reason) finishReason = choice.finish_reason;
    const d = choice.delta;
    if (d?.content) {
      content += d.content;
      await req.onDelta(d.content);
    }
    for (const t of d?.tool_calls ?? []) {
      const i = t.index ?? calls.length;
      const c = (calls[i] ??= { id: '', name: '', args: '' });
      if (t.id) c.id = t.id;
      if (t.function?.name) c.name += t.function.name;
      if (t.function?.arguments) c.args += t.function.arguments;
    }
    return false;
  };
  outer: for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ProviderError('The model provider streamed more than 8 MiB.', 'bad_answer');
    }
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('data:')) continue;
      if (await handle(line.slice(5).trim())) {
        sawDone = true;
        await reader.cancel().catch(() => undefined);
        break outer;
      }
    }
  }
  if (!sawDone && !finishReason)
    throw new ProviderError('The model provider ended the stream before the answer was complete.', 'bad_answer');
  return {
    content,
    toolCalls: calls
      .filter((c) => c.name)
      .map((c, i) => ({
        id: c.id || `call_${i}`,
        type: 'function' as const,
        function: { name: c.name, arguments: c.args || '{}' },
      })),
    usage,
    finishReason,
  };
}
