import { html, nothing } from 'lit';
import { api, apiBytes, apiText, messageOf, type User } from '../api';
import { deniedReason } from '../roles';
import { LightElement, statusLine, type Status } from '../ui';
import type { ServiceMap } from '../map-layout';
import { serviceMapView } from '../service-map';

interface Source {
  id: string;
  name: string;
  location?: { kind?: { $case?: string } };
  lastVersion: number;
  revision: string;
}
interface Application {
  id: string;
  name: string;
  sources: Source[];
  latestVersion: number;
}
interface Stage {
  name: string;
  status: string;
  durationMs: number | string;
  detail: string;
}
interface Version {
  number: number;
  sourceName: string;
  status: string;
  stages: Stage[];
  linked: boolean;
  notLinkedReason: string;
  error: string;
}
interface Evidence {
  source: string;
  file: string;
  line: number;
}
export interface LinkReport {
  application: string;
  sources: string[];
  linked: boolean;
  notLinkedReason?: string;
  statistics: Record<string, number>;
  table: { caller: string; calls: string; servedBy: string; match: string }[];
  emptyState?: string;
  queueBindings: { broker: string; exchange: string; queue: string; key: string; at: Evidence }[];
  unresolvedCalls: { caller: Evidence; calls: string; reason: string; detail: string; candidates: Evidence[] }[];
  messagingGaps: { side: string; at: Evidence; what: string; reason: string }[];
  sharedData: { store: string; touchedBy: Evidence[] }[];
  notes: string[];
  /** Absent from reports stored before the service map existed. */
  map?: ServiceMap;
}

export const STATISTICS: readonly [string, string][] = [
  ['apiLinks', 'API links'],
  ['messageFlows', 'Message flows'],
  ['queueBindings', 'Queue bindings'],
  ['unresolvedCalls', 'Unresolved calls'],
  ['messagingGaps', 'Messaging gaps'],
  ['sharedData', 'Shared data'],
];

const ev = (e: Evidence | undefined): string => (e ? `${e.source} ${e.file}:${e.line}` : '');

