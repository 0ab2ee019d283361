import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisEventLog } from '@a2a-inbound/adapter-redis';
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import type { EventLog } from '@a2a-inbound/ports';
import { eventually, manage, rpc, sse, uniqueId, type SseFrame, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from '../distributed/cluster';

/**
 * Resume after the task finished (issue 19, defect 1), in both modes: a `message/stream` is cut after its first
 * event (id 1); once its task completed, `tasks/resubscribe` with `Last-Event-ID: 1` (on the other gateway
 * where there is one) must give every event after it and the answer text, not only the final status. Half
 * the tasks first lose their events from the central log (their stream expires: what a Redis restart
 * without persistence does to every task), so those resumes are rebuilt from the stored task. No engine
 * is restarted: `npx vitest run -c vitest.faults.config.ts test/faults/resume.test.ts -t "resume after"`.
 */

const root = new URL('../..', import.meta.url).pathname;
const AGENT = 'demo-slow';
const WORK_MS = 300;
const STREAMS = Number(process.env.RESUME_STREAMS ?? 20);

interface Layout {
  gateways: string[];
  key: string;
  sut: Pick<Sut, 'tasksAddress' | 'subscriptionId'>;
  eventLog: EventLog;
}

interface Resumed {
  lost: boolean;
  /** Every frame came from the log (none rebuilt from the stored task). */
  fromLog: boolean;
  frames: number;
  ms: number;
  problems: string[];
}

/** The answer a client assembles from artifact frames: `append: true` continues, otherwise replaces. */
function answerOf(frames: SseFrame[]): string {
  const parts = new Map<string, string>();
  for (const f of frames) {
    const r = f.data?.result;
    if (r?.kind !== 'artifact-update' || r.artifact.name !== 'agent_response') continue;
    const chunk = (r.artifact.parts as { text?: string }[]).map((p) => p.text ?? '').join('');
    parts.set(r.artifact.artifactId as string, (r.append ? (parts.get(r.artifact.artifactId) ?? '') : '') + chunk);
  }
  return [...parts.values()].join('');
}

async function resumeOne(l: Layout, i: number): Promise<Resumed> {
  const [first, other] = [l.gateways[0]!, l.gateways.at(-1)!];
  const text = `resume ${i}`;
  const problems: string[] = [];
  const cut = await sse(
    `${first}/agents/${AGENT}/a2a`,
    {
      jsonrpc: '2.0',
      id: `s${i}`,
      method: 'message/stream',
      params: {
        message: {
          kind: 'message',
          role: 'user',
          messageId: uniqueId('resume'),
          parts: [
            { kind: 'text', text },
            { kind: 'data', data: { workMs: WORK_MS } },
          ],
        },
      },
    },
    { key: l.key, stopAfter: (f) => f.id !== undefined },
  );
  const taskId = cut.frames[0]?.data?.result?.id as string;
  const lastId = cut.frames.at(-1)!.id!;
  await eventually(async () => {
    const g = await rpc(
      `${first}/agents/${AGENT}/a2a`,
      { jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { id: taskId } },
      { key: l.key },
    );
    return g.body?.result?.status?.state === 'completed';
  }, 60_000);
  const lost = i % 2 === 1;
  if (lost) {
    await l.eventLog.expire(taskId, 0);
    if ((await l.eventLog.read(taskId, 0)).length > 0) problems.push('the log still holds its events');
  }
  const started = Date.now();
  const resumed = await sse(
    `${other}/agents/${AGENT}/a2a`,
    { jsonrpc: '2.0', id: `r${i}`, method: 'tasks/resubscribe', params: { id: taskId } },
    { key: l.key, headers: { 'Last-Event-ID': String(lastId) } },
  );
  const ms = Date.now() - started;
  const ids = resumed.frames.flatMap((f) => (f.id === undefined ? [] : [f.id]));
  const finals = resumed.frames.filter((f) => f.data?.result?.final === true);
  if (lastId !== 1) problems.push(`cut after id ${lastId}`);
  if (finals.length !== 1 || resumed.frames.at(-1) !== finals[0]) problems.push('not one final frame, last');
  if (resumed.frames.at(-1)?.data?.result?.status?.state !== 'completed') problems.push('not completed');
  if (ids.some((id, k) => id <= (k === 0 ? lastId : ids[k - 1]!))) problems.push(`ids ${ids.join(',')}`);
  // Every frame a logged event (ids 2, 3, … without a gap), or a part rebuilt from the stored task.
  const fromLog = resumed.frames.every((f, k) => f.id === lastId + 1 + k);
  if (lost && fromLog) problems.push('the log was lost, yet every frame came from it');
  const answer = answerOf(resumed.frames);
  if (answer !== `Finished after ${WORK_MS} ms: ${text}`) problems.push(`answer "${answer}"`);
  return { lost, fromLog, frames: resumed.frames.length, ms, problems };
}

async function resumeAfterFinish(mode: string, l: Layout): Promise<void> {
  await manage(l.sut, 'admin', 'settings.update', { agentId: AGENT, settings: { rateLimitPerMinute: 100_000 } });
  const results = await Promise.all(Array.from({ length: STREAMS }, (_, i) => resumeOne(l, i)));
  const report = (rs: Resumed[], label: string): string => {
    const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
    const frames = [...new Set(rs.map((r) => r.frames))].sort((a, b) => a - b).join(' or ');
    return `| ${mode} | ${label} | ${rs.length} | ${rs.filter((r) => r.problems.length === 0).length} | ${rs.filter((r) => r.fromLog).length} | ${frames} | ${ms[Math.floor(ms.length / 2)]} ms | ${ms.at(-1)} ms |`;
  };
  const text = [
    `Resume after the task finished (${mode}, ${new Date().toISOString()}): ${STREAMS} streams of ${AGENT} (${WORK_MS} ms) cut after event 1, resumed with Last-Event-ID 1 on gateway ${l.gateways.length} of ${l.gateways.length} once completed.`,
    '',
    '| mode | log | resumes | complete (answer, ids, one final) | all frames from the log | frames per resume | resume p50 | resume max |',
    '|---|---|---|---|---|---|---|---|',
    report(
      results.filter((r) => !r.lost),
      'intact',
    ),
    report(
      results.filter((r) => r.lost),
      "lost (the task's stream expired)",
    ),
    '',
  ].join('\n');
  const dir = join(root, '.data/faults');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `resume-${mode}.md`), text);
  process.stdout.write(`\n${text}\n`);
  expect(results.flatMap((r, i) => r.problems.map((p) => `stream ${i}: ${p}`))).toEqual([]);
}

