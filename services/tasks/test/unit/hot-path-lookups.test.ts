import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  ManualClock,
  SequentialIds,
} from '@a2a-inbound/ports';
import type { Collection } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import type { Message } from '@a2a-js/sdk';
import { AGENT_VIEW_TTL_MS } from '../../src/domain/catalog';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import type { PushConfigDoc, TaskDoc } from '../../src/domain/model';
import { seedDemo } from '../../src/domain/seed';
import { DEFAULT_TASK_CONFIG, openTaskCollections, TaskService } from '../../src/domain/task-service';

// Latency grew with stored tasks in distributed mode: conversation memory and the stuck-run sweeper
// queried `tasks` by contextId / state, which FerretDB v1 answers by scanning the collection. They now read
// lookup documents by id (ADR 0015): these tests fail if a query on `tasks` comes back to those paths.

async function setup(store = new InMemoryDocumentStore()) {
  const bus = new InMemoryBus();
  const clock = new ManualClock(Date.UTC(2026, 10, 25));
  const ids = new SequentialIds('id');
  const cache = new InMemoryCache({ clock });
  const control = new ControlPlane(await openControlCollections(store), cache, clock, ids);
  await seedDemo(control);
  const c = await openTaskCollections(store, clock.now() + DEFAULT_TASK_CONFIG.retentionMs);
  const runs: eventsV1.RunRequested[] = [];
  await bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push(eventsV1.RunRequested.decode(m.value));
  });
  const config = { ...DEFAULT_TASK_CONFIG, runTimeoutMs: 60_000 };
  const tasks = new TaskService(c, {
    control,
    blobs: new InMemoryBlobStore(),
    bus,
    eventLog: new InMemoryEventLog(),
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
  return { tasks, c, bus, clock, runs, caller, store };
}

/** Counts queries (find/findOne/count) on a collection; reads by id are not counted. */
function countQueries<T extends object>(coll: Collection<T>): { n: number } {
  const counter = { n: 0 };
  for (const name of ['find', 'findOne', 'count'] as const) {
    const original = (coll[name] as (...a: unknown[]) => Promise<unknown>).bind(coll);
    (coll as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      counter.n += 1;
      return original(...args);
    };
  }
  return counter;
}

const msg = (messageId: string, text: string, contextId?: string): Message => ({
  kind: 'message',
  role: 'user',
  messageId,
  parts: [{ kind: 'text', text }],
  ...(contextId ? { contextId } : {}),
});

describe('hot path without queries on tasks', () => {
  it('send, continue a conversation, get, apply events and sweep use no query on the tasks collection', async () => {
    const { tasks, c, bus, runs, caller, clock } = await setup();
    const queries = countQueries(c.tasks);
    const first = await tasks.send(caller, msg('m1', 'my name is Ada'), { blocking: false });
    await bus.drain();
    await tasks.applyRunEvent({
      taskId: first.id,
      runId: runs[0]!.runId,
      runSeq: 1,
      emittedAtMs: 0,
      batch: [],
      event: { $case: 'status', status: { state: 'completed', messageJson: '' } },
    });
    const second = await tasks.send(caller, msg('m2', 'what is my name?', first.contextId), { blocking: false });
    await bus.drain();
    await tasks.get(caller, second.id);
    clock.advance(61_000);
    expect(await tasks.sweepStuckRuns()).toBe(1); // the second run overran its deadline
    expect(queries.n).toBe(0);
    // Conversation memory still comes from the earlier task of the context.
    const memory = JSON.parse(runs[1]!.historyJson) as Message[];
    expect(memory.map((m) => (m.parts[0] as { text: string }).text)).toContain('my name is Ada');
    expect(memory.some((m) => (m.parts[0] as { text: string }).text === 'what is my name?')).toBe(false);
  });

  it('the sweeper forgets the marker of a finished task at its next sweep', async () => {
    const { tasks, c, bus, runs, caller } = await setup();
    const t = await tasks.send(caller, msg('a1', 'hello'), { blocking: false });
    await bus.drain();
    expect((await c.activeRuns.find({})).map((m) => m.id)).toEqual([t.id]);
    await tasks.sweepStuckRuns(); // still working: kept
    expect(await c.activeRuns.count({})).toBe(1);
    await tasks.applyRunEvent({
      taskId: t.id,
      runId: runs[0]!.runId,
      runSeq: 1,
      emittedAtMs: 0,
      batch: [],
      event: { $case: 'status', status: { state: 'completed', messageJson: '' } },
    });
    await tasks.sweepStuckRuns(); // young, but its run is over: no need to wait for it to be old
    expect(await c.activeRuns.find({})).toEqual([]);
  });

  it("a task's marker is deleted by id when the task finishes, without a sweep; an interrupted one keeps it", async () => {
    const { tasks, c, bus, runs, caller } = await setup();
    const done = await tasks.send(caller, msg('f1', 'hello'), { blocking: false });
    const asking = await tasks.send(caller, msg('f2', 'hello'), { blocking: false });
    await bus.drain();
    const deletes: { id: string; version: number | undefined }[] = [];
    const original = c.activeRuns.delete.bind(c.activeRuns);
    c.activeRuns.delete = (id, version) => {
      deletes.push({ id, version });
      return original(id, version);
    };
    const finish = (taskId: string, runId: string, state: 'completed' | 'input-required') =>
      tasks.applyRunEvent({
        taskId,
        runId,
        runSeq: 1,
        emittedAtMs: 0,
        batch: [],
        event: { $case: 'status', status: { state, messageJson: '' } },
      });
    await finish(done.id, runs[0]!.runId, 'completed');
    await finish(asking.id, runs[1]!.runId, 'input-required');
    await expect.poll(() => deletes.length).toBe(1);
    expect(deletes).toEqual([{ id: done.id, version: undefined }]);
    expect((await c.activeRuns.find({})).map((m) => m.id)).toEqual([asking.id]);
  });

  it('a young marker is forgotten only when its own run is over; one without its run waits to be old', async () => {
    const { tasks, c, clock } = await setup();
    const task = (id: string, state: string, runId: string) =>
      ({ id, status: { state }, state, currentRunId: runId }) as unknown as TaskDoc & { state: string };
    const now = clock.now();
    // A reply is being taken: its marker names the new run, the task still waits for input on the last one.
    await c.tasks.insert('replying', task('replying', 'input-required', 'r1'));
    await c.activeRuns.insert('replying', { taskId: 'replying', sinceMs: now, runId: 'r2' });
    await c.tasks.insert('asking', task('asking', 'input-required', 'r1'));
    await c.activeRuns.insert('asking', { taskId: 'asking', sinceMs: now, runId: 'r1' });
    await c.tasks.insert('legacy', task('legacy', 'completed', 'r1'));
    await c.activeRuns.insert('legacy', { taskId: 'legacy', sinceMs: now });
    await tasks.sweepStuckRuns();
    expect((await c.activeRuns.find({})).map((m) => m.id).sort()).toEqual(['legacy', 'replying']);
    clock.advance(61_000);
    // The reply's run goes on (seen just now, within its deadline): its marker stays.
    const working = {
      ...task('replying', 'working', 'r2'),
      runDeadlineMs: clock.now() + 60_000,
      runSeenAtMs: clock.now(),
    };
    await c.tasks.replace('replying', 1, working);
    await tasks.sweepStuckRuns();
    expect((await c.activeRuns.find({})).map((m) => m.id)).toEqual(['replying']);
  });

  it('a marker whose delete fails is kept for the next sweep, and the sweep still ends', async () => {
    const { tasks, c, clock } = await setup();
    const doc = { id: 'd', status: { state: 'completed' }, state: 'completed', currentRunId: 'r' };
    await c.tasks.insert('d', doc as unknown as TaskDoc & { state: string });
    await c.activeRuns.insert('d', { taskId: 'd', sinceMs: clock.now(), runId: 'r' });
    const original = c.activeRuns.delete.bind(c.activeRuns);
    c.activeRuns.delete = () => Promise.reject(new Error('store unavailable'));
    await tasks.sweepStuckRuns();
    expect(await c.activeRuns.count({})).toBe(1);
    c.activeRuns.delete = original;
    await tasks.sweepStuckRuns();
    expect(await c.activeRuns.count({})).toBe(0);
  });

  it('one sweep forgets every finished run, not only the oldest 500, and yields to the event loop as it goes', async () => {
    const { tasks, c, clock } = await setup();
    const n = 1_200;
    for (let i = 0; i < n; i++) {
      const id = `t${i}`;
      const doc = { id, status: { state: 'completed' }, state: 'completed', currentRunId: `r${i}` };
      await c.tasks.insert(id, doc as unknown as TaskDoc & { state: string });
      await c.activeRuns.insert(id, { taskId: id, sinceMs: clock.now() - i, runId: `r${i}` });
    }
    // Turns of the event loop taken while the sweep runs: requests served meanwhile would get them too.
    let turns = 0;
    let sweeping = true;
    const tick = (): void => {
      turns += 1;
      if (sweeping) setImmediate(tick);
    };
    setImmediate(tick);
    await tasks.sweepStuckRuns();
    sweeping = false;
    expect(await c.activeRuns.count({})).toBe(0);
    expect(turns).toBeGreaterThanOrEqual(n / 50);
  });

  it('tasks stored before the lookups existed are found by memory, the sweeper and push delivery (one backfill at startup)', async () => {
    const store = new InMemoryDocumentStore();
    const clock = new ManualClock(Date.UTC(2026, 10, 25));
    const tasksColl = await store.collection<TaskDoc & { state: string }>({ name: 'tasks' });
    const old: TaskDoc & { state: string } = {
      id: 'old-1',
      subscriptionId: 'demo-subscription',
      deploymentId: 'demo-deployment',
      agentId: 'demo-echo',
      contextId: 'ctx-old',
      status: { state: 'working', timestamp: new Date(clock.now()).toISOString() },
      state: 'working',
      artifacts: [],
      history: [{ kind: 'message', role: 'user', messageId: 'old-m', parts: [{ kind: 'text', text: 'from before' }] }],
      currentRunId: 'run-old',
      lastRunSeq: 0,
      lastSeq: 1,
      runDeadlineMs: clock.now() - 1,
      runSeenAtMs: clock.now() - 1,
      createdAtMs: clock.now() - 1000,
      updatedAtMs: clock.now() - 1000,
    };
    await tasksColl.insert(old.id, old);
    const pushColl = await store.collection<PushConfigDoc>({ name: 'push_configs' });
    await pushColl.insert('old-1:hook', {
      taskId: 'old-1',
      subscriptionId: 'demo-subscription',
      configId: 'hook',
      url: 'https://h.example.com/old',
      token: 't',
      createdAtMs: 0,
    });
    const { tasks, runs, bus, caller, c } = await setup(store);
    expect((await c.pushConfigLists.get('old-1'))?.doc.configIds).toEqual(['hook']);
    const next = await tasks.send(caller, msg('new-m', 'and now', 'ctx-old'), { blocking: false });
    await bus.drain();
    expect(next.contextId).toBe('ctx-old');
    const memory = JSON.parse(runs[0]!.historyJson) as Message[];
    expect(memory.map((m) => (m.parts[0] as { text: string }).text)).toEqual(['from before']);
    expect(await tasks.sweepStuckRuns()).toBe(1); // the old task's deadline passed
    expect((await tasksColl.get('old-1'))?.doc.status.state).toBe('failed');
  });

  it('push configs are set, limited to 10, listed, deleted and delivered without a query on push_configs', async () => {
    const { tasks, c, caller, store } = await setup();
    const control = new ControlPlane(
      await openControlCollections(store),
      new InMemoryCache(),
      new ManualClock(),
      new SequentialIds('x'),
    );
    await control.catalog.updateAgentSettings({ subscriptionId: 'demo-subscription', role: 'operator' }, 'demo-echo', {
      pushNotificationsEnabled: true,
    });
    const queries = countQueries(c.pushConfigs);
    const t = await tasks.send(caller, msg('p1', 'x'), { blocking: false });
    for (let i = 0; i < 10; i++)
      await tasks.setPushConfig(caller, t.id, { id: `c${i}`, url: `https://h.example.com/${i}`, token: 't' });
    await expect(
      tasks.setPushConfig(caller, t.id, { id: 'c10', url: 'https://h.example.com/10', token: 't' }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await tasks.setPushConfig(caller, t.id, { id: 'c3', url: 'https://h.example.com/replaced', token: 't' });
    await tasks.deletePushConfig(caller, t.id, 'c0');
    const listed = await tasks.listPushConfigs(caller, t.id);
    expect(listed.map((p) => p.configId)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']);
    expect((await tasks.getPushConfig(caller, t.id, 'c3')).url).toBe('https://h.example.com/replaced');
    await tasks.setPushConfig(caller, t.id, { id: 'c10', url: 'https://h.example.com/10', token: 't' }); // room again
    expect((await tasks.pushDelivery(t.id)).targets).toHaveLength(10);
    expect(queries.n).toBe(0);
  });

  it('push delivery builds the Task only for a task with push targets (webhooks asks on every status update)', async () => {
    const { tasks, caller, store } = await setup();
    const control = new ControlPlane(
      await openControlCollections(store),
      new InMemoryCache(),
      new ManualClock(),
      new SequentialIds('y'),
    );
    await control.catalog.updateAgentSettings({ subscriptionId: 'demo-subscription', role: 'operator' }, 'demo-echo', {
      pushNotificationsEnabled: true,
    });
    const t = await tasks.send(caller, msg('pd1', 'x'), { blocking: false });
    const none = await tasks.pushDelivery(t.id);
    expect(none).toEqual({ task: undefined, enabled: true, targets: [] });
    await tasks.setPushConfig(caller, t.id, { id: 'c1', url: 'https://h.example.com/1', token: 't' });
    const one = await tasks.pushDelivery(t.id);
    expect(one.targets).toHaveLength(1);
    expect(one.task).toMatchObject({ kind: 'task', id: t.id });
  });

  it('push delivery for an agent with push off answers from the agent alone, without reading the task', async () => {
    const { tasks, caller, c } = await setup();
    const t = await tasks.send(caller, msg('pd2', 'x'), { blocking: false });
    const reads = { n: 0 };
    const original = c.tasks.get.bind(c.tasks);
    c.tasks.get = (id: string) => {
      reads.n += 1;
      return original(id);
    };
    expect(await tasks.pushDelivery(t.id, 'demo-echo')).toEqual({ task: undefined, enabled: false, targets: [] });
    expect(reads.n).toBe(0);
    // Without the agent (older webhooks replicas), or with another agent than the task's, the task decides.
    expect(await tasks.pushDelivery(t.id)).toEqual({ task: undefined, enabled: false, targets: [] });
    expect(reads.n).toBe(1);
  });

  it('memory of a long conversation is its latest messages, in order, without the message being answered', async () => {
    const { tasks, bus, runs, caller } = await setup();
    let contextId: string | undefined;
    for (let i = 0; i < 26; i++) {
      const t = await tasks.send(caller, msg(`turn-${i}`, `turn ${i}`, contextId), { blocking: false });
      contextId = t.contextId;
      await bus.drain();
      await tasks.applyRunEvent({
        taskId: t.id,
        runId: runs[i]!.runId,
        runSeq: 1,
        emittedAtMs: 0,
        batch: [],
        event: { $case: 'status', status: { state: 'completed', messageJson: '' } },
      });
    }
    const memory = JSON.parse(runs[25]!.historyJson) as Message[];
    expect(memory.map((m) => (m.parts[0] as { text: string }).text)).toEqual(
      Array.from({ length: 20 }, (_, i) => `turn ${i + 5}`),
    );
  });

  it('racing sends into one new context all land in its task list', async () => {
    const { tasks, c, caller } = await setup();
    const sent = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        tasks.send(caller, msg(`race-${i}`, 'x', 'shared-ctx'), { blocking: false }),
      ),
    );
    const list = await c.contexts.get('demo-subscription:shared-ctx');
    // Every task; the list may start with the context's own id (a context a send started is named after its
    // first task), which names no task here.
    expect([...(list?.doc.taskIds ?? [])].filter((id) => id !== 'shared-ctx').sort()).toEqual(
      sent.map((t) => t.id).sort(),
    );
  });

  it('a context a send starts is named after its first task: no entry until a second task joins, whose memory has the first turn', async () => {
    const { tasks, c, bus, runs, caller } = await setup();
    const first = await tasks.send(caller, msg('first', 'my name is Ada'), { blocking: false });
    expect(first.contextId).toBe(first.id);
    expect(await c.contexts.get(`demo-subscription:${first.contextId}`)).toBeUndefined();
    await bus.drain();
    expect(JSON.parse(runs[0]!.historyJson)).toEqual([]);
    await tasks.applyRunEvent({
      taskId: first.id,
      runId: runs[0]!.runId,
      runSeq: 1,
      emittedAtMs: 0,
      batch: [],
      event: { $case: 'status', status: { state: 'completed', messageJson: '' } },
    });
    const second = await tasks.send(caller, msg('second', 'what is my name?', first.contextId), { blocking: false });
    await bus.drain();
    expect(second.contextId).toBe(first.contextId);
    expect((await c.contexts.get(`demo-subscription:${first.contextId}`))?.doc.taskIds).toEqual([first.id, second.id]);
    const memory = JSON.parse(runs[1]!.historyJson) as Message[];
    expect(memory.map((m) => (m.parts[0] as { text: string }).text)).toEqual(['my name is Ada']);
    // A context id that names a task of another context: that task's messages are not this context's memory.
    const elsewhere = await tasks.send(caller, msg('elsewhere', 'secret of ctx-x', 'ctx-x'), { blocking: false });
    await bus.drain();
    await tasks.send(caller, msg('named', 'hello', elsewhere.id), { blocking: false });
    await bus.drain();
    expect(JSON.parse(runs.at(-1)!.historyJson)).toEqual([]);
  });
  it('an agent is resolved from the shared cache; a settings change is seen at once (the entry is deleted)', async () => {
    const store = new InMemoryDocumentStore();
    const { tasks, caller, clock } = await setup(store);
    const control = await openControlCollections(store);
    // Reads by id of the catalog documents that resolve an agent (placement and agent).
    const reads = { n: 0 };
    for (const coll of [control.agents, control.deploymentAgents] as Collection<object>[]) {
      const original = coll.get.bind(coll);
      coll.get = (id: string) => {
        reads.n += 1;
        return original(id);
      };
    }
    // The service opened its own handles on the same store: count through a control plane on these ones.
    const cache = new InMemoryCache({ clock });
    const catalog = new ControlPlane(control, cache, clock, new SequentialIds('c')).catalog;
    const first = await catalog.resolveAgent('demo-echo');
    const readsAfterFirst = reads.n;
    // Placement and agent, then both again once cached: a change that raced the write deletes the entry.
    expect(readsAfterFirst).toBe(4);
    for (let i = 0; i < 5; i++) expect(await catalog.resolveAgent('demo-echo')).toEqual(first);
    expect(reads.n).toBe(readsAfterFirst); // served from the cache
    await catalog.updateAgentSettings({ subscriptionId: 'demo-subscription', role: 'admin' }, 'demo-echo', {
      rateLimitPerMinute: 7,
    });
    const readsAfterUpdate = reads.n;
    expect((await catalog.resolveAgent('demo-echo')).rateLimitPerMinute).toBe(7); // at once, not after the TTL
    expect(reads.n).toBe(readsAfterUpdate + 4);
    await catalog.resolveAgent('demo-echo');
    expect(reads.n).toBe(readsAfterUpdate + 4); // cached again
    clock.advance(AGENT_VIEW_TTL_MS + 1);
    await catalog.resolveAgent('demo-echo');
    expect(reads.n).toBe(readsAfterUpdate + 8); // expired: read once more
    // And the task lifecycle still sends through it.
    expect((await tasks.send(caller, msg('c1', 'hello'), { blocking: false })).id).toBeTruthy();
  });
});
