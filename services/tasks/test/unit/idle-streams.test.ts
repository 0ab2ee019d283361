import { getEventListeners } from 'node:events';
import type { Message } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { InMemoryEventLog, type LoggedEvent } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import type { StreamItem } from '../../src/domain/task-service';
import { taskServiceSetup } from '../support/task-service-setup';

/**
 * Idle streams (issue 10): what an open stream holds is released when it closes, and an idle stream does not
 * collect more as its store checks come and go. Counted, not measured in bytes (docs/performance.md).
 */

const STORE_CHECK_MS = 50;

/**
 * An in-memory log whose tails count the reactions each read gets: `then` on a read's promise is how anything
 * waits for it (an `await`, `Promise.race`).
 */
class CountingEventLog extends InMemoryEventLog {
  reads = 0;
  reactions = 0;

  override tail(stream: string, afterSeq: number, signal: AbortSignal): AsyncIterable<LoggedEvent> {
    const inner = super.tail(stream, afterSeq, signal)[Symbol.asyncIterator]();
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const log = this;
    class CountedRead<T> extends Promise<T> {
      static override get [Symbol.species]() {
        return Promise;
      }
      override then<A = T, B = never>(
        onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
        onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
      ): Promise<A | B> {
        log.reactions += 1;
        return super.then(onFulfilled, onRejected);
      }
    }
    return {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          log.reads += 1;
          return new CountedRead<IteratorResult<LoggedEvent>>((resolve, reject) => inner.next().then(resolve, reject));
        },
        return: (value?: unknown) => inner.return!(value),
      }),
    };
  }
}

async function setup() {
  const { tasks, bus, eventLog, caller } = await taskServiceSetup({
    eventLog: new CountingEventLog(),
    config: { streamStoreCheckMs: STORE_CHECK_MS },
  });
  const runs: eventsV1.RunRequested[] = [];
  await bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push(eventsV1.RunRequested.decode(m.value));
  });
  const runOf = async (taskId: string): Promise<string> => {
    await expect.poll(() => runs.some((r) => r.taskId === taskId), { timeout: 2_000 }).toBe(true);
    return runs.find((r) => r.taskId === taskId)!.runId;
  };
  return { tasks, eventLog, caller, runOf };
}

const msg = (messageId: string): Message => ({
  kind: 'message',
  role: 'user',
  messageId,
  parts: [{ kind: 'text', text: 'hi' }],
});

const event = (taskId: string, runId: string, runSeq: number, e: eventsV1.TaskEvent['event']): eventsV1.TaskEvent => ({
  taskId,
  runId,
  runSeq,
  emittedAtMs: 0,
  batch: [],
  event: e,
});

function consume(stream: AsyncIterable<StreamItem>): { items: StreamItem[]; done: Promise<void> } {
  const items: StreamItem[] = [];
  const done = (async () => {
    for await (const item of stream) items.push(item);
  })();
  return { items, done };
}

const abortListeners = (signals: AbortSignal[]): number[] => signals.map((s) => getEventListeners(s, 'abort').length);

describe('idle streams release what they hold', () => {
  const N = 200;

  it(`${N} idle resubscribe streams: tails and abort listeners stay flat across store checks and return to zero on close`, async () => {
    const { tasks, eventLog, caller, runOf } = await setup();
    const task = await tasks.send(caller, msg('m1'), { blocking: false });
    const runId = await runOf(task.id);
    await tasks.applyRunEvent(
      event(task.id, runId, 1, { $case: 'status', status: { state: 'working', messageJson: '' } }),
    );
    expect(tasks.openStreams).toBe(0);
    expect(eventLog.tailCount).toBe(0);

    const controllers = Array.from({ length: N }, () => new AbortController());
    const signals = controllers.map((c) => c.signal);
    const streams = controllers.map((c) => consume(tasks.resubscribe(caller, task.id, 0, c.signal)));
    // Each replays the task's events so far, then waits on the log.
    await expect.poll(() => streams.every((s) => s.items.length === 2), { timeout: 5_000 }).toBe(true);
    await expect.poll(() => eventLog.tailCount).toBe(N);
    expect(tasks.openStreams).toBe(N);
    const listeners = abortListeners(signals);
    // One stream, its own signal: a listener for the follower and one for its idle wait, nothing shared.
    expect(Math.max(...listeners)).toBeLessThanOrEqual(2);

    // Several store checks pass with nothing to say: nothing accumulates on the streams' signals.
    await new Promise((r) => setTimeout(r, STORE_CHECK_MS * 5));
    expect(abortListeners(signals)).toEqual(listeners);
    expect(eventLog.tailCount).toBe(N);

    // Every idle stream still gets the next event, in order.
    await tasks.applyRunEvent(
      event(task.id, runId, 2, {
        $case: 'artifact',
        artifact: {
          artifactId: 'a1',
          name: 'agent_response',
          partsJson: JSON.stringify([{ kind: 'text', text: 'later' }]),
          append: false,
          lastChunk: false,
        },
      }),
    );
    await expect.poll(() => streams.every((s) => s.items.length === 3), { timeout: 5_000 }).toBe(true);
    for (const s of streams) expect(s.items.map((i) => i.seq)).toEqual([1, 2, 3]);

    // Closing them (the clients went) releases every tail, slot and listener.
    for (const c of controllers) c.abort();
    await Promise.all(streams.map((s) => s.done));
    await expect.poll(() => eventLog.tailCount).toBe(0);
    expect(tasks.openStreams).toBe(0);
    expect(abortListeners(signals).every((n) => n === 0)).toBe(true);
  });

  it('an idle stream ends with the final event after many store checks', async () => {
    const { tasks, eventLog, caller, runOf } = await setup();
    const task = await tasks.send(caller, msg('m2'), { blocking: false });
    const runId = await runOf(task.id);
    const ac = new AbortController();
    const s = consume(tasks.resubscribe(caller, task.id, 0, ac.signal));
    await expect.poll(() => eventLog.tailCount).toBe(1);
    await new Promise((r) => setTimeout(r, STORE_CHECK_MS * 6));
    await tasks.applyRunEvent(
      event(task.id, runId, 1, { $case: 'status', status: { state: 'completed', messageJson: '' } }),
    );
    await s.done;
    expect(s.items.at(-1)).toMatchObject({ final: true });
    expect(JSON.parse(s.items.at(-1)!.eventJson)).toMatchObject({ status: { state: 'completed' } });
    expect(eventLog.tailCount).toBe(0);
    expect(tasks.openStreams).toBe(0);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('a read pending across many store checks gets one reaction, not one more per check', async () => {
    const { tasks, eventLog, caller, runOf } = await setup();
    const task = await tasks.send(caller, msg('m3'), { blocking: false });
    await runOf(task.id);
    const ac = new AbortController();
    const s = consume(tasks.resubscribe(caller, task.id, 0, ac.signal));
    await expect.poll(() => eventLog.tailCount).toBe(1);
    await new Promise((r) => setTimeout(r, STORE_CHECK_MS * 8));
    // Eight store checks passed while the same read was pending.
    expect(eventLog.reads).toBeGreaterThan(0);
    expect(eventLog.reactions).toBe(eventLog.reads);
    ac.abort();
    await s.done;
  });
});
