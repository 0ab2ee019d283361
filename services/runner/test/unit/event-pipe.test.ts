import { describe, expect, it } from 'vitest';
import { eventsV1 } from '@a2a-inbound/proto';
import { EventPipe, runEventsOf } from '../../src/domain/event-pipe';

const artifact = (text: string): eventsV1.TaskEvent['event'] => ({
  $case: 'artifact',
  artifact: {
    artifactId: 'a',
    name: 'n',
    partsJson: JSON.stringify([{ kind: 'text', text }]),
    append: true,
    lastChunk: false,
  },
});
const completed: eventsV1.TaskEvent['event'] = { $case: 'status', status: { state: 'completed', messageJson: '' } };

/** A bus whose publishes are recorded and resolve when the test says (or at once). */
function recorder(options: { manual?: boolean } = {}) {
  const messages: eventsV1.TaskEvent[] = [];
  const pending: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  const publish = (message: eventsV1.TaskEvent): Promise<void> => {
    // Through the bus's encoding, as the runner publishes it.
    messages.push(eventsV1.TaskEvent.decode(eventsV1.TaskEvent.encode(message).finish()));
    if (!options.manual) return Promise.resolve();
    return new Promise((resolve, reject) => pending.push({ resolve, reject }));
  };
  return { messages, pending, publish };
}

const texts = (m: eventsV1.TaskEvent): string[] =>
  runEventsOf(m).map((e) =>
    e.event?.$case === 'artifact'
      ? (JSON.parse(e.event.artifact.partsJson) as { text: string }[])[0]!.text
      : (e.event?.$case ?? 'none'),
  );

describe('EventPipe (ADR 0025)', () => {
  it('publishes what a run emits together as one batch message, in run_seq order', async () => {
    const bus = recorder();
    const pipe = new EventPipe({ publish: bus.publish, taskId: 't', runId: 'r', now: () => 7 });
    for (const t of ['a', 'b', 'c', 'd']) await pipe.emit(artifact(t));
    await pipe.emit(completed);
    expect(bus.messages).toHaveLength(0); // queued: nothing is awaited until the next turn or a flush
    await pipe.flush();
    expect(bus.messages).toHaveLength(1);
    const [m] = bus.messages;
    expect(m!.event).toBeUndefined();
    expect(m!.taskId).toBe('t');
    expect(m!.runId).toBe('r');
    expect(m!.runSeq).toBe(5);
    expect(m!.batch.map((e) => e.runSeq)).toEqual([1, 2, 3, 4, 5]);
    expect(m!.batch.every((e) => e.taskId === 't' && e.runId === 'r' && e.batch.length === 0)).toBe(true);
    expect(texts(m!)).toEqual(['a', 'b', 'c', 'd', 'status']);
  });

  it('sends a lone event as a plain TaskEvent (what a tasks service without batches reads)', async () => {
    const bus = recorder();
    const pipe = new EventPipe({ publish: bus.publish, taskId: 't', runId: 'r', now: () => 0 });
    await pipe.emit(completed);
    await pipe.flush();
    expect(bus.messages).toHaveLength(1);
    expect(bus.messages[0]!.batch).toEqual([]);
    expect(bus.messages[0]!.runSeq).toBe(1);
    expect(bus.messages[0]!.event?.$case).toBe('status');
  });

  it('publishes on the next turn of the event loop without a flush (no timer holds a frame back)', async () => {
    const bus = recorder();
    const pipe = new EventPipe({ publish: bus.publish, taskId: 't', runId: 'r', now: () => 0 });
    await pipe.emit(artifact('first'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(bus.messages.map(texts)).toEqual([['first']]);
  });

  it('keeps one publish in flight: what is emitted meanwhile goes out next, as one batch, in order', async () => {
    const bus = recorder({ manual: true });
    const pipe = new EventPipe({ publish: bus.publish, taskId: 't', runId: 'r', now: () => 0 });
    await pipe.emit(artifact('a'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(bus.messages).toHaveLength(1); // in flight
    await pipe.emit(artifact('b'));
    await pipe.emit(artifact('c'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(bus.messages).toHaveLength(1); // waits for the acknowledgement of the first
    const flushed = pipe.flush();
    bus.pending.shift()!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(bus.messages.map(texts)).toEqual([['a'], ['b', 'c']]);
    bus.pending.shift()!.resolve();
    await flushed;
    expect(bus.messages.flatMap(runEventsOf).map((e) => e.runSeq)).toEqual([1, 2, 3]);
  });

  it('splits a long queue by the batch limits (events and bytes)', async () => {
    const bus = recorder();
    const pipe = new EventPipe({
      publish: bus.publish,
      taskId: 't',
      runId: 'r',
      now: () => 0,
      limits: { maxBatchEvents: 3, maxBatchBytes: 1_000 },
    });
    for (let i = 0; i < 7; i++) await pipe.emit(artifact(String(i)));
    await pipe.emit(artifact('x'.repeat(2_000))); // larger than a batch: goes alone
    await pipe.emit(artifact('after'));
    await pipe.flush();
    expect(bus.messages.map((m) => runEventsOf(m).length)).toEqual([3, 3, 1, 1, 1]);
    expect(bus.messages.flatMap(runEventsOf).map((e) => e.runSeq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('waits for the bus once the queue is long (back-pressure)', async () => {
    const bus = recorder({ manual: true });
    const pipe = new EventPipe({
      publish: bus.publish,
      taskId: 't',
      runId: 'r',
      now: () => 0,
      limits: { maxQueuedEvents: 2 },
    });
    await pipe.emit(artifact('a'));
    let returned = false;
    const second = pipe.emit(artifact('b')).then(() => (returned = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(returned).toBe(false);
    bus.pending.shift()!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(returned).toBe(true);
    await second;
  });

  it('a failed publish fails every later emit and flush with its error; nothing after it is published', async () => {
    const bus = recorder({ manual: true });
    const pipe = new EventPipe({ publish: bus.publish, taskId: 't', runId: 'r', now: () => 0 });
    await pipe.emit(artifact('a'));
    const flushed = pipe.flush();
    const outage = new Error('bus down');
    bus.pending.shift()!.reject(outage);
    await expect(flushed).rejects.toBe(outage);
    await expect(pipe.emit(artifact('b'))).rejects.toBe(outage);
    await expect(pipe.flush()).rejects.toBe(outage);
    expect(bus.messages).toHaveLength(1);
  });

  it('close drops what is queued (a canceled run)', async () => {
    const bus = recorder();
    const pipe = new EventPipe({ publish: bus.publish, taskId: 't', runId: 'r', now: () => 0 });
    await pipe.emit(artifact('a'));
    pipe.close();
    await new Promise((resolve) => setImmediate(resolve));
    await pipe.flush();
    expect(bus.messages).toHaveLength(0);
    await expect(pipe.emit(artifact('b'))).rejects.toThrow(/closed/);
  });
});
