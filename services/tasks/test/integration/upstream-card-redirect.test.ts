import { SecretBox } from '@a2a-inbound/agent-definitions';
import { InMemoryCache, InMemoryDocumentStore, ManualClock, SequentialIds, systemClock } from '@a2a-inbound/ports';
import { EgressPolicy } from '@a2a-inbound/runtime';
import { startRedirectTrap, type RedirectTrap } from '@a2a-inbound/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { type Actor, Management } from '../../src/domain/management';
import { Secrets } from '../../src/domain/secrets';

/**
 * Issue 19, defect 2, at the upstream card read of the tasks service: publishing an `a2a-upstream` version
 * reads the upstream's card with the version's token. A card URL that answers 307 to another origin (another
 * loopback port, allow-listed for the test) must not hand the token to that origin; a same-origin redirect
 * keeps it.
 */
describe('the upstream card read: the token never follows a redirect to another origin', () => {
  const TOKEN = 'upstream-card-token-secret';
  const admin: Actor = { userId: 'u', role: 'admin', subscriptionId: 'sub' };
  let trap: RedirectTrap;
  let m: Management;
  let agentId = '';

  beforeAll(async () => {
    trap = await startRedirectTrap();
    const clock = new ManualClock(Date.UTC(2026, 10, 27));
    const store = new InMemoryDocumentStore();
    const control = new ControlPlane(
      await openControlCollections(store),
      new InMemoryCache({ clock }),
      clock,
      new SequentialIds('r'),
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

  const publish = (version: string, url: string, authHeader?: string) =>
    m
      .publishVersion(admin, agentId, {
        version,
        runtime: 'a2a-upstream',
        runtimeConfig: { url, tokenSecret: 'up-token', ...(authHeader ? { authHeader } : {}) },
      })
      .catch((e: unknown) => e);

  it.each([undefined, 'X-Upstream-Token'])(
    'cross-origin 307 (token in %s): the other origin never sees it',
    async (h) => {
      await publish(`1.0.${h ? 1 : 0}`, `${trap.first}/cross/agent`, h);
      expect(trap.seen.map((s) => `${s.origin} ${s.path}`)).toEqual(['other /agent/.well-known/agent-card.json']);
      expect(trap.leaked('other', [TOKEN])).toEqual([]);
    },
  );

  it('same-origin 307: the card read keeps the token', async () => {
    await publish('2.0.0', `${trap.first}/same/agent`);
    expect(trap.seen.map((s) => `${s.origin} ${s.path}`)).toEqual(['first /agent/.well-known/agent-card.json']);
    expect(trap.seen[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });
});
