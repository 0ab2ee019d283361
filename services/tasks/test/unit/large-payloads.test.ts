import { describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  ManualClock,
  SequentialIds,
  isSpilled,
  jsonBytes,
} from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import type { Message } from '@a2a-js/sdk';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { seedDemo } from '../../src/domain/seed';
import {
  DEFAULT_TASK_CONFIG,
  RUN_REQUEST_INLINE_MAX_BYTES,
  openTaskCollections,
  TaskService,
} from '../../src/domain/task-service';
import { delta } from '../support/task-service-setup';

async function setup() {
  const store = new InMemoryDocumentStore();
  const bus = new InMemoryBus();
  const clock = new ManualClock(Date.UTC(2026, 10, 22));
  const ids = new SequentialIds('id');
  const cache = new InMemoryCache({ clock });
  const control = new ControlPlane(await openControlCollections(store), cache, clock, ids);
  await seedDemo(control);
  const runs: { req: eventsV1.RunRequested; bytes: number }[] = [];
  await bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push({ req: eventsV1.RunRequested.decode(m.value), bytes: m.value.byteLength });
    await Promise.resolve();
  });
  const collections = await openTaskCollections(store);
  const tasks = new TaskService(collections, {
    control,
    blobs: new InMemoryBlobStore(),
    bus,
    eventLog: new InMemoryEventLog(),
    cache,
    clock,
    ids,
    log: silentLogger(),
    config: DEFAULT_TASK_CONFIG,
  });
  const caller = {
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-echo',
    keyId: 'k',
    protocolVersion: '0.3.0',
  };
  return { tasks, bus, runs, caller, collections, control, clock };
}

const userText = (messageId: string, text: string, contextId?: string): Message => ({
  kind: 'message',
  role: 'user',
  messageId,
  parts: [{ kind: 'text', text }],
  ...(contextId ? { contextId } : {}),
});

describe('tasks: large payloads (ADR 0013)', () => {
  it('stores a 600k-character message as a reference: small document and run request, full text on tasks/get', async () => {
    const { tasks, bus, runs, caller, collections } = await setup();
    const text = 'q'.repeat(600_000);
    const task = await tasks.send(caller, userText('m1', text), { blocking: false });
    await bus.drain();
    expect(runs[0]!.bytes).toBeLessThan(4_096);
    const sent = JSON.parse(runs[0]!.req.messageJson) as Message;
    expect(isSpilled(sent.parts[0]!)).toBe(true);
    expect(jsonBytes((await collections.tasks.get(task.id))!.doc)).toBeLessThan(8_192);
    const got = await tasks.get(caller, task.id, 1);
    expect(got.history?.[0]?.parts).toEqual([{ kind: 'text', text }]);
  });

  it('accumulates large text deltas as spilled chunks: the document stays small, tasks/get and the log resolve them', async () => {
    const { tasks, bus, runs, caller, collections } = await setup();
    const task = await tasks.send(caller, userText('m2', 'go'), { blocking: false });
    await bus.drain();
    const runId = runs[0]!.req.runId;
    const pieces = ['a'.repeat(300_000), 'b', 'c'.repeat(300_000), 'd'.repeat(20_000)];
    for (const [i, p] of pieces.entries()) await tasks.applyRunEvent(delta(task.id, runId, i + 1, p));
    await tasks.applyRunEvent({
      taskId: task.id,
      runId,
      runSeq: pieces.length + 1,
      emittedAtMs: 0,
      batch: [],
      event: { $case: 'status', status: { state: 'completed', messageJson: '' } },
    });
    expect(jsonBytes((await collections.tasks.get(task.id))!.doc)).toBeLessThan(16_384);
    const got = await tasks.get(caller, task.id, 2);
    expect(got.status.state).toBe('completed');
    expect(got.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: pieces.join('') }]);
    expect(got.history?.[1]?.parts).toEqual([{ kind: 'text', text: pieces.join('') }]);
    // A stream of the finished task's events gives the deltas in full.
    const streamed: string[] = [];
    for await (const item of tasks.resubscribe(caller, task.id, 0, new AbortController().signal)) {
      streamed.push(item.eventJson);
    }
    expect(streamed.join('')).not.toContain('a2aInboundBlob');
  });

  it('after a 1M-character exchange, the next run request of the context stays small (memory by reference, bounded)', async () => {
    const { tasks, bus, runs, caller, clock } = await setup();
    const first = await tasks.send(caller, userText('m3', 'x'.repeat(1_000_000), 'ctx-1'), { blocking: false });
    await bus.drain();
    await tasks.applyRunEvent(delta(first.id, runs[0]!.req.runId, 1, 'y'.repeat(1_000_000)));
    await tasks.applyRunEvent({
      taskId: first.id,
      runId: runs[0]!.req.runId,
      runSeq: 2,
      emittedAtMs: 0,
      batch: [],
      event: { $case: 'status', status: { state: 'completed', messageJson: '' } },
    });
    for (let i = 0; i < 5; i++) {
      clock.advance(10);
      await tasks.send(caller, userText(`m4-${i}`, `turn ${i}`, 'ctx-1'), { blocking: false });
    }
    await bus.drain();
    for (const r of runs) expect(r.bytes).toBeLessThan(RUN_REQUEST_INLINE_MAX_BYTES);
    const last = runs.find((r) => (JSON.parse(r.req.messageJson) as Message).messageId === 'm4-4')!;
    const memory = JSON.parse(last.req.historyJson) as Message[];
    expect(memory.map((m) => m.messageId)).toEqual(['m3', `${first.id}-answer-3`, 'm4-0', 'm4-1', 'm4-2', 'm4-3']);
  });

  it('a send whose task cannot be stored is refunded and its messageId can be sent again', async () => {
    const { tasks, caller, collections, control } = await setup();
    const before = await control.accounts.addCredits(caller.subscriptionId, 0);
    const insert = collections.tasks.insert.bind(collections.tasks);
    collections.tasks.insert = () => Promise.reject(new AppError('UNAVAILABLE', 'store down'));
    await expect(tasks.send(caller, userText('m5', 'hi'), { blocking: false })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(await control.accounts.addCredits(caller.subscriptionId, 0)).toBe(before);
    collections.tasks.insert = insert;
    const task = await tasks.send(caller, userText('m5', 'hi'), { blocking: false });
    expect(task.status.state).toBe('working');
    expect(await control.accounts.addCredits(caller.subscriptionId, 0)).toBe(before - 1);
  });
});
