import type { Message } from '@a2a-js/sdk';
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
  type AppendOptions,
  type EventLog,
  type LoggedEvent,
} from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { seedDemo } from '../../src/domain/seed';
import {
  DEFAULT_TASK_CONFIG,
  openTaskCollections,
  TaskService,
  type StreamItem,
  type TaskServiceConfig,
} from '../../src/domain/task-service';
import { delta, pushOn, status } from '../support/task-service-setup';

/** An in-memory log that can lose appends (written to the store, never to the log) or be unreachable. */
class FaultyEventLog implements EventLog {
  readonly inner = new InMemoryEventLog();
  loseAppends = false;
  down = false;
  /** The options of every appendBatch and the number of separate `expire` calls (one write each). */
  readonly batchOptions: { stream: string; options: AppendOptions | undefined }[] = [];
  expires = 0;
  append(stream: string, seq: number, data: Uint8Array, options?: AppendOptions): Promise<boolean> {
    if (this.down) return Promise.reject(new AppError('UNAVAILABLE', 'event log down'));
    if (this.loseAppends) return Promise.resolve(true); // acknowledged, then lost (a restart right after)
    return this.inner.append(stream, seq, data, options);
  }
  appendBatch(stream: string, events: readonly LoggedEvent[], options?: AppendOptions): Promise<number> {
    this.batchOptions.push({ stream, options });
    if (this.down) return Promise.reject(new AppError('UNAVAILABLE', 'event log down'));
    if (this.loseAppends) return Promise.resolve(events.length); // acknowledged, then lost
    return this.inner.appendBatch(stream, events, options);
  }
  read(stream: string, afterSeq: number, limit?: number): Promise<LoggedEvent[]> {
    if (this.down) return Promise.reject(new AppError('UNAVAILABLE', 'event log down'));
    return this.inner.read(stream, afterSeq, limit);
  }
  last(stream: string): Promise<number> {
    if (this.down) return Promise.reject(new AppError('UNAVAILABLE', 'event log down'));
    return this.inner.last(stream);
  }
  tail(stream: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    if (this.down) {
      return {
        [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new AppError('UNAVAILABLE', 'event log down')) }),
      };
    }
    return this.inner.tail(stream, afterSeq, signal);
  }
  expire(stream: string, ttlMs: number): Promise<void> {
    this.expires += 1;
    if (this.down) return Promise.reject(new AppError('UNAVAILABLE', 'event log down'));
    return this.inner.expire(stream, ttlMs);
  }
  ping(): Promise<void> {
    return this.inner.ping();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function setup(config: Partial<TaskServiceConfig> = {}) {
  const store = new InMemoryDocumentStore();
  const bus = new InMemoryBus();
  const eventLog = new FaultyEventLog();
  const clock = new ManualClock(Date.UTC(2026, 10, 22));
  const ids = new SequentialIds('id');
  const cache = new InMemoryCache({ clock });
  const control = new ControlPlane(await openControlCollections(store), cache, clock, ids);
  await seedDemo(control);
  await pushOn(control); // the announcements are looked at
  const runs: eventsV1.RunRequested[] = [];
  await bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push(eventsV1.RunRequested.decode(m.value));
  });
  const pushed: eventsV1.LoggedTaskEvent[] = [];
  await bus.subscribe('a2a.task.updates', 'test', async (m) => {
    pushed.push(eventsV1.LoggedTaskEvent.decode(m.value));
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
    config: { ...DEFAULT_TASK_CONFIG, ...config },
  });
  const caller = {
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-echo',
    keyId: 'k',
    protocolVersion: '0.3.0',
  };
  const runOf = async (taskId: string): Promise<string> => {
    await expect.poll(() => runs.some((r) => r.taskId === taskId), { timeout: 2_000 }).toBe(true);
    return runs.find((r) => r.taskId === taskId)!.runId;
  };
  return { tasks, bus, eventLog, control, caller, runOf, pushed, runs };
}

const msg = (messageId: string): Message => ({
  kind: 'message',
  role: 'user',
  messageId,
  parts: [{ kind: 'text', text: 'hi' }],
});

/** Collects a stream in the background; `items` fills as events arrive. */
/** The events a stream yields after its opening Task snapshot (message/stream opens with the Task). */
function consume(stream: AsyncIterable<StreamItem>): { items: StreamItem[]; done: Promise<void> } {
  const items: StreamItem[] = [];
  const done = (async () => {
    let first = true;
    for await (const item of stream) {
      const isSnapshot = (JSON.parse(item.eventJson) as { kind?: string }).kind === 'task';
      if (isSnapshot && !first) throw new Error('a Task snapshot after the first frame');
      first = false;
      if (!isSnapshot) items.push(item);
    }
  })();
  return { items, done };
}
const parsed = (items: StreamItem[]): Record<string, unknown>[] =>
  items.map((i) => JSON.parse(i.eventJson) as Record<string, unknown>);

