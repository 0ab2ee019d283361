import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { manage, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from '../distributed/cluster';
import { chromiumPath, launch, newPage } from './browser';

/**
 * The console in the distributed mode (separate gateway processes from the bundles, sessions in Redis): each
 * gateway serves the built console from beside its bundle, a session made on one gateway works on the other,
 * and signing out on one ends it on both. Needs `npm run build` and the engines (npm test provides both).
 */
describe.runIf(engineUrlsSet)('web console (distributed)', { timeout: 120_000 }, () => {
  let cluster: Cluster;
  let sut: Sut;
  let g1: string;
  let g2: string;
  let adminToken: string;
  let browser: Browser | undefined;

  const signIn = async (base: string, token: string) => {
    const r = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    expect(r.status).toBe(201);
    const body = (await r.json()) as { csrfToken: string; user: { role: string } };
    return { cookie: (r.headers.get('set-cookie') ?? '').split(';')[0]!, csrf: body.csrfToken, role: body.user.role };
  };

  beforeAll(async () => {
    ({ cluster, sut } = await startDistributed({ gateways: 2, runners: 1 }));
    [g1, g2] = cluster.gateways as [string, string];
    const email = `console-${Math.random().toString(36).slice(2, 8)}@demo.local`;
    adminToken = (await manage(sut, 'admin', 'users.create', { email, role: 'admin' })).token as string;
    if (chromiumPath() || process.env.CI === 'true') browser = await launch();
    else process.stderr.write('test/console: chromium is not installed: the distributed browser exchange is skipped\n');
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await cluster?.stopAll();
  }, 120_000);

  it('each gateway process serves the built console from beside its bundle, with the CSP', async () => {
    for (const base of [g1, g2]) {
      const r = await fetch(`${base}/console/`);
      expect(r.status).toBe(200);
      expect(await r.text()).toContain('<a2a-console>');
      expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
  });

  it('a session made on one gateway works on the other (shared in Redis); sign-out on one ends it on both', async () => {
    const s = await signIn(g1, adminToken);
    expect(s.role).toBe('admin');
    const me = await fetch(`${g2}/api/v1/me`, { headers: { Cookie: s.cookie } });
    expect(me.status).toBe(200);
    const created = await fetch(`${g2}/api/v1/keys`, {
      method: 'POST',
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf, 'Content-Type': 'application/json' },
      body: JSON.stringify({ scope: 'a2a', name: 'distributed console' }),
    });
    expect(created.status).toBe(201);
    const out = await fetch(`${g2}/console/session`, {
      method: 'DELETE',
      headers: { Cookie: s.cookie, 'X-CSRF-Token': s.csrf },
    });
    expect(out.status).toBe(204);
    expect((await fetch(`${g1}/api/v1/me`, { headers: { Cookie: s.cookie } })).status).toBe(401);
  });

  it('reads an agent’s push delivery log from the webhooks process through either gateway, scoped to the tenant', async () => {
    for (const base of [g1, g2]) {
      const r = await fetch(`${base}/api/v1/agents/demo-echo/push-deliveries?limit=5`, {
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      expect(r.status).toBe(200);
      const body = (await r.json()) as { agentId: string; deliveries: unknown[]; nextPageToken: string | null };
      expect(body.agentId).toBe('demo-echo');
      expect(Array.isArray(body.deliveries)).toBe(true);
      const missing = await fetch(`${base}/api/v1/agents/not-an-agent/push-deliveries`, {
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    }
  });

  it('streams a message/stream answer in the browser through the second gateway', async (ctx) => {
    if (!browser) {
      ctx.skip();
      return;
    }
    const { context, page, problems } = await newPage(browser);
    await page.goto(`${g2}/console/`);
    await page.getByLabel('User token').fill(adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Test console' }).click();
    await page.getByRole('heading', { level: 1, name: 'Test console' }).waitFor();
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-echo');
    await page.getByLabel('Method', { exact: true }).selectOption('message/stream');
    await page.getByLabel('Or paste a key value').fill(sut.a2aKey);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('p.status').textContent(), { timeout: 30_000 }).toContain('Stream ended');
    const frames = await page.locator('ol.frames > li').allTextContents();
    expect(frames.at(-1)).toContain('"final":true');
    expect(frames.join('\n')).toContain('"state":"completed"');
    expect(problems).toEqual([]);
    await context.close();
  });
});
