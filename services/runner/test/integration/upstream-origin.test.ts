import { createEgressAgent, EgressPolicy, type EgressAgent } from '@a2a-inbound/runtime';
import { startRedirectTrap, startUpstreamAgents, type RedirectTrap, type UpstreamAgents } from '@a2a-inbound/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentRuntime } from '../../src/domain/agent-runtime';
import { CARD_TTL_MS } from '../../src/runtimes/a2a-upstream';
import { egressRuntimes } from '../../src/runtimes';
import { fakeRun } from '../support/fake-run';

/**
 * ADR 0021, decision 9: an a2a-upstream token goes only to the configured URL's origin and to the origins the
 * version lists in `allowedOrigins`. Two real origins on loopback: the configured one (the trap's first server)
 * serves an agent card whose service URL is a real `@a2a-js/sdk` agent on another origin; that origin must never
 * see the token unless the version lists it, and a card that changes after a good run is checked again.
 */
const TOKEN = 'upstream-origin-token-secret';

let trap: RedirectTrap;
let up: UpstreamAgents;
let egress: EgressAgent;
let runtime: AgentRuntime;
/** The service URL the card on the configured origin names (changed by a test). */
let serviceUrl = '';

beforeAll(async () => {
  up = await startUpstreamAgents();
  trap = await startRedirectTrap((req) =>
    req.origin === 'first' && req.path.endsWith('/.well-known/agent-card.json')
      ? {
          body: {
            protocolVersion: '0.3.0',
            name: 'Moved',
            description: 'an agent whose card names its service on another origin',
            url: serviceUrl,
            version: '1',
            capabilities: { streaming: true },
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
          },
        }
      : undefined,
  );
  egress = createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.0/8'] }) });
  runtime = egressRuntimes(egress)['a2a-upstream']!;
});
afterAll(async () => {
  await egress.close();
  await up.close();
  await trap.close();
});
beforeEach(() => {
  serviceUrl = up.url('stream');
  up.requests.length = 0;
  trap.seen.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

/** Header values of `requests` that carry the token. */
const leaked = (requests: { headers: Record<string, string | string[] | undefined> }[]): string[] =>
  requests
    .flatMap((r) => Object.values(r.headers).flat())
    .filter((v): v is string => typeof v === 'string' && v.includes(TOKEN));

describe('a2a-upstream: the token stays with the configured origin', () => {
  it.each([undefined, 'X-Upstream-Token'])(
    'a card naming another origin is not called with the token (token in %s)',
    async (authHeader) => {
      const run = fakeRun({
        config: { url: `${trap.first}/agent-a`, tokenSecret: 'tok', ...(authHeader ? { authHeader } : {}) },
        secrets: { tok: TOKEN },
      });
      await runtime(run.ctx);
      expect(run.final()?.state).toBe('failed');
      expect(run.final()?.text).toContain(`"${up.base}"`);
      expect(run.final()?.text).toContain('runtimeConfig.allowedOrigins');
      expect(run.final()?.text).not.toContain(TOKEN);
      expect(leaked(up.requests)).toEqual([]);
      expect(up.requests).toEqual([]); // not even called without it: the run fails with the reason instead
      // The configured origin did get the token for the card read.
      expect(
        trap.seen.some((s) => s.origin === 'first' && s.headers[authHeader?.toLowerCase() ?? 'authorization']),
      ).toBe(true);
    },
  );

  it('the origin the version lists in allowedOrigins gets the token', async () => {
    const run = fakeRun({
      config: { url: `${trap.first}/agent-b`, tokenSecret: 'tok', allowedOrigins: [up.base] },
      secrets: { tok: TOKEN },
    });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('completed');
    expect(up.received.at(-1)!.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('without a token the card may name any origin the egress policy allows', async () => {
    const run = fakeRun({ config: { url: `${trap.first}/agent-c` } });
    await runtime(run.ctx);
    expect(run.final()?.state).toBe('completed');
    expect(up.received.at(-1)!.authorization).toBeUndefined();
  });

  it('a card that later names an unlisted origin is checked again when it is read again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const config = { url: `${trap.first}/agent-d`, tokenSecret: 'tok', allowedOrigins: [up.base] };
    const first = fakeRun({ config, secrets: { tok: TOKEN } });
    await runtime(first.ctx);
    expect(first.final()?.state).toBe('completed');
    // The upstream's card now names the trap's other origin; the cached card expires.
    serviceUrl = `${trap.other}/rpc`;
    vi.setSystemTime(Date.now() + CARD_TTL_MS + 1_000);
    const second = fakeRun({ config, secrets: { tok: TOKEN } });
    await runtime(second.ctx);
    expect(second.final()?.state).toBe('failed');
    expect(second.final()?.text).toContain(`"${trap.other}"`);
    expect(trap.seen.filter((s) => s.origin === 'other')).toEqual([]);
  });

  it('allowedOrigins is validated: origins only, each through the egress policy', async () => {
    for (const allowedOrigins of [['https://a.example.com/path'], 'https://a.example.com', ['ftp://a.example.com']]) {
      const run = fakeRun({ config: { url: `${trap.first}/agent-e`, allowedOrigins } });
      await runtime(run.ctx);
      expect(run.final()?.text).toContain('runtimeConfig.allowedOrigins must be a list of at most 10 origins');
    }
    // The default policy (public https only) refuses a private origin there as it does in url.
    const strictEgress = createEgressAgent();
    try {
      const run = fakeRun({ config: { url: 'https://agent.example.com', allowedOrigins: ['http://10.0.0.7'] } });
      await egressRuntimes(strictEgress)['a2a-upstream']!(run.ctx);
      expect(run.final()?.text).toContain('runtimeConfig.allowedOrigins[0]');
    } finally {
      await strictEgress.close();
    }
  });
});