describe('event log retention', () => {
  it("a finished task's retention is set by its final append, not by a separate write", async () => {
    const { tasks, eventLog, caller, runOf } = await setup({ retentionMs: 123_000 });
    const task = await tasks.send(caller, msg('m-ttl'), { blocking: false });
    const runId = await runOf(task.id);
    await tasks.applyRunEvent(delta(task.id, runId, 1, 'Hel'));
    await tasks.applyRunEvent(status(task.id, runId, 2, 'completed'));
    const mine = eventLog.batchOptions.filter((b) => b.stream === task.id);
    expect(mine.length).toBeGreaterThan(1);
    // Only the last append (the final status) carries the retention; none before it.
    expect(mine.at(-1)!.options).toMatchObject({ expireAfterMs: 123_000 });
    expect(mine.slice(0, -1).every((b) => b.options?.expireAfterMs === undefined)).toBe(true);
    expect(eventLog.expires).toBe(0);
  });
});

describe('event log lost or behind: the stored task is authoritative', () => {
  it('a stream open while the log loses its events still gets every later event and ends final, and pushes go on', async () => {
    const { tasks, eventLog, caller, runOf, pushed, bus } = await setup();
    const ac = new AbortController();
    const s = consume(tasks.sendStream(caller, msg('m1'), {}, ac.signal));
    await expect.poll(() => s.items.length).toBe(1);
    const taskId = parsed(s.items)[0]!.taskId as string;
    const runId = await runOf(taskId);
    await tasks.applyRunEvent(delta(taskId, runId, 1, 'Hel'));
    await expect.poll(() => s.items.length).toBe(2);
    // Redis restarted without persistence: the task's stream is gone.
    await eventLog.inner.dropEvents(taskId);
    await tasks.applyRunEvent(delta(taskId, runId, 2, 'lo'));
    await tasks.applyRunEvent(status(taskId, runId, 3, 'completed'));
    await s.done;
    expect(s.items.map((i) => i.seq)).toEqual([1, 2, 3, 4]);
    expect(s.items.at(-1)).toMatchObject({ final: true });
    expect(parsed(s.items).at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
    // Appended with the seq the store knows (not dropped as a gap), so webhooks heard of each one.
    expect((await eventLog.inner.read(taskId, 0)).map((e) => e.seq)).toEqual([3, 4]);
    await bus.drain();
    expect(pushed.filter((p) => p.taskId === taskId).map((p) => p.seq)).toEqual([1, 2, 3, 4]);
  });

  it('a reader that missed lost events rebuilds them from the stored task: full artifacts, then the final status', async () => {
    const { tasks, eventLog, caller, runOf } = await setup();
    const task = await tasks.send(caller, msg('m2'), { blocking: false });
    const runId = await runOf(task.id);
    await tasks.applyRunEvent(delta(task.id, runId, 1, 'Hel'));
    await tasks.applyRunEvent(delta(task.id, runId, 2, 'lo'));
    await eventLog.inner.dropEvents(task.id);
    // A client that saw only event 1 resubscribes; the log holds nothing now.
    const ac = new AbortController();
    const s = consume(tasks.resubscribe(caller, task.id, 1, ac.signal));
    await expect.poll(() => tasks.openStreams).toBe(1);
    await new Promise((r) => setTimeout(r, 50)); // waiting on the (empty) log
    await tasks.applyRunEvent(status(task.id, runId, 3, 'completed'));
    await s.done;
    expect(parsed(s.items)).toEqual([
      {
        kind: 'artifact-update',
        taskId: task.id,
        contextId: task.contextId,
        artifact: { artifactId: 'a1', name: 'agent_response', parts: [{ kind: 'text', text: 'Hello' }] },
        append: false,
        lastChunk: true,
      },
      expect.objectContaining({
        kind: 'status-update',
        final: true,
        status: expect.objectContaining({ state: 'completed' }),
      }),
    ]);
    // One SSE id per rebuild, on its last item: ids never repeat, and Last-Event-ID moves only once all arrived.
    expect(s.items.map((i) => [i.seq, i.final])).toEqual([
      [0, false],
      [4, true],
    ]);
  });

  it('a final event the log acknowledged and then lost still ends the stream and returns the blocking send (store check)', async () => {
    const { tasks, eventLog, caller, runOf, runs } = await setup({ streamStoreCheckMs: 50 });
    const blocking = tasks.send(caller, msg('m3'), {});
    await expect.poll(() => runs.length).toBe(1);
    const { taskId: blockingTask, runId: blockingRun } = runs[0]!;
    const ac = new AbortController();
    const stream = consume(tasks.sendStream(caller, msg('m3b'), {}, ac.signal));
    await expect.poll(() => stream.items.length).toBe(1);
    const streamTask = parsed(stream.items)[0]!.taskId as string;
    const streamRun = await runOf(streamTask);
    eventLog.loseAppends = true;
    await tasks.applyRunEvent(delta(blockingTask, blockingRun, 1, 'done'));
    await tasks.applyRunEvent(status(blockingTask, blockingRun, 2, 'completed'));
    await tasks.applyRunEvent(status(streamTask, streamRun, 1, 'completed'));
    const answered = await blocking;
    expect(answered.status.state).toBe('completed');
    expect(answered.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'done' }]);
    await stream.done;
    expect(stream.items.at(-1)).toMatchObject({ final: true });
    expect(parsed(stream.items).at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
  });

  it('follows the stored task while the event log is unreachable: the blocking send returns the final state', async () => {
    const { tasks, eventLog, caller, runOf } = await setup({ streamStoreCheckMs: 50 });
    const task = await tasks.send(caller, msg('m4'), { blocking: false });
    const runId = await runOf(task.id);
    eventLog.down = true;
    const ac = new AbortController();
    const s = consume(tasks.resubscribe(caller, task.id, 1, ac.signal));
    await new Promise((r) => setTimeout(r, 100));
    // Applied to the store; the log append fails (the bus would retry it): the stream still ends.
    await expect(tasks.applyRunEvent(status(task.id, runId, 1, 'completed'))).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    await s.done;
    expect(s.items.at(-1)).toMatchObject({ final: true });
    expect(parsed(s.items).at(-1)).toMatchObject({ status: { state: 'completed' } });
  });
});