/** The report table's rows that contain every word of the filter, in the chosen match kind. */
export function filterRows(rows: LinkReport['table'], text: string, match: string): LinkReport['table'] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((r) => {
    if (match && r.match !== match) return false;
    const hay = `${r.caller} ${r.calls} ${r.servedBy} ${r.match}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** Starts a download of text the page already has (no navigation: the CSP allows no blob: pages). */
function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export class ApplicationsPage extends LightElement {
  static override properties = {
    user: { attribute: false },
    apps: { state: true },
    current: { state: true },
    versions: { state: true },
    report: { state: true },
    filter: { state: true },
    match: { state: true },
    status: { state: true },
  };
  user!: User;
  apps: Application[] = [];
  current: Application | undefined = undefined;
  versions: Version[] = [];
  report: LinkReport | undefined = undefined;
  filter = '';
  match = '';
  status: Status = undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    if (!deniedReason(this.user.role, 'useApplications')) void this.load();
  }

  private async load(select?: string): Promise<void> {
    try {
      this.apps = (await api<{ applications: Application[] }>('GET', '/api/applications')).applications ?? [];
      const id = select ?? this.current?.id;
      if (id) await this.open(id);
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private async open(id: string): Promise<void> {
    const enc = encodeURIComponent(id);
    this.current = await api<Application>('GET', `/api/applications/${enc}`);
    this.versions = (await api<{ versions: Version[] }>('GET', `/api/applications/${enc}/versions`)).versions ?? [];
    this.report = undefined;
    if (this.current.latestVersion > 0) {
      const r = await api<{ report: LinkReport }>('GET', `/api/applications/${enc}/report?format=json`);
      this.report = r.report;
    }
  }

  private async act(what: string, f: () => Promise<unknown>): Promise<void> {
    this.status = { kind: 'busy', text: `${what}…` };
    try {
      await f();
      this.status = { kind: 'ok', text: `${what}: done` };
    } catch (err) {
      this.status = { kind: 'error', text: `${what}: ${messageOf(err)}` };
    }
  }

  private createApp(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem('name') as HTMLInputElement;
    return this.act('Create application', async () => {
      const a = await api<Application>('POST', '/api/applications', { name: input.value.trim() });
      input.value = '';
      await this.load(a.id);
    });
  }

  private addSource(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const app = this.current;
    if (!app) return Promise.resolve();
    const f = e.currentTarget as HTMLFormElement;
    const name = (f.elements.namedItem('name') as HTMLInputElement).value.trim();
    const where = (f.elements.namedItem('where') as HTMLInputElement).value.trim();
    const file = (f.elements.namedItem('archive') as HTMLInputElement).files?.[0];
    if (!where && !file) {
      this.status = { kind: 'error', text: 'Give a git URL, a server directory or an archive' };
      return Promise.resolve();
    }
    const body = file
      ? { name, archive: { filename: file.name } }
      : /^(https?:|git@|ssh:)/.test(where)
        ? { name, git: { url: where } }
        : { name, dir: where };
    return this.act(`Add source ${name}`, async () => {
      const s = await api<Source>('POST', `/api/applications/${encodeURIComponent(app.id)}/sources`, body);
      f.reset();
      // An archive is ingested with its bytes, now (the server keeps no copy to re-read later).
      if (file) await this.sendArchive(app, s, file);
      await this.load(app.id);
    });
  }

  private async sendArchive(app: Application, s: Source, file: File): Promise<void> {
    const q = `source=${encodeURIComponent(s.id)}&filename=${encodeURIComponent(file.name)}`;
    const type = /\.zip$/i.test(file.name) ? 'application/zip' : 'application/gzip';
    await apiBytes(`/api/applications/${encodeURIComponent(app.id)}/ingest?${q}`, file, type);
  }

  private ingest(s: Source): Promise<void> {
    const app = this.current;
    if (!app) return Promise.resolve();
    const file = this.querySelector<HTMLInputElement>(`input[data-archive-for="${s.id}"]`)?.files?.[0];
    if (s.location?.kind?.$case === 'archive' && !file) {
      this.status = { kind: 'error', text: `Ingest ${s.name}: choose the archive to ingest first` };
      return Promise.resolve();
    }
    return this.act(`Ingest ${s.name}`, async () => {
      if (file) await this.sendArchive(app, s, file);
      else await api('POST', `/api/applications/${encodeURIComponent(app.id)}/ingest`, { source: s.id });
      await this.load(app.id);
    });
  }

  private async downloadReport(format: 'json' | 'markdown'): Promise<void> {
    const app = this.current;
    if (!app) return;
    await this.act(`Download ${format === 'json' ? 'JSON' : 'Markdown'}`, async () => {
      const text = await apiText(`/api/applications/${encodeURIComponent(app.id)}/report?format=${format}`);
      download(
        `${app.name}-link-report.${format === 'json' ? 'json' : 'md'}`,
        format === 'json' ? 'application/json' : 'text/markdown',
        text,
      );
    });
  }

  override render() {
    const why = deniedReason(this.user.role, 'useApplications');
    if (why)
      return html`<h1 tabindex="-1">Applications</h1>
        <p class="why">${why}.</p>`;
    const app = this.current;
    return html`
      <h1 tabindex="-1">Applications</h1>
      <div class="split">
        <section aria-labelledby="apps-h">
          <h2 id="apps-h">Applications</h2>
          ${this.apps.length === 0 ? html`<p class="muted">No application yet.</p>` : nothing}
          <ul class="apps">
            ${this.apps.map(
              (a) =>
                html`<li>
                  <button
                    type="button"
                    class="link"
                    aria-current=${a.id === app?.id ? 'true' : nothing}
                    @click=${() => this.act(`Open ${a.name}`, () => this.open(a.id))}
                  >
                    ${a.name}
                  </button>
                </li>`,
            )}
          </ul>
          <form @submit=${(e: SubmitEvent) => this.createApp(e)}>
            <label for="app-name">New application</label>
            <input id="app-name" name="name" required maxlength="200" />
            <button type="submit">Create</button>
          </form>
        </section>
        ${app ? this.renderApp(app) : nothing}
      </div>
      ${statusLine(this.status)}
    `;
  }

  private renderApp(app: Application) {
    const latest = this.versions[0];
    return html`<section aria-labelledby="app-h" class="app">
      <h2 id="app-h">${app.name}</h2>
      <h3>Sources</h3>
      ${app.sources.length === 0 ? html`<p class="muted">No source yet: add at least two to link them.</p>` : nothing}
      <ul class="sources">
        ${app.sources.map(
          (s) =>
            html`<li>
              <strong>${s.name}</strong>
              ${s.lastVersion ? html`<span class="muted">version ${s.lastVersion} ${s.revision}</span>` : html`<span class="muted">not ingested</span>`}
              ${
                s.location?.kind?.$case === 'archive'
                  ? html`<input
                      type="file"
                      accept=".tar.gz,.tgz,.zip"
                      data-archive-for=${s.id}
                      aria-label=${`Archive for ${s.name}`}
                    />`
                  : nothing
              }
              <button type="button" @click=${() => this.ingest(s)}>Ingest ${s.name}</button>
            </li>`,
        )}
      </ul>
      <form class="grid" @submit=${(e: SubmitEvent) => this.addSource(e)}>
        <label for="src-name">Source name</label><input id="src-name" name="name" required />
        <label for="src-where">Git URL or server directory</label><input id="src-where" name="where" />
        <label for="src-archive">or an archive (.tar.gz, .zip)</label
        ><input id="src-archive" name="archive" type="file" accept=".tar.gz,.tgz,.zip" /> <span></span
        ><button type="submit">Add source</button>
      </form>
      ${
        latest
          ? html`<h3>Last ingest (version ${latest.number}, ${latest.sourceName}): ${latest.status}</h3>
              <ol class="stages">
                ${latest.stages.map((st) => html`<li class=${st.status}><strong>${st.name}</strong> ${st.status} <span class="muted">${st.durationMs} ms ${st.detail}</span></li>`)}
              </ol>
              ${latest.error ? html`<p class="status error">${latest.error}</p>` : nothing}`
          : nothing
      }
      ${this.report ? this.renderReport(this.report) : nothing}
    </section>`;
  }

  private renderMap(r: LinkReport) {
    if (!r.linked) return nothing;
    if (!r.map)
      return html`<p class="muted">This report predates the service map: ingest a source again to draw it.</p>`;
    if (r.map.edges.length === 0) return nothing;
    return html`<h4>Service map</h4>
      ${serviceMapView(r.map, r.application)}`;
  }

  private renderReport(r: LinkReport) {
    const rows = filterRows(r.table, this.filter, this.match);
    const kinds = [...new Set(r.table.map((x) => x.match))].sort();
    return html`<section class="report" aria-labelledby="report-h">
      <h3 id="report-h">Link report</h3>
      <div class="row">
        <button type="button" @click=${() => this.downloadReport('json')}>Download JSON</button>
        <button type="button" @click=${() => this.downloadReport('markdown')}>Download Markdown</button>
      </div>
      ${!r.linked ? html`<p class="notice not-linked" role="note">Not linked: ${r.notLinkedReason ?? 'this version was not linked'}.</p>` : nothing}
      <dl class="stats">
        ${STATISTICS.map(
          ([k, label]) =>
            html`<div>
              <dt>${label}</dt>
              <dd data-stat=${k}>${r.statistics[k] ?? 0}</dd>
            </div>`,
        )}
      </dl>
      ${this.renderMap(r)}
      ${
        r.emptyState
          ? html`<p class="notice empty-state" role="note">${r.emptyState}</p>`
          : html`<div class="row filters">
                <label for="rep-filter">Filter</label>
                <input
                  id="rep-filter"
                  type="search"
                  .value=${this.filter}
                  @input=${(e: Event) => (this.filter = (e.target as HTMLInputElement).value)}
                />
                <label for="rep-match">Match</label>
                <select id="rep-match" @change=${(e: Event) => (this.match = (e.target as HTMLSelectElement).value)}>
                  <option value="">all</option>
                  ${kinds.map((k) => html`<option value=${k}>${k}</option>`)}
                </select>
                <span class="muted" aria-live="polite">${rows.length} of ${r.table.length} rows</span>
              </div>
              <div class="scroll" tabindex="0" role="region" aria-label="Links table">
                <table class="links">
                  <caption class="sr-only">
                    Links (Caller, Calls, Served by, Match) with file:line evidence
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Caller</th>
                      <th scope="col">Calls</th>
                      <th scope="col">Served by</th>
                      <th scope="col">Match</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows.map(
                      (x) =>
                        html`<tr>
                          <td><code>${x.caller}</code></td>
                          <td><code>${x.calls}</code></td>
                          <td><code>${x.servedBy}</code></td>
                          <td>${x.match}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
      }
      <h4>Findings (not failures)</h4>
      <details ?open=${r.unresolvedCalls.length > 0}>
        <summary>Unresolved calls (${r.unresolvedCalls.length})</summary>
        <ul>
          ${r.unresolvedCalls.map((u) => html`<li><code>${ev(u.caller)}</code> ${u.calls}: ${u.reason}${u.detail ? ` (${u.detail})` : ''}${u.candidates.length ? html` · candidates: ${u.candidates.map(ev).join(', ')}` : nothing}</li>`)}
        </ul>
      </details>
      <details ?open=${r.messagingGaps.length > 0}>
        <summary>Messaging gaps (${r.messagingGaps.length})</summary>
        <ul>
          ${r.messagingGaps.map((g) => html`<li>${g.side} <code>${ev(g.at)}</code> ${g.what}: ${g.reason}</li>`)}
        </ul>
      </details>
      <details ?open=${r.sharedData.length > 0}>
        <summary>Shared data (${r.sharedData.length})</summary>
        <ul>
          ${r.sharedData.map((d) => html`<li>${d.store}: ${d.touchedBy.map(ev).join(', ')}</li>`)}
        </ul>
      </details>
      <details>
        <summary>Queue bindings (${r.queueBindings.length})</summary>
        <ul>
          ${r.queueBindings.map((b) => html`<li>${b.broker} ${b.exchange} → ${b.queue} ${b.key} <code>${ev(b.at)}</code></li>`)}
        </ul>
      </details>
      ${r.notes.map((n) => html`<p class="muted">${n}</p>`)}
    </section>`;
  }
}
customElements.define('applications-page', ApplicationsPage);
