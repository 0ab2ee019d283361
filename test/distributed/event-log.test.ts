import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRedisServer, privateRedis, type PrivateRedis } from '@a2a-inbound/adapter-redis/test/helpers';
import { manage, rpc, sse, textMessage, type SseFrame, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

const SLOW = 'demo-slow';
const url = (base: string, agent: string): string => `${base}/agents/${agent}/a2a`;
const slowMessage = (workMs: number, text = 'work'): Record<string, unknown> => ({
  ...textMessage(text),
  parts: [
    { kind: 'text', text },
    { kind: 'data', data: { workMs } },
  ],
});

/** A second tenant (its own subscription, agent, deployment and key) made through the bootstrap admin. */
async function otherTenant(sut: Sut, subscriptionId: string): Promise<{ agentId: string; key: string }> {
  const as = { tasksAddress: sut.tasksAddress, subscriptionId };
  const agent = await manage(as, 'admin', 'agents.create', {
    name: 'tenant b echo',
    description: 'b',
    type: 'AI Agent',
  });
  await manage(as, 'admin', 'agents.publishVersion', { agentId: agent.id, version: '1.0.0', runtime: 'demo:echo' });
  await manage(as, 'admin', 'agents.promote', { agentId: agent.id, version: '1.0.0' });
  const deployment = await manage(as, 'admin', 'deployments.create', { name: 'tenant b' });
  await manage(as, 'admin', 'deployments.addAgent', {
    deploymentId: deployment.id,
    agentId: agent.id,
    a2aEnabled: true,
  });
  await manage(as, 'admin', 'settings.update', {
    agentId: agent.id,
    settings: { a2aEnabled: true, rateLimitPerMinute: 100_000 },
  });
  const key = (await manage(as, 'admin', 'keys.create', { name: 'b', scopes: ['a2a'] })).key as string;
  return { agentId: agent.id as string, key };
}

/** Issue 8, item 3: SSE tails do not cap the service (ADR 0014). */
describe.runIf(engineUrlsSet)('distributed: 2,000 open SSE streams on one tasks process', () => {
  let cluster: Cluster;
  let sut: Sut;
  beforeAll(async () => {
    ({ cluster, sut } = await startDistributed({
      env: {
        // This case measures that idle tails do not cap the service (ADR 0014), not admission: its 2,000
        // resubscribes arrive in one burst, which the gateways' admission bound and accept deadline (ADR 0030)
        // would otherwise shed (the load-shedding cases are test/e2e/overload.e2e.test.ts and test/faults).
        GATEWAY_MAX_PENDING_REQUESTS: '4000',
        TASKS_ACCEPT_TIMEOUT_MS: '120000',
        SEED_RATE_LIMIT_PER_MINUTE: '1000000',
        BOOTSTRAP_SUBSCRIPTION_ID: 'tenant-b',
        BOOTSTRAP_ADMIN_EMAIL: 'admin@tenant-b.example',
        BOOTSTRAP_ADMIN_TOKEN: 'usr_tenant_b_admin_token_for_the_stream_test_0001',
      },
    }));
  }, 180_000);
  afterAll(async () => {
    await cluster?.stopAll();
  }, 120_000);

  it("another tenant's blocking sends still complete while 2,000 idle streams wait, and every stream then ends final", async () => {
    const [g1, g2] = cluster.gateways as [string, string];
    const long = await rpc(
      url(g1, SLOW),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: slowMessage(300_000, 'hold the streams open'), configuration: { blocking: false } },
      },
      { key: sut.a2aKey },
    );
    const taskId = (long.body.result as Task).id;
    const n = 2_000;
    // One controller per stream, not one signal with a listener per stream (see test/faults/load.test.ts).
    const controllers = Array.from({ length: n }, () => new AbortController());
    const opened = new Set<number>();
    const streams = Array.from({ length: n }, (_, i) =>
      sse(
        url(i % 2 ? g2 : g1, SLOW),
        { jsonrpc: '2.0', id: `r${i}`, method: 'tasks/resubscribe', params: { id: taskId } },
        {
          key: sut.a2aKey,
          signal: controllers[i]!.signal,
          stopAfter: (f) => {
            opened.add(i);
            return f.data?.error !== undefined;
          },
        },
      ),
    );
    const t0 = Date.now();
    await expect.poll(() => opened.size, { timeout: 90_000, interval: 250 }).toBe(n);
    const openMs = Date.now() - t0;

    const b = await otherTenant(sut, 'tenant-b');
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = Date.now();
      const r = await rpc(
        url(i % 2 ? g1 : g2, b.agentId),
        { jsonrpc: '2.0', id: i, method: 'message/send', params: { message: textMessage(`b ${i}`) } },
        { key: b.key },
      );
      latencies.push(Date.now() - started);
      expect(r.body.error).toBeUndefined();
      expect((r.body.result as Task).status.state).toBe('completed');
    }
    // And a stream of the other tenant opens and ends too.
    const bStream = await sse(
      url(g1, b.agentId),
      { jsonrpc: '2.0', id: 's', method: 'message/stream', params: { message: textMessage('b stream') } },
      { key: b.key },
    );
    expect(bStream.frames.at(-1)?.data.result).toMatchObject({ final: true, status: { state: 'completed' } });

    // Every one of the 2,000 streams is still open (none was refused) and ends final when the task does.
    await rpc(
      url(g2, SLOW),
      { jsonrpc: '2.0', id: 'c', method: 'tasks/cancel', params: { id: taskId } },
      { key: sut.a2aKey },
    );
    const results = await Promise.all(streams);
    const finals = results.filter((r) => {
      const last: SseFrame | undefined = r.frames.at(-1);
      return last?.data?.result?.final === true && last.data.result.status?.state === 'canceled';
    });
    expect(finals).toHaveLength(n);
    console.info(
      `2,000 streams open in ${openMs} ms; tenant b blocking sends: ${latencies.join(', ')} ms (max ${Math.max(...latencies)})`,
    );
  }, 240_000);
});

