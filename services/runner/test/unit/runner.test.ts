import { afterEach, describe, expect, it } from 'vitest';
import { AppError, isOutage } from '@a2a-inbound/errors';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  LargePayloads,
  RunLeases,
  isSpilled,
  systemClock,
  type PartLike,
} from '@a2a-inbound/ports';
import { SecretBox } from '@a2a-inbound/agent-definitions';
import { eventsV1 } from '@a2a-inbound/proto';
import type { AgentRuntime } from '../../src/domain/agent-runtime';
import { echoAgent } from '../../src/domain/demo-agents';
import { runEventsOf } from '../../src/domain/event-pipe';
import { Runner, TOPICS, type LocalRunEvents } from '../../src/domain/runner';

const config = {
  instanceId: 'runner-me',
  heartbeatMs: 20,
  leaseMs: 60,
  shutdownGraceMs: 1_000,
  maxConcurrentRuns: 4,
  maxRunsPerTenant: 2,
};

function request(taskId: string, subscriptionId = 'sub-a'): eventsV1.RunRequested {
  return eventsV1.RunRequested.fromPartial({
    taskId,
    runId: `run-${taskId}`,
    subscriptionId,
    runtime: 'test',
    messageJson: JSON.stringify({ kind: 'message', role: 'user', messageId: `m-${taskId}`, parts: [] }),
  });
}

