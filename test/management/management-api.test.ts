import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, rpc, textMessage } from '@a2a-inbound/testing';
import { closeHarness, http, startHarness, uid, type Harness } from './helpers';

const DEPLOYMENT = 'demo-deployment';

describe('management REST API (/api/v1)', () => {
  let h: Harness;
  let base: string;
  let admin: string;
  let operator: string;
  let developer: string;
  const api = (method: string, path: string, token: string | undefined, body?: unknown) =>
    http(base, method, `/api/v1${path}`, { token, body });
  const card = async (agentId: string) => http(base, 'GET', `/agents/${agentId}/.well-known/agent-card.json`);
  const send = async (agentId: string, text: string, key = h.creds.a2aKey) =>
    rpc(
      `${base}/agents/${agentId}/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage(text) } },
      { key },
    );
  const answerOf = (r: { body: any }): string =>
    r.body.result.artifacts
      .find((a: any) => a.name === 'agent_response')
      .parts.map((p: any) => p.text)
      .join('');

  /** An AI agent with a PRODUCTION 1.0.0 (demo:echo) placed in the demo deployment; A2A as given. */
  async function placedAgent(opts: {
    a2a: boolean;
    type?: string;
    runtime?: string;
    runtimeConfig?: Record<string, unknown>;
  }): Promise<string> {
    const created = await api('POST', '/agents', developer, {
      name: uid('Agent'),
      description: 'test agent',
      type: opts.type ?? 'AI Agent',
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['test'], examples: ['hi'] }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(
      (
        await api('POST', `/agents/${id}/versions`, developer, {
          version: '1.0.0',
          runtime: opts.runtime ?? 'demo:echo',
          runtimeConfig: opts.runtimeConfig ?? {},
        })
      ).status,
    ).toBe(201);
    expect((await api('POST', `/agents/${id}/versions/1.0.0/promote`, developer)).status).toBe(200);
    const added = await api('POST', `/deployments/${DEPLOYMENT}/agents`, opts.a2a ? admin : developer, {
      agentId: id,
      settings: opts.a2a ? { a2aEnabled: true } : {},
    });
    expect(added.status).toBe(201);
    return id;
  }

  beforeAll(async () => {
    h = await startHarness();
    base = h.base;
    admin = h.creds.adminToken;
    operator = h.creds.operatorToken;
    const dev = await api('POST', '/users', admin, { email: `${uid('dev')}@example.com`, role: 'developer' });
    expect(dev.status).toBe(201);
    developer = dev.body.token;
  }, 60_000);
  afterAll(async () => closeHarness(h), 60_000);

  describe('authentication and errors', () => {
    it('refuses a missing or unknown user token with 401 JSON and WWW-Authenticate', async () => {
      const missing = await api('GET', '/agents', undefined);
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe('UNAUTHENTICATED');
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const wrong = await api('GET', '/agents', 'usr_not-a-real-token-at-all-xxxxxxxxxxxxxxxxx');
      expect(wrong.status).toBe(401);
      // An API key is not a user token.
      expect((await api('GET', '/agents', h.creds.a2aKey)).status).toBe(401);
    });

    it('answers JSON, never HTML: unknown route 404, malformed JSON 400, non-JSON body 415, oversized body 413', async () => {
      const unknown = await api('GET', '/nope', admin);
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toMatch(/application\/json/);
      expect(unknown.body.error.code).toBe('NOT_FOUND');
      const malformed = await http(base, 'POST', '/api/v1/agents', {
        token: admin,
        body: '{"name":',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('PARSE_ERROR');
      const form = await http(base, 'POST', '/api/v1/agents', {
        token: admin,
        body: 'name=x',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(415);
      expect(form.body.error).toBeDefined();
      const huge = await api('POST', '/agents', admin, { name: 'x'.repeat(1_100_000) });
      expect(huge.status).toBe(413);
      expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('malformed paths and bodies give JSON 400s on every surface (management, legacy, invoke)', async () => {
      const cases: [string, string, string, unknown?][] = [
        ['GET', '/api/v1/agents/%ZZ', admin],
        ['POST', '/api/v1/keys', admin, '[1,2]'],
        ['GET', '/agents/%ZZ/runs', h.creds.invokeKey],
        ['GET', '/agents/demo-echo/runs?limit=abc', h.creds.invokeKey],
        ['GET', `/agents/demo-echo/runs/${'x'.repeat(5000)}`, h.creds.invokeKey],
        ['GET', '/agents/demo-echo/tasks/%ZZ', h.creds.a2aKey],
        ['GET', '/agents/demo-echo/tasks/x?history_length=-1', h.creds.a2aKey],
      ];
      for (const [method, path, token, body] of cases) {
        const r = await http(base, method, path, { token, body });
        expect(r.status, `${method} ${path}`).toBe(400);
        expect(r.body.error.code, `${method} ${path}`).toMatch(/^INVALID_(REQUEST|PARAMS)$/);
      }
    });

    it('tells a user who they are', async () => {
      const me = await api('GET', '/me', developer);
      expect(me.status).toBe(200);
      expect(me.body.role).toBe('developer');
      expect(me.body.subscriptionId).toBe('demo-subscription');
    });
  });

  describe('agents, versions and deployments', () => {
    it('creates, lists and reads agents with their versions', async () => {
      const id = await placedAgent({ a2a: false });
      const got = await api('GET', `/agents/${id}`, developer);
      expect(got.status).toBe(200);
      expect(got.body.versions).toEqual([
        expect.objectContaining({ version: '1.0.0', status: 'PRODUCTION', runtime: 'demo:echo' }),
      ]);
      const list = await api('GET', '/agents', operator);
      expect(list.body.agents.map((a: any) => a.id)).toContain(id);
      const dep = await api('GET', `/deployments/${DEPLOYMENT}`, developer);
      const placed = dep.body.agents.find((a: any) => a.agentId === id);
      expect(placed.settings).toMatchObject({
        versionStrategy: 'latest-production',
        a2aEnabled: false,
        pushNotificationsEnabled: false,
        blockingBudgetSeconds: 120,
        defaultA2aVersion: '0.3.0',
      });
      expect(placed.a2a).toBeNull();
    });

    it('creates deployments and lists them', async () => {
      const d = await api('POST', '/deployments', developer, { name: 'second deployment' });
      expect(d.status).toBe(201);
      const list = await api('GET', '/deployments', developer);
      expect(list.body.deployments.map((x: any) => x.id)).toEqual(expect.arrayContaining([DEPLOYMENT, d.body.id]));
    });

    it('refuses to add an agent that has no PRODUCTION version', async () => {
      const created = await api('POST', '/agents', developer, { name: 'draft only', type: 'AI Agent' });
      await api('POST', `/agents/${created.body.id}/versions`, developer, { version: '0.1.0', runtime: 'demo:echo' });
      const add = await api('POST', `/deployments/${DEPLOYMENT}/agents`, developer, { agentId: created.body.id });
      expect(add.status).toBe(409);
      expect(add.body.error.code).toBe('FAILED_PRECONDITION');
      expect(add.body.error.message).toMatch(/PRODUCTION/);
    });

    it('removing an agent stops it serving at once while the rest of the deployment keeps working', async () => {
      const a = await placedAgent({ a2a: true });
      const b = await placedAgent({ a2a: true });
      expect((await send(a, 'before')).body.result.status.state).toBe('completed');
      expect((await card(a)).status).toBe(200);
      const removed = await api('DELETE', `/deployments/${DEPLOYMENT}/agents/${a}`, developer);
      expect(removed.status).toBe(204);
      const after = await send(a, 'after');
      expect(after.status).toBe(404);
      expect(after.body.error).toBeDefined();
      expect((await card(a)).status).toBe(404);
      const other = await send(b, 'still here');
      expect(other.body.result.status.state).toBe('completed');
      expect(answerOf(other)).toBe('still here');
      // and the catalog no longer lists it
      const catalog = await http(base, 'GET', `/deployments/${DEPLOYMENT}/.well-known/agent-catalog.json`);
      const ids = catalog.body.entries.map((e: any) => e.metadata['dev.a2a-inbound.agentId']);
      expect(ids).toContain(b);
      expect(ids).not.toContain(a);
    });

    it('switching to a newly promoted version or pinning back changes the card version and the behaviour at once', async () => {
      const id = await placedAgent({ a2a: true });
      expect((await card(id)).body.version).toBe('1.0.0');
      expect(answerOf(await send(id, 'hello'))).toBe('hello');
      // v2: another runtime (the slow demo, configured to answer at once).
      expect(
        (
          await api('POST', `/agents/${id}/versions`, developer, {
            version: '2.0.0',
            runtime: 'demo:slow',
            runtimeConfig: { workMs: 0 },
          })
        ).status,
      ).toBe(201);
      expect((await card(id)).body.version).toBe('1.0.0'); // published is not served yet
      expect((await api('POST', `/agents/${id}/versions/2.0.0/promote`, developer)).status).toBe(200);
      expect((await card(id)).body.version).toBe('2.0.0');
      expect(answerOf(await send(id, 'hello'))).toBe('Finished after 0 ms: hello');
      const pinned = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, developer, {
        versionStrategy: 'pinned',
        pinnedVersion: '1.0.0',
      });
      expect(pinned.status).toBe(200);
      expect(pinned.body.servedVersion).toBe('1.0.0');
      expect((await card(id)).body.version).toBe('1.0.0');
      expect(answerOf(await send(id, 'hello'))).toBe('hello');
      const latest = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, developer, {
        versionStrategy: 'Latest production',
      });
      expect(latest.body.settings.versionStrategy).toBe('latest-production');
      expect((await card(id)).body.version).toBe('2.0.0');
    });

    it('pinning a version that does not exist is refused', async () => {
      const id = await placedAgent({ a2a: false });
      const r = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, developer, {
        versionStrategy: 'pinned',
        pinnedVersion: '9.9.9',
      });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('INVALID_PARAMS');
    });

    it('inline settings: rate limit, schedule, blocking budget in seconds, default A2A version; unknown settings refused', async () => {
      const id = await placedAgent({ a2a: true });
      const r = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, developer, {
        rateLimitPerMinute: 2,
        schedule: '0 * * * *',
        blockingBudgetSeconds: 30,
        defaultA2aVersion: '0.2.6',
      });
      expect(r.status).toBe(200);
      expect(r.body.settings).toMatchObject({
        rateLimitPerMinute: 2,
        schedule: '0 * * * *',
        blockingBudgetSeconds: 30,
        defaultA2aVersion: '0.2.6',
      });
      expect(r.body.a2a.protocolVersion).toBe('0.2.6');
      expect((await send(id, 'one')).status).toBe(200);
      expect((await send(id, 'two')).status).toBe(200);
      const third = await send(id, 'three');
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      const bad = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, developer, { colour: 'blue' });
      expect(bad.status).toBe(400);
      const wrongDeployment = await api('PATCH', `/deployments/other-deployment/agents/${id}/settings`, developer, {
        rateLimitPerMinute: 5,
      });
      expect(wrongDeployment.status).toBe(404);
    });

    it('sets the deployment default agent (admin only)', async () => {
      const dev = await api('PUT', `/deployments/${DEPLOYMENT}/default-agent`, developer, { agentId: 'demo-slow' });
      expect(dev.status).toBe(403);
      const ok = await api('PUT', `/deployments/${DEPLOYMENT}/default-agent`, admin, { agentId: 'demo-slow' });
      expect(ok.status).toBe(200);
      expect((await http(base, 'GET', '/.well-known/agent-card.json')).body.name).toBe('Demo Slow Agent');
      await api('PUT', `/deployments/${DEPLOYMENT}/default-agent`, admin, { agentId: 'demo-echo' });
      expect((await http(base, 'GET', '/.well-known/agent-card.json')).body.name).toBe('Demo Echo Agent');
    });
  });

  describe('roles', () => {
    it('a developer cannot enable A2A; an admin can, and the agent starts serving', async () => {
      const id = await placedAgent({ a2a: false });
      expect((await card(id)).status).toBe(404);
      const dev = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, developer, {
        a2aEnabled: true,
      });
      expect(dev.status).toBe(403);
      expect(dev.body.error.code).toBe('PERMISSION_DENIED');
      expect((await card(id)).status).toBe(404);
      const adm = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, admin, { a2aEnabled: true });
      expect(adm.status).toBe(200);
      expect(adm.body.settings.a2aEnabled).toBe(true);
      expect(adm.body.a2a).toMatchObject({ protocolVersion: '0.3.0', endpointUrl: `${base}/agents/${id}/a2a` });
      expect((await card(id)).status).toBe(200);
      expect((await send(id, 'on')).body.result.status.state).toBe('completed');
    });

    it('a developer cannot add an agent with A2A enabled', async () => {
      const created = await api('POST', '/agents', developer, { name: 'dev a2a', type: 'AI Agent' });
      await api('POST', `/agents/${created.body.id}/versions`, developer, { version: '1.0.0', runtime: 'demo:echo' });
      await api('POST', `/agents/${created.body.id}/versions/1.0.0/promote`, developer);
      const add = await api('POST', `/deployments/${DEPLOYMENT}/agents`, developer, {
        agentId: created.body.id,
        settings: { a2aEnabled: true },
      });
      expect(add.status).toBe(403);
    });

    it('a Task Agent refuses A2A, even for an admin', async () => {
      const r = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/demo-task-agent/settings`, admin, {
        a2aEnabled: true,
      });
      expect(r.status).toBe(409);
      expect(r.body.error.message).toMatch(/only for AI Agents/);
      expect((await card('demo-task-agent')).status).toBe(404);
    });

    it('only the platform operator enables push notifications; then the card advertises them', async () => {
      const id = await placedAgent({ a2a: true });
      expect((await card(id)).body.capabilities.pushNotifications).toBe(false);
      for (const token of [admin, developer]) {
        const r = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, token, {
          pushNotificationsEnabled: true,
        });
        expect(r.status).toBe(403);
      }
      const op = await api('PATCH', `/deployments/${DEPLOYMENT}/agents/${id}/settings`, operator, {
        pushNotificationsEnabled: true,
      });
      expect(op.status).toBe(200);
      expect(op.body.settings.pushNotificationsEnabled).toBe(true);
      expect((await card(id)).body.capabilities.pushNotifications).toBe(true);
    });

    it('an operator cannot create agents; only an admin creates users', async () => {
      expect((await api('POST', '/agents', operator, { name: 'x', type: 'AI Agent' })).status).toBe(403);
      expect((await api('POST', '/users', developer, { email: 'x@example.com', role: 'developer' })).status).toBe(403);
    });
  });

  describe('API keys', () => {
    it('shows the value once, lists keys without values, and a revoked key gets 401 at once', async () => {
      const created = await api('POST', '/keys', developer, { name: 'ci key', scope: 'a2a' });
      expect(created.status).toBe(201);
      const value: string = created.body.key;
      expect(value).toMatch(/^a2a_/);
      expect(created.body).toMatchObject({ name: 'ci key', scope: 'a2a', status: 'active', expiresAt: null });
      const list = await api('GET', '/keys', developer);
      const listed = list.body.keys.find((k: any) => k.id === created.body.id);
      expect(listed.prefix).toBe(value.slice(0, 8));
      expect(listed).not.toHaveProperty('key');
      expect(list.text).not.toContain(value);
      expect((await send('demo-echo', 'with new key', value)).body.result.status.state).toBe('completed');
      const revoked = await api('DELETE', `/keys/${created.body.id}`, developer);
      expect(revoked.status).toBe(200);
      expect(revoked.body.status).toBe('revoked');
      const after = await send('demo-echo', 'after revoke', value);
      expect(after.status).toBe(401);
      expect(after.body.error).toBeDefined();
      expect(after.headers.get('www-authenticate')).toMatch(/Bearer/);
    });

    it('an expired key gets 401', async () => {
      const expiresAt = new Date(h.clock.now() + 3_600_000).toISOString();
      const created = await api('POST', '/keys', developer, { name: 'short-lived', scope: 'a2a', expiresAt });
      expect(created.status).toBe(201);
      expect(created.body.expiresAt).toBe(expiresAt);
      expect((await send('demo-echo', 'before expiry', created.body.key)).status).toBe(200);
      h.clock.skewMs += 2 * 3_600_000;
      try {
        const after = await send('demo-echo', 'after expiry', created.body.key);
        expect(after.status).toBe(401);
        expect(after.body.error.message).toMatch(/expired/i);
      } finally {
        h.clock.skewMs -= 2 * 3_600_000;
      }
    });

    it('refuses unknown scopes and past expiry dates', async () => {
      expect((await api('POST', '/keys', developer, { name: 'x', scope: 'admin' })).status).toBe(400);
      expect(
        (await api('POST', '/keys', developer, { name: 'x', scope: 'a2a', expiresAt: '2001-01-01T00:00:00Z' })).status,
      ).toBe(400);
    });

    it('an invoke key cannot call the A2A endpoint (403)', async () => {
      const r = await send('demo-echo', 'wrong scope', h.creds.invokeKey);
      expect(r.status).toBe(403);
    });
  });

  describe('credits', () => {
    it('reads credits; only the operator adds credits and sets the cost per invocation', async () => {
      const before = await api('GET', '/credits', developer);
      expect(before.status).toBe(200);
      expect(before.body.costPerInvocation).toBe(1);
      expect((await api('POST', '/credits/add', admin, { amount: 10 })).status).toBe(403);
      const added = await api('POST', '/credits/add', operator, { amount: 10 });
      expect(added.status).toBe(200);
      expect(added.body.credits).toBe(before.body.credits + 10);
      expect((await api('PUT', '/credits/cost', operator, { cost: 2 })).status).toBe(200);
      const c0 = (await api('GET', '/credits', developer)).body.credits as number;
      await send('demo-echo', 'costs two');
      const c1 = (await api('GET', '/credits', developer)).body.credits as number;
      expect(c0 - c1).toBe(2);
      await api('PUT', '/credits/cost', operator, { cost: 1 });
    });
  });

  describe('A2A Discovery banner and Test Discovery', () => {
    it('the banner count equals the catalog entries, with endpoint and card URLs per agent', async () => {
      const banner = await api('GET', `/deployments/${DEPLOYMENT}/discovery`, developer);
      expect(banner.status).toBe(200);
      expect(banner.body.catalogUrl).toBe(`${base}/deployments/${DEPLOYMENT}/.well-known/agent-catalog.json`);
      const catalog = await http(base, 'GET', `/deployments/${DEPLOYMENT}/.well-known/agent-catalog.json`);
      expect(banner.body.a2aEnabledCount).toBe(catalog.body.entries.length);
      expect(banner.body.a2aEnabledCount).toBeGreaterThanOrEqual(4);
      const echo = banner.body.agents.find((a: any) => a.id === 'demo-echo');
      expect(echo).toMatchObject({
        name: 'Demo Echo Agent',
        protocolVersion: '0.3.0',
        endpointUrl: `${base}/agents/demo-echo/a2a`,
        cardUrls: {
          '0.3.0': `${base}/agents/demo-echo/.well-known/agent-card.json`,
          '0.2.6': `${base}/agents/demo-echo/.well-known/agent.json`,
        },
      });
      expect(banner.body.agents.map((a: any) => a.id)).not.toContain('demo-task-agent');
      const dep = await api('GET', `/deployments/${DEPLOYMENT}`, developer);
      expect(dep.body.a2aEnabledCount).toBe(banner.body.a2aEnabledCount);
    });

    it('Test Discovery fetches the public catalog over HTTP and validates every card', async () => {
      const r = await api('POST', `/deployments/${DEPLOYMENT}/discovery/test`, developer);
      expect(r.status).toBe(200);
      expect(r.body.problems).toEqual([]);
      expect(r.body.ok).toBe(true);
      expect(r.body.status).toBe(200);
      expect(r.body.latencyMs).toBeGreaterThanOrEqual(0);
      expect(r.body.entries).toBe(r.body.expectedEntries);
      expect(r.body.cards.length).toBe(r.body.entries);
      expect(r.body.cards.every((c: any) => c.ok && c.status === 200)).toBe(true);
    });

    it('another tenant’s or an unknown deployment is 404', async () => {
      expect((await api('GET', '/deployments/nope/discovery', developer)).status).toBe(404);
      expect((await api('POST', '/deployments/nope/discovery/test', developer)).status).toBe(404);
    });
  });

  it('keeps a run record readable: a freshly created key works on a newly enabled agent end to end', async () => {
    const id = await placedAgent({ a2a: true });
    const key = (await api('POST', '/keys', developer, { name: 'e2e', scope: 'a2a' })).body.key as string;
    const r = await eventually(async () => {
      const x = await send(id, 'round trip', key);
      return x.body?.result?.status?.state === 'completed' ? x : undefined;
    });
    expect(answerOf(r)).toBe('round trip');
  });
});