/** Issue 8, item 5: the event log survives a Redis restart without persistence (ADR 0014). */
describe.runIf(engineUrlsSet && hasRedisServer())('distributed: a Redis restart in the middle of running tasks', () => {
  let cluster: Cluster;
  let sut: Sut;
  let redis: PrivateRedis;
  beforeAll(async () => {
    // A private Redis: restarting the shared engine would disturb the suites running beside this one.
    redis = await privateRedis();
    ({ cluster, sut } = await startDistributed({
      env: { REDIS_URL: redis.url, SEED_RATE_LIMIT_PER_MINUTE: '1000000', TASKS_STREAM_STORE_CHECK_MS: '3000' },
    }));
  }, 180_000);
  afterAll(async () => {
    await cluster?.stopAll();
    await redis?.stop();
  }, 120_000);

  it('every stream open across the restart ends final:true and every blocking send returns the final state', async () => {
    const [g1, g2] = cluster.gateways as [string, string];
    const workMs = 8_000;
    const started = new Set<number>();
    const streams = Array.from({ length: 6 }, (_, i) =>
      sse(
        url(i % 2 ? g2 : g1, SLOW),
        { jsonrpc: '2.0', id: `s${i}`, method: 'message/stream', params: { message: slowMessage(workMs, `s${i}`) } },
        {
          key: sut.a2aKey,
          stopAfter: () => {
            started.add(i);
            return false;
          },
        },
      ),
    );
    const blocking = Array.from({ length: 4 }, (_, i) =>
      rpc(
        url(i % 2 ? g1 : g2, SLOW),
        { jsonrpc: '2.0', id: `b${i}`, method: 'message/send', params: { message: slowMessage(workMs, `b${i}`) } },
        { key: sut.a2aKey },
      ),
    );
    // Every request accepted and every run under way before Redis goes (requests sent during the outage are
    // another matter: the gateway's rate limiter needs Redis).
    await expect.poll(() => started.size, { timeout: 30_000 }).toBe(6);
    const runsStarted = (): number =>
      ['runner-1', 'runner-2']
        .map((n) => readFileSync(join(cluster.logDir, `${n}.log`), 'utf8').split('run started').length - 1)
        .reduce((a, b) => a + b, 0);
    await expect.poll(runsStarted, { timeout: 30_000 }).toBeGreaterThanOrEqual(10);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 2_000));
    await redis.start(); // empty: no persistence

    const streamed = await Promise.all(streams);
    for (const [i, s] of streamed.entries()) {
      const last = s.frames.at(-1)?.data.result;
      expect(last, `stream ${i}`).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      // As a client assembles it: appended chunks, or a full artifact (a rebuild) that replaces them.
      let text = '';
      for (const f of s.frames.filter((x) => x.data.result?.kind === 'artifact-update')) {
        const chunk = f.data.result.artifact.parts[0].text as string;
        text = f.data.result.append ? text + chunk : chunk;
      }
      expect(text, `stream ${i}`).toBe(`Finished after ${workMs} ms: s${i}`);
    }
    const answered = await Promise.all(blocking);
    for (const [i, r] of answered.entries()) {
      const task = r.body.result as Task;
      expect(task.status.state, `blocking ${i}`).toBe('completed');
      expect(task.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: `Finished after ${workMs} ms: b${i}` });
    }
    // A stream opened after the restart on a task whose log is gone still ends final.
    const opening = streamed[0]!.frames[0]!.data.result; // the stream opens with the Task snapshot
    expect(opening.kind).toBe('task');
    const taskId = opening.id as string;
    const again = await sse(
      url(g2, SLOW),
      { jsonrpc: '2.0', id: 'again', method: 'tasks/resubscribe', params: { id: taskId } },
      { key: sut.a2aKey, headers: { 'Last-Event-ID': '1' } },
    );
    expect(again.frames.at(-1)?.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
  }, 120_000);
});
