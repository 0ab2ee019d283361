import { SecretBox } from '@a2a-inbound/agent-definitions';
import { InMemoryCache, InMemoryDocumentStore, ManualClock, SequentialIds, systemClock } from '@a2a-inbound/ports';
import { EgressPolicy } from '@a2a-inbound/runtime';
import { startRedirectTrap, type RedirectTrap } from '@a2a-inbound/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { type Actor, Management } from '../../src/domain/management';
import { Secrets } from '../../src/domain/secrets';

/**
 * ADR 0021, decision 9, at version creation: an `a2a-upstream` version with a token whose upstream card (on the
 * configured origin) names its service on another origin is refused, naming `runtimeConfig.allowedOrigins`,
 * unless the version lists that origin there. Two loopback origins (allow-listed for the test).
 */
describe('publishing an a2a-upstream version: the card may name endpoints only where the token may go', () => {
  const TOKEN = 'upstream-card-origin-token';
  const admin: Actor = { userId: 'u', role: 'admin', subscriptionId: 'sub' };
  let trap: RedirectTrap;
  let m: Management;
  let agentId = '';

  beforeAll(async () => {
    // The first origin serves a card whose JSON-RPC endpoint is on the other origin.
    trap = await startRedirectTrap((req) =>
      req.origin === 'first' && req.path.endsWith('/.well-known/agent-card.json')
        ? {
            body: {
              protocolVersion: '0.3.0',
              name: 'Moved',
              description: 'd',
              url: `${trap.other}/rpc`,
              version: '1',
              capabilities: { streaming: false },
              defaultInputModes: ['text/plain'],
              defaultOutputModes: ['text/plain'],
              skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
            },
          }
        : undefined,
    );
    const clock = new ManualClock(Date.UTC(2026, 10, 27));
    const store = new InMemoryDocumentStore();
    const control = new ControlPlane(
      await openControlCollections(store),
      new InMemoryCache({ clock }),
      clock,
      new SequentialIds('o'),
    );
    await control.accounts.createSubscription('sub', 'Sub', 100);
    const secrets = await Secrets.open(
      store,
      SecretBox.fromBase64(Buffer.alloc(32, 7).toString('base64')),
      systemClock,
    );
    await secrets.put('sub', 'up-token', TOKEN);
    m = new Management(control, {
      secrets,
      egress: { policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.0/8'] }) },
    });
    agentId = (await m.createAgent(admin, { name: 'Up', description: '', type: 'AI Agent', skills: [] })).id;
  });
  afterAll(async () => {
    await m.close();
    await trap.close();
  });
  beforeEach(() => {
    trap.seen.length = 0;
  });

  const publish = (version: string, runtimeConfig: Record<string, unknown>) =>
    m.publishVersion(admin, agentId, { version, runtime: 'a2a-upstream', runtimeConfig }).catch((e: unknown) => e);

  it('with a token and the other origin unlisted: refused, naming allowedOrigins; the other origin sees nothing', async () => {
    const err = (await publish('1.0.0', { url: `${trap.first}/agent`, tokenSecret: 'up-token' })) as {
      message: string;
      details?: { problems?: { path: string; reason: string }[] };
    };
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain('runtimeConfig.allowedOrigins');
    expect(err.message).toContain(`"${trap.other}"`);
    expect(err.message).not.toContain(TOKEN);
    expect(trap.seen.map((s) => s.origin)).toEqual(['first']);
    expect(trap.leaked('other', [TOKEN])).toEqual([]);
  });

  it('with the other origin in allowedOrigins: published', async () => {
    const doc = await publish('2.0.0', {
      url: `${trap.first}/agent`,
      tokenSecret: 'up-token',
      allowedOrigins: [trap.other],
    });
    expect(doc).not.toBeInstanceOf(Error);
  });

  it('without a token: published (no credential to keep home)', async () => {
    expect(await publish('3.0.0', { url: `${trap.first}/agent` })).not.toBeInstanceOf(Error);
  });
});
