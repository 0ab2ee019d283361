import { describe, expect, it } from 'vitest';
import { eventsV1 } from '@a2a-inbound/proto';
import { status, taskServiceSetup, textMsg } from '../support/task-service-setup';

/** A runner event: a text chunk of artifact `artifactId` with the runtime's own `append` flag. */
const chunk = (
  taskId: string,
  runId: string,
  runSeq: number,
  artifactId: string,
  text: string,
  append: boolean,
): eventsV1.TaskEvent => ({
  taskId,
  runId,
  runSeq,
  emittedAtMs: 0,
  batch: [],
  event: {
    $case: 'artifact',
    artifact: {
      artifactId,
      name: artifactId,
      partsJson: JSON.stringify([{ kind: 'text', text }]),
      append,
      lastChunk: false,
    },
  },
});

/**
 * A2A 0.3 §7.2.3: `append` continues an artifact sent before. The official Python (a2a-sdk 0.3.x) and Java clients
 * drop an `append: true` chunk of an artifact they have not seen: the first chunk of every artifact, whatever the
 * runtime (or an upstream agent) said, reaches clients without it, in the log and in every stream built from it.
 */
describe('the first chunk of an artifact never says append', () => {
  async function run(events: (taskId: string, runId: string) => eventsV1.TaskEvent[], batched = false) {
    const { tasks, bus, eventLog, caller } = await taskServiceSetup();
    const runs: eventsV1.RunRequested[] = [];
    await bus.subscribe('a2a.run.requested', 'test', async (m) => {
      runs.push(eventsV1.RunRequested.decode(m.value));
    });
    const task = await tasks.send(caller, textMsg('m-append'), { blocking: false });
    await bus.drain();
    const runId = runs.at(-1)!.runId;
    const evs = events(task.id, runId);
    if (batched)
      // One bus message for the run's events ready together (ADR 0025): folded over one read of the task.
      await tasks.applyRunEvent({
        taskId: task.id,
        runId,
        runSeq: evs.at(-1)!.runSeq,
        emittedAtMs: 0,
        event: undefined,
        batch: evs,
      });
    else for (const e of evs) await tasks.applyRunEvent(e);
    const frames = (await eventLog.read(task.id, 0))
      .map((e) => JSON.parse(eventsV1.LoggedTaskEvent.decode(e.data).eventJson) as Record<string, unknown>)
      .filter((e) => e.kind === 'artifact-update')
      .map((e) => [(e.artifact as { artifactId: string }).artifactId, e.append]);
    return { frames, stored: await tasks.get(caller, task.id) };
  }

  it('a first chunk that says append: true starts its artifact (per artifact id); later chunks append', async () => {
    const { frames, stored } = await run((t, r) => [
      chunk(t, r, 1, 'answer', 'Hel', true),
      chunk(t, r, 2, 'steps', 'one\n', true),
      chunk(t, r, 3, 'answer', 'lo', true),
      chunk(t, r, 4, 'steps', 'two\n', true),
      status(t, r, 5, 'completed'),
    ]);
    expect(frames).toEqual([
      ['answer', false],
      ['steps', false],
      ['answer', true],
      ['steps', true],
    ]);
    expect(stored.artifacts?.map((a) => [a.artifactId, a.parts])).toEqual([
      ['answer', [{ kind: 'text', text: 'Hello' }]],
      ['steps', [{ kind: 'text', text: 'one\ntwo\n' }]],
    ]);
  });

  it('the same when the events come as one batch', async () => {
    const { frames } = await run(
      (t, r) => [
        chunk(t, r, 1, 'answer', 'Hel', true),
        chunk(t, r, 2, 'answer', 'lo', true),
        status(t, r, 3, 'completed'),
      ],
      true,
    );
    expect(frames).toEqual([
      ['answer', false],
      ['answer', true],
    ]);
  });

  it('a runtime that already starts with append: false keeps its flags', async () => {
    const { frames } = await run((t, r) => [
      chunk(t, r, 1, 'answer', 'a', false),
      chunk(t, r, 2, 'answer', 'b', true),
      status(t, r, 3, 'completed'),
    ]);
    expect(frames).toEqual([
      ['answer', false],
      ['answer', true],
    ]);
  });
});
