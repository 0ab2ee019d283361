import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  ManualClock,
  RunLeases,
  SequentialIds,
} from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { seedDemo } from '../../src/domain/seed';
import { DEFAULT_TASK_CONFIG, openTaskCollections, TaskService } from '../../src/domain/task-service';
import { delta, status } from '../support/task-service-setup';

async function setup(config = DEFAULT_TASK_CONFIG) {
  const store = new InMemoryDocumentStore();
  const bus = new InMemoryBus();
  const eventLog = new InMemoryEventLog();
  const clock = new ManualClock(Date.UTC(2026, 10, 22));
  const ids = new SequentialIds('id');
  const cache = new InMemoryCache({ clock });
  const control = new ControlPlane(await openControlCollections(store), cache, clock, ids);
  await seedDemo(control);
  const runs: eventsV1.RunRequested[] = [];
  await bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push(eventsV1.RunRequested.decode(m.value));
  });
  const tasks = new TaskService(await openTaskCollections(store), {
    control,
    blobs: new InMemoryBlobStore(),
    bus,
    eventLog,
    cache,
    clock,
    ids,
    log: silentLogger(),
    config,
  });
  const caller = {
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-echo',
    keyId: 'k',
    protocolVersion: '0.3.0',
  };
  return { tasks, bus, eventLog, clock, control, runs, caller, store, leases: new RunLeases(cache) };
}

