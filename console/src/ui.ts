import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { copy } from './api';

export { str } from './text';

/** Pages render into the light DOM: one stylesheet (no inline styles under the CSP), and plain selectors for tests. */
export class LightElement extends LitElement {
  protected override createRenderRoot(): HTMLElement {
    return this;
  }
}

/**
 * A copy button for a URL or a key value. The result is shown on the button and announced by the live text
 * beside it (the button's accessible name stays "Copy …", so a screen reader would not hear the new label).
 */
export function copyButton(text: string, label: string): TemplateResult {
  const onClick = async (e: Event): Promise<void> => {
    const button = e.currentTarget as HTMLButtonElement;
    const note = button.nextElementSibling;
    const ok = await copy(text);
    const said = ok ? `Copied ${label}` : `Could not copy ${label}: select the text and copy it`;
    button.textContent = ok ? 'Copied' : 'Copy failed: select the text';
    if (note) note.textContent = said;
    setTimeout(() => {
      button.textContent = 'Copy';
      if (note) note.textContent = '';
    }, 2000);
  };
  return html`<button type="button" class="copy" aria-label=${`Copy ${label}`} @click=${onClick}>Copy</button
    ><span class="copy-note sr-only" aria-live="polite"></span>`;
}

/** A button that is disabled with its reason shown next to it (and tied to it for screen readers). */
export function guarded(
  label: string,
  reason: string | undefined,
  onClick: () => unknown,
  id: string,
  extra: { kind?: string; type?: 'button' | 'submit' } = {},
): TemplateResult {
  return html`<span class="guarded"
    ><button
      type=${extra.type ?? 'button'}
      class=${extra.kind ?? ''}
      ?disabled=${reason !== undefined}
      aria-describedby=${reason ? `${id}-why` : nothing}
      @click=${onClick}
    >
      ${label}</button
    >${reason ? html`<span class="why" id=${`${id}-why`}>${reason}</span>` : nothing}</span
  >`;
}

/** A status line: saved, failed (the API's code and message) or in progress; read out when it changes. */
export function statusLine(s: { kind: 'ok' | 'error' | 'busy'; text: string } | undefined): TemplateResult {
  return html`<p class=${`status ${s?.kind ?? ''}`} role="status" aria-live="polite">${s?.text ?? ''}</p>`;
}

export type Status = { kind: 'ok' | 'error' | 'busy'; text: string } | undefined;
