import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeHarness, http, startHarness, type Harness } from '../management/helpers';

/**
 * The console's session in the gateway (ADR 0024): sign-in exchanges a user token for an HttpOnly,
 * SameSite=Strict cookie (Secure with the __Host- prefix over https) that stands for the same identity and role
 * as the token on /api/v1 and /api/applications; state-changing calls need the X-CSRF-Token header; sign-out
 * and expiry end it server-side. The static files come with a strict Content-Security-Policy.
 */
describe('console session and static files (gateway)', () => {
  let h: Harness;
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'export {};');

  const signIn = async (token: string, headers: Record<string, string> = {}) => {
    const r = await http(h.base, 'POST', '/console/session', { body: { token }, headers });
    const setCookie = r.headers.get('set-cookie') ?? '';
    return { ...r, setCookie, cookie: setCookie.split(';')[0]!, csrf: r.body?.csrfToken as string };
  };

  beforeAll(async () => {
    h = await startHarness({ CONSOLE_DIR: dir, CONSOLE_SESSION_TTL_SECONDS: '600', TRUST_PROXY: 'true' });
  }, 60_000);
  afterAll(async () => {
    await closeHarness(h);
  });

  it('signs in with a user token: an HttpOnly, SameSite=Strict cookie that is not Secure over plain http', async () => {
    const s = await signIn(h.creds.adminToken);
    expect(s.status).toBe(201);
    expect(s.body.user).toMatchObject({ role: 'admin', email: 'admin@demo.local' });
    expect(s.csrf).toMatch(/^[\w-]{40,}$/);
    expect(s.setCookie).toMatch(/^a2a_console=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=600$/);
    expect(s.headers.get('cache-control')).toBe('no-store');
    // The cookie holds an opaque id, never the token.
    expect(s.setCookie).not.toContain(h.creds.adminToken);
  });

  it('over https (behind a proxy that says so) the cookie is Secure with the __Host- prefix', async () => {
    const s = await signIn(h.creds.adminToken, { 'X-Forwarded-Proto': 'https' });
    expect(s.setCookie).toMatch(/^__Host-a2a_console=[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Secure; Max-Age=600$/);
    const me = await http(h.base, 'GET', '/api/v1/me', { headers: { Cookie: s.cookie } });
    expect(me.body.role).toBe('admin');
  });

  it('the session is the token: same identity on /api/v1, and the role is enforced by the API', async () => {
    const admin = await signIn(h.creds.adminToken);
    const viaCookie = await http(h.base, 'GET', '/api/v1/me', { headers: { Cookie: admin.cookie } });
    const viaBearer = await http(h.base, 'GET', '/api/v1/me', { token: h.creds.adminToken });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body).toEqual(viaBearer.body);
    const apps = await http(h.base, 'GET', '/api/applications', { headers: { Cookie: admin.cookie } });
    expect(apps.status).toBe(200);

    const operator = await signIn(h.creds.operatorToken);
    const refused = await http(h.base, 'POST', '/api/v1/keys', {
      body: { scope: 'a2a' },
      headers: { Cookie: operator.cookie, 'X-CSRF-Token': operator.csrf },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PERMISSION_DENIED');
    expect(refused.body.error.message).toMatch(/roles admin, developer/);
  });

  it('a state-changing call with the cookie needs the session\u2019s X-CSRF-Token header; reads do not', async () => {
    const s = await signIn(h.creds.adminToken);
    const other = await signIn(h.creds.adminToken);
    for (const headers of [{ Cookie: s.cookie }, { Cookie: s.cookie, 'X-CSRF-Token': other.csrf }]) {
      const r = await http(h.base, 'POST', '/api/v1/keys', { body: { scope: 'a2a' }, headers });
      expect(r.status).toBe(403);
      expect(r.body.error.message).toContain('X-CSRF-Token');
      const app = await http(h.base, 'POST', '/api/applications', { body: { name: 'x' }, headers });
      expect(app.status).toBe(403);
    }
    const ok = await http(h.base, 'POST', '/api/v1/keys', {
      body: { scope: 'a2a', name: 'csrf ok' },
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf },
    });
    expect(ok.status).toBe(201);
    expect((await http(h.base, 'GET', '/api/v1/keys', { headers: { Cookie: s.cookie } })).status).toBe(200);
  });

  it('a bearer token wins over a cookie (API clients never depend on one)', async () => {
    const operator = await signIn(h.creds.operatorToken);
    const me = await http(h.base, 'GET', '/api/v1/me', {
      token: h.creds.adminToken,
      headers: { Cookie: operator.cookie },
    });
    expect(me.body.role).toBe('admin');
    // ... and needs no CSRF header.
    const k = await http(h.base, 'POST', '/api/v1/keys', {
      token: h.creds.adminToken,
      body: { scope: 'invoke' },
      headers: { Cookie: operator.cookie },
    });
    expect(k.status).toBe(201);
  });

  it('sign-out (with the CSRF header) ends the session on the server; the old cookie is refused', async () => {
    const s = await signIn(h.creds.adminToken);
    const noCsrf = await http(h.base, 'DELETE', '/console/session', { headers: { Cookie: s.cookie } });
    expect(noCsrf.status).toBe(403);
    const out = await http(h.base, 'DELETE', '/console/session', {
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^a2a_console=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    const after = await http(h.base, 'GET', '/api/v1/me', { headers: { Cookie: s.cookie } });
    expect(after.status).toBe(401);
    expect(after.body.error.message).toBe('The console session has ended: sign in again');
    expect((await http(h.base, 'GET', '/console/session', { headers: { Cookie: s.cookie } })).status).toBe(401);
  });

  it('a session expires after CONSOLE_SESSION_TTL_SECONDS', async () => {
    const s = await signIn(h.creds.adminToken);
    expect((await http(h.base, 'GET', '/console/session', { headers: { Cookie: s.cookie } })).status).toBe(200);
    h.clock.skewMs += 601_000;
    try {
      const r = await http(h.base, 'GET', '/api/v1/me', { headers: { Cookie: s.cookie } });
      expect(r.status).toBe(401);
    } finally {
      h.clock.skewMs -= 601_000;
    }
  });

  it('refuses a wrong token, a non-JSON sign-in and a malformed body with clear JSON errors', async () => {
    const wrong = await signIn('usr_wrong');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toEqual({ code: 'UNAUTHENTICATED', message: 'Invalid user token' });
    expect(wrong.setCookie).toBe('');
    const form = await http(h.base, 'POST', '/console/session', {
      body: `token=${h.creds.adminToken}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('CONTENT_TYPE_NOT_SUPPORTED');
    const bad = await http(h.base, 'POST', '/console/session', { body: '{"token":' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('PARSE_ERROR');
    const missing = await http(h.base, 'POST', '/console/session', { body: {} });
    expect(missing.status).toBe(400);
  });

  it('serves the console with a strict CSP; hashed assets are immutable, index.html is revalidated', async () => {
    const redirect = await fetch(`${h.base}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/console/');
    const index = await http(h.base, 'GET', '/console/');
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/text\/html/);
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const asset = await http(h.base, 'GET', '/console/assets/index-abc123.js');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const missing = await http(h.base, 'GET', '/console/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});

describe('console behind an https public base URL', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      CONSOLE_DIR: join(tmpdir(), 'no-such-console-dir'),
      PUBLIC_BASE_URL: 'https://a2a.example.com',
    });
  }, 60_000);
  afterAll(async () => {
    await closeHarness(h);
  });

  it('sets the Secure __Host- cookie even when the hop to the gateway is plain http', async () => {
    // h.base is the public URL; the test talks to the listening port over plain http.
    const direct = `http://127.0.0.1:${h.system.gateway.port}`;
    const r = await http(direct, 'POST', '/console/session', { body: { token: h.creds.adminToken } });
    expect(r.status).toBe(201);
    expect(r.headers.get('set-cookie')).toMatch(
      /^__Host-a2a_console=[\w-]+; Path=\/; HttpOnly; SameSite=Strict; Secure;/,
    );
  });
});

describe('console not built', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ CONSOLE_DIR: join(tmpdir(), 'no-such-console-dir') });
  }, 60_000);
  afterAll(async () => {
    await closeHarness(h);
  });

  it('answers /console/ with a JSON 503 that says how to build it, and the API still works', async () => {
    const r = await http(h.base, 'GET', '/console/');
    expect(r.status).toBe(503);
    expect(r.body.error).toEqual({ code: 'UNAVAILABLE', message: 'The console is not built: run npm run build' });
    expect((await http(h.base, 'GET', '/api/v1/me', { token: h.creds.adminToken })).status).toBe(200);
  });
});
