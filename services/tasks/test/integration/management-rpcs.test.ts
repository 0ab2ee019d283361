import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  randomIds,
  systemClock,
} from '@a2a-inbound/ports';
import { controlV1 } from '@a2a-inbound/proto';
import { call, grpc } from '@a2a-inbound/runtime';
import { manage, MANAGEMENT_OPERATIONS } from '@a2a-inbound/testing';
import { startTasksApp, type TasksApp } from '../../src/app';
import { loadTasksConfig } from '../../src/config';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('the typed management RPCs of ControlPlaneService (real gRPC, in-memory adapters)', () => {
  let app: TasksApp;
  let client: controlV1.ControlPlaneServiceClient;
  let sut: { tasksAddress: string; subscriptionId: string };
  const admin: controlV1.ManagementActor = { userId: 'a', role: 'admin', subscriptionId: 'demo-subscription' };

  beforeAll(async () => {
    app = await startTasksApp(
      {
        store: new InMemoryDocumentStore(),
        blobs: new InMemoryBlobStore(),
        bus: new InMemoryBus(),
        eventLog: new InMemoryEventLog(),
        cache: new InMemoryCache(),
        clock: systemClock,
        ids: randomIds,
        log: silentLogger(),
      },
      loadTasksConfig({ TASKS_GRPC_PORT: '0', SEED_DEMO: 'true' }),
    );
    sut = { tasksAddress: app.grpc.address, subscriptionId: 'demo-subscription' };
    client = new controlV1.ControlPlaneServiceClient(app.grpc.address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await app?.close();
  });

  it('manage() runs every management operation by name over its typed RPC, with the JSON answers tests rely on', async () => {
    const seen = new Set<string>();
    const op = async (role: 'admin' | 'developer' | 'operator', name: string, params: Record<string, unknown>) => {
      seen.add(name);
      return manage(sut, role, name, params);
    };
    const agent = await op('admin', 'agents.create', { name: 'Typed', description: 'd', type: 'AI Agent' });
    expect(agent).toMatchObject({
      id: expect.any(String),
      name: 'Typed',
      versions: [],
      subscriptionId: sut.subscriptionId,
    });
    const published = await op('admin', 'agents.publishVersion', {
      agentId: agent.id,
      version: '1.0.0',
      runtime: 'demo:slow',
      runtimeConfig: { workMs: 5 },
    });
    expect(published.versions[0]).toMatchObject({
      status: 'published',
      runtimeConfig: { workMs: 5 },
      promotedAtMs: null,
    });
    const promoted = await op('admin', 'agents.promote', { agentId: agent.id, version: '1.0.0' });
    expect(promoted.versions[0]).toMatchObject({ status: 'production', promotedAtMs: expect.any(Number) });
    expect((await op('developer', 'agents.get', { agentId: agent.id })).id).toBe(agent.id);
    expect((await op('operator', 'agents.list', {})).map((a: { id: string }) => a.id)).toContain(agent.id);

    const dep = await op('admin', 'deployments.create', { name: 'typed deployment' });
    expect(dep).toMatchObject({ id: expect.any(String), defaultAgentId: null, createdAtMs: expect.any(Number) });
    expect((await op('developer', 'deployments.list', {})).map((d: { id: string }) => d.id)).toContain(dep.id);
    const placed = await op('admin', 'deployments.addAgent', {
      deploymentId: dep.id,
      agentId: agent.id,
      a2aEnabled: true,
    });
    expect(placed).toMatchObject({
      agentId: agent.id,
      deploymentId: dep.id,
      a2aEnabled: true,
      pinnedVersion: null,
      schedule: null,
      addedAtMs: expect.any(Number),
    });
    const updated = await op('admin', 'settings.update', {
      agentId: agent.id,
      settings: { rateLimitPerMinute: 4321, versionStrategy: 'pinned', pinnedVersion: '1.0.0', schedule: '0 * * * *' },
    });
    expect(updated).toMatchObject({ rateLimitPerMinute: 4321, versionStrategy: 'pinned', pinnedVersion: '1.0.0' });
    // null clears (the typed patch carries it as a present empty string).
    expect(
      (await op('admin', 'settings.update', { agentId: agent.id, settings: { schedule: null } })).schedule,
    ).toBeNull();
    await expect(
      op('admin', 'settings.update', { agentId: agent.id, settings: { colour: 'blue' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    const got = await op('operator', 'deployments.get', { deploymentId: dep.id });
    expect(got.a2aEnabledCount).toBe(1);
    expect(got.agents[0]).toMatchObject({ agentId: agent.id, rateLimitPerMinute: 4321, servedVersion: '1.0.0' });
    expect(got.agents[0]).not.toHaveProperty('providerOrganization');
    expect(await op('admin', 'deployments.setDefaultAgent', { deploymentId: dep.id, agentId: agent.id })).toEqual({
      ok: true,
    });
    expect(await op('admin', 'deployments.setDefaultAgent', { deploymentId: dep.id, agentId: null })).toEqual({
      ok: true,
    });
    expect(await op('developer', 'deployments.removeAgent', { deploymentId: dep.id, agentId: agent.id })).toEqual({
      removed: true,
    });

    const key = await op('developer', 'keys.create', { name: 'typed', scopes: ['a2a'] });
    expect(key).toMatchObject({
      id: expect.any(String),
      key: expect.stringMatching(/^a2a_/),
      createdAt: expect.stringMatching(ISO),
      expiresAt: null,
      revokedAt: null,
    });
    const listed = await op('operator', 'keys.list', {});
    expect(listed.find((k: { id: string }) => k.id === key.id)).toBeDefined();
    expect(JSON.stringify(listed)).not.toContain(key.key);
    expect((await op('developer', 'keys.revoke', { keyId: key.id })).revokedAt).toMatch(ISO);

    const before = await op('admin', 'credits.get', {});
    expect(before).toEqual({ credits: expect.any(Number), cost: expect.any(Number) });
    expect(await op('operator', 'credits.add', { amount: 5 })).toEqual({ credits: before.credits + 5 });
    expect(await op('operator', 'credits.setCost', { cost: 2 })).toEqual({ ok: true });
    expect((await op('admin', 'credits.get', {})).cost).toBe(2);

    const user = await op('admin', 'users.create', { email: 'Typed@Example.com', role: 'developer' });
    expect(user).toEqual({
      id: expect.any(String),
      token: expect.any(String),
      email: 'typed@example.com',
      role: 'developer',
    });
    const users = await op('admin', 'users.list', {});
    expect(users.find((u: { id: string }) => u.id === user.id)).toEqual({
      id: user.id,
      email: 'typed@example.com',
      role: 'developer',
      createdAt: expect.stringMatching(ISO),
    });

    expect([...seen].sort()).toEqual([...MANAGEMENT_OPERATIONS].sort());
    expect(MANAGEMENT_OPERATIONS).toHaveLength(20);
  });

  it('roles are checked by tasks on the typed RPCs: no or unknown actor, wrong role', async () => {
    await expect(call(client.listKeys.bind(client), {})).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(call(client.listKeys.bind(client), { actor: { ...admin, role: 'root' } })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'unknown role',
    });
    await expect(
      call(client.addCredits.bind(client), { actor: admin, subscriptionId: '', amount: 1 }),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(
      call(client.setDefaultAgent.bind(client), {
        actor: { ...admin, role: 'developer' },
        deploymentId: 'demo-deployment',
      }),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  });

  it('typed values: present-empty media types are refused, absent ones take the defaults; runtime config must be an object', async () => {
    const base = { actor: admin, name: 'Modes', description: '', type: 'AI Agent', skills: [] };
    await expect(
      call(client.createAgent.bind(client), { ...base, defaultInputModes: { values: [] } }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    const a = await call(client.createAgent.bind(client), base);
    expect(a.defaultInputModes.length).toBeGreaterThan(0);
    await expect(
      call(client.publishVersion.bind(client), {
        actor: admin,
        agentId: a.id,
        version: '1.0.0',
        runtime: 'demo:echo',
        runtimeConfigJson: '[1]',
      }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS', message: 'runtimeConfig must be a JSON object' });
  });

  it('a deployment-agent write answers with the stored settings and the served view in one call', async () => {
    const r = await call(client.updateAgentSettings.bind(client), {
      actor: admin,
      agentId: 'demo-echo',
      deploymentId: 'demo-deployment',
      patch: { blockingBudgetMs: 45_000, pinnedVersion: '' },
    });
    expect(r.settings).toMatchObject({ agentId: 'demo-echo', blockingBudgetMs: 45_000 });
    expect(r.settings?.pinnedVersion).toBeUndefined();
    expect(r.agent).toMatchObject({
      agentId: 'demo-echo',
      blockingBudgetMs: 45_000,
      providerOrganization: 'a2a-inbound',
    });
  });

  it('the untyped Manage RPC is gone: calling it answers UNIMPLEMENTED', async () => {
    const raw = new grpc.Client(app.grpc.address, grpc.credentials.createInsecure());
    try {
      const code = await new Promise<number | undefined>((resolve) => {
        raw.makeUnaryRequest(
          '/a2a_inbound.control.v1.ControlPlaneService/Manage',
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.alloc(0),
          (err) => resolve(err?.code),
        );
      });
      expect(code).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      raw.close();
    }
  });
});
