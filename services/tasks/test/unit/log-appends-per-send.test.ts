import { describe, expect, it, vi } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { eventsV1 } from '@a2a-inbound/proto';
import { DEFAULT_TASK_CONFIG } from '../../src/domain/task-service';
import { delta, status, taskServiceSetup, textMsg } from '../support/task-service-setup';

/** The echo run's five events as one batch (ADR 0025): four append deltas and `completed`. */
const echoBatch = (taskId: string, runId: string): eventsV1.TaskEvent => {
  const events = [
    delta(taskId, runId, 1, 'Hel'),
    delta(taskId, runId, 2, 'lo '),
    delta(taskId, runId, 3, 'wor'),
    delta(taskId, runId, 4, 'ld'),
    status(taskId, runId, 5, 'completed'),
  ];
  return { taskId, runId, runSeq: 5, emittedAtMs: 0, event: undefined, batch: events };
};

async function setup(pushOn: boolean) {
  const s = await taskServiceSetup({ pushOn, config: { streamStoreCheckMs: 50 } });
  const runs: eventsV1.RunRequested[] = [];
  await s.bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push(eventsV1.RunRequested.decode(m.value));
  });
  const frames = async (taskId: string) =>
    (await s.eventLog.read(taskId, 0)).map((e) => {
      const l = eventsV1.LoggedTaskEvent.decode(e.data);
      const evt = JSON.parse(l.eventJson) as { kind: string; status?: { state: string } };
      return [e.seq, evt.kind, evt.status?.state ?? '', l.final];
    });
  return { ...s, runs, frames };
}

const ECHO_FRAMES = [
  [1, 'status-update', 'working', false],
  [2, 'artifact-update', '', false],
  [3, 'artifact-update', '', false],
  [4, 'artifact-update', '', false],
  [5, 'artifact-update', '', false],
  [6, 'status-update', 'completed', true],
];