describe('resume after the task finished: embedded', () => {
  let system: System;
  let layout: Layout;

  beforeAll(async () => {
    const engines = inMemoryEngines();
    system = await startSystem({ env: { PORT: '0', HOST: '127.0.0.1' }, log: silentLogger(), engines });
    const seed = system.tasks.seed!;
    layout = {
      gateways: [system.baseUrl],
      key: seed.credentials!.a2aKey,
      sut: { tasksAddress: system.tasks.grpc.address, subscriptionId: seed.subscriptionId },
      eventLog: engines.eventLog,
    };
  });

  afterAll(async () => {
    await system?.close();
  });

  it('resume after the task finished (embedded): every missed event and the answer, from the log or rebuilt', async () => {
    await resumeAfterFinish('embedded', layout);
  }, 120_000);
});

describe.runIf(engineUrlsSet)('resume after the task finished: distributed', () => {
  let cluster: Cluster;
  let layout: Layout;
  let eventLog: RedisEventLog;

  beforeAll(async () => {
    const started = await startDistributed({ env: { LOG_LEVEL: 'warn' } });
    cluster = started.cluster;
    // The cluster's own event log keys (`<namespace>:a2a:ev:<task>`), to lose a task's events as a restart would.
    eventLog = await RedisEventLog.connect({
      url: process.env.REDIS_URL!,
      prefix: `${started.namespace}:a2a:ev:`,
    });
    layout = { gateways: cluster.gateways, key: started.sut.a2aKey, sut: started.sut, eventLog };
  }, 240_000);

  afterAll(async () => {
    await eventLog?.close();
    await cluster?.stopAll();
  }, 120_000);

  it('resume after the task finished (distributed): on the other gateway, every missed event and the answer', async () => {
    expect(cluster.gateways.length).toBeGreaterThanOrEqual(2);
    await resumeAfterFinish('distributed', layout);
  }, 300_000);
});
