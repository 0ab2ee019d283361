import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, rpc, sse, textMessage, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

const SLOW = 'demo-slow';
const GATEWAY_DELAY_MS = 1_000;
const GATEWAY_GRACE_MS = 5_000;
const RUNNER_GRACE_MS = 1_500;

const slowMessage = (workMs: number, text: string): Record<string, unknown> => ({
  ...textMessage(text),
  parts: [
    { kind: 'text', text },
    { kind: 'data', data: { workMs } },
  ],
});

/** Graceful shutdown on SIGTERM, process by process, on the real engines (issue 3, item 5). */
describe.runIf(engineUrlsSet)('graceful shutdown on SIGTERM (distributed)', () => {
  let cluster: Cluster;
  let sut: Sut;
  const measured: Record<string, number> = {};
  const url = (base: string, agent: string): string => `${base}/agents/${agent}/a2a`;
  const logOf = (name: string): string => readFileSync(join(cluster.logDir, `${name}.log`), 'utf8');
  const proc = (name: string) => cluster.procs.get(name)!;
  const readyz = async (base: string): Promise<number> => (await fetch(`${base}/readyz`)).status;

  /** SIGTERM → exit, measured from the signal; returns the exit code. */
  async function stopMeasured(name: string, key = name): Promise<unknown> {
    const signalled = Date.now();
    await cluster.stop(name);
    measured[key] = proc(name).exitedAt! - signalled;
    return proc(name).code;
  }

  async function getTask(taskId: string): Promise<Task> {
    const r = await rpc(
      url(sut.baseUrl, SLOW),
      { jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { id: taskId, historyLength: 100 } },
      { key: sut.a2aKey },
    );
    return r.body.result as Task;
  }

  /** The answer was applied once: one artifact with the whole text, one progress message. */
  function expectAnsweredOnce(task: Task, text: string): void {
    expect(task.status.state).toBe('completed');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text }]);
    const progress = (task.history ?? []).filter(
      (m) => m.role === 'agent' && m.parts.some((p) => p.kind === 'text' && p.text.startsWith('Working')),
    );
    expect(progress).toHaveLength(1);
  }

  beforeAll(async () => {
    ({ cluster, sut } = await startDistributed({
      env: { RUN_STALL_MS: '30000', RUNNER_HEARTBEAT_MS: '1000', TASKS_SWEEP_INTERVAL_MS: '1000' },
      gatewayEnv: {
        SHUTDOWN_READINESS_DELAY_MS: String(GATEWAY_DELAY_MS),
        SHUTDOWN_GRACE_MS: String(GATEWAY_GRACE_MS),
      },
      runnerEnv: { RUNNER_SHUTDOWN_GRACE_MS: String(RUNNER_GRACE_MS) },
    }));
  }, 180_000);
  afterAll(async () => {
    await cluster?.stopAll();
    if (Object.keys(measured).length) console.log(`shutdown times (SIGTERM → exit, ms): ${JSON.stringify(measured)}`);
  }, 120_000);

  it('gateway: readiness flips first, the open SSE stream ends cleanly, resumes on the other gateway with Last-Event-ID to the final frame; exit 0 within the grace period', async () => {
    const [g1, g2] = cluster.gateways as [string, string];
    expect(await readyz(g2)).toBe(200);
    let firstFrame!: () => void;
    const gotFirst = new Promise<void>((resolve) => (firstFrame = resolve));
    const stream = sse(
      url(g2, SLOW),
      {
        jsonrpc: '2.0',
        id: 's',
        method: 'message/stream',
        params: { message: slowMessage(4_000, 'outlive a gateway') },
      },
      {
        key: sut.a2aKey,
        // The Task snapshot, then event 1: the stream has an id to resume from.
        stopAfter: (_f, all) => (all.length === 2 && firstFrame(), false),
      },
    );
    let streamEndedAt = 0;
    void stream.then(
      () => (streamEndedAt = Date.now()),
      () => (streamEndedAt = Date.now()),
    );
    await gotFirst;

    const stopping = stopMeasured('gateway-2');
    // Readiness is 503 while the stream is still open: it flipped before anything was drained.
    await eventually(async () => (await readyz(g2)) === 503, 5_000, 20);
    const flippedAt = Date.now();
    expect(streamEndedAt).toBe(0);

    // The stream ends cleanly (sse() throws on a cut connection) and without a final frame.
    const first = await stream;
    expect(streamEndedAt).toBeGreaterThanOrEqual(flippedAt);
    expect(first.frames.length).toBeGreaterThanOrEqual(2);
    expect(first.frames.some((f) => f.data?.result?.final === true)).toBe(false);
    const taskId = first.frames[0]!.data.result.id as string;
    const lastSeen = first.frames.at(-1)!.id!;

    // Resumed on the other gateway: the events after the last one seen, then the final frame.
    const resumed = await sse(
      url(g1, SLOW),
      { jsonrpc: '2.0', id: 'r', method: 'tasks/resubscribe', params: { id: taskId } },
      { key: sut.a2aKey, headers: { 'Last-Event-ID': String(lastSeen) } },
    );
    const ids = resumed.frames.map((f) => f.id);
    expect(ids[0]).toBe(lastSeen + 1);
    expect(ids).toEqual(ids.map((_, i) => lastSeen + 1 + i));
    expect(resumed.frames.at(-1)!.data.result).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed' },
    });
    const text = [...first.frames, ...resumed.frames]
      .filter((f) => f.data.result.kind === 'artifact-update')
      .map((f) => f.data.result.artifact.parts[0].text)
      .join('');
    expect(text).toBe('Finished after 4000 ms: outlive a gateway');

    expect(await stopping).toBe(0);
    expect(measured['gateway-2']).toBeLessThan(GATEWAY_DELAY_MS + GATEWAY_GRACE_MS);
    expect(logOf('gateway-2')).toMatch(/"streamsEnded":1/);
    await cluster.restart('gateway-2');
    await eventually(async () => (await readyz(g2)) === 200, 30_000, 100);
  }, 90_000);

  it('runner: SIGTERM during a long run hands it back (not committed) after the grace period; the other runner completes it, applied once; exit 0', async () => {
    const text = 'outlive a runner';
    const sent = await rpc(
      url(sut.baseUrl, SLOW),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: slowMessage(6_000, text), configuration: { blocking: false } },
      },
      { key: sut.a2aKey },
    );
    const taskId = (sent.body.result as Task).id;
    const owner = await eventually(
      async () => ['runner-1', 'runner-2'].find((name) => logOf(name).includes(taskId)),
      20_000,
    );
    const other = owner === 'runner-1' ? 'runner-2' : 'runner-1';

    expect(await stopMeasured(owner)).toBe(0);
    // It could not finish within RUNNER_SHUTDOWN_GRACE_MS: aborted and handed back, not failed.
    expect(measured[owner]).toBeGreaterThanOrEqual(RUNNER_GRACE_MS);
    expect(measured[owner]).toBeLessThan(RUNNER_GRACE_MS + 10_000);
    expect(logOf(owner)).toContain('run handed back on shutdown');

    const done = await eventually(
      async () => {
        const t = await getTask(taskId);
        return t.status.state === 'working' ? undefined : t;
      },
      60_000,
      200,
    );
    expectAnsweredOnce(done, `Finished after 6000 ms: ${text}`);
    expect(logOf(other)).toContain(taskId);
    await cluster.restart(owner);
  }, 120_000);

  it('tasks: SIGTERM ends open streams at once (resumable) and exits 0 with offsets committed: after a restart no event is applied twice; gateways are not ready meanwhile', async () => {
    const text = 'outlive tasks';
    const [g1, g2] = cluster.gateways as [string, string];
    // An SSE stream through a gateway is open on the task: tasks holds a gRPC stream for it.
    let progressed!: () => void;
    const gotProgress = new Promise<void>((resolve) => (progressed = resolve));
    const stream = sse(
      url(g1, SLOW),
      { jsonrpc: '2.0', id: 's', method: 'message/stream', params: { message: slowMessage(8_000, text) } },
      { key: sut.a2aKey, stopAfter: (_f, all) => (all.length === 3 && progressed(), false) },
    );
    // Frame 3 (after the Task snapshot and `working`) is the progress event (run_seq 1), applied: its offset
    // is one tasks must commit on the way out.
    await gotProgress;

    expect(await stopMeasured('tasks')).toBe(0);
    // The live stream did not hold the shutdown for the gRPC grace period (5 s).
    expect(measured.tasks).toBeLessThan(3_000);
    const cut = await stream;
    const taskId = cut.frames[0]!.data.result.id as string;
    const lastSeen = cut.frames.filter((f) => f.id !== undefined).at(-1)!.id!;
    // The stream ended with an error frame that says how to resume, not with a final event.
    expect(cut.frames.at(-1)!.data.error).toMatchObject({ code: -32603, data: { code: 'UNAVAILABLE' } });
    expect(cut.frames.at(-1)!.data.error.message).toMatch(/resubscribe/);
    for (const g of cluster.gateways) expect(await readyz(g)).toBe(503);

    const logBefore = statSync(join(cluster.logDir, 'tasks.log')).size;
    await cluster.restart('tasks');
    for (const g of cluster.gateways) await eventually(async () => (await readyz(g)) === 200, 60_000, 100);
    // Resumed on the other gateway after the restart, while the run still works: the events after the last
    // one seen, then the live ones to the final one.
    const resumed = await sse(
      url(g2, SLOW),
      { jsonrpc: '2.0', id: 'r', method: 'tasks/resubscribe', params: { id: taskId } },
      { key: sut.a2aKey, headers: { 'Last-Event-ID': String(lastSeen) } },
    );
    const ids = resumed.frames.map((f) => f.id);
    expect(ids[0]).toBe(lastSeen + 1);
    expect(ids).toEqual(ids.map((_, i) => lastSeen + 1 + i));
    expect(resumed.frames.at(-1)!.data.result).toMatchObject({ final: true, status: { state: 'completed' } });
    const streamed = [...cut.frames, ...resumed.frames]
      .filter((f) => f.data.result?.kind === 'artifact-update')
      .map((f) => f.data.result.artifact.parts[0].text)
      .join('');
    expect(streamed).toBe(`Finished after 8000 ms: ${text}`);
    const done = await eventually(
      async () => {
        const t = await getTask(taskId);
        return t.status.state === 'working' ? undefined : t;
      },
      60_000,
      200,
    );
    expectAnsweredOnce(done, `Finished after 8000 ms: ${text}`);
    // The restarted consumer started at the committed offsets: nothing it had applied came again.
    const afterRestart = logOf('tasks').slice(logBefore);
    expect(afterRestart).toContain('tasks service listening');
    // (Only this task's events count: a run handed back by an earlier test may legitimately be replayed.)
    expect(
      afterRestart.split('\n').filter((l) => l.includes(taskId) && l.includes('already applied (redelivered)')),
    ).toEqual([]);
  }, 120_000);

  it('every process exits 0 on SIGTERM and closes its connections once, without "close failed" errors', async () => {
    // One at a time, in the order of stopAll (gateways, runners, then the rest), each measured.
    const names = [...cluster.procs.keys()].reverse();
    const order = [
      ...names.filter((n) => n.startsWith('gateway')),
      ...names.filter((n) => n.startsWith('runner')),
      ...names.filter((n) => !/^(gateway|runner)/.test(n)),
    ];
    for (const name of order) await stopMeasured(name, `${name} (idle)`);
    for (const [name, p] of cluster.procs) {
      expect(p.code, name).toBe(0);
      const log = logOf(name);
      expect(log, name).not.toMatch(/close failed|shutdown failed|disconnect failed/);
      // Our own error lines (kafkajs' own records are its business, routed through the same logger).
      expect(
        log.split('\n').filter((l) => l.includes('"level":"error"') && !l.includes('"component":"kafkajs"')),
        name,
      ).toEqual([]);
    }
  }, 120_000);
});
