import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message, Task, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  a2aClient,
  eventually,
  manage,
  startContractAgent,
  startUpstreamAgents,
  textMessage,
  type ContractAgent,
  type Sut,
  type UpstreamAgents,
} from '@a2a-inbound/testing';
import { http } from '../management/helpers';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

function taskOf(res: unknown): Task {
  const r = res as { result?: Task; error?: { message: string } };
  if (!r.result) throw new Error(`JSON-RPC error: ${r.error?.message ?? 'no result'}`);
  return r.result;
}
const statusText = (m: Message | undefined): string =>
  (m?.parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')).join('');

/**
 * The a2a-upstream and http runtimes in the distributed mode: separate runner processes (two) on Kafka,
 * FerretDB and Redis, with the operator allow-list given to the runners only (EGRESS_ALLOW_CIDRS).
 */
describe.runIf(engineUrlsSet)('a2a-upstream and http runtimes across processes', () => {
  let cluster: Cluster;
  let sut: Sut;
  let up: UpstreamAgents;
  let contract: ContractAgent;

  async function deploy(name: string, runtime: string, runtimeConfig: Record<string, unknown>): Promise<string> {
    const agent = await manage(sut, 'developer', 'agents.create', { name: `${name}-${Date.now()}`, type: 'AI Agent' });
    const agentId = agent.id as string;
    await manage(sut, 'developer', 'agents.publishVersion', { agentId, version: '1.0.0', runtime, runtimeConfig });
    await manage(sut, 'developer', 'agents.promote', { agentId, version: '1.0.0' });
    await manage(sut, 'admin', 'deployments.addAgent', { deploymentId: 'demo-deployment', agentId, a2aEnabled: true });
    return agentId;
  }

  beforeAll(async () => {
    up = await startUpstreamAgents();
    contract = await startContractAgent();
    // The allow-list in tasks (definitions are checked when created) and the runners (connect time); one
    // SECRETS_KEY seals the upstream token in tasks and opens it in a runner (ADR 0020).
    ({ cluster, sut } = await startDistributed({
      env: { EGRESS_ALLOW_CIDRS: '127.0.0.1/32', SECRETS_KEY: Buffer.alloc(32, 4).toString('base64') },
    }));
  }, 180_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await up?.close();
    await contract?.close();
  }, 120_000);

  it('streams an upstream A2A agent through the gateway, and continues its input-required task on the reply', async () => {
    const streamId = await deploy('up-stream', 'a2a-upstream', { url: up.url('stream') });
    const client = await a2aClient(sut.baseUrl, streamId, sut.a2aKey);
    const events: unknown[] = [];
    for await (const e of client.sendMessageStream({ message: textMessage('across processes') as never }))
      events.push(e);
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(events.filter((e) => (e as { kind: string }).kind === 'artifact-update')).toHaveLength(3);

    const inputId = await deploy('up-input', 'a2a-upstream', { url: up.url('input') });
    // The reply goes through the other gateway: any runner may run it; the upstream ids are in the history.
    const c1 = await a2aClient(sut.baseUrl, inputId, sut.a2aKey);
    const c2 = await a2aClient(sut.otherBaseUrls[0] ?? sut.baseUrl, inputId, sut.a2aKey);
    const first = taskOf(await c1.sendMessage({ message: textMessage('reserve') as never }));
    expect(first.status.state).toBe('input-required');
    const reply = taskOf(
      await c2.sendMessage({
        message: textMessage('Grace', { taskId: first.id, contextId: first.contextId }) as never,
      }),
    );
    expect(reply.status.state).toBe('completed');
    const upstreamTask = up.received.filter((r) => r.agent === 'input').at(-1)!.message.taskId;
    expect(upstreamTask).toBeTruthy();
    expect(statusText(reply.status.message)).toBe(`Hello Grace (task ${upstreamTask})`);
  });

  it('cancels the upstream task when our task is canceled, and runs an http-contract agent', async () => {
    const slowId = await deploy('up-slow', 'a2a-upstream', { url: up.url('slow') });
    const client = await a2aClient(sut.baseUrl, slowId, sut.a2aKey);
    const started = taskOf(
      await client.sendMessage({ message: textMessage('slowly') as never, configuration: { blocking: false } }),
    );
    await eventually(async () => {
      const t = taskOf(await client.getTask({ id: started.id }));
      return statusText(t.status.message) === 'working on it' ? t : undefined;
    });
    const before = up.canceled.length;
    expect(taskOf(await client.cancelTask({ id: started.id })).status.state).toBe('canceled');
    await eventually(async () => Promise.resolve(up.canceled.length > before ? true : undefined));

    const httpId = await deploy('http-json', 'http', { url: `${contract.base}/json` });
    const h = await a2aClient(sut.baseUrl, httpId, sut.a2aKey);
    const task = taskOf(await h.sendMessage({ message: textMessage('from kafka land') as never }));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([
      { kind: 'text', text: 'json agent heard: from kafka land (history 0)' },
    ]);
  });

  it('sends the upstream token to the upstream, and no process logs it', async () => {
    const put = await http(sut.baseUrl, 'PUT', '/api/v1/secrets/up-token', {
      token: cluster.credentials().adminToken,
      body: { value: 'upstream-token' },
    });
    expect(put.status).toBe(200);
    const id = await deploy('up-secured', 'a2a-upstream', { url: up.url('secured'), tokenSecret: 'up-token' });
    const client = await a2aClient(sut.baseUrl, id, sut.a2aKey);
    const task = taskOf(await client.sendMessage({ message: textMessage('knock knock') as never }));
    expect(task.status.state).toBe('completed');
    expect(up.received.at(-1)).toMatchObject({ agent: 'secured', authorization: 'Bearer upstream-token' });
    const logs = readdirSync(cluster.logDir).map((f) => readFileSync(join(cluster.logDir, f), 'utf8'));
    expect(logs.join('\n')).toContain('run finished');
    expect(logs.join('\n')).not.toContain('upstream-token');
  });
});
