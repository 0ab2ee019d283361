import { describe, expect, it, vi } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { InMemoryEventLog, type AppendOptions, type LazyLoggedEvent, type LoggedEvent } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { delta, status, taskServiceSetup, textMsg } from '../support/task-service-setup';

/** An in-memory log whose batched appends can fail (an outage right after the task was written). */
class FlakyEventLog extends InMemoryEventLog {
  failBatches = 0;
  override appendBatch(stream: string, events: readonly LoggedEvent[], options?: AppendOptions): Promise<number> {
    if (this.failBatches > 0) {
      this.failBatches -= 1;
      return Promise.reject(new AppError('UNAVAILABLE', 'event log down'));
    }
    return super.appendBatch(stream, events, options);
  }

  // The tasks service appends to an in-memory log unencoded (ADR 0067): the same outage there.
  override appendBatchLazy(
    stream: string,
    events: readonly LazyLoggedEvent[],
    options?: AppendOptions,
  ): Promise<number> {
    if (this.failBatches > 0) {
      this.failBatches -= 1;
      return Promise.reject(new AppError('UNAVAILABLE', 'event log down'));
    }
    return super.appendBatchLazy(stream, events, options);
  }
}

async function setup() {
  const { tasks, replica, bus, eventLog, caller, collections } = await taskServiceSetup({
    eventLog: new FlakyEventLog(),
    pushOn: true, // the announcements are looked at
  });
  const runs: eventsV1.RunRequested[] = [];
  await bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push(eventsV1.RunRequested.decode(m.value));
  });
  const announcements: eventsV1.LoggedTaskEvent[] = [];
  await bus.subscribe('a2a.task.updates', 'test', async (m) => {
    announcements.push(eventsV1.LoggedTaskEvent.decode(m.value));
  });
  const start = async (messageId: string) => {
    const task = await tasks.send(caller, textMsg(messageId), { blocking: false });
    await bus.drain();
    announcements.length = 0;
    return { taskId: task.id, runId: runs.at(-1)!.runId };
  };
  return { tasks, replica, runs, bus, eventLog, caller, collections, announcements, start };
}

/** The echo run's five events: four append deltas and `completed`. */
const echoRun = (taskId: string, runId: string): eventsV1.TaskEvent[] => [
  delta(taskId, runId, 1, 'Hel'),
  delta(taskId, runId, 2, 'lo '),
  delta(taskId, runId, 3, 'wor'),
  delta(taskId, runId, 4, 'ld'),
  status(taskId, runId, 5, 'completed'),
];
const batchOf = (events: eventsV1.TaskEvent[]): eventsV1.TaskEvent => ({
  taskId: events[0]!.taskId,
  runId: events[0]!.runId,
  runSeq: events.at(-1)!.runSeq,
  emittedAtMs: 0,
  event: undefined,
  batch: events,
});
/** What clients can see of a task's events: the log's events, timestamps left out. */
const logged = async (eventLog: InMemoryEventLog, taskId: string) =>
  (await eventLog.read(taskId, 0)).map((e) => {
    const l = eventsV1.LoggedTaskEvent.decode(e.data);
    const evt = JSON.parse(l.eventJson) as { status?: { timestamp?: string } };
    if (evt.status) delete evt.status.timestamp;
    return { seq: e.seq, final: l.final, evt };
  });
const withoutTimestamps = <T extends { status: { timestamp?: string } }>(t: T) => ({
  ...t,
  status: { ...t.status, timestamp: undefined },
});

