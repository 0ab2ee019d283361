import { str } from './text';

/**
 * The Test console's requests, without the DOM (unit-tested in test/console/console-logic.test.ts): each method
 * with its key scope, HTTP shape and starting request; reading ids, answer text and outcomes out of answers.
 */

/** Each method the console can send: which key scope it needs, how it is sent, and a request to start from. */
export interface Method {
  id: string;
  label: string;
  scope: 'a2a' | 'invoke';
  stream: boolean;
  /** HTTP method and path under /agents/{id}; JSON-RPC methods post to /a2a. */
  http: (agentId: string, body: Record<string, unknown>) => { method: 'GET' | 'POST'; path: string; send: boolean };
  template: (ctx: { taskId: string; contextId: string }) => Record<string, unknown>;
}

const newId = (): string => crypto.randomUUID();
const rpc =
  (method: string, params: (ctx: { taskId: string; contextId: string }) => Record<string, unknown>) =>
  (ctx: { taskId: string; contextId: string }) => ({ jsonrpc: '2.0', id: newId(), method, params: params(ctx) });
const message = (text: string) => ({ role: 'user', messageId: newId(), parts: [{ kind: 'text', text }] });
const a2aPath = (agentId: string) => ({
  method: 'POST' as const,
  path: `/agents/${encodeURIComponent(agentId)}/a2a`,
  send: true,
});
const text = (b: Record<string, unknown>, k: string): string => encodeURIComponent(str(b[k]));

/** A JSON-RPC method (scope `a2a`), posted to /agents/{id}/a2a. */
const jsonRpc = (id: string, stream: boolean, template: Method['template']): Method => ({
  id,
  label: id,
  scope: 'a2a',
  stream,
  http: a2aPath,
  template,
});

/** An invoke endpoint (scope `invoke`) under /agents/{id}/: its path suffix from the edited body. */
const invoke = (
  id: string,
  label: string,
  how: { method: 'GET' | 'POST'; stream?: boolean; suffix: (body: Record<string, unknown>) => string },
  template: Method['template'],
): Method => ({
  id,
  label: `invoke: ${label}`,
  scope: 'invoke',
  stream: how.stream ?? false,
  http: (a, b) => ({
    method: how.method,
    path: `/agents/${encodeURIComponent(a)}/${how.suffix(b)}`,
    send: how.method === 'POST',
  }),
  template,
});

const historyQuery = (b: Record<string, unknown>): string => {
  const q = new URLSearchParams();
  for (const k of ['limit', 'before']) if (b[k] !== undefined) q.set(k, str(b[k]));
  const query = q.toString();
  return query ? `?${query}` : '';
};

export const METHODS: readonly Method[] = [
  jsonRpc(
    'message/send',
    false,
    rpc('message/send', () => ({ message: message('hello') })),
  ),
  jsonRpc(
    'message/stream',
    true,
    rpc('message/stream', () => ({ message: message('stream me a story') })),
  ),
  jsonRpc(
    'tasks/get',
    false,
    rpc('tasks/get', (c) => ({ id: c.taskId })),
  ),
  jsonRpc(
    'tasks/cancel',
    false,
    rpc('tasks/cancel', (c) => ({ id: c.taskId })),
  ),
  jsonRpc(
    'tasks/resubscribe',
    true,
    rpc('tasks/resubscribe', (c) => ({ id: c.taskId })),
  ),
  invoke('run', 'POST run (wait)', { method: 'POST', suffix: () => 'run' }, () => ({ input: 'hello' })),
  invoke('run/stream', 'POST run/stream', { method: 'POST', stream: true, suffix: () => 'run/stream' }, () => ({
    input: 'stream me a story',
  })),
  invoke('runs', 'POST runs (background)', { method: 'POST', suffix: () => 'runs' }, () => ({ input: 'hello' })),
  invoke('runs/list', 'GET runs (history)', { method: 'GET', suffix: (b) => `runs${historyQuery(b)}` }, () => ({
    limit: 20,
  })),
  invoke('runs/get', 'GET runs/{run_id}', { method: 'GET', suffix: (b) => `runs/${text(b, 'run_id')}` }, (c) => ({
    run_id: c.taskId,
  })),
  invoke(
    'conversations',
    'GET conversations/{context_id}',
    { method: 'GET', suffix: (b) => `conversations/${text(b, 'context_id')}` },
    (c) => ({ context_id: c.contextId }),
  ),
];

