import type { Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { inMemoryEngines, startSystem, type Engines, type System } from '@a2a-inbound/embedded';
import { eventually, rpc, textMessage } from '@a2a-inbound/testing';

const RUN_REQUESTED = 'a2a.run.requested';
const TASK_EVENTS = 'a2a.task.events';

function resultTask(r: unknown): Task {
  const res = r as { result?: Task; error?: unknown };
  if (!res.result) throw new Error(`expected a result, got ${JSON.stringify(r)}`);
  return res.result;
}

/**
 * Runs handed between tasks and the runner of one process (ADR 0053) and runs through the bus: one suite,
 * both wirings, the same outcomes; the direct wiring puts no run request or run event on the bus unless the
 * runner cannot take the request (then the bus carries it, as before).
 */
describe.each([
  { wiring: 'direct', localRuns: true },
  { wiring: 'bus', localRuns: false },
])('runs in one process ($wiring)', ({ wiring, localRuns }) => {
  let engines: Engines;
  let system: System;
  let key: string;
  const published = new Map<string, number>();
  const count = (topic: string): number => published.get(topic) ?? 0;
  const endpoint = (agent: string): string => `${system.baseUrl}/agents/${agent}/a2a`;
  const send = async (agent: string, message: unknown, blocking = true): Promise<Task> =>
    resultTask(
      (
        await rpc(
          endpoint(agent),
          { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message, configuration: { blocking } } },
          { key },
        )
      ).body,
    );
  const get = async (agent: string, id: string): Promise<Task> =>
    resultTask(
      (await rpc(endpoint(agent), { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id } }, { key })).body,
    );
  const slowly = (workMs: number, text = 'slowly'): unknown => ({
    ...textMessage(text),
    parts: [
      { kind: 'text', text },
      { kind: 'data', data: { workMs } },
    ],
  });

  beforeAll(async () => {
    engines = inMemoryEngines();
    const publish = engines.bus.publish.bind(engines.bus);
    engines.bus.publish = (m) => {
      published.set(m.topic, count(m.topic) + 1);
      return publish(m);
    };
    system = await startSystem({
      // One run at a time and none waiting: a second concurrent run request cannot be handed over directly.
      env: { PORT: '0', HOST: '127.0.0.1', RUNNER_MAX_CONCURRENT_RUNS: '1', RUNNER_MAX_QUEUED_RUNS: '0' },
      log: silentLogger(),
      engines,
      localRuns,
    });
    key = system.tasks.seed!.credentials!.a2aKey;
  }, 120_000);
  afterAll(async () => {
    await system?.close();
    for (const c of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
      await c.close();
  }, 60_000);

  it('a blocking send completes with the agent answer; directly, no run request or event crosses the bus', async () => {
    const before = { requests: count(RUN_REQUESTED), events: count(TASK_EVENTS) };
    const task = await send('demo-echo', textMessage('hello there'));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'hello there' }]);
    const crossed = { requests: count(RUN_REQUESTED) - before.requests, events: count(TASK_EVENTS) - before.events };
    if (wiring === 'direct') expect(crossed).toEqual({ requests: 0, events: 0 });
    else expect(crossed.requests).toBe(1);
    if (wiring === 'bus') expect(crossed.events).toBeGreaterThan(0);
  });

  it('input-required, then a reply on the same task runs again and completes it', async () => {
    const first = await send('demo-approval', textMessage('deploy v3'));
    expect(first.status.state).toBe('input-required');
    const done = await send('demo-approval', textMessage('approve', { taskId: first.id, contextId: first.contextId }));
    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text: 'Approved: deploy v3. Done.' });
  });

  it('a failing agent: the task fails with its reason', async () => {
    const task = await send('demo-failing', textMessage('try'));
    expect(task.status.state).toBe('failed');
  });

  it('a canceled run stays canceled: its late events change nothing', async () => {
    const slow = await send('demo-slow', slowly(400), false);
    expect(slow.status.state).toBe('working');
    const c = await rpc(
      endpoint('demo-slow'),
      { jsonrpc: '2.0', id: 3, method: 'tasks/cancel', params: { id: slow.id } },
      { key },
    );
    expect(resultTask(c.body).status.state).toBe('canceled');
    await new Promise((r) => setTimeout(r, 700));
    expect((await get('demo-slow', slow.id)).status.state).toBe('canceled');
  });

  it('a request the runner cannot take now waits on the bus and completes after the run before it', async () => {
    const before = count(RUN_REQUESTED);
    const a = await send('demo-slow', slowly(300, 'first'), false);
    const b = await send('demo-slow', slowly(10, 'second'), false);
    // Directly: the first was handed over, the second found the runner at its bound and took the bus.
    expect(count(RUN_REQUESTED) - before).toBe(wiring === 'direct' ? 1 : 2);
    for (const [t, text] of [
      [a, 'Finished after 300 ms: first'],
      [b, 'Finished after 10 ms: second'],
    ] as const) {
      const done = await eventually(async () => {
        const g = await get('demo-slow', t.id);
        return g.status.state === 'completed' ? g : undefined;
      });
      expect(done.artifacts?.[0]?.parts[0]).toEqual({ kind: 'text', text });
    }
  });
});

describe('several runners in one process named by RUNNER_INSTANCE_ID (review 24)', () => {
  it('each runner has an id of its own: its own cancel consumer group', async () => {
    const engines = inMemoryEngines();
    const groups: string[] = [];
    const subscribe = engines.bus.subscribe.bind(engines.bus);
    engines.bus.subscribe = (topic, group, handler, options) => {
      if (topic === 'a2a.run.cancel') groups.push(group);
      return subscribe(topic, group, handler, options);
    };
    const system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', RUNNER_INSTANCE_ID: 'pod-a' },
      log: silentLogger(),
      engines,
      runners: 2,
    });
    try {
      // One group would deliver each cancel to one of the two runners only (and one lease holder for both).
      expect(new Set(groups).size).toBe(2);
      expect(groups.every((g) => g.includes('pod-a'))).toBe(true);
    } finally {
      await system.close();
      for (const c of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
        await c.close();
    }
  }, 120_000);
});