describe('run event batches (ADR 0025)', () => {
  it('applies a batch with no read (this process stored the task), one compare-and-set write, one log append and one announcement', async () => {
    const { tasks, bus, eventLog, collections, announcements, start } = await setup();
    const { taskId, runId } = await start('m-batch');
    const get = vi.spyOn(collections.tasks, 'get');
    const replace = vi.spyOn(collections.tasks, 'replace');
    const append = vi.spyOn(eventLog, 'append');
    const appendBatch = vi.spyOn(eventLog, 'appendBatch');
    const appendBatchLazy = vi.spyOn(eventLog, 'appendBatchLazy');
    await tasks.applyRunEvent(batchOf(echoRun(taskId, runId)));
    await bus.drain();
    expect(get).not.toHaveBeenCalled();
    expect(replace).toHaveBeenCalledTimes(1);
    expect(append).not.toHaveBeenCalled();
    expect(appendBatch).not.toHaveBeenCalled();
    expect(appendBatchLazy).toHaveBeenCalledTimes(1);
    // One announcement: the last event, with the four before it as `preceding`, in order.
    expect(announcements).toHaveLength(1);
    const [a] = announcements;
    expect([...a!.preceding.map((p) => p.seq), a!.seq]).toEqual([2, 3, 4, 5, 6]);
    expect(a!.final).toBe(true);
    expect(a!.preceding.map((p) => (JSON.parse(p.eventJson) as { kind: string }).kind)).toEqual([
      'artifact-update',
      'artifact-update',
      'artifact-update',
      'artifact-update',
    ]);
  });

  it('a batch gives the same task and the same streamed frames as its events applied one by one', async () => {
    const one = await setup();
    const each = await one.start('m-same');
    for (const e of echoRun(each.taskId, each.runId)) await one.tasks.applyRunEvent(e);
    const two = await setup();
    const batched = await two.start('m-same');
    expect(batched.taskId).toBe(each.taskId);
    await two.tasks.applyRunEvent(batchOf(echoRun(batched.taskId, batched.runId)));

    const a = await one.tasks.get(one.caller, each.taskId, 10);
    const b = await two.tasks.get(two.caller, batched.taskId, 10);
    expect(b.status.state).toBe('completed');
    expect(b.artifacts).toEqual([
      { artifactId: 'a1', name: 'agent_response', parts: [{ kind: 'text', text: 'Hello world' }] },
    ]);
    expect(withoutTimestamps(b)).toEqual(withoutTimestamps(a));
    // Every frame, in order: four artifact-update appends (not merged), then the final status.
    const frames = await logged(two.eventLog, batched.taskId);
    expect(frames).toEqual(await logged(one.eventLog, each.taskId));
    expect(frames.slice(1).map((f) => [f.seq, (f.evt as { kind: string }).kind, f.final])).toEqual([
      [2, 'artifact-update', false],
      [3, 'artifact-update', false],
      [4, 'artifact-update', false],
      [5, 'artifact-update', false],
      [6, 'status-update', true],
    ]);
  });

  it('never mutates the task it read: each event of a batch copies only the artifact it changes', async () => {
    const { tasks, replica, collections, start } = await setup();
    const { taskId, runId } = await start('m-immutable');
    const events = echoRun(taskId, runId);
    await tasks.applyRunEvent(batchOf(events.slice(0, 2)));
    // Another replica applies the rest: it has not stored the task, so it reads it.
    const other = replica();
    const read: unknown[] = [];
    const snapshots: unknown[] = [];
    const get = collections.tasks.get.bind(collections.tasks);
    vi.spyOn(collections.tasks, 'get').mockImplementation(async (id) => {
      const v = await get(id);
      read.push(v?.doc);
      snapshots.push(structuredClone(v?.doc));
      return v;
    });
    await other.applyRunEvent(batchOf(events.slice(2)));
    expect(read).toHaveLength(1);
    expect(read[0]).toEqual(snapshots[0]);
  });

  it('a task another replica changed meanwhile costs a conflict and a read, and each event still applies once', async () => {
    const { tasks, replica, collections, eventLog, start } = await setup();
    const { taskId, runId } = await start('m-stale');
    const events = echoRun(taskId, runId);
    // The other replica applies the first two: what this process remembers is now a version behind.
    await replica().applyRunEvent(batchOf(events.slice(0, 2)));
    const get = vi.spyOn(collections.tasks, 'get');
    const replace = vi.spyOn(collections.tasks, 'replace');
    // A redelivery of all five here: only the last three are new.
    await tasks.applyRunEvent(batchOf(events));
    expect(get).toHaveBeenCalledTimes(1);
    expect(replace).toHaveBeenCalledTimes(2); // the stale one refused, then the one that applied
    const frames = await logged(eventLog, taskId);
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await collections.tasks.get(taskId))?.doc).toMatchObject({ state: 'completed', lastRunSeq: 5 });
  });

  it('answers a blocking send from the final applied event, without reading the task again', async () => {
    const { tasks, runs, bus, caller, collections } = await setup();
    const answer = tasks.send(caller, textMsg('m-blocking'), {});
    for (let i = 0; i < 50 && runs.length === 0; i++) {
      await bus.drain();
      await new Promise((r) => setTimeout(r, 5));
    }
    const { taskId, runId } = runs[0]!;
    const get = vi.spyOn(collections.tasks, 'get');
    await tasks.applyRunEvent(batchOf(echoRun(taskId, runId)));
    const task = await answer;
    expect(task.status.state).toBe('completed');
    expect(task.artifacts).toEqual([
      { artifactId: 'a1', name: 'agent_response', parts: [{ kind: 'text', text: 'Hello world' }] },
    ]);
    expect(get).not.toHaveBeenCalled();
  });

  it('a redelivered batch changes nothing and re-appends what the log lost of it', async () => {
    const { tasks, eventLog, collections, announcements, bus, start } = await setup();
    const { taskId, runId } = await start('m-redeliver');
    const batch = batchOf(echoRun(taskId, runId));
    await tasks.applyRunEvent(batch);
    const before = await collections.tasks.get(taskId);
    const frames = await logged(eventLog, taskId);
    await eventLog.dropEvents(taskId); // the log lost them (a restart without persistence)
    await bus.drain();
    announcements.length = 0;
    await tasks.applyRunEvent(batch);
    await bus.drain();
    const after = await collections.tasks.get(taskId);
    expect(after!.version).toBe(before!.version);
    // The whole batch is back in the log (seq 1, the send's own event, is not part of it).
    expect(await logged(eventLog, taskId)).toEqual(frames.slice(1));
    expect(announcements).toHaveLength(1);
    expect(announcements[0]!.preceding).toHaveLength(4);
    // Delivered once more with the log intact: nothing appended, nothing announced.
    announcements.length = 0;
    await tasks.applyRunEvent(batch);
    await bus.drain();
    expect(announcements).toHaveLength(0);
    expect((await collections.tasks.get(taskId))!.version).toBe(before!.version);
  });

  it('a batch that overlaps what was applied (a rerun that batched differently) applies only the new events', async () => {
    const { tasks, caller, eventLog, start } = await setup();
    const { taskId, runId } = await start('m-overlap');
    const events = echoRun(taskId, runId);
    await tasks.applyRunEvent(batchOf(events.slice(0, 2)));
    await tasks.applyRunEvent(batchOf(events)); // 1 and 2 again, then 3, 4, 5
    const got = await tasks.get(caller, taskId);
    expect(got.status.state).toBe('completed');
    expect(got.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello world' }]);
    expect((await eventLog.read(taskId, 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('an outage after the write fails the delivery; the redelivery appends the whole batch (nothing lost)', async () => {
    const { tasks, eventLog, caller, announcements, bus, start } = await setup();
    const { taskId, runId } = await start('m-crash');
    const batch = batchOf(echoRun(taskId, runId));
    eventLog.failBatches = 1;
    await expect(tasks.applyRunEvent(batch)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect((await tasks.get(caller, taskId)).status.state).toBe('completed'); // written atomically
    expect(await eventLog.last(taskId)).toBe(1); // but not logged yet
    await tasks.applyRunEvent(batch); // the bus redelivers it
    await bus.drain();
    expect((await eventLog.read(taskId, 0)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(announcements.map((a) => [...a.preceding.map((p) => p.seq), a.seq])).toEqual([[2, 3, 4, 5, 6]]);
  });

  it('a concurrent write between the read and the write re-applies the whole batch to the fresh task', async () => {
    const { tasks, caller, collections, start } = await setup();
    const { taskId, runId } = await start('m-conflict');
    const replace = collections.tasks.replace.bind(collections.tasks);
    let raced = false;
    vi.spyOn(collections.tasks, 'replace').mockImplementation(async (id, version, doc, options) => {
      if (!raced) {
        raced = true;
        // Another writer (a metadata change) lands first: this write's version is stale.
        const cur = (await collections.tasks.get(id))!;
        await replace(id, cur.version, { ...cur.doc, metadata: { touched: true } });
      }
      return replace(id, version, doc, options);
    });
    await tasks.applyRunEvent(batchOf(echoRun(taskId, runId)));
    const got = await tasks.get(caller, taskId);
    expect(got.status.state).toBe('completed');
    expect(got.metadata).toEqual({ touched: true });
    expect(got.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello world' }]);
  });

  it('stops applying a batch at the final status: later events of the batch change nothing', async () => {
    const { tasks, caller, eventLog, start } = await setup();
    const { taskId, runId } = await start('m-late');
    const events = [...echoRun(taskId, runId), delta(taskId, runId, 6, ' again')];
    await tasks.applyRunEvent(batchOf(events));
    expect((await tasks.get(caller, taskId)).artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello world' }]);
    expect(await eventLog.last(taskId)).toBe(6);
  });
});
