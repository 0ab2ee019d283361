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
import { DEFAULT_TASK_CONFIG, openTaskCollections, TaskService } from '../../src/domain/task-service';

// Spec (Errors): "A JSON-RPC error means the request never reached the agent" — so it is not charged and its
// messageId stays free. Two replies racing to one input-required task: one continues it, the other is refused.
describe('TaskService: racing replies to an input-required task', () => {
  it('the refused reply (-32602) is refunded and its messageId can be used again', async () => {
    const store = new InMemoryDocumentStore();
    const bus = new InMemoryBus();
    const clock = new ManualClock(Date.UTC(2026, 10, 22));
    const ids = new SequentialIds('id');
    const control = new ControlPlane(await openControlCollections(store), new InMemoryCache(), clock, ids);
    await seedDemo(control);
    const runs: eventsV1.RunRequested[] = [];
    await bus.subscribe('a2a.run.requested', 'test', async (m) => {
      runs.push(eventsV1.RunRequested.decode(m.value));
    });
    const tasks = new TaskService(await openTaskCollections(store), {
      control,
      blobs: new InMemoryBlobStore(),
      bus,
      eventLog: new InMemoryEventLog(),
      cache: new InMemoryCache(),
      clock,
      ids,
      log: silentLogger(),
      config: DEFAULT_TASK_CONFIG,
    });
    const caller = {
      subscriptionId: 'demo-subscription',
      deploymentId: 'demo-deployment',
      agentId: 'demo-approval',
      keyId: 'k',
      protocolVersion: '0.3.0',
    };
    const msg = (messageId: string, extra: Record<string, string> = {}) => ({
      kind: 'message' as const,
      role: 'user' as const,
      messageId,
      parts: [{ kind: 'text' as const, text: 'approve' }],
      ...extra,
    });

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
      tasks.send(caller, msg('reply-1', { taskId: task.id }), { blocking: false }),
      tasks.send(caller, msg('reply-2', { taskId: task.id }), { blocking: false }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toMatchObject({ code: 'INVALID_PARAMS' });
    expect((await control.accounts.getSubscription('demo-subscription')).credits).toBe(before - 1);

    // The refused messageId was not consumed: sent again (now to a finished-or-working task) it is judged afresh.
    const loserId = results[0].status === 'rejected' ? 'reply-1' : 'reply-2';
    await expect(tasks.send(caller, msg(loserId, { taskId: task.id }), { blocking: false })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    expect((await control.accounts.getSubscription('demo-subscription')).credits).toBe(before - 1);
  });
});

// ADR 0071: a 1.0 reply may carry a push config, stored before the reply continues the task so the config is told
// of the reply's first event. A reply refused because another reply won leaves the task's configs as they were.
describe('TaskService: racing replies that carry push configs', () => {
  const setUp = async (failUndo = false) => {
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
    if (failUndo)
      collections.pushConfigs.delete = () => Promise.reject(new AppError('UNAVAILABLE', 'store unavailable'));
    const tasks = new TaskService(collections, {
      control,
      blobs: new InMemoryBlobStore(),
      bus,
      eventLog: new InMemoryEventLog(),
      cache: new InMemoryCache(),
      clock,
      ids,
      log: silentLogger(),
      config: DEFAULT_TASK_CONFIG,
    });
    const caller = {
      subscriptionId: 'demo-subscription',
      deploymentId: 'demo-deployment',
      agentId: 'demo-approval',
      keyId: 'k',
      protocolVersion: '1.0',
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
    return { control, bus, runs, tasks, caller, msg, toInputRequired, urlsOf };
  };

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
});
