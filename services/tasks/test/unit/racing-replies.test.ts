import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { AppError } from '@a2a-inbound/errors';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  ManualClock,
  SequentialIds,
} from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { seedDemo } from '../../src/domain/seed';
import { storePushConfig, undoStoredPushConfig } from '../../src/domain/push-configs';
import { DEFAULT_TASK_CONFIG, openTaskCollections, TaskCore, TaskService } from '../../src/domain/task-service';

// One TaskService on the in-memory store with the demo agents, `demo-approval` with push on.
const setUp = async (failUndo = false, protocolVersion = '1.0') => {
  const store = new InMemoryDocumentStore();
  const bus = new InMemoryBus();
  const clock = new ManualClock(Date.UTC(2026, 10, 28));
  const ids = new SequentialIds('id');
  const control = new ControlPlane(await openControlCollections(store), new InMemoryCache(), clock, ids);
  await seedDemo(control);
  const runs: eventsV1.RunRequested[] = [];
  await bus.subscribe('a2a.run.requested', 'test', async (m) => {
    runs.push(eventsV1.RunRequested.decode(m.value));
  });
  const collections = await openTaskCollections(store);
  // The store failing when the loser takes its config back (a new id is deleted at its version).
  if (failUndo) collections.pushConfigs.delete = () => Promise.reject(new AppError('UNAVAILABLE', 'store unavailable'));
  const deps = {
    control,
    blobs: new InMemoryBlobStore(),
    bus,
    eventLog: new InMemoryEventLog(),
    cache: new InMemoryCache(),
    clock,
    ids,
    log: silentLogger(),
    config: DEFAULT_TASK_CONFIG,
  };
  const tasks = new TaskService(collections, deps);
  const caller = {
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-approval',
    keyId: 'k',
    protocolVersion,
  };
  const msg = (messageId: string, taskId?: string) => ({
    kind: 'message' as const,
    role: 'user' as const,
    messageId,
    parts: [{ kind: 'text' as const, text: 'approve' }],
    ...(taskId ? { taskId } : {}),
  });
  const toInputRequired = async (taskId: string, runId: string) =>
    tasks.applyRunEvent({
      taskId,
      runId,
      runSeq: 1,
      emittedAtMs: 0,
      batch: [],
      event: { $case: 'status', status: { state: 'input-required', messageJson: '' } },
    });
  await control.catalog.updateAgentSettings(
    { subscriptionId: 'demo-subscription', role: 'operator' },
    'demo-approval',
    {
      pushNotificationsEnabled: true,
    },
  );
  const urlsOf = async (taskId: string) =>
    Object.fromEntries((await tasks.listPushConfigs(caller, taskId)).map((c) => [c.configId, c.url]));
  return { control, bus, runs, tasks, caller, msg, toInputRequired, urlsOf, collections, deps };
};

