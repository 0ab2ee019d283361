import { describe, expect, it } from 'vitest';
import {
  deploymentAgentOut,
  keyOut,
  limitOf,
  newAgent,
  pushDeliveryOut,
  settingsPatch,
} from '../../src/http/management-router';

describe('management router: REST JSON onto the typed control-plane messages (no HTTP)', () => {
  it('maps the REST spellings of the settings: seconds to ms, console strategy labels, null to a present empty string', () => {
    expect(
      settingsPatch({
        blockingBudgetSeconds: 30.5,
        versionStrategy: 'Pinned',
        pinnedVersion: '1.0.0',
        schedule: null,
        rateLimitPerMinute: 2,
        a2aEnabled: true,
        pushNotificationsEnabled: false,
        defaultA2aVersion: '0.2.6',
        status: 'stopped',
      }),
    ).toEqual({
      blockingBudgetMs: 30_500,
      versionStrategy: 'pinned',
      pinnedVersion: '1.0.0',
      schedule: '',
      rateLimitPerMinute: 2,
      a2aEnabled: true,
      pushNotificationsEnabled: false,
      defaultA2aVersion: '0.2.6',
      status: 'stopped',
    });
  });

  it('refuses unknown settings naming the allowed REST names, and JSON of the wrong type, before any call', () => {
    let err: unknown;
    try {
      settingsPatch({ colour: 'blue' });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'INVALID_PARAMS', message: 'unknown setting colour' });
    expect((err as { details?: { allowed?: string[] } }).details?.allowed).toContain('blockingBudgetSeconds');
    expect((err as { details?: { allowed?: string[] } }).details?.allowed).not.toContain('blockingBudgetMs');
    expect(() => settingsPatch({})).toThrow('no settings given');
    // A fraction cannot travel in an int64 field: refused here rather than truncated on the wire.
    expect(() => settingsPatch({ rateLimitPerMinute: 1.5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_PARAMS' }),
    );
    expect(() => settingsPatch({ a2aEnabled: 'yes' })).toThrow('a2aEnabled must be a boolean');
    expect(() => settingsPatch({ schedule: '' })).toThrow('schedule must be a non-empty string or null');
    // The versions list travels as its wrapper message; tasks checks the values.
    expect(settingsPatch({ a2aVersions: ['0.3.0', '1.0'] })).toEqual({ a2aVersions: { values: ['0.3.0', '1.0'] } });
    expect(() => settingsPatch({ a2aVersions: '1.0' })).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
    // Out-of-range magnitudes stay out of range (tasks refuses them) instead of overflowing int64.
    expect(settingsPatch({ blockingBudgetSeconds: 1e300 }).blockingBudgetMs).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('media type lists keep their presence: absent means the defaults, [] is sent as present and empty', () => {
    const base = { name: 'A', type: 'AI Agent' };
    expect(newAgent(base).defaultInputModes).toBeUndefined();
    expect(newAgent({ ...base, defaultInputModes: [] }).defaultInputModes).toEqual({ values: [] });
    expect(newAgent({ ...base, skills: [{ id: 's', name: 'S', description: 'd' }] }).skills).toEqual([
      { id: 's', name: 'S', description: 'd', tags: [], examples: [] },
    ]);
    expect(() => newAgent({ ...base, name: 7 })).toThrow('name must be a non-empty string');
    expect(() => newAgent({ ...base, skills: ['x'] })).toThrow('each skill must be an object');
  });

  it('renders typed keys with ISO dates and a status', () => {
    const k = keyOut({ id: 'k', name: 'n', prefix: 'a2a_1234', scopes: ['a2a'], createdAtMs: 0, revokedAtMs: 1000 });
    expect(k).toMatchObject({
      scope: 'a2a',
      expiresAt: null,
      revokedAt: '1970-01-01T00:00:01.000Z',
      status: 'revoked',
    });
    expect(
      keyOut({ id: 'k', name: 'n', prefix: 'p', scopes: ['a2a', 'invoke'], createdAtMs: 1, expiresAtMs: 1 }).status,
    ).toBe('expired');
  });

  it('maps a push delivery record to REST: ISO times, null for what is absent, the target as { url, host }', () => {
    expect(
      pushDeliveryOut({
        taskId: 't1',
        seq: 3,
        configId: 'c1',
        outcome: 'refused',
        attempts: 1,
        error: 'url must resolve to a public address',
        targetUrl: 'https://h.example/in?token=REDACTED',
        targetHost: 'h.example',
        startedAtMs: Date.UTC(2026, 0, 2, 3, 4, 5),
        lastAttemptAtMs: Date.UTC(2026, 0, 2, 3, 4, 6),
      }),
    ).toEqual({
      taskId: 't1',
      seq: 3,
      configId: 'c1',
      outcome: 'refused',
      httpStatus: null,
      attempts: 1,
      error: 'url must resolve to a public address',
      target: { url: 'https://h.example/in?token=REDACTED', host: 'h.example' },
      startedAt: '2026-01-02T03:04:05.000Z',
      lastAttemptAt: '2026-01-02T03:04:06.000Z',
      finishedAt: null,
    });
    expect(
      pushDeliveryOut({
        taskId: 't',
        seq: 1,
        configId: 'c',
        outcome: 'delivered',
        httpStatus: 204,
        attempts: 1,
        error: '',
        targetUrl: 'u',
        targetHost: 'h',
        startedAtMs: 1,
      }),
    ).toMatchObject({ httpStatus: 204, error: null });
  });

  it('reads ?limit= as 1 to 100, absent meaning the default', () => {
    expect(limitOf(undefined)).toBe(0);
    expect(limitOf('1')).toBe(1);
    expect(limitOf('100')).toBe(100);
    for (const bad of ['0', '101', '-1', '2.5', 'ten', '', ['5', '6']])
      expect(() => limitOf(bad), String(bad)).toThrow(/limit must be an integer from 1 to 100/);
  });
});

describe('management router: a deployment agent lists every A2A endpoint it serves', () => {
  it('the 1.0 interfaces (gRPC only when served, with the agent as tenant) beside the 0.3 endpoint', () => {
    const agent = {
      agentId: 'a1',
      deploymentId: 'd1',
      name: 'A',
      type: 'AI Agent',
      status: 'running',
      servedVersion: '1.0.0',
      versionStrategy: 'latest',
      pinnedVersion: '',
      rateLimitPerMinute: 60,
      schedule: '',
      a2aEnabled: true,
      defaultA2aVersion: '0.3.0',
      a2aVersions: [] as string[],
      blockingBudgetMs: 1000,
      pushNotificationsEnabled: false,
      updatedAtMs: 0,
    };
    const withGrpc = deploymentAgentOut(agent, 'https://x.example', 'x.example:443').a2a as { interfaces: unknown[] };
    expect(withGrpc.interfaces).toEqual([
      { url: 'https://x.example/agents/a1/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://x.example/agents/a1/a2a/v1/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: 'x.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: 'a1' },
      { url: 'https://x.example/agents/a1/a2a/v0.3', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    const without = deploymentAgentOut(agent, 'https://x.example').a2a as { interfaces: { protocolBinding: string }[] };
    expect(without.interfaces.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'JSONRPC']);
  });

  it('only the versions the a2aVersions setting leaves on', () => {
    const base = { agentId: 'a1', deploymentId: 'd1', name: 'A', type: 'AI Agent', status: 'running' };
    const settings = { servedVersion: '1.0.0', versionStrategy: 'latest', pinnedVersion: '', schedule: '' };
    const agent = {
      ...base,
      ...settings,
      rateLimitPerMinute: 60,
      a2aEnabled: true,
      defaultA2aVersion: '0.3.0',
      a2aVersions: ['0.3.0', '0.2.6'],
      blockingBudgetMs: 1000,
      pushNotificationsEnabled: false,
      updatedAtMs: 0,
    };
    const out = deploymentAgentOut(agent, 'https://x.example', 'x.example:443');
    expect((out.settings as { a2aVersions: string[] }).a2aVersions).toEqual(['0.3.0', '0.2.6']);
    expect((out.a2a as { interfaces: unknown[] }).interfaces).toEqual([
      { url: 'https://x.example/agents/a1/a2a/v0.3', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    const only1 = deploymentAgentOut({ ...agent, a2aVersions: ['0.2.6', '1.0'] }, 'https://x.example', 'g:1');
    expect(
      (only1.a2a as { interfaces: { protocolVersion: string }[] }).interfaces.map((i) => i.protocolVersion),
    ).toEqual(['1.0', '1.0', '1.0']);
  });
});
