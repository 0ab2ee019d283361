import { html, nothing } from 'lit';
import { live } from 'lit/directives/live.js';
import { api, messageOf, type User } from '../api';
import { deniedReason } from '../roles';
import { copyButton, LightElement, statusLine, str, type Status } from '../ui';

export interface DeploymentAgent {
  agentId: string;
  name: string;
  type: string;
  status: string;
  servedVersion: string | null;
  settings: {
    versionStrategy: string;
    pinnedVersion: string | null;
    rateLimitPerMinute: number;
    schedule: string | null;
    a2aEnabled: boolean;
    defaultA2aVersion: string;
    /** The A2A versions the agent serves (all of them unless changed). */
    a2aVersions: string[];
    blockingBudgetSeconds: number;
    pushNotificationsEnabled: boolean;
  };
  a2a: {
    protocolVersion: string;
    endpointUrl: string;
    cardUrls: Record<string, string>;
    /** Every interface the card declares (A2A 1.0 on three bindings, 0.3 JSON-RPC). */
    interfaces: { url: string; protocolBinding: string; protocolVersion: string; tenant?: string }[];
  } | null;
}

/** The versions an agent can serve (setting `a2aVersions`). */
const A2A_VERSIONS = ['1.0', '0.3.0', '0.2.6'];
export interface Deployment {
  id: string;
  name: string;
  agents?: DeploymentAgent[];
  a2aEnabledCount?: number;
  catalogUrl?: string;
}
interface AgentDef {
  id: string;
  versions: { version: string; status: string }[];
}
interface Discovery {
  catalogUrl: string;
  a2aEnabledCount: number;
}
interface DiscoveryResult {
  ok: boolean;
  lines: string[];
  cards: { name: string; url: string; card?: Record<string, unknown>; error?: string }[];
}

/** Test Discovery as any client would: the public catalog, then each entry's card, no credentials. */
export async function discoverFromBrowser(catalogUrl: string): Promise<DiscoveryResult> {
  const started = performance.now();
  const res = await fetch(catalogUrl, { credentials: 'omit', redirect: 'manual', cache: 'no-store' });
  const ms = Math.round(performance.now() - started);
  // A client would not follow it either (the catalog URL is the one to publish): say so, not "HTTP 0".
  if (res.type === 'opaqueredirect')
    return { ok: false, lines: [`The catalog URL redirects (${ms} ms): serve the catalog at this URL`], cards: [] };
  if (!res.ok) return { ok: false, lines: [`The catalog answered HTTP ${res.status} in ${ms} ms`], cards: [] };
  let catalog: { entries?: { displayName?: string; url?: string }[] };
  try {
    catalog = (await res.json()) as typeof catalog;
  } catch {
    const type = res.headers.get('content-type') ?? 'no content type';
    return {
      ok: false,
      lines: [`The catalog answered HTTP ${res.status} in ${ms} ms, but not with JSON (${type})`],
      cards: [],
    };
  }
  if (typeof catalog !== 'object' || catalog === null || !Array.isArray(catalog.entries))
    return {
      ok: false,
      lines: [`The catalog answered HTTP ${res.status} in ${ms} ms without an entries list`],
      cards: [],
    };
  const entries = catalog.entries;
  const cards = await Promise.all(
    entries.map(async (e) => {
      const url = String(e.url ?? '');
      try {
        const r = await fetch(url, { credentials: 'omit', cache: 'no-store' });
        if (!r.ok) return { name: String(e.displayName ?? url), url, error: `HTTP ${r.status}` };
        return { name: String(e.displayName ?? url), url, card: (await r.json()) as Record<string, unknown> };
      } catch (err) {
        return { name: String(e.displayName ?? url), url, error: messageOf(err) };
      }
    }),
  );
  return {
    ok: cards.every((c) => !c.error),
    lines: [`The catalog answered HTTP ${res.status} in ${ms} ms with ${entries.length} agent(s)`],
    cards,
  };
}

