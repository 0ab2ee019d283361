import { html, nothing } from 'lit';
import { api, messageOf, type User } from '../api';
import { deniedReason } from '../roles';
import { localDate } from '../text';
import { guarded, LightElement, statusLine, type Status } from '../ui';
import './push-log';

interface Agent {
  id: string;
  name: string;
  description: string;
  type: string;
  skills: unknown[];
  versions: {
    version: string;
    status: string;
    runtime: string;
    runtimeConfig: unknown;
    createdAt: string | null;
    promotedAt: string | null;
  }[];
}

export class AgentsPage extends LightElement {
  static override properties = {
    user: { attribute: false },
    agents: { state: true },
    open: { state: true },
    status: { state: true },
  };
  user!: User;
  agents: Agent[] = [];
  open = '';
  status: Status = undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.agents = (await api<{ agents: Agent[] }>('GET', '/api/v1/agents')).agents;
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private async promote(a: Agent, version: string): Promise<void> {
    try {
      await api('POST', `/api/v1/agents/${encodeURIComponent(a.id)}/versions/${encodeURIComponent(version)}/promote`);
      this.status = {
        kind: 'ok',
        text: `Promoted ${a.name} ${version}: deployments on Latest production serve it now`,
      };
      await this.load();
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  override render() {
    const why = deniedReason(this.user.role, 'promoteVersion');
    return html`
      <h1 tabindex="-1">Agents and versions</h1>
      ${statusLine(this.status)}
      <ul class="agent-list">
        ${this.agents.map(
          (a) =>
            html`<li data-agent=${a.id}>
              <h2>${a.name} <span class="tag">${a.type}</span></h2>
              <p>${a.description}</p>
              <div class="scroll" tabindex="0" role="region" aria-label=${`Versions of ${a.name}`}>
                <table>
                  <caption class="sr-only">
                    Versions of ${a.name}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Version</th>
                      <th scope="col">Status</th>
                      <th scope="col">Runtime</th>
                      <th scope="col">Promoted</th>
                      <th scope="col"><span class="sr-only">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${a.versions.map(
                      (v) =>
                        html`<tr>
                          <td>${v.version}</td>
                          <td>${v.status}</td>
                          <td><code>${v.runtime}</code></td>
                          <td>${localDate(v.promotedAt, true)}</td>
                          <td>
                            ${v.status === 'PRODUCTION' ? nothing : guarded('Promote', why, () => this.promote(a, v.version), `promote-${a.id}-${v.version}`.replace(/[^\w-]/g, '_'))}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>
              <details
                @toggle=${(e: Event) => ((e.target as HTMLDetailsElement).open ? (this.open = a.id) : undefined)}
              >
                <summary>Definition</summary>
                <pre tabindex="0">${JSON.stringify(a, null, 2)}</pre>
              </details>
              <push-log .agentId=${a.id} .agentName=${a.name} data-agent=${a.id}></push-log>
            </li>`,
        )}
      </ul>
    `;
  }
}
customElements.define('agents-page', AgentsPage);
