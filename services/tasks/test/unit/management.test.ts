import { describe, expect, it } from 'vitest';
import { InMemoryCache, InMemoryDocumentStore, ManualClock, SequentialIds } from '@a2a-inbound/ports';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import type { Role } from '../../src/domain/control-model';
import { type Actor, actorOf, Management, SETTING_NAMES } from '../../src/domain/management';

async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 10, 25));
  const control = new ControlPlane(
    await openControlCollections(new InMemoryDocumentStore()),
    new InMemoryCache({ clock }),
    clock,
    new SequentialIds('m'),
  );
  await control.accounts.createSubscription('sub', 'Sub', 100);
  const m = new Management(control);
  const admin: Actor = { userId: 'u', role: 'admin', subscriptionId: 'sub' };
  const agent = await m.createAgent(admin, { name: 'Echo', description: '', type: 'AI Agent', skills: [] });
  await m.publishVersion(admin, agent.id, { version: '1.0.0', runtime: 'demo:echo', runtimeConfig: {} });
  await m.promoteVersion(admin, agent.id, '1.0.0');
  const deployment = await m.createDeployment(admin, 'D');
  return { control, m, admin, agentId: agent.id, deploymentId: deployment.id, clock };
}

type Setup = Awaited<ReturnType<typeof setup>>;
const ALL: Role[] = ['admin', 'developer', 'operator'];

/** Every typed operation with the roles that may call it (the rule table of the management API). */
const OPERATIONS: [string, Role[], (s: Setup, a: Actor) => Promise<unknown>][] = [
  ['createKey', ['admin', 'developer'], (s, a) => s.m.createKey(a, { name: 'k', scopes: ['a2a'] })],
  ['listKeys', ALL, (s, a) => s.m.listKeys(a)],
  ['revokeKey', ['admin', 'developer'], (s, a) => s.m.revokeKey(a, 'no-such-key')],
  ['credits', ALL, (s, a) => s.m.credits(a)],
  ['addCredits', ['operator'], (s, a) => s.m.addCredits(a, { subscriptionId: '', amount: 1 })],
  ['setCreditCost', ['operator'], (s, a) => s.m.setCreditCost(a, { subscriptionId: '', cost: 1 })],
  ['createUser', ['admin'], (s, a) => s.m.createUser(a, { email: `${a.role}@example.com`, role: 'developer' })],
  ['listUsers', ['admin', 'operator'], (s, a) => s.m.listUsers(a)],
  [
    'createAgent',
    ['admin', 'developer'],
    (s, a) => s.m.createAgent(a, { name: 'x', description: '', type: 'AI Agent', skills: [] }),
  ],
  ['listAgents', ALL, (s, a) => s.m.listAgents(a)],
  ['getAgent', ALL, (s, a) => s.m.getAgent(a, s.agentId)],
  [
    'publishVersion',
    ['admin', 'developer'],
    (s, a) => s.m.publishVersion(a, s.agentId, { version: `2.0.0-${a.role}`, runtime: 'demo:echo', runtimeConfig: {} }),
  ],
  ['promoteVersion', ['admin', 'developer'], (s, a) => s.m.promoteVersion(a, s.agentId, '1.0.0')],
  ['createDeployment', ['admin', 'developer'], (s, a) => s.m.createDeployment(a, 'x')],
  ['listDeployments', ALL, (s, a) => s.m.listDeployments(a)],
  ['getDeployment', ALL, (s, a) => s.m.getDeployment(a, s.deploymentId)],
  ['addAgent', ['admin', 'developer'], (s, a) => s.m.addAgent(a, { deploymentId: s.deploymentId, agentId: s.agentId })],
  ['removeAgent', ['admin', 'developer'], (s, a) => s.m.removeAgent(a, s.deploymentId, s.agentId)],
  ['setDefaultAgent', ['admin'], (s, a) => s.m.setDefaultAgent(a, s.deploymentId, null)],
  ['updateSettings', ALL, (s, a) => s.m.updateSettings(a, s.agentId, { rateLimitPerMinute: 5 })],
  ['listAuditEvents', ['admin'], (s, a) => s.m.listAuditEvents(a, 10)],
  ['listCardSigningKeys', ALL, (s, a) => s.m.listCardSigningKeys(a, s.deploymentId)],
  ['rotateCardSigningKey', ['admin'], (s, a) => s.m.rotateCardSigningKey(a, s.deploymentId)],
];