describe('a send while the event log is unreachable', () => {
  it('is answered (stored, run published, update announced) and its stream follows the stored task to final', async () => {
    const { tasks, eventLog, caller, runOf, pushed, bus } = await setup({ streamStoreCheckMs: 50 });
    eventLog.down = true;
    const ac = new AbortController();
    const s = consume(tasks.sendStream(caller, msg('d1'), {}, ac.signal));
    await expect.poll(() => s.items.length).toBe(1);
    expect(parsed(s.items)[0]).toMatchObject({ kind: 'status-update', status: { state: 'working' }, final: false });
    const taskId = parsed(s.items)[0]!.taskId as string;
    const runId = await runOf(taskId);
    await bus.drain();
    expect(pushed.filter((p) => p.taskId === taskId).map((p) => p.seq)).toEqual([1]);
    // The runner's event is stored; its log append fails and the bus would retry it. The stream ends anyway.
    await expect(tasks.applyRunEvent(status(taskId, runId, 1, 'completed'))).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    await s.done;
    expect(s.items.at(-1)).toMatchObject({ final: true });
    expect(parsed(s.items).at(-1)).toMatchObject({ status: { state: 'completed' } });
  });
});

describe('streams per process are bounded (TASKS_MAX_STREAMS)', () => {
  it('refuses a stream or blocking send beyond the cap with OVERLOADED before charging or creating anything', async () => {
    const { tasks, control, caller } = await setup({ maxStreams: 2 });
    const credits = async (): Promise<number> =>
      (await control.accounts.getSubscription(caller.subscriptionId)).credits;
    const ac = new AbortController();
    const a = consume(tasks.sendStream(caller, msg('s1'), {}, ac.signal));
    const b = consume(tasks.sendStream(caller, msg('s2'), {}, ac.signal));
    await expect.poll(() => a.items.length + b.items.length).toBe(2);
    expect(tasks.openStreams).toBe(2);
    const before = await credits();

    const refusedStream = consume(tasks.sendStream(caller, msg('s3'), {}, ac.signal));
    await expect(refusedStream.done).rejects.toMatchObject({ code: 'OVERLOADED' });
    await expect(tasks.send(caller, msg('s4'), {})).rejects.toMatchObject({ code: 'OVERLOADED' });
    const open = parsed(a.items)[0]!.taskId as string;
    await expect(consume(tasks.resubscribe(caller, open, 0, ac.signal)).done).rejects.toMatchObject({
      code: 'OVERLOADED',
    });
    expect(await credits()).toBe(before); // nothing charged
    // Nothing started either: the messageIds are free, so the same messages go through once there is room.
    const nonBlocking = await tasks.send(caller, msg('s5'), { blocking: false });
    expect(nonBlocking.status.state).toBe('working');
    ac.abort();
    await Promise.all([a.done, b.done]);
    expect(tasks.openStreams).toBe(0);
    const again = new AbortController();
    const retried = consume(tasks.sendStream(caller, msg('s3'), {}, again.signal));
    await expect.poll(() => retried.items.length).toBe(1);
    expect(parsed(retried.items)[0]).toMatchObject({ kind: 'status-update', status: { state: 'working' } });
    again.abort();
    await retried.done;
  });
});
