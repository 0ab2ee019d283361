import type { Role } from './roles';
import { str } from './text';

/** A refused or failed call, with the API's own code and message (never an HTML page). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface User {
  userId: string;
  email: string;
  role: Role;
  subscriptionId: string;
}

/**
 * The session as this tab knows it. The session id lives in an HttpOnly cookie the page cannot read; the CSRF
 * token and any API key the user pastes or creates live in memory only (never localStorage).
 */
export const state: { user?: User; csrf?: string; keys: Map<string, { value: string; scope: string; name: string }> } =
  {
    keys: new Map(),
  };

async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } | string };
    const e = body.error;
    if (e && typeof e === 'object')
      return new ApiError(res.status, str(e.code, String(res.status)), str(e.message, res.statusText));
  } catch {
    // not JSON
  }
  return new ApiError(res.status, String(res.status), text.slice(0, 200) || res.statusText);
}

/** Fired on window when a call finds the session gone (expired, signed out elsewhere): the shell shows sign-in. */
export const SESSION_ENDED = 'a2a-session-ended';

function noteSessionEnd(status: number, path: string): void {
  if (status === 401 && state.user && !path.startsWith('/console/session')) {
    delete state.user;
    delete state.csrf;
    state.keys.clear();
    window.dispatchEvent(new CustomEvent(SESSION_ENDED));
  }
}

/** A same-origin JSON call with the session cookie (and the CSRF header on state-changing methods). */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && state.csrf) headers['X-CSRF-Token'] = state.csrf;
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) {
    noteSessionEnd(res.status, path);
    throw await errorOf(res);
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A POST of raw bytes (an archive to ingest), with the CSRF header; the answer is JSON. */
export async function apiBytes<T>(path: string, bytes: Blob, type: string): Promise<T> {
  const res = await fetch(path, {
    method: 'POST',
    headers: {
      Accept: 'application/json',
      'Content-Type': type,
      ...(state.csrf ? { 'X-CSRF-Token': state.csrf } : {}),
    },
    credentials: 'same-origin',
    body: bytes,
  });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/** A call whose answer is text (the Markdown link report). */
export async function apiText(path: string): Promise<string> {
  const res = await fetch(path, { credentials: 'same-origin' });
  if (!res.ok) throw await errorOf(res);
  return res.text();
}

interface SessionAnswer {
  user: User;
  csrfToken: string;
}

export async function signIn(token: string): Promise<User> {
  const s = await api<SessionAnswer>('POST', '/console/session', { token });
  state.user = s.user;
  state.csrf = s.csrfToken;
  return s.user;
}

/** The current session, if the cookie is still good (a reload keeps you signed in). */
export async function resume(): Promise<User | undefined> {
  try {
    const s = await api<SessionAnswer>('GET', '/console/session');
    state.user = s.user;
    state.csrf = s.csrfToken;
    return s.user;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return undefined;
    throw err;
  }
}

export async function signOut(): Promise<void> {
  await api<void>('DELETE', '/console/session');
  delete state.user;
  delete state.csrf;
  state.keys.clear();
}

export const messageOf = (err: unknown): string =>
  err instanceof ApiError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);

/**
 * Copies text; resolves true when the clipboard took it. The Clipboard API exists only in secure contexts
 * (https, or http on localhost/127.0.0.1): on `http://<LAN address>:8080` the console falls back to a
 * selection and the copy command, which still works there during the click.
 */
export async function copy(text: string): Promise<boolean> {
  try {
    if (typeof navigator.clipboard?.writeText === 'function') {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // refused (no permission, page not focused): try the copy command
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.readOnly = true;
  area.className = 'sr-only';
  area.setAttribute('aria-hidden', 'true');
  area.tabIndex = -1;
  const focused = document.activeElement as HTMLElement | null;
  document.body.append(area);
  try {
    area.select();
    return document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
    focused?.focus();
  }
}
