import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { manage, rpc, startRedirectTrap, textMessage, type RedirectTrap, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from '../distributed/cluster';
import { http } from '../management/helpers';

/**
 * Issue 19, defect 2, on the whole system in both modes: an agent's credential never follows a redirect to
 * another origin. The agent's URL answers 307 to another origin (another loopback port; the operator
 * allow-list admits loopback for the test): the `http` runtime's call lands there without the agent's token and
 * the task completes with that origin's answer; a same-origin redirect keeps the token; publishing an
 * `a2a-upstream` version whose card redirects to another origin reads the card there without the token. No
 * engine is restarted: run just this case with `-t "a redirect to another origin carries no credential"`.
 */
const SECRET = 'agent-token-that-stays-home';
const SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function deploy(
  sut: Sut,
  name: string,
  runtime: string,
  runtimeConfig: Record<string, unknown>,
): Promise<string> {
  const agent = await manage(sut, 'developer', 'agents.create', { name: `${name}-${Date.now()}`, type: 'AI Agent' });
  const agentId = agent.id as string;
  await manage(sut, 'developer', 'agents.publishVersion', { agentId, version: '1.0.0', runtime, runtimeConfig });
  await manage(sut, 'developer', 'agents.promote', { agentId, version: '1.0.0' });
  await manage(sut, 'admin', 'deployments.addAgent', { deploymentId: 'demo-deployment', agentId, a2aEnabled: true });
  return agentId;
}

/** A blocking message/send; retried while a freshly added agent is not yet served by every gateway. */
async function send(sut: Sut, agentId: string, text: string): Promise<any> {
  for (let attempt = 0; ; attempt++) {
    const r = await rpc(
      `${sut.baseUrl}/agents/${agentId}/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage(text) } },
      { key: sut.a2aKey },
    );
    if (r.body?.result || attempt >= 20) return r.body;
    await sleep(250);
  }
}

function redirectCase(mode: string, start: () => Promise<{ sut: Sut; adminToken: string }>): void {
  describe(`${mode}: a redirect to another origin carries no credential`, () => {
    let trap: RedirectTrap;
    let sut: Sut;

    beforeAll(async () => {
      trap = await startRedirectTrap();
      const started = await start();
      sut = started.sut;
      const put = await http(sut.baseUrl, 'PUT', '/api/v1/secrets/redirect-token', {
        token: started.adminToken,
        body: { value: SECRET },
      });
      expect(put.status).toBe(200);
    }, 240_000);
    afterAll(async () => {
      await sut?.close();
      await trap?.close();
    }, 120_000);

    it('a redirect to another origin carries no credential (http agent, upstream card read); same-origin keeps it', async () => {
      trap.seen.length = 0;
      const cross = await deploy(sut, 'redirect-cross', 'http', {
        url: `${trap.first}/cross/agent`,
        tokenSecret: 'redirect-token',
      });
      const crossed = await send(sut, cross, 'hello');
      expect(crossed.result?.status?.state).toBe('completed');
      expect(JSON.stringify(crossed.result.artifacts)).toContain('answered by the other origin');
      expect(trap.seen.filter((s) => s.origin === 'other').map((s) => s.path)).toEqual(['/agent']);
      expect(trap.leaked('other', [SECRET])).toEqual([]);

      trap.seen.length = 0;
      const same = await deploy(sut, 'redirect-same', 'http', {
        url: `${trap.first}/same/agent`,
        tokenSecret: 'redirect-token',
      });
      const kept = await send(sut, same, 'hello');
      expect(JSON.stringify(kept.result?.artifacts)).toContain('answered by the first origin');
      expect(trap.seen.map((s) => `${s.origin} ${s.path} ${String(s.headers.authorization)}`)).toEqual([
        `first /agent Bearer ${SECRET}`,
      ]);

      // The tasks service reads an a2a-upstream card at publish time, with the version's token.
      trap.seen.length = 0;
      const agent = await manage(sut, 'developer', 'agents.create', {
        name: `redirect-card-${Date.now()}`,
        type: 'AI Agent',
      });
      const refused = await manage(sut, 'developer', 'agents.publishVersion', {
        agentId: agent.id,
        version: '1.0.0',
        runtime: 'a2a-upstream',
        runtimeConfig: { url: `${trap.first}/cross/upstream`, tokenSecret: 'redirect-token' },
      }).catch((e: unknown) => e);
      expect(String(refused)).toContain('the upstream agent card could not be read'); // the trap serves no card
      expect(trap.seen.map((s) => `${s.origin} ${s.path}`)).toEqual(['other /upstream/.well-known/agent-card.json']);
      expect(trap.leaked('other', [SECRET])).toEqual([]);
    }, 120_000);
  });
}

redirectCase('embedded', async () => {
  const system: System = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1', EGRESS_ALLOW_CIDRS: '127.0.0.0/8', SECRETS_KEY },
    log: silentLogger(),
  });
  const creds = system.tasks.seed!.credentials!;
  return {
    adminToken: creds.adminToken,
    sut: {
      baseUrl: system.baseUrl,
      a2aKey: creds.a2aKey,
      invokeKey: creds.invokeKey,
      otherBaseUrls: [],
      tasksAddress: system.tasks.grpc.address,
      subscriptionId: system.tasks.seed!.subscriptionId,
      close: () => system.close(),
    },
  };
});

if (engineUrlsSet)
  redirectCase('distributed', async () => {
    const started: { cluster: Cluster; sut: Sut } = await startDistributed({
      env: { EGRESS_ALLOW_CIDRS: '127.0.0.0/8', SECRETS_KEY },
    });
    return { sut: started.sut, adminToken: started.cluster.credentials().adminToken ?? '' };
  });