// Spec (Errors): "A JSON-RPC error means the request never reached the agent" — so it is not charged and its
// messageId stays free. Two replies racing to one input-required task: one continues it, the other is refused.
describe('TaskService: racing replies to an input-required task', () => {
  it('the refused reply (-32602) is refunded and its messageId can be used again', async () => {
    const { control, bus, runs, tasks, caller, msg } = await setUp(false, '0.3.0');

    const task = await tasks.send(caller, msg('ask'), { blocking: false });
    await bus.drain();
    await tasks.applyRunEvent({
      taskId: task.id,
      runId: runs[0]!.runId,
      runSeq: 1,
      emittedAtMs: 0,
      batch: [],
      event: { $case: 'status', status: { state: 'input-required', messageJson: '' } },
    });
    const before = (await control.accounts.getSubscription('demo-subscription')).credits;

    const results = await Promise.allSettled([
      tasks.send(caller, msg('reply-1', task.id), { blocking: false }),
      tasks.send(caller, msg('reply-2', task.id), { blocking: false }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'INVALID_PARAMS' });
    expect((await control.accounts.getSubscription('demo-subscription')).credits).toBe(before - 1);

    // The refused messageId was not consumed: sent again (now to a finished-or-working task) it is judged afresh.
    const loserId = results[0].status === 'rejected' ? 'reply-1' : 'reply-2';
    await expect(tasks.send(caller, msg(loserId, task.id), { blocking: false })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    expect((await control.accounts.getSubscription('demo-subscription')).credits).toBe(before - 1);
  });
});

// ADR 0071: a 1.0 reply may carry a push config, stored before the reply continues the task so the config is told
// of the reply's first event. A reply refused because another reply won leaves the task's configs as they were.
describe('TaskService: racing replies that carry push configs', () => {
  it("the refused reply's config is not kept: a new id is removed, a replaced one comes back", async () => {
    const { bus, runs, tasks, caller, msg, toInputRequired, urlsOf } = await setUp();

    // Two replies, each with a config of a new id: only the winner's is on the task.
    const a = await tasks.send(caller, msg('ask-a'), { blocking: false });
    await bus.drain();
    await toInputRequired(a.id, runs[0]!.runId);
    const raceA = await Promise.allSettled(
      [1, 2].map((n) =>
        tasks.send(caller, msg(`reply-a${n}`, a.id), {
          blocking: false,
          pushConfig: { id: `hook-${n}`, url: `https://hooks.example.com/${n}`, token: `t${n}` },
        }),
      ),
    );
    const winA = raceA.findIndex((r) => r.status === 'fulfilled') + 1;
    expect(raceA.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(await urlsOf(a.id)).toEqual({ [`hook-${winA}`]: `https://hooks.example.com/${winA}` });

    // Two replies replacing one config id set before: it holds the winner's URL, not the loser's nor the old one.
    const b = await tasks.send(caller, msg('ask-b'), { blocking: false });
    await bus.drain();
    await toInputRequired(b.id, runs[runs.length - 1]!.runId);
    await tasks.setPushConfig(caller, b.id, { id: 'shared', url: 'https://hooks.example.com/old', token: 't0' });
    const raceB = await Promise.allSettled(
      [1, 2].map((n) =>
        tasks.send(caller, msg(`reply-b${n}`, b.id), {
          blocking: false,
          pushConfig: { id: 'shared', url: `https://hooks.example.com/b${n}`, token: `t${n}` },
        }),
      ),
    );
    const winB = raceB.findIndex((r) => r.status === 'fulfilled') + 1;
    expect(raceB.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(await urlsOf(b.id)).toEqual({ shared: `https://hooks.example.com/b${winB}` });
  });

  it('a store failing while the refused reply takes its config back still refunds it and answers its refusal', async () => {
    const { control, bus, runs, tasks, caller, msg, toInputRequired } = await setUp(true);
    const a = await tasks.send(caller, msg('ask'), { blocking: false });
    await bus.drain();
    await toInputRequired(a.id, runs[0]!.runId);
    const before = (await control.accounts.getSubscription('demo-subscription')).credits;
    const race = await Promise.allSettled(
      [1, 2].map((n) =>
        tasks.send(caller, msg(`reply-${n}`, a.id), {
          blocking: false,
          pushConfig: { id: `hook-${n}`, url: `https://hooks.example.com/${n}`, token: `t${n}` },
        }),
      ),
    );
    const lost = race.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'INVALID_PARAMS' });
    expect((await control.accounts.getSubscription('demo-subscription')).credits).toBe(before - 1);
  });

  // Review 26, finding 5: every stored config has its id in the task's list (list and push delivery read the
  // configs by the ids on it). Each test runs the racing delete at one fixed point of the set.
  describe('a set racing a delete of the same config id keeps the stored config on the list', () => {
    const setUpTask = async () => {
      const env = await setUp();
      const t = await env.tasks.send(env.caller, env.msg('ask'), { blocking: false });
      const { pushConfigs } = env.collections;
      const onList = async (configId: string) =>
        ((await env.collections.pushConfigLists.get(t.id))?.doc.configIds ?? []).includes(configId);
      /** Stored configs whose id is missing from the list (the invariant: none). */
      const unlisted = async () => {
        const stored = (await pushConfigs.find({ taskId: t.id })).map((v) => v.doc.configId);
        const missing: string[] = [];
        for (const id of stored) if (!(await onList(id))) missing.push(id);
        return missing;
      };
      return { ...env, taskId: t.id, pushConfigs, onList, unlisted };
    };
    const hook = { id: 'hook', url: 'https://hooks.example.com/new', token: 't1' };

    it('a delete between the list update and the insert of a new config', async () => {
      const { tasks, caller, taskId, pushConfigs, urlsOf, unlisted } = await setUpTask();
      const insert = pushConfigs.insert.bind(pushConfigs);
      pushConfigs.insert = async (...args) => {
        pushConfigs.insert = insert;
        // Nothing stored yet: the delete answers "no such config", and takes the id the set listed off the list.
        await expect(tasks.deletePushConfig(caller, taskId, 'hook')).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
        return insert(...args);
      };
      await tasks.setPushConfig(caller, taskId, hook);
      expect(await unlisted()).toEqual([]);
      expect(await urlsOf(taskId)).toEqual({ hook: hook.url });
      expect((await tasks.pushDelivery(taskId)).targets.map((c) => c.url)).toEqual([hook.url]);
    });

    it('a delete between the read of a config and its replacement (the set inserts it again)', async () => {
      const { tasks, caller, taskId, pushConfigs, urlsOf, unlisted } = await setUpTask();
      await tasks.setPushConfig(caller, taskId, { ...hook, url: 'https://hooks.example.com/old' });
      const replace = pushConfigs.replace.bind(pushConfigs);
      pushConfigs.replace = async (...args) => {
        pushConfigs.replace = replace;
        await tasks.deletePushConfig(caller, taskId, 'hook');
        return replace(...args); // NOT_FOUND: the set reads again and inserts
      };
      await tasks.setPushConfig(caller, taskId, hook);
      expect(await unlisted()).toEqual([]);
      expect(await urlsOf(taskId)).toEqual({ hook: hook.url });
    });

    it("a refused reply's undo between the read of its config and another set's replacement", async () => {
      const { tasks, caller, taskId, pushConfigs, collections, deps, urlsOf, unlisted } = await setUpTask();
      const core = new TaskCore(collections, deps);
      const stored = await storePushConfig(core, caller.subscriptionId, taskId, {
        ...hook,
        url: 'https://hooks.example.com/refused',
      });
      const replace = pushConfigs.replace.bind(pushConfigs);
      pushConfigs.replace = async (...args) => {
        pushConfigs.replace = replace;
        await undoStoredPushConfig(core, stored);
        return replace(...args);
      };
      await tasks.setPushConfig(caller, taskId, hook);
      expect(await unlisted()).toEqual([]);
      expect(await urlsOf(taskId)).toEqual({ hook: hook.url });
    });

    it("a set inside a delete's list update, after it found the config gone: the delete looks again", async () => {
      const { tasks, caller, taskId, pushConfigs, urlsOf, unlisted, onList } = await setUpTask();
      await tasks.setPushConfig(caller, taskId, { ...hook, url: 'https://hooks.example.com/old' });
      const get = pushConfigs.get.bind(pushConfigs);
      // The delete's only read of push_configs is in its list update (after it deleted the config).
      pushConfigs.get = async (...args) => {
        pushConfigs.get = get;
        const found = await get(...args);
        expect(found).toBeUndefined();
        await tasks.setPushConfig(caller, taskId, hook);
        return found;
      };
      await tasks.deletePushConfig(caller, taskId, 'hook');
      expect(await unlisted()).toEqual([]);
      expect(await urlsOf(taskId)).toEqual({ hook: hook.url });
      // Without a racing set, a delete takes the id off the list.
      await tasks.deletePushConfig(caller, taskId, 'hook');
      expect(await onList('hook')).toBe(false);
    });

    it('a list filled up by other sets while the id was off it: the new config is refused and not kept', async () => {
      const { tasks, caller, taskId, pushConfigs, urlsOf, unlisted } = await setUpTask();
      for (let i = 0; i < 9; i++)
        await tasks.setPushConfig(caller, taskId, { id: `c${i}`, url: `https://hooks.example.com/${i}`, token: 't' });
      const insert = pushConfigs.insert.bind(pushConfigs);
      pushConfigs.insert = async (...args) => {
        pushConfigs.insert = insert;
        await expect(tasks.deletePushConfig(caller, taskId, 'hook')).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
        await tasks.setPushConfig(caller, taskId, { id: 'c9', url: 'https://hooks.example.com/9', token: 't' });
        return insert(...args);
      };
      await expect(tasks.setPushConfig(caller, taskId, hook)).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
      expect(await pushConfigs.get(`${taskId}:hook`)).toBeUndefined();
      expect(await unlisted()).toEqual([]);
      expect(Object.keys(await urlsOf(taskId))).toHaveLength(10);
    });
  });
});
