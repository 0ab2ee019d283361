import { html, nothing } from 'lit';
import { api, messageOf, state, type User } from '../api';
import { deniedReason } from '../roles';
import { localDate } from '../text';
import { copyButton, guarded, LightElement, statusLine, type Status } from '../ui';

interface Key {
  id: string;
  name: string;
  prefix: string;
  scope: string;
  createdAt: string | null;
  expiresAt: string | null;
  status: string;
}

export class KeysPage extends LightElement {
  static override properties = {
    user: { attribute: false },
    keys: { state: true },
    created: { state: true },
    status: { state: true },
  };
  user!: User;
  keys: Key[] = [];
  /** The value of the key just created: shown once, until the user leaves this page or creates another. */
  created: (Key & { key: string }) | undefined = undefined;
  status: Status = undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this.keys = (await api<{ keys: Key[] }>('GET', '/api/v1/keys')).keys;
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private async create(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const f = e.currentTarget as HTMLFormElement;
    const name = (f.elements.namedItem('name') as HTMLInputElement).value.trim();
    const scope = (f.elements.namedItem('scope') as HTMLSelectElement).value;
    const expires = (f.elements.namedItem('expires') as HTMLInputElement).value;
    try {
      const k = await api<Key & { key: string }>('POST', '/api/v1/keys', {
        name: name || `${scope} key`,
        scope,
        ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
      });
      this.created = k;
      // Kept in this tab's memory only, so the test console can use it; gone on reload or sign-out.
      state.keys.set(`${k.name} (${k.prefix}…)`, { value: k.key, scope: k.scope, name: k.name });
      f.reset();
      this.status = { kind: 'ok', text: `Created ${k.name}` };
      // Focus lands on the one-time value (keyboard and screen-reader users), then the list refreshes.
      await this.updateComplete;
      this.querySelector<HTMLElement>('.once')?.focus();
      await this.load();
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private async revoke(k: Key): Promise<void> {
    try {
      await api('DELETE', `/api/v1/keys/${encodeURIComponent(k.id)}`);
      this.status = { kind: 'ok', text: `Revoked ${k.name}` };
      await this.load();
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  override render() {
    const createWhy = deniedReason(this.user.role, 'createKey');
    const revokeWhy = deniedReason(this.user.role, 'revokeKey');
    const c = this.created;
    return html`
      <h1 tabindex="-1">API keys</h1>
      <form class="grid" @submit=${(e: SubmitEvent) => this.create(e)}>
        <label for="key-name">Name</label>
        <input id="key-name" name="name" type="text" maxlength="200" placeholder="e.g. ci client" />
        <label for="key-scope">Scope</label>
        <select id="key-scope" name="scope">
          <option value="a2a">a2a (the A2A JSON-RPC endpoint)</option>
          <option value="invoke">invoke (run, stream and conversation endpoints)</option>
        </select>
        <label for="key-expires">Expires (optional)</label>
        <input id="key-expires" name="expires" type="date" />
        <span></span
        >${guarded('Create key', createWhy, () => undefined, 'create-key', { kind: 'primary', type: 'submit' })}
      </form>
      ${
        c
          ? html`<div class="once" tabindex="-1" role="alert">
              <p>
                <strong>Copy this key now: it is shown once.</strong> It is stored only as a hash and cannot be shown
                again.
              </p>
              <p><code class="key-value">${c.key}</code> ${copyButton(c.key, 'the new key')}</p>
              <p class="hint">It is also usable from the Test console until you reload or sign out.</p>
            </div>`
          : nothing
      }
      ${statusLine(this.status)}
      <div class="scroll" tabindex="0" role="region" aria-label="Keys table">
        <table>
          <caption>
            Keys (values are never shown again)
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            ${this.keys.map(
              (k) =>
                html`<tr>
                  <td>${k.name}</td>
                  <td><code>${k.prefix}…</code></td>
                  <td>${k.scope}</td>
                  <td>${localDate(k.createdAt, true)}</td>
                  <td>${k.expiresAt ? localDate(k.expiresAt) : 'never'}</td>
                  <td>${k.status}</td>
                  <td>
                    ${k.status === 'active' ? guarded('Revoke', revokeWhy, () => this.revoke(k), `revoke-${k.id}`) : nothing}
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    `;
  }
}
customElements.define('keys-page', KeysPage);
