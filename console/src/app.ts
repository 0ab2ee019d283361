import { html, nothing } from 'lit';
import { messageOf, resume, SESSION_ENDED, signIn, signOut, state, type User } from './api';
import { ROLE_LABELS } from './roles';
import { LightElement, statusLine, type Status } from './ui';
import './pages/deployment';
import './pages/test-console';
import './pages/keys';
import './pages/agents';
import './pages/applications';
import './pages/audit';

const PAGES = [
  { id: 'deployment', label: 'Deployment' },
  { id: 'test', label: 'Test console' },
  { id: 'keys', label: 'API keys' },
  { id: 'agents', label: 'Agents and versions' },
  { id: 'applications', label: 'Applications' },
  { id: 'audit', label: 'Audit log' },
] as const;
type PageId = (typeof PAGES)[number]['id'];

const pageOf = (hash: string): PageId => {
  const id = hash.replace(/^#\/?/, '');
  return PAGES.find((p) => p.id === id)?.id ?? 'deployment';
};

/** The console shell: sign-in, then the navigation and the current page (hash routes: no server fallback needed). */
export class ConsoleApp extends LightElement {
  static override properties = {
    user: { state: true },
    page: { state: true },
    status: { state: true },
    ready: { state: true },
  };
  user: User | undefined = undefined;
  page: PageId = pageOf(location.hash);
  status: Status = undefined;
  ready = false;
  private readonly onHash = (): void => {
    this.page = pageOf(location.hash);
    // Move focus to the new page's heading, as a page load would.
    void this.updateComplete.then(() => this.querySelector<HTMLElement>('main h1')?.focus());
  };

  private readonly onSessionEnded = (): void => {
    this.user = undefined;
    this.status = { kind: 'error', text: 'Your session has ended: sign in again' };
  };

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('hashchange', this.onHash);
    window.addEventListener(SESSION_ENDED, this.onSessionEnded);
    resume().then(
      (u) => {
        this.user = u;
        this.ready = true;
      },
      (err: unknown) => {
        this.status = { kind: 'error', text: messageOf(err) };
        this.ready = true;
      },
    );
  }

  override disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.onHash);
    window.removeEventListener(SESSION_ENDED, this.onSessionEnded);
    super.disconnectedCallback();
  }

  private async submit(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem('token') as HTMLInputElement;
    this.status = { kind: 'busy', text: 'Signing in…' };
    try {
      this.user = await signIn(input.value);
      input.value = '';
      this.status = undefined;
    } catch (err) {
      this.status = { kind: 'error', text: messageOf(err) };
    }
  }

  private async out(): Promise<void> {
    try {
      await signOut();
    } finally {
      this.user = undefined;
      delete state.user;
    }
  }

  override render() {
    if (!this.ready) return html`<main class="signin"><p role="status">Loading…</p></main>`;
    if (!this.user)
      return html`<main class="signin">
        <h1 tabindex="-1">Sign in to the a2a-inbound console</h1>
        <form @submit=${(e: SubmitEvent) => this.submit(e)}>
          <label for="token">User token</label>
          <input id="token" name="token" type="password" autocomplete="off" required spellcheck="false" />
          <p class="hint">
            Paste your user token (<code>usr_…</code>). <code>npm start</code> prints an admin and an operator token; an
            Admin creates more users with <code>POST /api/v1/users</code>. The token is exchanged for a session cookie
            and is not kept by the page.
          </p>
          <button type="submit" class="primary">Sign in</button>
        </form>
        ${statusLine(this.status)}
      </main>`;
    return html`
      <a class="skip" href="#main">Skip to content</a>
      <header>
        <span class="brand">a2a-inbound</span>
        <nav aria-label="Console">
          <ul>
            ${PAGES.map(
              (p) =>
                html`<li>
                  <a href=${`#/${p.id}`} aria-current=${this.page === p.id ? 'page' : nothing}>${p.label}</a>
                </li>`,
            )}
          </ul>
        </nav>
        <span class="who"
          >${this.user.email} · <strong>${ROLE_LABELS[this.user.role]}</strong>
          <button type="button" @click=${() => this.out()}>Sign out</button></span
        >
      </header>
      <main id="main">${this.renderPage(this.user)}</main>
    `;
  }

  private renderPage(user: User) {
    switch (this.page) {
      case 'test':
        return html`<test-console-page .user=${user}></test-console-page>`;
      case 'keys':
        return html`<keys-page .user=${user}></keys-page>`;
      case 'agents':
        return html`<agents-page .user=${user}></agents-page>`;
      case 'applications':
        return html`<applications-page .user=${user}></applications-page>`;
      case 'audit':
        return html`<audit-page .user=${user}></audit-page>`;
      default:
        return html`<deployment-page .user=${user}></deployment-page>`;
    }
  }
}
customElements.define('a2a-console', ConsoleApp);