describe('TaskService.applyRunEvent', () => {
  it("stamps each status with the clock's time as it is then (formatted once per millisecond)", async () => {
    const { tasks, bus, runs, caller, clock } = await setup();
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm-time', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    expect(task.status.timestamp).toBe(new Date(clock.now()).toISOString());
    await bus.drain();
    const run = runs[0]!;
    await tasks.applyRunEvent(status(task.id, run.runId, 1, 'working'));
    expect((await tasks.get(caller, task.id)).status.timestamp).toBe(new Date(clock.now()).toISOString());
    clock.advance(1);
    await tasks.applyRunEvent(status(task.id, run.runId, 2, 'completed'));
    expect((await tasks.get(caller, task.id)).status.timestamp).toBe(new Date(clock.now()).toISOString());
  });

  it('applies each runner event exactly once even when the bus delivers it twice', async () => {
    const { tasks, bus, runs, caller, eventLog } = await setup();
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    await bus.drain();
    const run = runs[0]!;
    const events = [
      delta(task.id, run.runId, 1, 'Hel'),
      delta(task.id, run.runId, 2, 'lo'),
      status(task.id, run.runId, 3, 'completed'),
    ];
    for (const e of [...events, ...events, events[1]!]) await tasks.applyRunEvent(e);
    const got = await tasks.get(caller, task.id);
    expect(got.status.state).toBe('completed');
    expect(got.artifacts).toEqual([
      { artifactId: 'a1', name: 'agent_response', parts: [{ kind: 'text', text: 'Hello' }] },
    ]);
    expect((await eventLog.read(task.id, 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('applies an event whose predecessor was lost for good instead of holding the partition', async () => {
    const { tasks, bus, runs, caller } = await setup();
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm2', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    await bus.drain();
    const run = runs[0]!;
    await tasks.applyRunEvent(delta(task.id, run.runId, 1, 'a'));
    // Event 2 was dead-lettered: per-key order means it never comes; 3 and 4 still finish the task.
    await tasks.applyRunEvent(delta(task.id, run.runId, 3, 'c'));
    await tasks.applyRunEvent(status(task.id, run.runId, 4, 'completed'));
    const got = await tasks.get(caller, task.id);
    expect(got.status.state).toBe('completed');
    expect(got.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'ac' }]);
  });

  it('ignores late events of a task that already failed (never an error that blocks the bus)', async () => {
    const { tasks, bus, runs, caller, clock } = await setup({ ...DEFAULT_TASK_CONFIG, runTimeoutMs: 10_000 });
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm2b', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    await bus.drain();
    clock.advance(11_000);
    expect(await tasks.sweepStuckRuns()).toBe(1);
    // The run's events arrive after the task was failed, the later ones first after a gap.
    await tasks.applyRunEvent(delta(task.id, runs[0]!.runId, 3, 'late'));
    await tasks.applyRunEvent(status(task.id, runs[0]!.runId, 4, 'completed'));
    const got = await tasks.get(caller, task.id);
    expect(got.status.state).toBe('failed');
    expect(got.artifacts).toEqual([]);
  });

  it('a cancel marks the run canceled for runners that have not got its request yet', async () => {
    const { tasks, bus, runs, caller, leases } = await setup();
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm-cx', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    await bus.drain();
    const runId = runs[0]!.runId;
    expect(await leases.canceled(runId)).toBe(false);
    await tasks.cancel(caller, task.id);
    expect(await leases.canceled(runId)).toBe(true);
  });

  it('ignores events of a canceled run', async () => {
    const { tasks, bus, runs, caller } = await setup();
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm3', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    await bus.drain();
    await tasks.cancel(caller, task.id);
    await tasks.applyRunEvent(delta(task.id, runs[0]!.runId, 1, 'late'));
    const got = await tasks.get(caller, task.id);
    expect(got.status.state).toBe('canceled');
    expect(got.artifacts).toEqual([]);
  });

  it('the sweeper never fails a queued run for silence (however long it waits); its deadline does', async () => {
    const { tasks, bus, caller, clock } = await setup({
      ...DEFAULT_TASK_CONFIG,
      runStallMs: 10_000,
      runTimeoutMs: 120_000,
    });
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm4', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    await bus.drain();
    for (let i = 0; i < 10; i++) {
      clock.advance(11_000);
      expect(await tasks.sweepStuckRuns()).toBe(0);
    }
    clock.advance(11_000);
    expect(await tasks.sweepStuckRuns()).toBe(1);
    const got = await tasks.get(caller, task.id);
    expect(got.status.state).toBe('failed');
    expect(got.status.message?.parts[0]).toMatchObject({ kind: 'text', text: expect.stringContaining('time limit') });
  });

  it('a run whose runner holds its lease is never failed for silence, nor one that finished (events in transit)', async () => {
    const { tasks, bus, caller, clock, runs, leases } = await setup({ ...DEFAULT_TASK_CONFIG, runStallMs: 10_000 });
    const send = (messageId: string) =>
      tasks.send(
        caller,
        { kind: 'message', role: 'user', messageId, parts: [{ kind: 'text', text: 'hi' }] },
        { blocking: false },
      );
    const held = await send('m5');
    const finished = await send('m6');
    await bus.drain();
    const runOf = (taskId: string) => runs.find((r) => r.taskId === taskId)!.runId;
    await leases.finish(runOf(finished.id), 3600_000);
    for (let i = 0; i < 6; i++) {
      await leases.hold(runOf(held.id), 'runner-a', 3_000, 600_000);
      clock.advance(2_500);
      expect(await tasks.sweepStuckRuns()).toBe(0);
    }
    expect((await tasks.get(caller, held.id)).status.state).toBe('working');
    expect((await tasks.get(caller, finished.id)).status.state).toBe('working');
  });

  it('the sweeper fails a started run whose runner vanished once no runner took it over for RUN_STALL_MS', async () => {
    const { tasks, bus, caller, clock, runs, leases } = await setup({ ...DEFAULT_TASK_CONFIG, runStallMs: 10_000 });
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm7', parts: [{ kind: 'text', text: 'hi' }] },
      { blocking: false },
    );
    await bus.drain();
    await leases.hold(runs[0]!.runId, 'runner-a', 3_000, 600_000);
    clock.advance(11_000); // the lease lapsed: first seen unheld now
    expect(await tasks.sweepStuckRuns()).toBe(0);
    clock.advance(5_000);
    expect(await tasks.sweepStuckRuns()).toBe(0);
    clock.advance(6_000);
    expect(await tasks.sweepStuckRuns()).toBe(1);
    const got = await tasks.get(caller, task.id);
    expect(got.status.state).toBe('failed');
    expect(got.status.message?.parts[0]).toMatchObject({
      kind: 'text',
      text: expect.stringContaining('stopped responding'),
    });
  });

  it('a run that no runner started is published again once per RUN_STALL_MS (a crash may have lost its request)', async () => {
    const { tasks, bus, caller, clock, runs } = await setup({ ...DEFAULT_TASK_CONFIG, runStallMs: 10_000 });
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm8', parts: [{ kind: 'text', text: 'again' }] },
      { blocking: false },
    );
    await bus.drain();
    expect(runs).toHaveLength(1);
    clock.advance(11_000);
    await tasks.sweepStuckRuns();
    clock.advance(5_000);
    await tasks.sweepStuckRuns();
    await bus.drain();
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ taskId: task.id, runId: runs[0]!.runId });
    expect(JSON.parse(runs[1]!.messageJson)).toMatchObject({
      messageId: 'm8',
      parts: [{ kind: 'text', text: 'again' }],
    });
    expect((await tasks.get(caller, task.id)).status.state).toBe('working');
  });

  it('a retried send takes over a messageId whose first send died before storing its task (no lost message)', async () => {
    const { tasks, caller, clock, store, control } = await setup();
    const { messageIds } = await openTaskCollections(store);
    const before = (await control.accounts.getSubscription(caller.subscriptionId))?.credits;
    await messageIds.insert(`${caller.subscriptionId}:m9`, {
      subscriptionId: caller.subscriptionId,
      messageId: 'm9',
      taskId: 'never-stored',
      createdAtMs: clock.now(),
    });
    clock.advance(11_000);
    const task = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm9', parts: [{ kind: 'text', text: 'retry' }] },
      { blocking: false },
    );
    expect(task.status.state).toBe('working');
    const again = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'm9', parts: [{ kind: 'text', text: 'retry' }] },
      { blocking: false },
    );
    expect(again.id).toBe(task.id);
    expect((await control.accounts.getSubscription(caller.subscriptionId))?.credits).toBe((before ?? 0) - 1);
  });

  it('two racing sends of one messageId create one task and charge once', async () => {
    const { tasks, caller, control } = await setup();
    const before = (await control.accounts.getSubscription('demo-subscription')).credits;
    const message = {
      kind: 'message' as const,
      role: 'user' as const,
      messageId: 'same',
      parts: [{ kind: 'text' as const, text: 'x' }],
    };
    const [a, b] = await Promise.all([
      tasks.send(caller, message, { blocking: false }),
      tasks.send(caller, message, { blocking: false }),
    ]);
    expect(a.id).toBe(b.id);
    expect((await control.accounts.getSubscription('demo-subscription')).credits).toBe(before - 1);
  });
});

