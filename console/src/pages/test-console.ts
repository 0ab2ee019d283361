import { html, nothing } from 'lit';
import { api, ApiError, messageOf, state, type User } from '../api';
import { readFrames } from '../sse';
import { describeAnswer, describeStream, idsOf, METHODS, assembleText, type Method } from '../requests';
import { LightElement, statusLine, type Status } from '../ui';
import type { Deployment, DeploymentAgent } from './deployment';

interface Frame {
  n: number;
  at: number;
  data: string;
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
  /** Agents whose card does not claim streaming: the gateway refuses their A2A streams with -32004. */
  private noStream = new Set<string>();
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
      await Promise.all([this.readCard(this.agentId), this.refreshCredits()]);
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

  /** Reads the agent's public card: an agent that does not stream gets `message/send` instead of a stream. */
  private async readCard(agentId: string): Promise<void> {
    if (!this.agents.find((a) => a.agentId === agentId)?.a2a) return;
    try {
      const res = await fetch(`/agents/${encodeURIComponent(agentId)}/.well-known/agent-card.json`);
      if (!res.ok) return; // an error answer is not a card: leave the method as chosen
      const card = (await res.json()) as { capabilities?: { streaming?: unknown } };
      if (card.capabilities?.streaming === true) this.noStream.delete(agentId);
      else this.noStream.add(agentId);
    } catch {
      return; // no card to read: leave the method as chosen, the answer will say what is wrong
    }
    if (agentId === this.agentId && this.method.scope === 'a2a' && this.method.stream && this.noStream.has(agentId)) {
      this.methodId = 'message/send';
      this.reset();
    }
    this.requestUpdate();
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
        this.status = describeStream(
          this.frames.map((f) => f.data),
          Math.round(performance.now() - started),
        );
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
          <select
            id="tc-agent"
            @change=${(e: Event) => {
              this.agentId = (e.target as HTMLSelectElement).value;
              void this.readCard(this.agentId);
            }}
          >
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
            ${METHODS.map(
              (x) =>
                html`<option
                  value=${x.id}
                  ?selected=${x.id === this.methodId}
                  ?disabled=${x.scope === 'a2a' && x.stream && this.noStream.has(this.agentId)}
                >
                  ${x.label}${
                    x.scope === 'a2a' && x.stream && this.noStream.has(this.agentId)
                      ? ' (the agent does not stream)'
                      : ''
                  }
                </option>`,
            )}
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