describe('bootstrap from configuration (BOOTSTRAP_ADMIN_EMAIL / _TOKEN, BOOTSTRAP_OPERATOR_TOKEN)', () => {
  let h: Harness | undefined;
  afterAll(async () => closeHarness(h), 60_000);

  it('the configured admin and operator can use the management API at once', async () => {
    const adminToken = 'bootstrap-admin-token-0123456789abcdefghij';
    const operatorToken = 'bootstrap-operator-token-0123456789abcdefg';
    h = await startHarness({
      BOOTSTRAP_ADMIN_EMAIL: 'first@example.com',
      BOOTSTRAP_ADMIN_TOKEN: adminToken,
      BOOTSTRAP_OPERATOR_TOKEN: operatorToken,
    });
    const me = await http(h.base, 'GET', '/api/v1/me', { token: adminToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email: 'first@example.com', role: 'admin', subscriptionId: 'default' });
    expect((await http(h.base, 'GET', '/api/v1/me', { token: operatorToken })).body.role).toBe('operator');
    // The admin works in its own subscription: a deployment and a key of its own.
    const d = await http(h.base, 'POST', '/api/v1/deployments', { token: adminToken, body: { name: 'first' } });
    expect(d.status).toBe(201);
    const k = await http(h.base, 'POST', '/api/v1/keys', { token: adminToken, body: { name: 'k', scope: 'invoke' } });
    expect(k.body.key).toMatch(/^inv_/);
    // The demo subscription's agents are not visible to it.
    expect((await http(h.base, 'GET', '/api/v1/agents/demo-echo', { token: adminToken })).status).toBe(404);
  });
});
