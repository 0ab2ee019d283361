import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, eventually, manage, rpc, sse, textMessage, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

const SLOW = 'demo-slow';
const ECHO = 'demo-echo';

const slowMessage = (workMs: number, text = 'work'): Record<string, unknown> => ({
  ...textMessage(text),
  parts: [
    { kind: 'text', text },
    { kind: 'data', data: { workMs } },
  ],
});

/** Behaviour across processes on the real engines (issue 3, item 4). */
describe.runIf(engineUrlsSet)('distributed behaviour across processes', () => {
  let cluster: Cluster;
  let sut: Sut;
  let namespace: string;
  const env = { RUN_STALL_MS: '20000', RUNNER_HEARTBEAT_MS: '1000', TASKS_SWEEP_INTERVAL_MS: '1000' };
  const url = (base: string, agent: string): string => `${base}/agents/${agent}/a2a`;

  beforeAll(async () => {
    ({ cluster, sut, namespace } = await startDistributed({ env }));
  }, 180_000);
  afterAll(async () => {
    await cluster?.stopAll();
  }, 120_000);

  it('an SSE stream started through one gateway resumes through the other with Last-Event-ID: missed events, then live ones', async () => {
    const [g1, g2] = cluster.gateways as [string, string];
    const first = await sse(
      url(g1, SLOW),
      { jsonrpc: '2.0', id: 's1', method: 'message/stream', params: { message: slowMessage(2500, 'resume me') } },
      {
        key: sut.a2aKey,
        stopAfter: (_f, all) => all.length === 2,
      },
    );
    // The Task snapshot (no id), then event 1.
    expect(first.frames).toHaveLength(2);
    const taskId = first.frames[0]!.data.result.id as string;
    expect(first.frames.map((f) => f.id)).toEqual([undefined, 1]);
    // Reconnect elsewhere, saying the last event we saw was 1: we get 2… (missed), then the live ones.
    const resumed = await sse(
      url(g2, SLOW),
      { jsonrpc: '2.0', id: 's2', method: 'tasks/resubscribe', params: { id: taskId } },
      { key: sut.a2aKey, headers: { 'Last-Event-ID': '1' } },
    );
    const ids = resumed.frames.map((f) => f.id);
    expect(ids[0]).toBe(2);
    expect(ids).toEqual(ids.map((_, i) => i + 2));
    const last = resumed.frames.at(-1)!.data.result;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    const text = resumed.frames
      .filter((f) => f.data.result.kind === 'artifact-update')
      .map((f) => f.data.result.artifact.parts[0].text)
      .join('');
    expect(text).toBe('Finished after 2500 ms: resume me');
    // tasks/resubscribe through the SDK on the first gateway gets the finished task's final event.
    const client = await a2aClient(g1, SLOW, sut.a2aKey);
    const events = [];
    for await (const e of client.resubscribeTask({ id: taskId })) events.push(e);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'status-update', final: true });
  }, 60_000);

  it('a blocking message/send through any replica returns when the task finishes', async () => {
    for (const g of cluster.gateways) {
      const r = await rpc(
        url(g, SLOW),
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: slowMessage(1200, `via ${g}`) } },
        { key: sut.a2aKey },
      );
      const task = r.body.result as Task;
      expect(task.status.state).toBe('completed');
      expect(task.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: `Finished after 1200 ms: via ${g}` });
    }
  }, 60_000);

  it('long runs do not hold back other tasks: echo sends complete while 12 long runs (more than the partitions) still work', async () => {
    const [g1, g2] = cluster.gateways as [string, string];
    const long: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await rpc(
        url(i % 2 ? g2 : g1, SLOW),
        {
          jsonrpc: '2.0',
          id: i,
          method: 'message/send',
          params: { message: slowMessage(40_000, `long ${i}`), configuration: { blocking: false } },
        },
        { key: sut.a2aKey },
      );
      long.push((r.body.result as Task).id);
    }
    for (let i = 0; i < 8; i++) {
      const r = await rpc(
        url(i % 2 ? g1 : g2, ECHO),
        { jsonrpc: '2.0', id: `e${i}`, method: 'message/send', params: { message: textMessage(`echo ${i}`) } },
        { key: sut.a2aKey },
      );
      expect((r.body.result as Task).status.state).toBe('completed');
    }
    // Every long run is still at work (they started and hold their slots), none was failed or queued away.
    for (const id of long) {
      const r = await rpc(
        url(g1, SLOW),
        { jsonrpc: '2.0', id, method: 'tasks/get', params: { id } },
        { key: sut.a2aKey },
      );
      expect((r.body.result as Task).status.state).toBe('working');
    }
    for (const id of long)
      await rpc(url(g2, SLOW), { jsonrpc: '2.0', id, method: 'tasks/cancel', params: { id } }, { key: sut.a2aKey });
  }, 90_000);

  it('the rate limit holds across two gateway replicas: the N+1-th request in the window gets 429 whichever replica takes it', async () => {
    const limit = 6;
    const agent = await manage(sut, 'admin', 'agents.create', {
      name: 'rate-limited echo',
      description: 'rl',
      type: 'AI Agent',
    });
    await manage(sut, 'admin', 'agents.publishVersion', { agentId: agent.id, version: '1.0.0', runtime: 'demo:echo' });
    await manage(sut, 'admin', 'agents.promote', { agentId: agent.id, version: '1.0.0' });
    await manage(sut, 'admin', 'deployments.addAgent', { deploymentId: 'demo-deployment', agentId: agent.id });
    await manage(sut, 'admin', 'settings.update', {
      agentId: agent.id,
      settings: { a2aEnabled: true, rateLimitPerMinute: limit },
    });
    // Stay inside one fixed one-minute window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 200));
    const statuses: number[] = [];
    for (let i = 0; i < limit; i++) {
      const g = cluster.gateways[i % 2]!;
      const r = await rpc(
        url(g, agent.id),
        { jsonrpc: '2.0', id: i, method: 'tasks/get', params: { id: 'none' } },
        { key: sut.a2aKey },
      );
      statuses.push(r.status);
    }
    expect(statuses).toEqual(Array(limit).fill(200));
    for (const g of cluster.gateways) {
      const over = await rpc(
        url(g, agent.id),
        { jsonrpc: '2.0', id: 'x', method: 'tasks/get', params: { id: 'none' } },
        { key: sut.a2aKey },
      );
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(over.body.error.data.code).toBe('RATE_LIMITED');
    }
  }, 90_000);

  it('a runner killed in the middle of a run does not leave the task working: another runner retries it, exactly once', async () => {
    const sent = await rpc(
      url(cluster.gateways[0]!, SLOW),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: slowMessage(6000, 'survive a crash'), configuration: { blocking: false } },
      },
      { key: sut.a2aKey },
    );
    const taskId = (sent.body.result as Task).id;
    // Find the runner that took the run, then kill it hard.
    const owner = await eventually(async () => {
      for (const name of ['runner-1', 'runner-2']) {
        const text = readFileSync(join(cluster.logDir, `${name}.log`), 'utf8');
        if (text.includes(taskId) && text.includes('run started')) return name;
      }
      return undefined;
    }, 20_000);
    await cluster.kill(owner);
    const done = await eventually(
      async () => {
        const g = await rpc(
          url(cluster.gateways[1]!, SLOW),
          { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: taskId, historyLength: 50 } },
          { key: sut.a2aKey },
        );
        const t = g.body.result as Task;
        return t.status.state === 'working' ? undefined : t;
      },
      60_000,
      250,
    );
    // Retried by the surviving runner (Kafka reassigned the uncommitted run), or failed by the sweeper with a reason.
    if (done.status.state === 'completed') {
      expect(done.artifacts).toHaveLength(1);
      expect(done.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Finished after 6000 ms: survive a crash' }]);
      const progress = (done.history ?? []).filter(
        (m) => m.role === 'agent' && m.parts.some((p) => p.kind === 'text' && p.text.startsWith('Working')),
      );
      expect(progress).toHaveLength(1); // the retried run's repeated events were not applied twice
    } else {
      expect(done.status.state).toBe('failed');
      expect(done.status.message?.parts[0]).toMatchObject({ kind: 'text' });
    }
    await cluster.restart(owner);
  }, 120_000);

  it('stopping every process and starting them again loses no task, key, deployment or setting', async () => {
    const before = (
      await rpc(
        url(sut.baseUrl, ECHO),
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('remember me') } },
        { key: sut.a2aKey },
      )
    ).body.result as Task;
    await manage(sut, 'admin', 'settings.update', { agentId: ECHO, settings: { rateLimitPerMinute: 4321 } });
    await cluster.stopAll();
    ({ cluster, sut } = await startDistributed({ env, namespace }));
    // No new demo credentials: the data set is not fresh. The keys created before still work.
    expect(cluster.credentials().a2aKey).toBeUndefined();
    const after = await rpc(
      url(cluster.gateways[1]!, ECHO),
      { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: before.id } },
      { key: sut.a2aKey },
    );
    expect(after.body.result.status.state).toBe('completed');
    expect(after.body.result.artifacts[0].parts[0].text).toBe('remember me');
    const deployment = await manage(sut, 'admin', 'deployments.get', { deploymentId: 'demo-deployment' });
    const echo = deployment.agents.find((a: { agentId: string }) => a.agentId === ECHO);
    expect(echo.rateLimitPerMinute).toBe(4321);
  }, 180_000);
});