async function setup(runtime: AgentRuntime, options: { localEvents?: LocalRunEvents } = {}) {
  const bus = new InMemoryBus();
  const cache = new InMemoryCache();
  const blobs = new InMemoryBlobStore();
  const events: eventsV1.TaskEvent[] = [];
  const sub = await bus.subscribe(TOPICS.taskEvents, 'observer', async (m) => {
    events.push(...runEventsOf(eventsV1.TaskEvent.decode(m.value)));
    await Promise.resolve();
  });
  const runner = new Runner({
    bus,
    cache,
    blobs,
    clock: systemClock,
    log: silentLogger(),
    runtimes: { test: runtime },
    config,
    ...(options.localEvents ? { localEvents: options.localEvents } : {}),
  });
  runner.state = 'RUNNING';
  cleanups.push(async () => {
    await runner.drain();
    await sub.close();
    await bus.close();
  });
  return { bus, cache, runner, events, blobs, leases: new RunLeases(cache) };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('Runner', () => {
  it('in one process (ADR 0053): events go to the local apply as objects; once an apply fails, the rest of the run takes the bus, in order', async () => {
    const applied: eventsV1.TaskEvent[] = [];
    let failNext = false;
    const localEvents: LocalRunEvents = {
      accepts: () => true,
      apply: async (m) => {
        await Promise.resolve();
        if (failNext) throw new AppError('UNAVAILABLE', 'store busy');
        applied.push(...runEventsOf(m));
      },
    };
    const { runner, events, bus } = await setup(
      async (ctx) => {
        await ctx.status('working');
        await ctx.checkpoint.save({ step: 1 }); // flushes: the first event is applied locally
        failNext = true;
        await ctx.status('completed');
      },
      { localEvents },
    );
    await runner.handle(request('t-local'));
    await bus.drain();
    expect(applied.map((e) => [e.runSeq, e.event?.$case])).toEqual([[1, 'status']]);
    expect(events.map((e) => [e.runSeq, e.event?.$case])).toEqual([[2, 'status']]);
  });

  it('offer (ADR 0053): takes a request while running with room; refuses at its bound and while draining; a run handed back goes to handBack', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { runner } = await setup(async (ctx) => {
      await gate;
      await ctx.status('completed');
    });
    const handedBack: string[] = [];
    const handBack = (req: eventsV1.RunRequested): void => void handedBack.push(req.taskId);
    for (let i = 0; i < config.maxConcurrentRuns; i++) expect(runner.offer(request(`t-o${i}`), handBack)).toBe(true);
    expect(runner.offer(request('t-over'), handBack)).toBe(false);
    // Two run (two per tenant), two wait for a slot: a drain hands those back, and they go to the bus.
    for (let i = 0; i < 100 && runner.load.running < 2; i++) await new Promise((r) => setTimeout(r, 5));
    const drained = runner.drain();
    expect(runner.offer(request('t-late'), handBack)).toBe(false);
    release();
    await drained;
    await new Promise((r) => setImmediate(r));
    expect(handedBack.sort()).toEqual(['t-o2', 't-o3']);
  });

  it('a run checkpoint outlives the execution that saved it (the same run executed again reads it); another run sees none', async () => {
    const seen: unknown[] = [];
    let fail = true;
    const { runner, leases } = await setup(async (ctx) => {
      seen.push(await ctx.checkpoint.load());
      await ctx.checkpoint.save({ step: 'first done' });
      if (fail) throw new Error('boom');
    });
    await runner.handle(request('t-ck'));
    fail = false;
    // The first execution failed the task; run the same run id again as a redelivery after a crash would.
    await leases.release('run-t-ck');
    await runner.handle(request('t-ck'));
    await runner.handle(request('t-other'));
    expect(seen).toEqual([undefined, { step: 'first done' }, undefined]);
  });

  it('publishes the events an echo run emits together as one bus message, before the run counts as done (ADR 0025)', async () => {
    const { bus, runner, leases } = await setup(echoAgent);
    const messages: eventsV1.TaskEvent[] = [];
    const sub = await bus.subscribe(TOPICS.taskEvents, 'batches', async (m) => {
      messages.push(eventsV1.TaskEvent.decode(m.value));
    });
    cleanups.push(() => sub.close());
    const req = {
      ...request('t-echo'),
      messageJson: JSON.stringify({
        kind: 'message',
        role: 'user',
        messageId: 'm',
        parts: [{ kind: 'text', text: 'echo me!' }],
      }),
    };
    await runner.handle(req);
    expect((await leases.get(req.runId))?.state).toBe('done');
    await bus.drain();
    expect(messages).toHaveLength(1);
    const events = runEventsOf(messages[0]!);
    expect(events.map((e) => [e.runSeq, e.event?.$case])).toEqual([
      [1, 'artifact'],
      [2, 'artifact'],
      [3, 'artifact'],
      [4, 'artifact'],
      [5, 'status'],
    ]);
  });

  it('a runtime this runner does not have fails the run with the reason (a version newer than the runner)', async () => {
    const { runner, events } = await setup(async () => Promise.resolve());
    await runner.handle({ ...request('t0'), runtime: 'not-here' });
    for (let i = 0; i < 100 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const last = events.at(-1)!;
    expect(last.event?.$case).toBe('status');
    const status = (last.event as { status: eventsV1.StatusUpdate }).status;
    expect(status.state).toBe('failed');
    expect((JSON.parse(status.messageJson) as { parts: { text: string }[] }).parts[0]!.text).toContain(
      'No runtime "not-here"',
    );
  });

  it('opens the sealed secrets of the request with its key and subscription; never others', async () => {
    const box = SecretBox.fromBase64(Buffer.alloc(32, 6).toString('base64'));
    const seen: string[] = [];
    const bus = new InMemoryBus();
    const runner = new Runner({
      bus,
      cache: new InMemoryCache(),
      blobs: new InMemoryBlobStore(),
      clock: systemClock,
      log: silentLogger(),
      runtimes: {
        test: async (ctx) => {
          seen.push(ctx.secret('k'));
          for (const name of ['other-tenant', 'missing']) {
            try {
              ctx.secret(name);
            } catch (err) {
              seen.push((err as Error).message);
            }
          }
          await ctx.status('completed');
        },
      },
      config,
      secretBox: box,
    });
    runner.state = 'RUNNING';
    cleanups.push(async () => {
      await runner.drain();
      await bus.close();
    });
    await runner.handle({
      ...request('t-secret', 'sub-a'),
      sealedSecrets: { k: box.seal('v1', 'sub-a/k'), 'other-tenant': box.seal('v2', 'sub-b/other-tenant') },
    });
    expect(seen).toEqual([
      'v1',
      expect.stringContaining('sealed with a key this runner does not have'),
      expect.stringContaining('does not exist'),
    ]);
  });

  it('holds a lease while it runs and marks the run done at the end', async () => {
    let seen: unknown;
    const { runner, leases } = await setup(async (ctx) => {
      seen = await leases.get('run-t1');
      await ctx.status('completed');
    });
    await runner.handle(request('t1'));
    expect(seen).toEqual({ state: 'running', holder: 'runner-me' });
    expect(await leases.get('run-t1')).toEqual({ state: 'done' });
    expect(await leases.started('run-t1')).toBe(true);
  });

  it('resolves spilled parts of the input (message, memory, input blob) and spills large output (ADR 0013)', async () => {
    const big = 'x'.repeat(700_000);
    let seen: { text?: string; history?: string[] } = {};
    const { runner, bus, events, blobs } = await setup(async (ctx) => {
      seen = {
        text: ctx.message.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''),
        history: ctx.history.map((m) => m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')),
      };
      await ctx.artifact({
        artifactId: 'a',
        name: 'agent_response',
        parts: [{ kind: 'text', text: `echo:${big}` }],
        append: false,
        lastChunk: true,
      });
    });
    const payloads = new LargePayloads(blobs);
    const message = await payloads.compactMessage(
      { kind: 'message', role: 'user', messageId: 'm-big', parts: [{ kind: 'text', text: big }] },
      'sub-a',
    );
    const earlier = await payloads.compactMessage(
      { kind: 'message', role: 'user', messageId: 'm-0', parts: [{ kind: 'text', text: `old:${big}` }] },
      'sub-a',
    );
    const input = await payloads.putJson(
      { messageJson: JSON.stringify(message), historyJson: JSON.stringify([earlier]) },
      'sub-a',
    );
    await runner.handle({ ...request('t-big'), messageJson: '', historyJson: '', inputBlobId: input.id });
    await bus.drain();
    expect(seen.text).toBe(big);
    expect(seen.history).toEqual([`old:${big}`]);
    const artifactEvent = events.find((e) => e.event?.$case === 'artifact')!;
    expect(eventsV1.TaskEvent.encode(artifactEvent).finish().byteLength).toBeLessThan(2_000);
    const parts = JSON.parse(
      artifactEvent.event?.$case === 'artifact' ? artifactEvent.event.artifact.partsJson : '[]',
    ) as PartLike[];
    expect(isSpilled(parts[0]!)).toBe(true);
    expect((await payloads.resolvePart(parts[0]!, 'sub-a')).text).toBe(`echo:${big}`);
  });

  it('does not run again a redelivered request whose run already finished', async () => {
    let runs = 0;
    const { runner, leases, bus, events } = await setup(async (ctx) => {
      runs += 1;
      await ctx.status('completed');
    });
    await leases.finish('run-t2', 60_000);
    await runner.handle(request('t2'));
    await bus.drain();
    expect(runs).toBe(0);
    expect(events).toEqual([]);
  });

  it('does not run a request whose cancel went by before it arrived (the tasks service marks the run canceled)', async () => {
    let runs = 0;
    const { runner, leases, bus, events } = await setup(async (ctx) => {
      runs += 1;
      await ctx.status('completed');
    });
    await leases.cancel('run-t5', 60_000);
    await runner.handle(request('t5'));
    await bus.drain();
    expect(runs).toBe(0);
    expect(events).toEqual([]);
    await runner.handle(request('t6')); // another run is not affected
    expect(runs).toBe(1);
  });

  it("waits while another live runner holds the run, and takes it over once that runner's lease lapses", async () => {
    let runs = 0;
    const { runner, leases } = await setup(async (ctx) => {
      runs += 1;
      await ctx.status('completed');
    });
    await leases.hold('run-t3', 'runner-other', 500, 60_000);
    const handled = runner.handle(request('t3'));
    await new Promise((r) => setTimeout(r, 30));
    expect(runs).toBe(0); // the other holder's lease is still live
    await handled; // it lapsed (not renewed): this runner ran it
    expect(runs).toBe(1);
    expect(await leases.get('run-t3')).toEqual({ state: 'done' });
  });

  it('two copies of a request handed to two runners at once (a republish, review 23 #7): one runs it, the other skips it', async () => {
    let runs = 0;
    const runtime: AgentRuntime = async (ctx) => {
      runs += 1;
      await ctx.sleep(30);
      await ctx.status('completed');
    };
    const { runner, bus, cache, leases, events } = await setup(runtime);
    // A second runner of the process on the same cache and bus, as `startSystem({ runners: 2 })` makes.
    const other = new Runner({
      bus,
      cache,
      blobs: new InMemoryBlobStore(),
      clock: systemClock,
      log: silentLogger(),
      runtimes: { test: runtime },
      config: { ...config, instanceId: 'runner-other' },
    });
    other.state = 'RUNNING';
    cleanups.unshift(() => other.drain());
    // Both find the lease free before either holds it.
    await Promise.all([runner.handle(request('t7')), other.handle(request('t7'))]);
    await bus.drain();
    expect(runs).toBe(1);
    expect(await leases.get('run-t7')).toEqual({ state: 'done' });
    expect(events.filter((e) => e.event?.$case === 'status' && e.event.status.state === 'completed')).toHaveLength(1);
  });

  it('a bus outage hands the run back (the request is retried) instead of failing the task, and keeps it runnable', async () => {
    const { runner, leases, bus, events } = await setup(async (ctx) => {
      await ctx.artifact({ artifactId: 'a', name: 'agent_response', parts: [], append: false, lastChunk: true });
    });
    const publish = bus.publish.bind(bus);
    bus.publish = () => Promise.reject(new AppError('UNAVAILABLE', 'Kafka did not accept the message'));
    await expect(runner.handle(request('t4'))).rejects.toSatisfy(isOutage);
    expect(await leases.get('run-t4')).toBeUndefined(); // released, not done: the redelivery runs it
    bus.publish = publish;
    await runner.handle(request('t4'));
    await bus.drain();
    expect(events.map((e) => e.event?.$case === 'status' && e.event.status.state).filter(Boolean)).toEqual([
      'completed',
    ]);
  });

  it("runs different tasks concurrently, and one tenant's long runs leave slots for another tenant", async () => {
    const gates = new Map<string, () => void>();
    const started: string[] = [];
    const { runner } = await setup(async (ctx) => {
      started.push(ctx.taskId);
      if (ctx.taskId.startsWith('long')) await new Promise<void>((r) => gates.set(ctx.taskId, r));
      await ctx.status('completed');
    });
    const longRuns = ['long1', 'long2', 'long3'].map((t) => runner.handle(request(t, 'tenant-a')));
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toEqual(['long1', 'long2']); // tenant-a is at its share (2); long3 waits
    await runner.handle(request('quick', 'tenant-b')); // not behind tenant-a's runs
    expect(started).toContain('quick');
    for (const t of ['long1', 'long2']) gates.get(t)!();
    await new Promise((r) => setTimeout(r, 20));
    gates.get('long3')!();
    await Promise.all(longRuns);
    expect(started).toHaveLength(4);
  });
});
