import { html, nothing } from 'lit';
import { api, messageOf, type User } from '../api';
import { deniedReason } from '../roles';
import { localDate } from '../text';
import { LightElement, statusLine, type Status } from '../ui';

/** One management change, as GET /api/v1/audit-events answers it (issue 24, ADR 0032). */
interface AuditEvent {
  id: string;
  at: string;
  userId: string | null;
  role: string | null;
  via: string;
  operation: string;
  target: string;
}

/** The subscription's audit log: read-only, for the Admin role (the API refuses the others the same way). */
export class AuditPage extends LightElement {
  static override properties = {
    user: { attribute: false },
    events: { state: true },
    loaded: { state: true },
    status: { state: true },
  };
  user!: User;
  events: AuditEvent[] = [];
  loaded = false;
  status: Status = undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    if (!deniedReason(this.user.role, 'readAudit')) void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.events = (await api<{ events: AuditEvent[] }>('GET', '/api/v1/audit-events?limit=100')).events;
      this.loaded = true;
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  override render() {
    const why = deniedReason(this.user.role, 'readAudit');
    if (why)
      return html`<h1 tabindex="-1">Audit log</h1>
        <p class="hint denied">${why}</p>`;
    return html`
      <h1 tabindex="-1">Audit log</h1>
      <p class="hint">
        The last 100 management changes of this subscription (through the console, the REST API or gRPC), newest first:
        who, what, when and through which service. Read-only; records are kept for a year.
      </p>
      ${statusLine(this.status)}
      ${this.loaded && this.events.length === 0 ? html`<p class="empty">No management changes recorded yet.</p>` : nothing}
      <div class="scroll" tabindex="0" role="region" aria-label="Audit log table">
        <table class="audit">
          <caption>
            Management changes
          </caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Change</th>
              <th scope="col">Target</th>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">Via</th>
            </tr>
          </thead>
          <tbody>
            ${this.events.map(
              (e) =>
                html`<tr data-operation=${e.operation}>
                  <td>${localDate(e.at, true)}</td>
                  <td>${e.operation}</td>
                  <td><code>${e.target}</code></td>
                  <td>${e.userId ?? 'a service'}</td>
                  <td>${e.role ?? ''}</td>
                  <td>${e.via}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    `;
  }
}
customElements.define('audit-page', AuditPage);