describe('one event-log append per echo send (ADR 0060)', () => {
  it('push off: the send appends nothing; the run logs its `working` event with its own, in one append', async () => {
    const { tasks, bus, eventLog, caller, runs, frames } = await setup(false);
    // Unencoded, to the in-memory log (ADR 0067); never encoded for it.
    const eager = vi.spyOn(eventLog, 'appendBatch');
    const appendBatch = vi.spyOn(eventLog, 'appendBatchLazy');
    const task = await tasks.send(caller, textMsg('p-off'), { blocking: false });
    await bus.drain();
    expect(appendBatch).not.toHaveBeenCalled();
    await tasks.applyRunEvent(echoBatch(task.id, runs.at(-1)!.runId));
    expect(appendBatch).toHaveBeenCalledTimes(1);
    expect(await frames(task.id)).toEqual(ECHO_FRAMES);
    expect(eager).not.toHaveBeenCalled();
    // Nothing is left pending on the stored task.
    expect((await tasks.get(caller, task.id)).status.state).toBe('completed');
  });

  it("a final append sets its stream's retention in the same call", async () => {
    const { tasks, bus, eventLog, caller, runs } = await setup(false);
    const eager = vi.spyOn(eventLog, 'appendBatch');
    const appendBatch = vi.spyOn(eventLog, 'appendBatchLazy'); // the in-memory log takes them unencoded (ADR 0067)
    const expire = vi.spyOn(eventLog, 'expire');
    const task = await tasks.send(caller, textMsg('p-retain'), { blocking: false });
    await bus.drain();
    await tasks.applyRunEvent(echoBatch(task.id, runs.at(-1)!.runId));
    expect(appendBatch).toHaveBeenCalledTimes(1);
    expect(appendBatch.mock.calls[0]![2]).toEqual({ expireAfterMs: DEFAULT_TASK_CONFIG.retentionMs });
    // One write for the final events and the retention (one LMDB commit in the durable embedded mode).
    expect(expire).not.toHaveBeenCalled();
    expect(eager).not.toHaveBeenCalled();
  });

  it('push on: the send logs `working` at once (webhooks is told), the run its own events: the same frames', async () => {
    const { tasks, bus, eventLog, caller, runs, frames } = await setup(true);
    // Unencoded, to the in-memory log (ADR 0067); never encoded for it.
    const eager = vi.spyOn(eventLog, 'appendBatch');
    const appendBatch = vi.spyOn(eventLog, 'appendBatchLazy');
    const task = await tasks.send(caller, textMsg('p-on'), { blocking: false });
    await bus.drain();
    expect(appendBatch).toHaveBeenCalledTimes(1);
    await tasks.applyRunEvent(echoBatch(task.id, runs.at(-1)!.runId));
    expect(appendBatch).toHaveBeenCalledTimes(2);
    expect(await frames(task.id)).toEqual(ECHO_FRAMES);
    expect(eager).not.toHaveBeenCalled();
  });

  it('push off: a cancel before the run has news logs the pending `working` event first, in order', async () => {
    const { tasks, bus, caller, frames } = await setup(false);
    const task = await tasks.send(caller, textMsg('p-cancel'), { blocking: false });
    await bus.drain();
    await tasks.cancel(caller, task.id);
    expect(await frames(task.id)).toEqual([
      [1, 'status-update', 'working', false],
      [2, 'status-update', 'canceled', true],
    ]);
  });

  it('push off: a stream gets `working` at once (from the task), then the run from the log, with no rebuild', async () => {
    const { tasks, bus, collections, eventLog, caller, runs } = await setup(false);
    const ac = new AbortController();
    const stream = tasks.sendStream(caller, textMsg('p-stream'), {}, ac.signal)[Symbol.asyncIterator]();
    const first = await stream.next();
    expect((JSON.parse(first.value!.eventJson) as { kind: string }).kind).toBe('task');
    await bus.drain();
    const taskId = runs.at(-1)!.taskId;
    const get = vi.spyOn(collections.tasks, 'get');
    const last = vi.spyOn(eventLog, 'last');
    // The frame after the Task is `working`, before the run has news (as when the send logged it).
    const working = (await stream.next()).value!;
    expect([working.seq, (JSON.parse(working.eventJson) as { status: { state: string } }).status.state]).toEqual([
      1,
      'working',
    ]);
    const next = stream.next();
    // Several store checks pass with the run silent: the pending event is not taken for one the log lost.
    await new Promise((r) => setTimeout(r, 200));
    // The store checks read the task (a lost log heals) and saw nothing missing: no look at the log's end.
    expect(get.mock.calls.length).toBeGreaterThan(0);
    expect(last).not.toHaveBeenCalled();
    await tasks.applyRunEvent(echoBatch(taskId, runs.at(-1)!.runId));
    const items = [working, (await next).value!];
    for (let r = await stream.next(); !r.done; r = await stream.next()) items.push(r.value);
    expect(items.map((i) => i.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(items.at(-1)!.final).toBe(true);
    ac.abort();
  });

  it('push off: a resubscription to a quiet task gets its `working` event at once, then the run once, in order', async () => {
    const { tasks, bus, caller, runs } = await setup(false);
    const task = await tasks.send(caller, textMsg('p-resub'), { blocking: false });
    await bus.drain();
    const ac = new AbortController();
    const stream = tasks.resubscribe(caller, task.id, 0, ac.signal)[Symbol.asyncIterator]();
    const first = (await stream.next()).value!;
    expect([first.seq, (JSON.parse(first.eventJson) as { status: { state: string } }).status.state]).toEqual([
      1,
      'working',
    ]);
    await tasks.applyRunEvent(echoBatch(task.id, runs.at(-1)!.runId));
    const items = [first];
    for (let r = await stream.next(); !r.done; r = await stream.next()) items.push(r.value);
    expect(items.map((i) => i.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    ac.abort();
  });

  it('push off: a run write whose append failed is repaired on redelivery with the pending `working` event too', async () => {
    const { tasks, bus, eventLog, caller, runs, frames } = await setup(false);
    const task = await tasks.send(caller, textMsg('p-repair'), { blocking: false });
    await bus.drain();
    const batch = echoBatch(task.id, runs.at(-1)!.runId);
    // The first apply stores the task, then the log is unreachable: the bus consumer retries the message.
    vi.spyOn(eventLog, 'appendBatchLazy').mockRejectedValueOnce(new AppError('UNAVAILABLE', 'event log down'));
    await expect(tasks.applyRunEvent(batch)).rejects.toThrow('event log down');
    expect(await frames(task.id)).toEqual([]);
    // The redelivery repairs the log with every event the write emitted: `working` included, no gap.
    await tasks.applyRunEvent(batch);
    expect(await frames(task.id)).toEqual(ECHO_FRAMES);
  });
});