describe('management operations: the role rules live in the tasks service', () => {
  for (const [name, allowed, run] of OPERATIONS) {
    it(`${name}: allowed for ${allowed.join(', ')}; PERMISSION_DENIED for the other roles`, async () => {
      for (const role of ALL) {
        const s = await setup();
        const outcome = await run(s, { userId: 'u', role, subscriptionId: 'sub' }).then(
          () => 'ok',
          (err: { code?: string }) => err.code ?? 'thrown',
        );
        if (allowed.includes(role)) expect(outcome, `${name} as ${role}`).not.toBe('PERMISSION_DENIED');
        else expect(outcome, `${name} as ${role}`).toBe('PERMISSION_DENIED');
      }
    });
  }

  it('an actor with an unknown role is refused before any operation runs', () => {
    expect(() => actorOf({ userId: 'u', role: 'root', subscriptionId: 'sub' })).toThrow(
      expect.objectContaining({ code: 'PERMISSION_DENIED' }),
    );
    expect(() => actorOf(undefined)).toThrow(expect.objectContaining({ code: 'PERMISSION_DENIED' }));
    expect(actorOf({ userId: 'u', role: 'operator', subscriptionId: 'sub' }).role).toBe('operator');
  });
});

describe('management operations: value rules on typed input', () => {
  it('a developer may add an agent but not with A2A enabled; an admin may', async () => {
    const s = await setup();
    const dev: Actor = { ...s.admin, role: 'developer' };
    await expect(
      s.m.addAgent(dev, { deploymentId: s.deploymentId, agentId: s.agentId, a2aEnabled: true }),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    const placed = await s.m.addAgent(s.admin, {
      deploymentId: s.deploymentId,
      agentId: s.agentId,
      a2aEnabled: true,
      rateLimitPerMinute: 7,
      blockingBudgetMs: 5_000,
    });
    // The answer carries what is stored and how the agent is served now.
    expect(placed.settings).toMatchObject({ a2aEnabled: true, rateLimitPerMinute: 7, blockingBudgetMs: 5_000 });
    expect(placed.agent).toMatchObject({ agentId: s.agentId, servedVersion: '1.0.0', a2aEnabled: true });
  });

  it('ranges are checked when adding: rate limit 1..1,000,000, blocking budget 0..600 s', async () => {
    const s = await setup();
    const add = (extra: object) =>
      s.m.addAgent(s.admin, { deploymentId: s.deploymentId, agentId: s.agentId, ...extra });
    await expect(add({ rateLimitPerMinute: 0 })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(add({ rateLimitPerMinute: 1.5 })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(add({ blockingBudgetMs: 600_001 })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('settings: status must be running or stopped; pinned version and schedule at most 200 characters; null clears', async () => {
    const s = await setup();
    await s.m.addAgent(s.admin, { deploymentId: s.deploymentId, agentId: s.agentId });
    await expect(s.m.updateSettings(s.admin, s.agentId, { status: 'paused' as 'running' })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: 'status must be "running" or "stopped"',
    });
    await expect(s.m.updateSettings(s.admin, s.agentId, { schedule: 'x'.repeat(201) })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    const set = await s.m.updateSettings(s.admin, s.agentId, { schedule: '0 * * * *', status: 'stopped' });
    expect(set.settings).toMatchObject({ schedule: '0 * * * *', status: 'stopped' });
    expect(set.agent.status).toBe('stopped');
    expect((await s.m.updateSettings(s.admin, s.agentId, { schedule: null })).settings.schedule).toBeNull();
  });

  it('settings: a2aVersions (all by default) is a non-empty list of known versions that keeps the default', async () => {
    const s = await setup();
    await s.m.addAgent(s.admin, { deploymentId: s.deploymentId, agentId: s.agentId });
    expect((await s.control.catalog.resolveAgent(s.agentId)).a2aVersions).toEqual(['0.3.0', '0.2.6', '1.0']);
    for (const bad of [[], ['0.4'], ['1.0']] as never[][])
      await expect(s.m.updateSettings(s.admin, s.agentId, { a2aVersions: bad })).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
      });
    const set = await s.m.updateSettings(s.admin, s.agentId, { a2aVersions: ['1.0', '0.3.0', '1.0'] });
    expect(set.settings.a2aVersions).toEqual(['0.3.0', '1.0']);
    expect(set.agent.a2aVersions).toEqual(['0.3.0', '1.0']);
    await expect(s.m.updateSettings(s.admin, s.agentId, { defaultA2aVersion: '0.2.6' })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    const moved = await s.m.updateSettings(s.admin, s.agentId, { a2aVersions: ['0.2.6'], defaultA2aVersion: '0.2.6' });
    expect(moved.agent).toMatchObject({ a2aVersions: ['0.2.6'], defaultA2aVersion: '0.2.6' });
  });

  it('settings through a deployment path: the agent must be placed in that deployment', async () => {
    const s = await setup();
    await s.m.addAgent(s.admin, { deploymentId: s.deploymentId, agentId: s.agentId });
    await expect(
      s.m.updateSettings(s.admin, s.agentId, { rateLimitPerMinute: 3 }, 'another-deployment'),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const r = await s.m.updateSettings(s.admin, s.agentId, { rateLimitPerMinute: 3 }, s.deploymentId);
    expect(r.agent.rateLimitPerMinute).toBe(3);
  });

  it('media type lists: absent means the defaults, given means at least one', async () => {
    const s = await setup();
    const base = { name: 'M', description: '', type: 'AI Agent', skills: [] };
    const defaults = await s.m.createAgent(s.admin, base);
    expect(defaults.doc.defaultInputModes.length).toBeGreaterThan(0);
    await expect(s.m.createAgent(s.admin, { ...base, defaultInputModes: [] })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: 'media type lists must be non-empty arrays of strings',
    });
    const given = await s.m.createAgent(s.admin, { ...base, defaultOutputModes: ['text/csv'] });
    expect(given.doc.defaultOutputModes).toEqual(['text/csv']);
  });

  it('required names are non-empty: a user needs an email, a version a runtime', async () => {
    const s = await setup();
    await expect(s.m.createUser(s.admin, { email: '', role: 'developer' })).rejects.toMatchObject({
      message: 'email must be a non-empty string',
    });
    await expect(s.m.createUser(s.admin, { email: 'x@example.com', role: 'operator' })).rejects.toMatchObject({
      message: 'role must be admin or developer',
    });
    await expect(
      s.m.publishVersion(s.admin, s.agentId, { version: '3.0.0', runtime: '', runtimeConfig: {} }),
    ).rejects.toMatchObject({ message: 'runtime must be a non-empty string' });
  });

  it('the settings names are exactly the patchable fields of a deployment agent', () => {
    expect([...SETTING_NAMES].sort()).toEqual(
      [
        'a2aEnabled',
        'a2aVersions',
        'blockingBudgetMs',
        'defaultA2aVersion',
        'pinnedVersion',
        'pushNotificationsEnabled',
        'rateLimitPerMinute',
        'schedule',
        'status',
        'versionStrategy',
      ].sort(),
    );
  });
});

describe('upstream card egress', () => {
  it('close() ends the keep-alive connections the card check opened; a later check opens new ones', async () => {
    const { createServer } = await import('node:http');
    const { EgressPolicy } = await import('@a2a-inbound/runtime');
    const open = new Set<import('node:net').Socket>();
    const server = createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          protocolVersion: '0.3.0',
          name: 'Up',
          description: 'upstream',
          url: 'http://127.0.0.1/a2a',
          version: '1',
          capabilities: { streaming: false },
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
        }),
      );
    });
    server.on('connection', (s) => {
      open.add(s);
      s.on('close', () => open.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as import('node:net').AddressInfo).port;
    try {
      const { control } = await setup();
      const m = new Management(control, {
        egress: { policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.0/8'] }) },
      });
      const admin: Actor = { userId: 'u', role: 'admin', subscriptionId: 'sub' };
      const agent = await m.createAgent(admin, { name: 'Up', description: '', type: 'AI Agent', skills: [] });
      const publish = (version: string) =>
        m.publishVersion(admin, agent.id, {
          version,
          runtime: 'a2a-upstream',
          runtimeConfig: { url: `http://127.0.0.1:${port}/` },
        });
      await publish('1.0.0');
      expect(open.size).toBe(1); // kept alive for the next check
      await m.close();
      await expect.poll(() => open.size).toBe(0);
      await publish('1.0.1');
      expect(open.size).toBe(1);
      await m.close();
      await expect.poll(() => open.size).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
