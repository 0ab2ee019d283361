import { html, nothing } from 'lit';
import { api, ApiError, messageOf, state, type User } from '../api';
import { readFrames } from '../sse';
import { LightElement, statusLine, str, type Status } from '../ui';
import type { Deployment, DeploymentAgent } from './deployment';

/** Each method the console can send: which key scope it needs, how it is sent, and a request to start from. */
interface Method {
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

export const METHODS: readonly Method[] = [
  {
    id: 'message/send',
    label: 'message/send',
    scope: 'a2a',
    stream: false,
    http: a2aPath,
    template: rpc('message/send', () => ({ message: message('hello') })),
  },
  {
    id: 'message/stream',
    label: 'message/stream',
    scope: 'a2a',
    stream: true,
    http: a2aPath,
    template: rpc('message/stream', () => ({ message: message('stream me a story') })),
  },
  {
    id: 'tasks/get',
    label: 'tasks/get',
    scope: 'a2a',
    stream: false,
    http: a2aPath,
    template: rpc('tasks/get', (c) => ({ id: c.taskId })),
  },
  {
    id: 'tasks/cancel',
    label: 'tasks/cancel',
    scope: 'a2a',
    stream: false,
    http: a2aPath,
    template: rpc('tasks/cancel', (c) => ({ id: c.taskId })),
  },
  {
    id: 'tasks/resubscribe',
    label: 'tasks/resubscribe',
    scope: 'a2a',
    stream: true,
    http: a2aPath,
    template: rpc('tasks/resubscribe', (c) => ({ id: c.taskId })),
  },
  {
    id: 'run',
    label: 'invoke: POST run (wait)',
    scope: 'invoke',
    stream: false,
    http: (a) => ({ method: 'POST', path: `/agents/${encodeURIComponent(a)}/run`, send: true }),
    template: () => ({ input: 'hello' }),
  },
  {
    id: 'run/stream',
    label: 'invoke: POST run/stream',
    scope: 'invoke',
    stream: true,
    http: (a) => ({ method: 'POST', path: `/agents/${encodeURIComponent(a)}/run/stream`, send: true }),
    template: () => ({ input: 'stream me a story' }),
  },
  {
    id: 'runs',
    label: 'invoke: POST runs (background)',
    scope: 'invoke',
    stream: false,
    http: (a) => ({ method: 'POST', path: `/agents/${encodeURIComponent(a)}/runs`, send: true }),
    template: () => ({ input: 'hello' }),
  },
  {
    id: 'runs/get',
    label: 'invoke: GET runs/{run_id}',
    scope: 'invoke',
    stream: false,
    http: (a, b) => ({
      method: 'GET',
      path: `/agents/${encodeURIComponent(a)}/runs/${text(b, 'run_id')}`,
      send: false,
    }),
    template: (c) => ({ run_id: c.taskId }),
  },
  {
    id: 'conversations',
    label: 'invoke: GET conversations/{context_id}',
    scope: 'invoke',
    stream: false,
    http: (a, b) => ({
      method: 'GET',
      path: `/agents/${encodeURIComponent(a)}/conversations/${text(b, 'context_id')}`,
      send: false,
    }),
    template: (c) => ({ context_id: c.contextId }),
  },
];

interface Frame {
  n: number;
  at: number;
  data: string;
}

/** Reads the task and context ids out of any answer or frame, for the next request's template. */
function idsOf(value: unknown, into: { taskId: string; contextId: string }): void {
  if (typeof value !== 'object' || value === null) return;
  const o = value as Record<string, unknown>;
  const r = (o.result ?? o) as Record<string, unknown>;
  const task = r.kind === 'task' ? r.id : (r.taskId ?? r.run_id ?? r.task_id);
  const ctx = r.contextId ?? r.context_id;
  if (typeof task === 'string') into.taskId = task;
  if (typeof ctx === 'string') into.contextId = ctx;
}

/**
 * The text answer assembled from the stream (rule 5): `append: true` artifact frames are deltas concatenated by
 * artifact id; a frame without append replaces its artifact. Works for A2A frames and the invoke stream's.
 */
export function assembleText(frames: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of frames) {
    let data: unknown;
    try {
      data = JSON.parse(f);
    } catch {
      continue;
    }
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

export class TestConsolePage extends LightElement {
  static override properties = {
    user: { attribute: false },
    agents: { state: true },
    agentId: { state: true },
    methodId: { state: true },
    keyName: { state: true },
    request: { state: true },
    frames: { state: true },
    answer: { state: true },
    credits: { state: true },
    status: { state: true },
    busy: { state: true },
  };
  user!: User;
  agents: DeploymentAgent[] = [];
  agentId = '';
  methodId = 'message/stream';
  keyName = '';
  request = '';
  frames: Frame[] = [];
  answer = '';
  credits: number | undefined = undefined;
  status: Status = undefined;
  busy = false;
  private ids = { taskId: '', contextId: '' };
  private abort: AbortController | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  override disconnectedCallback(): void {
    this.abort?.abort();
    super.disconnectedCallback();
  }

  private get method(): Method {
    return METHODS.find((m) => m.id === this.methodId) ?? METHODS[0]!;
  }

  private async load(): Promise<void> {
    try {
      const list = await api<{ deployments: Deployment[] }>('GET', '/api/v1/deployments');
      const agents: DeploymentAgent[] = [];
      const defaults: string[] = [];
      for (const d of list.deployments) {
        const full = await api<Deployment & { defaultAgentId: string | null }>(
          'GET',
          `/api/v1/deployments/${encodeURIComponent(d.id)}`,
        );
        agents.push(...(full.agents ?? []));
        if (full.defaultAgentId) defaults.push(full.defaultAgentId);
      }
      this.agents = agents;
      // The deployment's default agent first (what /.well-known/agent-card.json serves), else any A2A agent.
      this.agentId =
        agents.find((a) => a.a2a && defaults.includes(a.agentId))?.agentId ??
        agents.find((a) => a.a2a)?.agentId ??
        agents[0]?.agentId ??
        '';
      this.keyName = [...state.keys.keys()].find((k) => state.keys.get(k)?.scope === this.method.scope) ?? '';
      this.reset();
      await this.refreshCredits();
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private async refreshCredits(): Promise<void> {
    try {
      this.credits = (await api<{ credits: number }>('GET', '/api/v1/credits')).credits;
    } catch {
      this.credits = undefined;
    }
  }

  private reset(): void {
    this.request = JSON.stringify(this.method.template(this.ids), null, 2);
  }

  private keyValue(): string | undefined {
    const pasted = (this.querySelector<HTMLInputElement>('#tc-key-value')?.value ?? '').trim();
    if (pasted) return pasted;
    return state.keys.get(this.keyName)?.value;
  }

  private async send(e: Event): Promise<void> {
    e.preventDefault();
    const m = this.method;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(this.request) as Record<string, unknown>;
    } catch (err) {
      this.status = { kind: 'error', text: `The request is not valid JSON: ${messageOf(err)}` };
      return;
    }
    const key = this.keyValue();
    if (!key) {
      this.status = {
        kind: 'error',
        text: `Choose or paste a key with the "${m.scope}" scope (API keys page: create one)`,
      };
      return;
    }
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    this.frames = [];
    this.answer = '';
    this.busy = true;
    this.status = { kind: 'busy', text: 'Sending…' };
    const target = m.http(this.agentId, body);
    const started = performance.now();
    try {
      const res = await fetch(target.path, {
        method: target.method,
        // The key goes in the header only; no cookie: the endpoint authenticates the key like any client.
        credentials: 'omit',
        headers: {
          Authorization: `Bearer ${key}`,
          Accept: m.stream ? 'text/event-stream' : 'application/json',
          ...(target.send ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(target.send ? { body: JSON.stringify(body) } : {}),
        signal: abort.signal,
      });
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream') && res.body) {
        this.status = { kind: 'busy', text: `HTTP ${res.status}: streaming…` };
        let n = 0;
        await readFrames(
          res.body,
          (f) => {
            n += 1;
            this.frames = [...this.frames, { n, at: Math.round(performance.now() - started), data: f.data }];
            try {
              idsOf(JSON.parse(f.data), this.ids);
            } catch {
              // a non-JSON frame is shown as is
            }
          },
          abort.signal,
        );
        this.status = {
          kind: 'ok',
          text: `Stream ended after ${n} frame(s), ${Math.round(performance.now() - started)} ms`,
        };
      } else {
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // shown as text
        }
        idsOf(parsed, this.ids);
        this.answer = typeof parsed === 'string' ? parsed : JSON.stringify(parsed, null, 2);
        const d = describeAnswer(res.status, parsed);
        const retry = res.headers.get('retry-after');
        this.status = {
          kind: d.kind,
          text: `${d.text}${retry ? ` (Retry-After: ${retry} s)` : ''} · ${Math.round(performance.now() - started)} ms`,
        };
      }
    } catch (err) {
      if (!abort.signal.aborted) this.status = { kind: 'error', text: messageOf(err instanceof ApiError ? err : err) };
      else this.status = { kind: 'ok', text: 'Stopped' };
    } finally {
      this.busy = false;
      await this.refreshCredits();
    }
  }

  override render() {
    const m = this.method;
    const keys = [...state.keys.entries()].filter(([, k]) => k.scope === m.scope);
    return html`
      <h1 tabindex="-1">Test console</h1>
      <p class="hint">
        Real requests to the live deployment: they authenticate with an API key like any client and count against the
        agent's rate limit and the subscription's credits.
      </p>
      <p class="credits" aria-live="polite">
        Credits left: <strong class="credits-left">${this.credits ?? '—'}</strong>
      </p>
      <form class="tc" @submit=${(e: Event) => this.send(e)}>
        <div class="grid">
          <label for="tc-agent">Agent</label>
          <select id="tc-agent" @change=${(e: Event) => (this.agentId = (e.target as HTMLSelectElement).value)}>
            ${this.agents.map(
              (a) =>
                html`<option value=${a.agentId} ?selected=${a.agentId === this.agentId}>
                  ${a.name} (${a.type}${a.a2a ? ', A2A on' : ''})
                </option>`,
            )}
          </select>
          <label for="tc-method">Method</label>
          <select
            id="tc-method"
            @change=${(e: Event) => {
              this.methodId = (e.target as HTMLSelectElement).value;
              this.keyName = [...state.keys.keys()].find((k) => state.keys.get(k)?.scope === this.method.scope) ?? '';
              this.reset();
            }}
          >
            ${METHODS.map((x) => html`<option value=${x.id} ?selected=${x.id === this.methodId}>${x.label}</option>`)}
          </select>
          <label for="tc-key">Key (scope ${m.scope})</label>
          <select id="tc-key" @change=${(e: Event) => (this.keyName = (e.target as HTMLSelectElement).value)}>
            <option value="" ?selected=${this.keyName === ''}>— paste a key below —</option>
            ${keys.map(([name]) => html`<option value=${name} ?selected=${name === this.keyName}>${name}</option>`)}
          </select>
          <label for="tc-key-value">Or paste a key value</label>
          <input
            id="tc-key-value"
            type="password"
            autocomplete="off"
            spellcheck="false"
            placeholder=${`a key with scope ${m.scope}`}
          />
        </div>
        <label for="tc-body">Request (JSON)</label>
        <textarea
          id="tc-body"
          rows="12"
          spellcheck="false"
          .value=${this.request}
          @input=${(e: Event) => (this.request = (e.target as HTMLTextAreaElement).value)}
        ></textarea>
        <div class="row">
          <button type="submit" class="primary" ?disabled=${this.busy}>Send</button>
          <button type="button" @click=${() => this.reset()}>New request</button>
          ${this.busy ? html`<button type="button" @click=${() => this.abort?.abort()}>Stop</button>` : nothing}
        </div>
      </form>
      ${statusLine(this.status)}
      ${
        this.frames.length > 0
          ? html`<section aria-labelledby="text-h">
              <h2 id="text-h">Answer text</h2>
              ${[...assembleText(this.frames.map((f) => f.data)).values()].map((t) => html`<p class="answer-text">${t}</p>`)}
            </section>`
          : nothing
      }
      ${
        m.stream || this.frames.length > 0
          ? html`<section aria-labelledby="frames-h">
              <h2 id="frames-h">Stream frames</h2>
              <ol class="frames" aria-live="polite" tabindex="0" aria-label="Stream frames, oldest first">
                ${this.frames.map((f) => html`<li><span class="at">+${f.at} ms</span><code>${f.data}</code></li>`)}
              </ol>
            </section>`
          : nothing
      }
      ${
        this.answer
          ? html`<section aria-labelledby="answer-h">
              <h2 id="answer-h">Answer</h2>
              <pre class="answer" tabindex="0">${this.answer}</pre>
            </section>`
          : nothing
      }
    `;
  }
}
customElements.define('test-console-page', TestConsolePage);
