import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { silentLogger } from '@a2a-inbound/logger';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { dnsResolver, isPublicAddress, type Resolver } from '@a2a-inbound/runtime';
import { selfSignedCert, startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import {
  chromiumPath,
  ensureConsoleBuilt,
  launch,
  newPage,
  overflowing,
  ROOT,
  SCREENSHOTS,
  screenshots,
  seriousViolations,
  unreachableByTab,
} from './browser';

// Code passed to page.evaluate runs in the browser; the repository's lib has no DOM types, so its globals are loose here.
declare const document: any;
declare const localStorage: any;
declare const sessionStorage: any;
declare const navigator: any;
declare const Navigator: any;

/**
 * The web console in a real browser (Debian's chromium through playwright-core) against the embedded system:
 * sign-in per role, the A2A toggle, Test Discovery, a streamed Test console exchange, a key shown once, 429 and
 * INSUFFICIENT_CREDITS, link reports (empty and not-linked states), keyboard use, axe-core and screenshots at
 * 1280 and 390 px (test-output/console-screenshots). Without chromium it is skipped, except under CI.
 */
const FIXTURES = join(ROOT, 'services/linker/test/fixtures');
const browserPath = chromiumPath();
if (!browserPath && process.env.CI !== 'true')
  process.stderr.write(
    'test/console: chromium is not installed (apt-get install -y chromium): browser tests skipped\n',
  );
const maybe = browserPath || process.env.CI === 'true' ? describe : describe.skip;

/**
 * Push targets for the delivery log, through the same test seams as test/webhooks: at registration (the
 * gateway) every *.public.example name is public; at delivery (the webhooks service) `hook.public.example` is
 * the receiver on loopback, which only this test system allows, and `private.public.example` answers a private
 * address, which the SSRF guard refuses as in production. Other names resolve for real.
 */
const registrationResolver: Resolver = (host) =>
  host.endsWith('.public.example') ? Promise.resolve(['93.184.216.34']) : dnsResolver(host);
const deliveryResolver: Resolver = (host) =>
  host === 'hook.public.example'
    ? Promise.resolve(['127.0.0.1'])
    : host === 'private.public.example'
      ? Promise.resolve(['10.1.2.3'])
      : dnsResolver(host);
const PUSH_QUERY_SECRET = 'push-query-secret-in-browser';

/** Polls wait long enough for a loaded CI machine (vitest's default is 1 s). */
const POLL = { timeout: 15_000, interval: 100 };

// Each test drives a real browser through several pages: generous on a loaded 2-core CI machine.
maybe('web console in chromium', { timeout: 120_000 }, () => {
  let system: System;
  let browser: Browser;
  let base: string;
  let creds: { adminToken: string; operatorToken: string; a2aKey: string; invokeKey: string };
  let developerToken: string;
  let receiver: Receiver;

  const rest = async (method: string, path: string, token: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  /** Signs in through the form, by keyboard only: Tab to the field, type, Enter. */
  const signIn = async (page: Page, token: string): Promise<void> => {
    await page.goto(`${base}/console/`);
    await page.getByLabel('User token').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');
    await page.keyboard.type(token);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
  };
  /** Follows a navigation link and waits for that page's heading (hash routes switch asynchronously). */
  const open = async (page: Page, link: string, heading: string | RegExp = link): Promise<void> => {
    await page.getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const agentCard = (page: Page, agentId: string) => page.locator(`article.agent[data-agent="${agentId}"]`);

  /**
   * The service map drawn for this width: only the expected orientation shows, its nodes and edges (`from kind
   * to: label`) are the expected ones, no text reaches outside its node or over another node, and its scroll
   * box keeps the page from scrolling sideways.
   */
  const expectMap = async (page: Page, view: string, nodes: string[], edges: string[]): Promise<void> => {
    const map = page.locator(`svg.service-map[data-view=${view}]`);
    await map.waitFor({ state: 'visible' });
    const other = view === 'wide' ? 'narrow' : 'wide';
    expect(await page.locator(`svg.service-map[data-view=${other}]`).isVisible()).toBe(false);
    // The wide drawing fits the report column at 1280 px: nothing to scroll sideways.
    if (view === 'wide')
      expect(
        await map.evaluate((svg: any) => svg.closest('.map-box').scrollWidth <= svg.closest('.map-box').clientWidth),
      ).toBe(true);
    const drawn = await map.evaluate((svg: any) => {
      const box = (e: any) => e.getBoundingClientRect();
      const nodeEls = [...svg.querySelectorAll('g.node')];
      const clashes: string[] = [];
      const texts = [...svg.querySelectorAll('text')];
      for (const n of nodeEls) {
        const r = box(n.querySelector('rect'));
        for (const t of texts) {
          const b = box(t);
          const mine = n.contains(t);
          const inside =
            b.left >= r.left - 1 && b.right <= r.right + 1 && b.top >= r.top - 1 && b.bottom <= r.bottom + 1;
          const apart = b.right <= r.left || b.left >= r.right || b.bottom <= r.top || b.top >= r.bottom;
          if (mine ? !inside : !apart) clashes.push(`${t.textContent} / ${n.getAttribute('data-node')}`);
        }
      }
      return {
        nodes: nodeEls.map((n: any) => n.getAttribute('data-node')),
        edges: [...svg.querySelectorAll('g.edge')].map(
          (e: any) =>
            `${e.getAttribute('data-from')} ${e.getAttribute('data-kind')} ${e.getAttribute('data-to')}: ${e.getAttribute('data-label')}`,
        ),
        // What is drawn is the label, or its beginning cut with … (the title has it all).
        cut: [...svg.querySelectorAll('g.edge')]
          .map((e: any) => {
            const shown = [...e.querySelectorAll('tspan')].map((t: any) => t.textContent).join(' ');
            const full = e.getAttribute('data-label');
            return shown === full || (shown.endsWith('…') && full.startsWith(shown.slice(0, -1)))
              ? ''
              : `${shown} ≠ ${full}`;
          })
          .filter(Boolean),
        titled: [...svg.querySelectorAll('g.edge')].every((e: any) => e.querySelector('title')?.textContent),
        named: nodeEls.every((n: any) => n.getAttribute('aria-label') && n.getAttribute('tabindex') === '0'),
        fontPx: Math.min(...texts.map((t: any) => parseFloat((globalThis as any).getComputedStyle(t).fontSize))),
        clashes,
      };
    });
    expect(drawn.nodes.sort()).toEqual([...nodes].sort());
    expect(drawn.edges.sort()).toEqual([...edges].sort());
    expect(drawn.titled && drawn.named).toBe(true);
    expect(drawn.fontPx).toBeGreaterThanOrEqual(11); // legible: the drawing scrolls, it is never scaled down
    expect(drawn.clashes).toEqual([]);
    expect(drawn.cut).toEqual([]);
    expect(await overflowing(page)).toEqual([]);
  };

  beforeAll(async () => {
    const tls = await selfSignedCert();
    receiver = await startReceiver(tls);
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', CONSOLE_DIR: ensureConsoleBuilt(), LINKER_ALLOWED_DIRS: FIXTURES },
      log: silentLogger(),
      resolver: registrationResolver,
      webhookEgress: {
        isAllowed: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
        resolve: deliveryResolver,
        ca: tls.cert,
      },
    });
    base = system.baseUrl;
    creds = system.tasks.seed!.credentials!;
    developerToken = (
      await rest('POST', '/api/v1/users', creds.adminToken, { email: 'dev@demo.local', role: 'developer' })
    ).token;
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await system?.close();
    await receiver?.close();
  });

  it('signs in per role: the session cookie is HttpOnly and SameSite=Strict, nothing is kept in web storage, and what a role may not do is disabled with the reason', async () => {
    const expectations = [
      { token: () => creds.adminToken, label: 'Admin', a2a: true, push: false, key: true },
      { token: () => developerToken, label: 'Developer', a2a: false, push: false, key: true },
      { token: () => creds.operatorToken, label: 'Platform operator', a2a: false, push: true, key: false },
    ];
    for (const e of expectations) {
      const { context, page, problems } = await newPage(browser);
      await signIn(page, e.token());
      await expect.poll(() => page.locator('header .who strong').textContent(), POLL).toBe(e.label);
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === 'a2a_console');
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
      expect(await page.evaluate(() => document.cookie)).toBe('');

      const echo = agentCard(page, 'demo-echo');
      await echo.waitFor();
      expect(await echo.locator('.a2a-toggle').isDisabled()).toBe(!e.a2a);
      expect(await echo.locator('.push-toggle').isDisabled()).toBe(!e.push);
      if (!e.a2a) await expect.poll(() => echo.textContent(), POLL).toContain('Enabling A2A requires the Admin role');
      if (!e.push) await expect.poll(() => echo.textContent(), POLL).toContain('enabled by the platform operator');
      // The Task Agent's A2A toggle says why even for an Admin.
      if (e.a2a)
        await expect
          .poll(() => agentCard(page, 'demo-task-agent').textContent())
          .toContain('A2A is available only for AI Agents');

      await open(page, 'API keys');
      const create = page.getByRole('button', { name: 'Create key' });
      expect(await create.isDisabled()).toBe(!e.key);
      if (!e.key)
        expect(await page.textContent('main')).toContain('Creating API keys needs the Admin or Developer role');
      // What is disabled, the API refuses anyway with the same session (the UI only mirrors the rules).
      const refusals = await page.evaluate(async () => {
        const csrf = ((await (await fetch('/console/session')).json()) as { csrfToken: string }).csrfToken;
        const call = async (method: string, path: string, body: unknown): Promise<number> =>
          (
            await fetch(path, {
              method,
              headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
              body: JSON.stringify(body),
            })
          ).status;
        const settings = '/api/v1/deployments/demo-deployment/agents/demo-echo/settings';
        return {
          // Each sets the value it already has: an allowed call changes nothing.
          a2a: await call('PATCH', settings, { a2aEnabled: true }),
          push: await call('PATCH', settings, { pushNotificationsEnabled: false }),
          taskAgentA2a: await call('PATCH', '/api/v1/deployments/demo-deployment/agents/demo-task-agent/settings', {
            a2aEnabled: true,
          }),
        };
      });
      expect(refusals.a2a).toBe(e.a2a ? 200 : 403);
      expect(refusals.push).toBe(e.push ? 200 : 403);
      expect(refusals.taskAgentA2a).toBe(e.a2a ? 409 : 403);
      if (!e.key) {
        const refused = await page.evaluate(async () => {
          const csrf = ((await (await fetch('/console/session')).json()) as { csrfToken: string }).csrfToken;
          const r = await fetch('/api/v1/keys', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
            body: JSON.stringify({ scope: 'a2a' }),
          });
          return r.status;
        });
        expect(refused).toBe(403);
      }
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('User token').waitFor();
      expect((await context.cookies()).find((c) => c.name === 'a2a_console')).toBeUndefined();
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('refuses a wrong token with the API message, in place', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${base}/console/`);
    await page.getByLabel('User token').fill('usr_not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('[role=status]').textContent(), POLL).toContain('UNAUTHENTICATED');
    await context.close();
  });

  it('toggles A2A for an agent (Admin): saved at once, the banner count and the public card follow, by keyboard', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    const slow = agentCard(page, 'demo-slow');
    await slow.waitFor();
    const count = () => page.locator('.banner .count').textContent();
    const before = Number(await count());
    expect(await slow.locator('.endpoint').textContent()).toBe(`${base}/agents/demo-slow/a2a`);

    await slow.locator('.a2a-toggle').focus();
    await page.keyboard.press('Space');
    await expect.poll(() => slow.locator('[role=status]').textContent(), POLL).toContain('Saved: a2aEnabled');
    await expect.poll(async () => Number(await count()), POLL).toBe(before - 1);
    expect((await fetch(`${base}/agents/demo-slow/.well-known/agent-card.json`)).status).toBe(404);
    expect(await slow.textContent()).toContain('A2A is off for this agent');
    await screenshots(page, 'deployment-a2a-off');

    await slow.locator('.a2a-toggle').focus();
    await page.keyboard.press('Space');
    await expect.poll(async () => Number(await count()), POLL).toBe(before);
    expect((await fetch(`${base}/agents/demo-slow/.well-known/agent-card.json`)).status).toBe(200);
    await expect.poll(() => slow.locator('.endpoint').textContent(), POLL).toBe(`${base}/agents/demo-slow/a2a`);

    // A refused change shows the API's error and the switch shows what is really served.
    await rest('PATCH', '/api/v1/deployments/demo-deployment/agents/demo-echo/settings', creds.adminToken, {
      rateLimitPerMinute: 600,
    });
    const echo = agentCard(page, 'demo-echo');
    await echo.getByLabel('Rate limit (requests per minute)').fill('0');
    await echo.getByLabel('Rate limit (requests per minute)').press('Tab');
    await expect.poll(() => echo.locator('[role=status]').textContent(), POLL).toContain('Not saved: INVALID_PARAMS');
    // ... and the field shows what is really served again.
    await expect.poll(() => echo.getByLabel('Rate limit (requests per minute)').inputValue(), POLL).toBe('600');

    await screenshots(page, 'deployment');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists every A2A endpoint of an agent and turns a version off (its endpoints leave the list and the card)', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    const approval = agentCard(page, 'demo-approval');
    await approval.waitFor();
    const listed = () => approval.locator('code.interface').allTextContents();
    const v1 = `${base}/agents/demo-approval/a2a/v1`;
    await expect
      .poll(listed, POLL)
      .toEqual(expect.arrayContaining([v1, `${v1}/rest`, `${base}/agents/demo-approval/a2a/v0.3`]));
    expect(await approval.textContent()).toContain('A2A 1.0 GRPC (tenant demo-approval)');

    await approval.getByRole('checkbox', { name: '1.0', exact: true }).click();
    await expect.poll(() => approval.locator('[role=status]').textContent(), POLL).toContain('Saved: a2aVersions');
    await expect.poll(listed, POLL).toEqual([`${base}/agents/demo-approval/a2a/v0.3`]);
    const card = (await (await fetch(`${base}/agents/demo-approval/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { protocolVersion: string }[];
    };
    expect(card.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['0.3']);

    // The default version cannot be turned off: refused with the API's reason, the box shows what is served.
    await approval.getByRole('checkbox', { name: '0.3.0', exact: true }).click();
    await expect
      .poll(() => approval.locator('[role=status]').textContent(), POLL)
      .toContain('Not saved: INVALID_PARAMS');
    await expect
      .poll(() => approval.getByRole('checkbox', { name: '0.3.0', exact: true }).isChecked(), POLL)
      .toBe(true);

    await approval.getByRole('checkbox', { name: '1.0', exact: true }).click();
    await expect.poll(listed, POLL).toContain(v1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Test Discovery fetches the public catalog from the browser and shows the agents and their cards', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await page.getByRole('button', { name: 'Test Discovery' }).click();
    const result = page.getByRole('region', { name: 'Test Discovery result' });
    await expect.poll(() => result.textContent(), POLL).toMatch(/answered HTTP 200 in \d+ ms with 4 agent\(s\)/);
    const banner = await rest('GET', '/api/v1/deployments/demo-deployment/discovery', creds.adminToken);
    expect(await result.locator('ul.cards > li').count()).toBe(banner.a2aEnabledCount);
    expect(await result.textContent()).toContain('card 0.3.0');
    expect(await result.textContent()).toContain(`${base}/agents/demo-echo/.well-known/agent-card.json`);
    await screenshots(page, 'discovery');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a key\u2019s expiry as the day picked, in the user\u2019s time zone', async () => {
    const { context, page, problems } = await newPage(browser, 1280, { timezoneId: 'America/Los_Angeles' });
    await signIn(page, creds.adminToken);
    await open(page, 'API keys');
    await page.getByLabel('Name').fill('expiring key');
    await page.getByLabel('Expires (optional)').fill('2031-05-17');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('.once').waitFor();
    const row = page.locator('tbody tr', { hasText: 'expiring key' });
    await expect.poll(() => row.locator('td').nth(4).textContent(), POLL).toBe('2031-05-17');
    // Stored as the end of that day in Los Angeles (PDT, UTC-7): the next day in UTC.
    const keys = (await rest('GET', '/api/v1/keys', creds.adminToken)).keys as any[];
    expect(keys.find((k) => k.name === 'expiring key').expiresAt).toBe('2031-05-18T06:59:59.000Z');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('copies the endpoint and card URLs by keyboard, announces it, and copies without the Clipboard API too', async () => {
    const { context, page, problems } = await newPage(browser, 1280, {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    await signIn(page, creds.adminToken);
    const echo = agentCard(page, 'demo-echo');
    await echo.waitFor();
    const clipboard = () => page.evaluate(() => navigator.clipboard.readText() as Promise<string>);
    const copyByKeyboard = async (name: string) => {
      const button = echo.getByRole('button', { name });
      await button.focus();
      await page.keyboard.press('Enter');
      return button;
    };
    const endpoint = await copyByKeyboard('Copy Demo Echo Agent endpoint URL');
    await expect.poll(clipboard, POLL).toBe(`${base}/agents/demo-echo/a2a`);
    expect(await endpoint.textContent()).toBe('Copied');
    // The button keeps its accessible name; the live text beside it says what happened.
    expect(await endpoint.locator('xpath=following-sibling::span[1]').textContent()).toBe(
      'Copied Demo Echo Agent endpoint URL',
    );
    expect(await endpoint.locator('xpath=following-sibling::span[1]').getAttribute('aria-live')).toBe('polite');
    await copyByKeyboard('Copy Demo Echo Agent card URL 0.2.6');
    await expect.poll(clipboard, POLL).toBe(`${base}/agents/demo-echo/.well-known/agent.json`);

    // http on a LAN address has no Clipboard API (not a secure context): the copy still works.
    const plain = await context.newPage();
    await plain.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined, configurable: true }),
    );
    await plain.goto(`${base}/console/`);
    const plainEcho = plain.locator('article.agent[data-agent="demo-echo"]');
    await plainEcho.waitFor();
    const card = plainEcho.getByRole('button', { name: 'Copy Demo Echo Agent card URL 0.3.0' });
    await card.focus();
    await plain.keyboard.press('Enter');
    await expect.poll(() => card.textContent(), POLL).toBe('Copied');
    await page.bringToFront();
    await expect.poll(clipboard, POLL).toBe(`${base}/agents/demo-echo/.well-known/agent-card.json`);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('Test Discovery says what went wrong: no answer, an HTTP error, an answer that is not JSON, a redirect', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    const result = page.getByRole('region', { name: 'Test Discovery result' });
    const discover = async (route: Parameters<Page['route']>[1], expected: string | RegExp): Promise<void> => {
      await page.unroute('**/.well-known/agent-catalog.json');
      await page.route('**/.well-known/agent-catalog.json', route);
      await page.getByRole('button', { name: 'Test Discovery' }).click();
      await expect.poll(() => result.textContent(), POLL).toMatch(expected);
    };
    await discover((r) => r.abort('connectionrefused'), /The catalog could not be fetched/);
    await discover(
      (r) => r.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"down"}' }),
      /answered HTTP 503 in \d+ ms/,
    );
    await discover(
      (r) => r.fulfill({ status: 200, contentType: 'text/html', body: '<html>a login page</html>' }),
      /answered HTTP 200 in \d+ ms, but not with JSON \(text\/html\)/,
    );
    await discover(
      (r) => r.fulfill({ status: 302, headers: { Location: 'https://elsewhere.example/catalog.json' } }),
      /The catalog URL redirects/,
    );
    expect(await result.locator('.status.error').count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('offers message/send, not a stream the gateway would refuse, for an agent whose card does not stream', async () => {
    const { context, page, problems } = await newPage(browser);
    // demo-echo's card as an agent that does not stream would serve it (capabilities.streaming false).
    await page.route('**/agents/demo-echo/.well-known/agent-card.json', async (r) => {
      const card = (await (await r.fetch()).json()) as { capabilities: Record<string, unknown> };
      await r.fulfill({ json: { ...card, capabilities: { ...card.capabilities, streaming: false } } });
    });
    await signIn(page, creds.adminToken);
    await open(page, 'Test console');
    const method = page.getByLabel('Method', { exact: true });
    const stream = method.locator('option[value="message/stream"]');
    // The page opens on the deployment's default agent (its card may be read before or after this selection).
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-echo');
    await expect.poll(() => method.inputValue(), POLL).toBe('message/send');
    await expect.poll(() => stream.isDisabled(), POLL).toBe(true);
    expect(await page.getByLabel('Request (JSON)').inputValue()).toContain('"message/send"');
    expect(await stream.textContent()).toContain('the agent does not stream');
    expect(await method.locator('option[value="tasks/resubscribe"]').isDisabled()).toBe(true);
    // The invoke endpoint's stream is not A2A streaming: still offered.
    expect(await method.locator('option[value="run/stream"]').isDisabled()).toBe(false);
    // An agent that streams gets its stream methods back.
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-slow');
    await expect.poll(() => stream.isDisabled(), POLL).toBe(false);
    await method.selectOption('message/stream');
    expect(await page.getByLabel('Request (JSON)').inputValue()).toContain('"message/stream"');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an agent whose card cannot be read right now keeps its stream methods (an error answer is not a card)', async () => {
    const { context, page, problems } = await newPage(browser);
    let served = 0;
    await page.route('**/agents/demo-slow/.well-known/agent-card.json', async (r) => {
      served += 1;
      await r.fulfill({ status: 503, json: { error: { code: 'UNAVAILABLE', message: 'try again' } } });
    });
    await signIn(page, creds.adminToken);
    await open(page, 'Test console');
    const method = page.getByLabel('Method', { exact: true });
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-slow');
    await expect.poll(() => served, POLL).toBeGreaterThan(0);
    await method.selectOption('message/stream');
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-echo');
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-slow');
    await expect.poll(() => served, POLL).toBeGreaterThan(1);
    await new Promise((r) => setTimeout(r, 300)); // the answer read, the page updated
    expect(await method.inputValue()).toBe('message/stream');
    expect(await method.locator('option[value="message/stream"]').isDisabled()).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('creates a key shown once, then streams a message/stream answer live in the Test console and shows the credits left', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await open(page, 'API keys');
    await page.getByLabel('Name').fill('console e2e');
    await page.getByLabel('Scope').selectOption('a2a');
    await page.getByRole('button', { name: 'Create key' }).click();
    const once = page.locator('.once');
    await once.waitFor();
    expect(await once.textContent()).toContain('it is shown once');
    const value = (await page.locator('.key-value').textContent())!.trim();
    expect(value).toMatch(/^a2a_/);
    const table = await page.locator('table').textContent();
    expect(table).toContain('console e2e');
    expect(table).not.toContain(value);
    await screenshots(page, 'keys-created');
    expect(await seriousViolations(page)).toEqual([]);
    // Shown once: after leaving the page it is gone, and the list never shows it.
    await open(page, 'Deployment', /^Deployment/);
    await open(page, 'API keys');
    await expect.poll(() => page.locator('table').textContent(), POLL).toContain('console e2e');
    expect(await page.locator('.once').count()).toBe(0);
    expect(await page.textContent('main')).not.toContain(value);
    expect(
      await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })),
    ).not.toContain(value);

    const creditsBefore = (await rest('GET', '/api/v1/credits', creds.adminToken)).credits as number;
    await open(page, 'Test console');
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-slow');
    await page.getByLabel('Method', { exact: true }).selectOption('message/stream');
    await expect.poll(() => page.getByLabel('Key (scope a2a)').inputValue(), POLL).toContain('console e2e');
    await page.getByRole('button', { name: 'Send' }).click();
    const frames = page.locator('ol.frames > li');
    // Live: a first frame is shown while the stream is still open (demo-slow takes a while to finish).
    await frames.first().waitFor();
    await expect.poll(() => page.locator('p.status').textContent(), { timeout: 30_000 }).toContain('Stream ended');
    // Arrival times in the browser: the answer came about 3 s after the first frames (demo-slow works 3 s), so
    // frames were read and shown as they arrived, not at the end.
    const at = (await page.locator('ol.frames .at').allTextContents()).map((t) => Number(t.replace(/\D/g, '')));
    expect(at.at(-1)! - at[0]!).toBeGreaterThan(1_500);
    // The deltas assembled by artifact id into the answer text.
    expect(await page.locator('.answer-text').first().textContent()).toContain('Finished after');
    const all = await frames.allTextContents();
    expect(all.length).toBeGreaterThan(2);
    expect(all[0]).toContain('"state":"working"');
    expect(all.at(-1)).toContain('"final":true');
    const creditsAfter = (await rest('GET', '/api/v1/credits', creds.adminToken)).credits as number;
    expect(creditsAfter).toBeLessThan(creditsBefore);
    await expect.poll(() => page.locator('.credits-left').textContent(), POLL).toBe(String(creditsAfter));
    // The next request's template carries the streamed task's id: tasks/get reads it back, completed.
    const taskId = JSON.parse(all[0]!.replace(/^\+\d+ ms/, '')).result.id as string;
    await page.getByLabel('Method', { exact: true }).selectOption('tasks/get');
    expect(await page.getByLabel('Request (JSON)').inputValue()).toContain(taskId);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('pre.answer').textContent(), POLL).toContain('"state": "completed"');
    expect(await page.locator('p.status').textContent()).toMatch(/^HTTP 200/);
    await page.getByLabel('Method', { exact: true }).selectOption('tasks/resubscribe');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('p.status').textContent(), POLL).toContain('Stream ended after 1 frame(s)');
    await screenshots(page, 'test-console-stream');
    // tasks/cancel: a non-blocking message/send (the JSON edited) leaves demo-slow working; the cancel ends it.
    await page.getByLabel('Method', { exact: true }).selectOption('message/send');
    const send = JSON.parse(await page.getByLabel('Request (JSON)').inputValue());
    send.params.configuration = { blocking: false };
    await page.getByLabel('Request (JSON)').fill(JSON.stringify(send, null, 2));
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('pre.answer').textContent(), POLL).toContain('"state": "working"');
    await page.getByLabel('Method', { exact: true }).selectOption('tasks/cancel');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('pre.answer').textContent(), POLL).toContain('"state": "canceled"');
    // Once more: the task is finished, and the JSON-RPC error is shown as one.
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('p.status').textContent(), POLL).toMatch(/^Error -32002/);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a 429 and INSUFFICIENT_CREDITS as such in the Test console', async () => {
    const { context, page } = await newPage(browser);
    await rest('PATCH', '/api/v1/deployments/demo-deployment/agents/demo-failing/settings', creds.adminToken, {
      rateLimitPerMinute: 1,
    });
    await signIn(page, creds.adminToken);
    await open(page, 'Test console');
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-failing');
    await page.getByLabel('Method', { exact: true }).selectOption('message/send');
    await page.getByLabel('Or paste a key value').fill(creds.a2aKey);
    const status = page.locator('p.status');
    for (let i = 0; i < 2; i += 1) {
      await page.getByRole('button', { name: 'New request' }).click();
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => status.textContent(), POLL).not.toBe('Sending…');
    }
    await expect.poll(() => status.textContent(), POLL).toContain('HTTP 429: rate limited');
    expect(await status.textContent()).toContain('Retry-After');

    await rest('PUT', '/api/v1/credits/cost', creds.operatorToken, {
      cost: 10_000_000,
      subscriptionId: 'demo-subscription',
    });
    try {
      await page.getByLabel('Agent', { exact: true }).selectOption('demo-echo');
      await page.getByRole('button', { name: 'New request' }).click();
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => status.textContent(), POLL).toContain('INSUFFICIENT_CREDITS');
      // The invoke endpoints refuse with HTTP 402 and the code: named the same way.
      await page.getByLabel('Method', { exact: true }).selectOption('run');
      await page.getByLabel('Or paste a key value').fill(creds.invokeKey);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect.poll(() => page.locator('pre.answer').textContent(), POLL).toContain('INSUFFICIENT_CREDITS');
      expect(await status.textContent()).toMatch(/^INSUFFICIENT_CREDITS: /);
      expect(await page.locator('pre.answer').textContent()).not.toContain('jsonrpc');
    } finally {
      await rest('PUT', '/api/v1/credits/cost', creds.operatorToken, { cost: 1, subscriptionId: 'demo-subscription' });
    }
    await context.close();
  });

  it('streams an invoke run (run/stream) with an invoke key, and shows a wrong-scope key\u2019s 403', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await open(page, 'Test console');
    await page.getByLabel('Agent', { exact: true }).selectOption('demo-echo');
    await page.getByLabel('Method', { exact: true }).selectOption('run/stream');
    await page.getByLabel('Or paste a key value').fill(creds.invokeKey);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('p.status').textContent(), { timeout: 30_000 }).toContain('Stream ended');
    const frames = await page.locator('ol.frames > li').allTextContents();
    expect(frames.join('\n')).toContain('"run_id"');
    expect(frames.at(-1)).toContain('"final":true');
    expect(await page.locator('.answer-text').count()).toBeGreaterThan(0);
    const runId = JSON.parse(frames[0]!.replace(/^\+\d+ ms/, '')).run_id as string;
    // The run history (GET runs) lists it.
    await page.getByLabel('Method', { exact: true }).selectOption('runs/list');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('pre.answer').textContent(), POLL).toContain(`"run_id": "${runId}"`);
    expect(await page.locator('p.status').textContent()).toMatch(/^HTTP 200/);

    await page.getByLabel('Method', { exact: true }).selectOption('run/stream');
    await page.getByLabel('Or paste a key value').fill(creds.a2aKey);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('p.status').textContent(), POLL).toContain('HTTP 403');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('creates a key by keyboard alone (Tab, type, arrows, Enter)', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await page.getByRole('link', { name: 'API keys' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').focus();
    await page.keyboard.type('keyboard key');
    await page.keyboard.press('Tab'); // scope
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key-scope');
    await page.keyboard.press('ArrowDown'); // invoke
    await page.keyboard.press('Tab'); // expiry date
    await page.keyboard.press('Tab'); // date picker parts, then the button
    for (
      let i = 0;
      i < 4 && (await page.evaluate(() => document.activeElement?.textContent?.trim())) !== 'Create key';
      i += 1
    )
      await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('.once').waitFor();
    // Focus moves to the one-time value so a keyboard or screen-reader user lands on it.
    await expect.poll(() => page.evaluate(() => document.activeElement?.className), POLL).toBe('once');
    expect(await page.locator('.key-value').textContent()).toMatch(/^inv_/);
    expect(await page.locator('table').textContent()).toContain('keyboard key');
    await context.close();
  });

  it('pins a version with the pin picker, promotes a version, and revokes a key', async () => {
    const { context, page, problems } = await newPage(browser);
    const echo = await rest('GET', '/api/v1/agents/demo-echo', creds.adminToken);
    const v1 = echo.versions[0];
    await rest('POST', '/api/v1/agents/demo-echo/versions', creds.adminToken, {
      version: '1.1.0',
      runtime: v1.runtime,
      runtimeConfig: v1.runtimeConfig,
    });
    await signIn(page, creds.adminToken);
    const card = agentCard(page, 'demo-echo');
    await card.waitFor();
    const served = () => card.locator('p').first().textContent();
    await card.getByLabel('Version behaviour').selectOption('pinned');
    await expect.poll(() => card.locator('[role=status]').textContent(), POLL).toContain('Saved: versionStrategy');
    await expect.poll(() => card.getByLabel('Pinned version').isEnabled(), POLL).toBe(true);
    await card.getByLabel('Pinned version').selectOption('1.1.0');
    await expect.poll(() => card.locator('[role=status]').textContent(), POLL).toBe('Saved: pinnedVersion');
    await expect.poll(served, POLL).toContain('1.1.0');
    const placed = await rest('GET', '/api/v1/deployments/demo-deployment', creds.adminToken);
    expect(placed.agents.find((a: any) => a.agentId === 'demo-echo')).toMatchObject({
      servedVersion: '1.1.0',
      settings: { versionStrategy: 'pinned', pinnedVersion: '1.1.0' },
    });
    await card.getByLabel('Version behaviour').selectOption('latest-production');
    await expect.poll(served, POLL).toContain('1.0.0');

    await open(page, 'Agents and versions');
    // The definition, opened by keyboard.
    const echoItem = page.locator('li[data-agent="demo-echo"]');
    await echoItem.locator('details > summary', { hasText: 'Definition' }).focus();
    await page.keyboard.press('Enter');
    const definition = JSON.parse((await echoItem.locator('details pre').first().textContent())!);
    expect(definition).toMatchObject({ id: 'demo-echo', type: 'AI Agent' });
    expect(definition.versions.map((v: any) => v.version)).toEqual(expect.arrayContaining(['1.0.0', '1.1.0']));
    const promote = page.getByRole('button', { name: 'Promote' }).first();
    await promote.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('p.status').textContent(), POLL).toContain('Promoted Demo Echo Agent 1.1.0');
    expect((await rest('GET', '/api/v1/agents/demo-echo', creds.adminToken)).versions).toEqual(
      expect.arrayContaining([expect.objectContaining({ version: '1.1.0', status: 'PRODUCTION' })]),
    );
    await screenshots(page, 'agents-promoted');
    expect(await seriousViolations(page)).toEqual([]);

    await rest('POST', '/api/v1/keys', creds.adminToken, { scope: 'invoke', name: 'to revoke' });
    await open(page, 'API keys');
    const row = page.locator('tr', { hasText: 'to revoke' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => row.textContent(), POLL).toContain('revoked');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lets the operator enable push notifications: saved, and the public card says so', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.operatorToken);
    const card = agentCard(page, 'demo-approval');
    await card.waitFor();
    await card.locator('.push-toggle').check();
    await expect.poll(() => card.locator('[role=status]').textContent(), POLL).toBe('Saved: pushNotificationsEnabled');
    const published = (await (await fetch(`${base}/agents/demo-approval/.well-known/agent-card.json`)).json()) as any;
    expect(published.capabilities.pushNotifications).toBe(true);
    await card.locator('.push-toggle').uncheck();
    await expect.poll(() => card.locator('.push-toggle').isChecked(), POLL).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('returns to sign-in, saying so, when the session ends elsewhere', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await agentCard(page, 'demo-echo').waitFor();
    // Signed out from another tab: the server forgets the session.
    await page.evaluate(async () => {
      const csrf = ((await (await fetch('/console/session')).json()) as { csrfToken: string }).csrfToken;
      await fetch('/console/session', { method: 'DELETE', headers: { 'X-CSRF-Token': csrf } });
    });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByLabel('User token').waitFor();
    expect(await page.locator('[role=status]').textContent()).toContain('Your session has ended');
    await context.close();
  });

  it('shows link reports: the empty state, the not-linked state, and a linked table with filters and evidence', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await open(page, 'Applications');
    expect(await page.textContent('main')).toContain('No application yet');

    const addApp = async (name: string, sources: [string, string][]): Promise<void> => {
      await page.getByLabel('New application').fill(name);
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page.getByRole('heading', { name, level: 2 }).waitFor();
      for (const [source, dir] of sources) {
        await page.getByLabel('Source name').fill(source);
        await page.getByLabel('Git URL or server directory').fill(dir);
        await page.getByRole('button', { name: 'Add source' }).click();
        await page.getByRole('button', { name: `Ingest ${source}` }).click();
        await expect
          .poll(() => page.locator('p.status').textContent(), { timeout: 30_000 })
          .toContain(`Ingest ${source}: done`);
      }
    };

    await addApp('independent', [
      ['blog', join(FIXTURES, 'independent/blog')],
      ['wiki', join(FIXTURES, 'independent/wiki')],
    ]);
    const empty = page.locator('.empty-state');
    await empty.waitFor();
    expect(await empty.textContent()).toContain('Both outcomes are legitimate');
    expect(await page.locator('[data-stat=apiLinks]').textContent()).toBe('0');
    expect(await page.locator('ol.stages').textContent()).toMatch(
      /fetch\s+completed[\s\S]*parse\s+completed[\s\S]*link\s+completed/,
    );
    await screenshots(page, 'applications-empty');
    expect(await seriousViolations(page)).toEqual([]);

    // Archives (what the distributed mode takes: no server directories there), uploaded from the browser.
    const tmp = mkdtempSync(join(tmpdir(), 'console-archives-'));
    for (const name of ['blog', 'wiki'])
      execFileSync('tar', ['czf', join(tmp, `${name}.tar.gz`), '-C', join(FIXTURES, 'independent', name), '.']);
    await page.getByLabel('New application').fill('archives');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('heading', { name: 'archives', level: 2 }).waitFor();
    for (const name of ['blog', 'wiki']) {
      await page.getByLabel('Source name').fill(name);
      await page.getByLabel('or an archive (.tar.gz, .zip)').setInputFiles(join(tmp, `${name}.tar.gz`));
      await page.getByRole('button', { name: 'Add source' }).click();
      await expect
        .poll(() => page.locator('p.status').textContent(), { timeout: 30_000 })
        .not.toBe(`Add source ${name}…`);
      expect(await page.locator('p.status').textContent()).toBe(`Add source ${name}: done`);
    }
    await page.locator('.empty-state').waitFor();
    expect(await page.locator('ol.stages').textContent()).toMatch(/link\s+completed/);

    await addApp('single', [['blog', join(FIXTURES, 'independent/blog')]]);
    await page.locator('.not-linked').waitFor();
    expect(await page.locator('.not-linked').textContent()).toContain('the application has one source');

    await addApp('http-polyglot', [
      ['catalog', join(FIXTURES, 'http-polyglot/catalog')],
      ['orders', join(FIXTURES, 'http-polyglot/orders')],
      ['storefront', join(FIXTURES, 'http-polyglot/storefront')],
    ]);
    const rows = page.locator('table.links tbody tr');
    await rows.first().waitFor();
    const total = await rows.count();
    expect(total).toBeGreaterThan(0);
    expect(await rows.first().textContent()).toMatch(/:\d+/); // file:line evidence
    await page.getByLabel('Filter').fill('orders');
    await expect.poll(() => rows.count(), POLL).toBeLessThanOrEqual(total);
    const filtered = await rows.allTextContents();
    expect(filtered.every((r) => r.toLowerCase().includes('orders'))).toBe(true);
    await page.getByLabel('Filter').fill('');
    await expect.poll(() => rows.count(), POLL).toBe(total);
    const kinds = (await page.getByLabel('Match').locator('option').allTextContents()).filter((k) => k !== 'all');
    expect(kinds.length).toBeGreaterThan(0);
    await page.getByLabel('Match').selectOption(kinds[0]!);
    const matching = await rows.locator('td:nth-child(4)').allTextContents();
    expect(matching.length).toBeGreaterThan(0);
    expect(matching.every((m) => m === kinds[0])).toBe(true);
    await page.getByLabel('Match').selectOption('');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download Markdown' }).click();
    expect((await download).suggestedFilename()).toBe('http-polyglot-link-report.md');
    expect(readFileSync(await (await download).path(), 'utf8')).toMatch(/\| Caller \| Calls \| Served by \| Match \|/);
    const json = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download JSON' }).click();
    expect((await json).suggestedFilename()).toBe('http-polyglot-link-report.json');
    const downloaded = JSON.parse(readFileSync(await (await json).path(), 'utf8'));
    expect(JSON.stringify(downloaded)).toContain('apiLinks');
    expect(readFileSync(await (await download).path(), 'utf8')).toContain('```mermaid\nflowchart LR\n');

    // The service map (issue 20): sources as nodes, API links labelled with the route or a count, the calls the
    // three sources cannot place (the fixture's other services are not attached) as dashed edges to a marker.
    const polyglot = [
      'catalog api orders: GET /api/Orders/{id:int}',
      'catalog unresolved unresolved calls: 4 unresolved calls',
      'orders api catalog: GET /api/products/{sku}',
      'orders unresolved unresolved calls: 3 unresolved calls',
      'storefront api catalog: 2 API calls',
      'storefront api orders: 2 API calls',
      'storefront unresolved unresolved calls: 2 unresolved calls',
    ];
    await expectMap(page, 'wide', ['catalog', 'orders', 'storefront', 'unresolved calls'], polyglot);
    await page.setViewportSize({ width: 390, height: 900 });
    await expectMap(page, 'narrow', ['catalog', 'orders', 'storefront', 'unresolved calls'], polyglot);
    await page.setViewportSize({ width: 1280, height: 900 });
    await screenshots(page, 'applications-report');
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('draws the service map of a messaging application: flows labelled with their binding, gaps marked, at 1280 and 390 px, by keyboard', async () => {
    const app = await rest('POST', '/api/applications', creds.adminToken, { name: 'messaging-map' });
    for (const name of ['audit-go', 'billing-cs', 'dashboard-js', 'notifier-py', 'orders-js', 'shipping-java']) {
      const src = await rest('POST', `/api/applications/${app.id}/sources`, creds.adminToken, {
        name,
        dir: join(FIXTURES, 'messaging', name),
      });
      await rest('POST', `/api/applications/${app.id}/ingest`, creds.adminToken, { source: src.id });
    }
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await open(page, 'Applications');
    await page.getByRole('button', { name: 'messaging-map', exact: true }).click();
    const flows = [
      'audit-go message shipping-java: payments / payment.done → shipping.payments',
      'billing-cs message shipping-java: payments / payment.done → shipping.payments',
      'notifier-py gap messaging gaps: consumer: consume queue sms',
      'orders-js message audit-go: audit → audit.archive',
      'orders-js message billing-cs: orders / order.* → billing.orders',
      'orders-js message dashboard-js: orders / order.# → dashboard.orders',
      'orders-js message notifier-py: 2 bindings',
      'orders-js message shipping-java: orders / order.cancelled → shipping.cancellations',
      'orders-js gap messaging gaps: publisher: publish inventory / stock.low',
      'shipping-java gap messaging gaps: publisher: publish to queue shipping.status (default exchange)',
    ];
    const sources = ['audit-go', 'billing-cs', 'dashboard-js', 'notifier-py', 'orders-js', 'shipping-java'];
    await expectMap(page, 'wide', [...sources, 'messaging gaps'], flows);
    // The cut label keeps its whole text in the edge's title; the marker is drawn dashed.
    const cut = page.locator('svg.service-map[data-view=wide] g.edge[data-from=shipping-java] title');
    expect(await cut.textContent()).toContain('publish to queue `shipping.status` (default exchange)');
    expect(
      await page
        .locator('svg.service-map[data-view=wide] g.node.gaps rect')
        .evaluate((r: any) => (globalThis as any).getComputedStyle(r).strokeDasharray),
    ).not.toBe('none');
    // Keyboard: Tab reaches the map's region, then each source, which reads out its connections.
    await page.locator('svg.service-map[data-view=wide]').evaluate((svg: any) => svg.closest('.map-box').focus());
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
    expect(focused).toMatch(
      /^audit-go; sends to shipping-java: payments \/ payment\.done → shipping\.payments; receives from orders-js: audit → audit\.archive/,
    );
    expect(await unreachableByTab(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 900 });
    await expectMap(page, 'narrow', [...sources, 'messaging gaps'], flows);
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'applications-service-map');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows an agent’s push delivery log: a delivery, one the SSRF guard refused, no secrets, and the empty state', async () => {
    // The operator enables push for the agent; a client registers two push configs on a task, then completes it.
    await rest('PATCH', '/api/v1/deployments/demo-deployment/agents/demo-approval/settings', creds.operatorToken, {
      pushNotificationsEnabled: true,
    });
    try {
      const a2a = async (method: string, params: unknown): Promise<any> => {
        const res = await fetch(`${base}/agents/demo-approval/a2a`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${creds.a2aKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: method, method, params }),
        });
        const body = (await res.json()) as any;
        if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
        return body.result;
      };
      const text = (t: string) => ({
        role: 'user',
        messageId: `m-${Math.random()}`,
        parts: [{ kind: 'text', text: t }],
      });
      const task = await a2a('message/send', { message: text('deploy v3') });
      for (const [id, url] of [
        ['hook', `https://hook.public.example:${receiver.port}/ok?token=${PUSH_QUERY_SECRET}`],
        ['private', 'https://private.public.example/hook'],
      ])
        await a2a('tasks/pushNotificationConfig/set', {
          taskId: task.id,
          pushNotificationConfig: { id, url, token: 'browser-push-token' },
        });
      expect((await a2a('message/send', { message: { ...text('approve'), taskId: task.id } })).status.state).toBe(
        'completed',
      );
      // The final update's deliveries are in the log (both outcomes) before the page is opened.
      await expect
        .poll(
          async () => {
            const log = await rest('GET', '/api/v1/agents/demo-approval/push-deliveries', developerToken);
            return (log.deliveries as any[])
              .filter((d) => d.taskId === task.id && d.outcome !== 'pending')
              .map((d) => d.outcome)
              .sort()
              .join();
          },
          { timeout: 30_000, interval: 200 },
        )
        .toMatch(/delivered.*refused/);

      const { context, page, problems } = await newPage(browser);
      await signIn(page, developerToken);
      await open(page, 'Agents and versions');
      const approval = page.locator('li[data-agent="demo-approval"]');
      // By keyboard: focus the log's summary and open it.
      await approval.locator('push-log summary').focus();
      await page.keyboard.press('Enter');
      const rows = approval.locator('push-log tbody tr');
      await expect.poll(() => rows.count(), POLL).toBeGreaterThanOrEqual(2);
      const refused = approval.locator('push-log tr[data-config="private"]').first();
      expect(await refused.textContent()).toContain('Refused (not a public https address)');
      expect(await refused.textContent()).toContain('no answer: url must resolve to a public address');
      expect(await refused.textContent()).toContain(task.id);
      expect(await refused.locator('code.url').textContent()).toBe('https://private.public.example/hook');
      const delivered = approval.locator('push-log tr[data-config="hook"]').first();
      expect(await delivered.textContent()).toContain('Delivered');
      expect(await delivered.locator('td').nth(1).textContent()).toBe('200');
      expect(await delivered.locator('td').nth(2).textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      expect(await delivered.locator('code.url').textContent()).toBe(
        `https://hook.public.example:${receiver.port}/ok?token=REDACTED`,
      );
      expect(await page.textContent('main')).not.toContain(PUSH_QUERY_SECRET);
      expect(await page.textContent('main')).not.toContain('browser-push-token');

      // An agent without deliveries shows the empty state.
      const echo = page.locator('li[data-agent="demo-echo"]');
      await echo.locator('push-log summary').click();
      await expect.poll(() => echo.locator('push-log .empty').textContent(), POLL).toContain('No push deliveries yet');
      await approval.locator('push-log summary').scrollIntoViewIfNeeded();
      await screenshots(page, 'agents-push-log');
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await rest('PATCH', '/api/v1/deployments/demo-deployment/agents/demo-approval/settings', creds.operatorToken, {
        pushNotificationsEnabled: false,
      });
    }
  });

  it('lists the management changes in the Audit log for the Admin, read-only; other roles are told why not', async () => {
    // A change made through the REST API as the admin: recorded by the tasks service with who, what and how.
    const key = await rest('POST', '/api/v1/keys', creds.adminToken, { name: 'audited key', scope: 'a2a' });
    await rest('DELETE', `/api/v1/keys/${key.id}`, creds.adminToken);
    const me = await rest('GET', '/api/v1/me', creds.adminToken);
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    await open(page, 'Audit log');
    const revoked = page.locator(`table.audit tr[data-operation="RevokeKey"]`).filter({ hasText: key.id }).first();
    await revoked.waitFor(POLL);
    const cells = await revoked.locator('td').allTextContents();
    expect(cells[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(cells.slice(1)).toEqual(['RevokeKey', expect.stringContaining(key.id), me.userId, 'admin', 'in-process']);
    // Newest first: the revoke is above the create of the same key.
    const operations = await page
      .locator('table.audit tbody tr')
      .evaluateAll((rows: any[]) => rows.map((r) => `${r.dataset.operation} ${r.textContent}`));
    const at = (op: string) => operations.findIndex((o) => o.startsWith(op) && o.includes(key.id));
    expect(at('RevokeKey')).toBeGreaterThanOrEqual(0);
    expect(at('RevokeKey')).toBeLessThan(at('CreateKey'));
    // Read-only: nothing on the page changes anything.
    expect(await page.locator('main button, main form').count()).toBe(0);
    expect(await page.textContent('main')).not.toContain(key.key);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'audit-admin');
    expect(problems).toEqual([]);
    await context.close();

    const dev = await newPage(browser);
    await signIn(dev.page, developerToken);
    await open(dev.page, 'Audit log');
    expect(await dev.page.textContent('main')).toContain('The audit log is for the Admin role');
    expect(await dev.page.locator('table.audit').count()).toBe(0);
    expect(dev.problems).toEqual([]);
    await dev.context.close();
  });

  it('reaches every enabled control of every page by Tab (Admin), a link report included', async () => {
    const { context, page, problems } = await newPage(browser);
    await signIn(page, creds.adminToken);
    // Applications last: the report below is opened from its page.
    for (const link of ['Deployment', 'Test console', 'API keys', 'Agents and versions', 'Audit log', 'Applications']) {
      await open(page, link, link === 'Deployment' ? /^Deployment/ : link);
      await page.waitForLoadState('networkidle');
      expect(await unreachableByTab(page), link).toEqual([]);
    }
    // An application with its report (the link-report test made it), opened by keyboard.
    await page.getByRole('button', { name: 'http-polyglot', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.locator('table.links tbody tr').first().waitFor();
    expect(await unreachableByTab(page), 'Applications with a report').toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('renders every page at 390 px without horizontal overflow, passes axe-core, and is screenshotted', async () => {
    const { context, page, problems } = await newPage(browser, 390);
    await page.goto(`${base}/console/`);
    await page.getByLabel('User token').waitFor();
    await screenshots(page, 'sign-in');
    expect(await seriousViolations(page)).toEqual([]);
    await signIn(page, creds.operatorToken);
    for (const [link, name] of [
      ['Deployment', 'deployment-operator'],
      ['Test console', 'test-console'],
      ['API keys', 'keys-operator'],
      ['Agents and versions', 'agents'],
      ['Audit log', 'audit-operator'],
      ['Applications', 'applications-operator'],
    ] as const) {
      await open(page, link, link === 'Deployment' ? /^Deployment/ : link);
      await page.waitForLoadState('networkidle');
      await page.setViewportSize({ width: 390, height: 900 });
      expect(await overflowing(page), `${link} overflows at 390 px`).toEqual([]);
      await screenshots(page, name);
      expect(await seriousViolations(page), link).toEqual([]);
    }
    expect(await page.textContent('main')).toContain('Link reports need the Admin or Developer role');
    expect(problems).toEqual([]);
    process.stdout.write(`console screenshots: ${SCREENSHOTS}\n`);
    await context.close();
  });
});