describe('TaskService.sweepRetention', () => {
  it('deletes finished tasks and their idempotency records after TASK_RETENTION_MS, and keeps running ones', async () => {
    const { tasks, bus, runs, caller, clock } = await setup({
      ...DEFAULT_TASK_CONFIG,
      retentionMs: 60_000,
      runStallMs: 10 * 60_000,
    });
    const done = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'r1', parts: [{ kind: 'text', text: 'a' }] },
      { blocking: false },
    );
    const running = await tasks.send(
      caller,
      { kind: 'message', role: 'user', messageId: 'r2', parts: [{ kind: 'text', text: 'b' }] },
      { blocking: false },
    );
    await bus.drain();
    const run = runs.find((r) => r.taskId === done.id)!;
    await tasks.applyRunEvent(status(done.id, run.runId, 1, 'completed'));
    clock.advance(30_000);
    expect(await tasks.sweepRetention()).toEqual({ tasks: 0, messageIds: 0, pushConfigs: 0 });
    clock.advance(31_000);
    const swept = await tasks.sweepRetention();
    expect(swept.tasks).toBe(1);
    expect(swept.messageIds).toBe(2);
    await expect(tasks.get(caller, done.id)).rejects.toMatchObject({ code: 'TASK_NOT_FOUND' });
    expect((await tasks.get(caller, running.id)).status.state).toBe('working');
  });
});