/** Reads the task and context ids out of any answer or frame, for the next request's template. */
export function idsOf(value: unknown, into: { taskId: string; contextId: string }): void {
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  const r = (o.result ?? o) as Record<string, unknown>;
  const task = r.kind === 'task' ? r.id : (r.taskId ?? r.run_id ?? r.task_id);
  const ctx = r.contextId ?? r.context_id;
  if (typeof task === 'string') into.taskId = task;
  if (typeof ctx === 'string') into.contextId = ctx;
}

/** The frames' data that is JSON, in order (a frame that is not JSON is passed over). */
function* parsedFrames(frames: readonly string[]): Generator<unknown> {
  for (const f of frames) {
    try {
      yield JSON.parse(f) as unknown;
    } catch {
      /* not JSON: not an A2A frame */
    }
  }
}

/**
 * The text answer assembled from the stream (rule 5): `append: true` artifact frames are deltas concatenated by
 * artifact id; a frame without append replaces its artifact. Works for A2A frames and the invoke stream's.
 */
export function assembleText(frames: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const data of parsedFrames(frames)) {
    const o = data as Record<string, unknown>;
    const r = (o.result ?? o) as Record<string, unknown>;
    const art = r.artifact as Record<string, unknown> | undefined;
    if (!art) continue;
    const id = str(art.artifactId ?? art.artifact_id ?? art.name, 'answer');
    const parts = Array.isArray(art.parts) ? (art.parts as Record<string, unknown>[]) : [];
    const text = parts
      .map((p) => (typeof p.text === 'string' ? p.text : typeof p.content === 'string' ? p.content : ''))
      .join('');
    out.set(id, r.append === true || art.append === true ? (out.get(id) ?? '') + text : text);
  }
  return out;
}

/**
 * How a stream ended, in words: an error frame (a JSON-RPC `error`, or the invoke stream's `error`) makes the
 * exchange a failure, named like a refused request (INSUFFICIENT_CREDITS, an interrupted stream); otherwise the
 * frame count and the time.
 */
export function describeStream(frames: readonly string[], ms: number): { kind: 'ok' | 'error'; text: string } {
  const ended = `Stream ended after ${frames.length} frame(s), ${ms} ms`;
  for (const data of parsedFrames(frames)) {
    if (typeof data === 'object' && data !== null && 'error' in data) {
      return { kind: 'error', text: `${ended}, with an error frame: ${describeAnswer(200, data).text}` };
    }
  }
  return { kind: 'ok', text: ended };
}

/** What an answer means, in words: a 429 and INSUFFICIENT_CREDITS are called by their names. */
export function describeAnswer(status: number, body: unknown): { kind: 'ok' | 'error'; text: string } {
  const o = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const err = o.error as Record<string, unknown> | undefined;
  const code = err ? str((err.data as Record<string, unknown> | undefined)?.code ?? err.code) : '';
  if (status === 429)
    return {
      kind: 'error',
      text: 'HTTP 429: rate limited (the agent\u2019s requests per minute are used up); retry later',
    };
  if (code === 'INSUFFICIENT_CREDITS' || JSON.stringify(err ?? {}).includes('INSUFFICIENT_CREDITS'))
    return { kind: 'error', text: 'INSUFFICIENT_CREDITS: the subscription has no credits left for this invocation' };
  if (status === 401 || status === 403)
    return { kind: 'error', text: `HTTP ${status}: ${str(err?.message, 'the key was refused')}` };
  if (status === 404) return { kind: 'error', text: `HTTP 404: ${str(err?.message, 'not found')}` };
  if (err) return { kind: 'error', text: `Error ${str(err.code)}: ${str(err.message)}` };
  if (status >= 400) return { kind: 'error', text: `HTTP ${status}` };
  return { kind: 'ok', text: `HTTP ${status}` };
}
