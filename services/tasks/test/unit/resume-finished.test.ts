import { describe, expect, it } from 'vitest';
import { InMemoryEventLog, type LoggedEvent } from '@a2a-inbound/ports';
import type { StreamItem } from '../../src/domain/task-service';
import { delta, status, taskServiceSetup, textMsg } from '../support/task-service-setup';

/** A log that can forget every event after a seq (Redis restarted between two appends, without persistence). */
class TruncatingEventLog extends InMemoryEventLog {
  /** Drops the events after `seq`; resolves them, to append again (a log that was only behind). */
  async keepUpTo(stream: string, seq: number): Promise<LoggedEvent[]> {
    const all = await this.read(stream, 0);
    await this.dropEvents(stream);
    for (const e of all.filter((x) => x.seq <= seq)) await this.append(stream, e.seq, e.data, { allowGap: true });
    return all.filter((x) => x.seq > seq);
  }
}

/** A task that ran to the end while its client was away: seq 1 working, 2 and 3 deltas, 4 completed. */
async function finishedTask() {
  // A log that ends short gets 200 ms (the smaller of 1 s and the store check) to catch up before a rebuild.
  const s = await taskServiceSetup({ eventLog: new TruncatingEventLog(), config: { streamStoreCheckMs: 200 } });
  const task = await s.tasks.send(s.caller, textMsg('m1'), { blocking: false });
  const runId = (await s.collections.tasks.get(task.id))!.doc.currentRunId;
  await s.tasks.applyRunEvent(delta(task.id, runId, 1, 'Hel'));
  await s.tasks.applyRunEvent(delta(task.id, runId, 2, 'lo'));
  await s.tasks.applyRunEvent(status(task.id, runId, 3, 'completed'));
  return { ...s, task };
}

async function collect(stream: AsyncIterable<StreamItem>): Promise<StreamItem[]> {
  const items: StreamItem[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

const parsed = (items: StreamItem[]): Record<string, any>[] =>
  items.map((i) => JSON.parse(i.eventJson) as Record<string, any>);

/** The answer text a client assembles from the frames (append: true concatenates, false replaces). */
function answerOf(items: StreamItem[]): string {
  let text = '';
  for (const e of parsed(items)) {
    if (e.kind !== 'artifact-update') continue;
    const chunk = (e.artifact.parts as { text: string }[]).map((p) => p.text).join('');
    text = e.append ? text + chunk : chunk;
  }
  return text;
}

describe('tasks/resubscribe with a Last-Event-ID on a task that finished meanwhile', () => {
  it('replays every event after the last id, in order, from the log, ending with the final status', async () => {
    const { tasks, caller, task } = await finishedTask();
    const items = await collect(tasks.resubscribe(caller, task.id, 1, new AbortController().signal));
    expect(items.map((i) => [i.seq, i.final])).toEqual([
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(parsed(items).at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    // The client that saw event 1 (working) ends with the whole answer.
    expect(answerOf(items)).toBe('Hello');
    // Resumed later still: only what it missed.
    expect(
      (await collect(tasks.resubscribe(caller, task.id, 3, new AbortController().signal))).map((i) => i.seq),
    ).toEqual([4]);
  });

  it('waits for a log that is only behind the stored task (its events are appended after the task is written)', async () => {
    const { tasks, caller, task, eventLog } = await finishedTask();
    const late = await eventLog.keepUpTo(task.id, 2);
    const resumed = collect(tasks.resubscribe(caller, task.id, 1, new AbortController().signal));
    await new Promise((r) => setTimeout(r, 50));
    for (const e of late) await eventLog.append(task.id, e.seq, e.data);
    const items = await resumed;
    expect(items.map((i) => [i.seq, i.final])).toEqual([
      [2, false],
      [3, false],
      [4, true],
    ]);
    expect(answerOf(items)).toBe('Hello');
  });

  it('rebuilds from the stored task what the log lost', async () => {
    const { tasks, caller, task, eventLog } = await finishedTask();
    // Events 3 and 4 were acknowledged and then lost (Redis restarted without persistence).
    await eventLog.keepUpTo(task.id, 2);
    const started = Date.now();
    const items = await collect(tasks.resubscribe(caller, task.id, 1, new AbortController().signal));
    expect(Date.now() - started).toBeLessThan(2_000); // the log's catch-up (200 ms), not a store check
    // Event 2 from the log; then the stored task: the artifact in full (no id of its own), the final status.
    expect(items.map((i) => [i.seq, i.final])).toEqual([
      [2, false],
      [0, false],
      [4, true],
    ]);
    expect(answerOf(items)).toBe('Hello');
    expect(parsed(items).at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });

    await eventLog.dropEvents(task.id); // the whole stream gone
    const rebuilt = await collect(tasks.resubscribe(caller, task.id, 1, new AbortController().signal));
    expect(rebuilt.map((i) => [i.seq, i.final])).toEqual([
      [0, false],
      [4, true],
    ]);
    expect(answerOf(rebuilt)).toBe('Hello');
  });

  it('without a Last-Event-ID, or with one at or past the last event: the single final event of the state table', async () => {
    const { tasks, caller, task } = await finishedTask();
    for (const afterSeq of [0, 4, 9999]) {
      const items = await collect(tasks.resubscribe(caller, task.id, afterSeq, new AbortController().signal));
      expect(items.map((i) => [i.seq, i.final])).toEqual([[4, true]]);
      expect(parsed(items)[0]).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
    }
  });
});
