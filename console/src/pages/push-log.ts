import { html, nothing } from 'lit';
import { api, messageOf } from '../api';
import { attemptsText, outcomeOf, statusText, whenText, type PushDelivery, type PushDeliveryPage } from '../push-log';
import { LightElement, statusLine, type Status } from '../ui';

const PAGE_SIZE = 20;

/**
 * One agent's push delivery log (the webhooks service's, through the gateway): outcome, HTTP status, time,
 * task and target of each delivery, newest first; loaded when opened, refreshed on demand, paged with "Show
 * older". Targets come without secrets (no userinfo, query values REDACTED) from the API itself.
 */
export class PushLog extends LightElement {
  static override properties = {
    agentId: { attribute: false },
    agentName: { attribute: false },
    deliveries: { state: true },
    next: { state: true },
    loaded: { state: true },
    status: { state: true },
    opened: { state: true },
  };
  agentId = '';
  agentName = '';
  deliveries: PushDelivery[] = [];
  next: string | null = null;
  loaded = false;
  status: Status = undefined;
  /** The content (and its status line) is rendered once opened: a closed log is just its summary. */
  opened = false;

  private async load(more = false): Promise<void> {
    this.status = { kind: 'busy', text: 'Loading push deliveries…' };
    try {
      const token = more && this.next ? `&pageToken=${encodeURIComponent(this.next)}` : '';
      const page = await api<PushDeliveryPage>(
        'GET',
        `/api/v1/agents/${encodeURIComponent(this.agentId)}/push-deliveries?limit=${PAGE_SIZE}${token}`,
      );
      this.deliveries = more ? [...this.deliveries, ...page.deliveries] : page.deliveries;
      this.next = page.nextPageToken;
      this.loaded = true;
      this.status = undefined;
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private onToggle(e: Event): void {
    const open = (e.target as HTMLDetailsElement).open;
    if (open) this.opened = true;
    if (open && !this.loaded) void this.load();
  }

  override render() {
    const id = `push-log-${this.agentId}`.replace(/[^\w-]/g, '_');
    return html`<details class="push-log" @toggle=${(e: Event) => this.onToggle(e)}>
      <summary>Push delivery log</summary>
      ${this.opened ? this.renderLog(id) : nothing}
    </details>`;
  }

  private renderLog(id: string) {
    return html`<div class="row">
        <button type="button" @click=${() => this.load()}>Refresh</button>
      </div>
      ${statusLine(this.status)}
      ${
        this.loaded && this.deliveries.length === 0
          ? html`<p class="empty muted">
              No push deliveries yet. They appear here once the platform operator enabled push notifications for
              ${this.agentName} and a client set a push config on one of its tasks (kept 7 days).
            </p>`
          : nothing
      }
      ${
        this.deliveries.length > 0
          ? html`<div class="scroll" tabindex="0" role="region" aria-label=${`Push deliveries of ${this.agentName}`}>
              <table id=${id}>
                <caption class="sr-only">
                  Push deliveries of ${this.agentName}, newest first
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Outcome</th>
                    <th scope="col">HTTP status</th>
                    <th scope="col">Time</th>
                    <th scope="col">Task</th>
                    <th scope="col">Target</th>
                  </tr>
                </thead>
                <tbody>
                  ${this.deliveries.map((d) => {
                    const o = outcomeOf(d.outcome);
                    return html`<tr data-outcome=${d.outcome} data-config=${d.configId}>
                      <td>
                        <strong class=${`outcome ${o.tone}`}>${o.label}</strong><br /><span class="muted"
                          >${attemptsText(d.attempts)}</span
                        >
                      </td>
                      <td>${statusText(d)}</td>
                      <td>${whenText(d)}</td>
                      <td><code>${d.taskId}</code> <span class="muted">update ${d.seq}</span></td>
                      <td><code class="url">${d.target.url}</code></td>
                    </tr>`;
                  })}
                </tbody>
              </table>
            </div>`
          : nothing
      }
      ${this.next ? html`<button type="button" @click=${() => this.load(true)}>Show older</button>` : nothing}`;
  }
}
customElements.define('push-log', PushLog);