export class DeploymentPage extends LightElement {
  static override properties = {
    user: { attribute: false },
    deployments: { state: true },
    current: { state: true },
    defs: { state: true },
    banner: { state: true },
    discovery: { state: true },
    saved: { state: true },
    status: { state: true },
  };
  user!: User;
  deployments: Deployment[] = [];
  current: Deployment | undefined = undefined;
  defs: Map<string, AgentDef> = new Map();
  banner: Discovery | undefined = undefined;
  discovery: DiscoveryResult | { error: string } | undefined = undefined;
  saved: Map<string, Status> = new Map();
  status: Status = { kind: 'busy', text: 'Loading the deployment…' };

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(id?: string): Promise<void> {
    try {
      const list = await api<{ deployments: Deployment[] }>('GET', '/api/v1/deployments');
      this.deployments = list.deployments;
      const pick = id ?? this.current?.id ?? list.deployments[0]?.id;
      if (!pick) {
        this.status = { kind: 'ok', text: 'No deployment yet: create one with POST /api/v1/deployments.' };
        return;
      }
      const [d, agents, banner] = await Promise.all([
        api<Deployment>('GET', `/api/v1/deployments/${encodeURIComponent(pick)}`),
        api<{ agents: AgentDef[] }>('GET', '/api/v1/agents'),
        api<Discovery>('GET', `/api/v1/deployments/${encodeURIComponent(pick)}/discovery`),
      ]);
      this.current = d;
      this.defs = new Map(agents.agents.map((a) => [a.id, a]));
      this.banner = banner;
      this.status = undefined;
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private async patch(a: DeploymentAgent, settings: Record<string, unknown>): Promise<void> {
    const d = this.current;
    if (!d) return;
    // Shown as asked while it saves (a switch must not flip back under the pointer); reverted if refused.
    const replace = (agent: DeploymentAgent): void => {
      const cur = this.current;
      if (cur)
        this.current = { ...cur, agents: (cur.agents ?? []).map((x) => (x.agentId === agent.agentId ? agent : x)) };
    };
    replace({ ...a, settings: { ...a.settings, ...settings } });
    this.saved = new Map(this.saved).set(a.agentId, { kind: 'busy', text: 'Saving…' });
    try {
      const updated = await api<DeploymentAgent>(
        'PATCH',
        `/api/v1/deployments/${encodeURIComponent(d.id)}/agents/${encodeURIComponent(a.agentId)}/settings`,
        settings,
      );
      replace(updated);
      this.banner = await api<Discovery>('GET', `/api/v1/deployments/${encodeURIComponent(d.id)}/discovery`);
      this.saved = new Map(this.saved).set(a.agentId, {
        kind: 'ok',
        text: `Saved: ${Object.keys(settings).join(', ')}`,
      });
    } catch (err) {
      this.saved = new Map(this.saved).set(a.agentId, { kind: 'error', text: `Not saved: ${messageOf(err)}` });
      // Show what is really served again (a refused toggle flips back).
      replace(a);
    }
  }

  private async testDiscovery(): Promise<void> {
    if (!this.banner) return;
    this.discovery = undefined;
    try {
      this.discovery = await discoverFromBrowser(this.banner.catalogUrl);
    } catch (err) {
      this.discovery = { error: `The catalog could not be fetched: ${messageOf(err)}` };
    }
  }

  override render() {
    const d = this.current;
    return html`
      <h1 tabindex="-1">Deployment${d ? html`: ${d.name}` : nothing}</h1>
      ${
        this.deployments.length > 1
          ? html`<label for="dep">Deployment</label>
              <select id="dep" @change=${(e: Event) => this.load((e.target as HTMLSelectElement).value)}>
                ${this.deployments.map((x) => html`<option value=${x.id} ?selected=${x.id === d?.id}>${x.name}</option>`)}
              </select>`
          : nothing
      }
      ${statusLine(this.status)} ${this.banner ? this.renderBanner(this.banner) : nothing}
      ${
        d
          ? html`<section aria-labelledby="agents-h">
              <h2 id="agents-h">Agents</h2>
              <div class="agents">${(d.agents ?? []).map((a) => this.renderAgent(a))}</div>
            </section>`
          : nothing
      }
    `;
  }

  private renderBanner(b: Discovery) {
    const r = this.discovery;
    return html`<section class="banner" aria-labelledby="disc-h">
      <h2 id="disc-h">A2A Discovery</h2>
      <p>
        <strong class="count">${b.a2aEnabledCount}</strong> agent(s) with A2A enabled. Public agent catalog:
        <code class="url">${b.catalogUrl}</code> ${copyButton(b.catalogUrl, 'catalog URL')}
      </p>
      <button type="button" class="primary" @click=${() => this.testDiscovery()}>Test Discovery</button>
      <div class="discovery" role="region" aria-live="polite" aria-label="Test Discovery result">
        ${
          r === undefined
            ? nothing
            : 'error' in r
              ? html`<p class="status error">${r.error}</p>`
              : html`<p class=${`status ${r.ok ? 'ok' : 'error'}`}>${r.lines.join('. ')}</p>
                  <ul class="cards">
                    ${r.cards.map(
                      (c) =>
                        html`<li>
                          <strong>${c.name}</strong> <code class="url">${c.url}</code>
                          ${
                            c.error
                              ? html`<span class="status error">${c.error}</span>`
                              : html`<span class="ok"
                                    >card ${str(c.card?.protocolVersion)},
                                    ${Array.isArray(c.card?.skills) ? c.card.skills.length : 0} skill(s), streaming
                                    ${str((c.card?.capabilities as Record<string, unknown> | undefined)?.streaming, 'false')}</span
                                  >
                                  <details>
                                    <summary>Card JSON</summary>
                                    <pre tabindex="0">${JSON.stringify(c.card, null, 2)}</pre>
                                  </details>`
                          }
                        </li>`,
                    )}
                  </ul>`
        }
      </div>
    </section>`;
  }

  private renderAgent(a: DeploymentAgent) {
    const s = a.settings;
    const id = a.agentId.replace(/[^\w-]/g, '_');
    const a2aWhy = deniedReason(this.user.role, 'toggleA2a', { agentType: a.type });
    const pushWhy = deniedReason(this.user.role, 'togglePush');
    const versions = this.defs.get(a.agentId)?.versions ?? [];
    const num = (e: Event): number => Number((e.target as HTMLInputElement).value);
    return html`<article class="agent" data-agent=${a.agentId} aria-labelledby=${`${id}-h`}>
      <h3 id=${`${id}-h`}>${a.name} <span class="tag">${a.type}</span> <span class="tag">${a.status}</span></h3>
      <p>Serving version <strong>${a.servedVersion ?? '—'}</strong></p>
      <div class="grid">
        <label for=${`${id}-strategy`}>Version behaviour</label>
        <select
          id=${`${id}-strategy`}
          @change=${(e: Event) => {
            const v = (e.target as HTMLSelectElement).value;
            const pin = s.pinnedVersion ?? a.servedVersion;
            void this.patch(
              a,
              v === 'pinned' ? { versionStrategy: 'pinned', pinnedVersion: pin } : { versionStrategy: v },
            );
          }}
        >
          <option value="latest-production" ?selected=${s.versionStrategy !== 'pinned'}>Latest production</option>
          <option value="pinned" ?selected=${s.versionStrategy === 'pinned'}>Pinned</option>
        </select>
        <label for=${`${id}-pin`}>Pinned version</label>
        <select
          id=${`${id}-pin`}
          ?disabled=${s.versionStrategy !== 'pinned'}
          aria-describedby=${`${id}-pin-why`}
          @change=${(e: Event) => void this.patch(a, { pinnedVersion: (e.target as HTMLSelectElement).value })}
        >
          ${versions.map(
            (v) =>
              html`<option value=${v.version} ?selected=${v.version === s.pinnedVersion}>
                ${v.version} (${v.status})
              </option>`,
          )}
        </select>
        <span class="why" id=${`${id}-pin-why`}
          >${s.versionStrategy !== 'pinned' ? 'Choose Pinned to pick a version' : ''}</span
        >
        <label for=${`${id}-rate`}>Rate limit (requests per minute)</label>
        <input
          id=${`${id}-rate`}
          type="number"
          min="1"
          .value=${live(String(s.rateLimitPerMinute))}
          @change=${(e: Event) => void this.patch(a, { rateLimitPerMinute: num(e) })}
        />
        <label for=${`${id}-sched`}>Schedule</label>
        <input
          id=${`${id}-sched`}
          type="text"
          placeholder="none"
          .value=${s.schedule ?? ''}
          @change=${(e: Event) => {
            const v = (e.target as HTMLInputElement).value.trim();
            void this.patch(a, { schedule: v === '' ? null : v });
          }}
        />
        <label for=${`${id}-budget`}>Blocking budget (seconds)</label>
        <input
          id=${`${id}-budget`}
          type="number"
          min="1"
          .value=${live(String(s.blockingBudgetSeconds))}
          @change=${(e: Event) => void this.patch(a, { blockingBudgetSeconds: num(e) })}
        />
      </div>
      <div class="toggles">
        <label class="switch"
          ><input
            type="checkbox"
            role="switch"
            class="a2a-toggle"
            .checked=${live(s.a2aEnabled)}
            ?disabled=${a2aWhy !== undefined}
            aria-describedby=${a2aWhy ? `${id}-a2a-why` : nothing}
            @change=${(e: Event) => void this.patch(a, { a2aEnabled: (e.target as HTMLInputElement).checked })}
          />
          A2A Protocol</label
        >${a2aWhy ? html`<span class="why" id=${`${id}-a2a-why`}>${a2aWhy}</span>` : nothing}
        <label class="switch"
          ><input
            type="checkbox"
            role="switch"
            class="push-toggle"
            .checked=${live(s.pushNotificationsEnabled)}
            ?disabled=${pushWhy !== undefined}
            aria-describedby=${pushWhy ? `${id}-push-why` : nothing}
            @change=${(e: Event) =>
              void this.patch(a, { pushNotificationsEnabled: (e.target as HTMLInputElement).checked })}
          />
          Push notifications</label
        >${pushWhy ? html`<span class="why" id=${`${id}-push-why`}>${pushWhy}</span>` : nothing}
      </div>
      ${
        s.a2aEnabled
          ? html`<fieldset class="a2a-versions">
              <legend>A2A versions served</legend>
              ${A2A_VERSIONS.map(
                (v) =>
                  html`<label
                    ><input
                      type="checkbox"
                      .checked=${live(s.a2aVersions.includes(v))}
                      @change=${(e: Event) => {
                        const on = (e.target as HTMLInputElement).checked;
                        const next = A2A_VERSIONS.filter((x) => (x === v ? on : s.a2aVersions.includes(x)));
                        void this.patch(a, { a2aVersions: next });
                      }}
                    />
                    ${v}</label
                  >`,
              )}
            </fieldset>`
          : nothing
      }
      ${
        a.a2a
          ? html`<dl class="a2a">
              <dt>Protocol version</dt>
              <dd>${a.a2a.protocolVersion}</dd>
              <dt>Endpoint URL</dt>
              <dd>
                <code class="url endpoint">${a.a2a.endpointUrl}</code>
                ${copyButton(a.a2a.endpointUrl, `${a.name} endpoint URL`)}
              </dd>
              ${Object.entries(a.a2a.cardUrls).map(
                ([v, url]) =>
                  html`<dt>Card URL (A2A ${v})</dt>
                    <dd><code class="url">${url}</code> ${copyButton(url, `${a.name} card URL ${v}`)}</dd>`,
              )}
              ${a.a2a.interfaces.map(
                (i) =>
                  html`<dt>A2A ${i.protocolVersion} ${i.protocolBinding}${i.tenant ? ` (tenant ${i.tenant})` : ''}</dt>
                    <dd>
                      <code class="url interface">${i.url}</code>
                      ${copyButton(i.url, `${a.name} A2A ${i.protocolVersion} ${i.protocolBinding} URL`)}
                    </dd>`,
              )}
            </dl>`
          : html`<p class="muted">A2A is off for this agent.</p>`
      }
      ${statusLine(this.saved.get(a.agentId))}
    </article>`;
  }
}
customElements.define('deployment-page', DeploymentPage);
