import { describe, expect, it } from 'vitest';
import { taskServiceSetup, textMsg } from '../support/task-service-setup';

/**
 * A retry that finds a messageId claimed by a send that has not stored its message after 10 s (the first
 * request's process died, or it is stuck behind an outage) takes the message over. It must never make a second
 * task of one message: the take-over uses the claim's task id, and whichever request stores the task first wins.
 */
async function setup() {
  const { tasks, control, collections, bus, clock, caller, credits } = await taskServiceSetup();
  const runRequests: string[] = [];
  const publish = bus.publish.bind(bus);
  bus.publish = (m) => {
    if (m.topic === 'a2a.run.requested') runRequests.push(m.key);
    return publish(m);
  };
  // The first charge hangs until released: the first request is stuck between its claim and its task.
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const charge = control.accounts.pay.bind(control.accounts);
  let calls = 0;
  control.accounts.pay = async (...args: Parameters<typeof charge>) => {
    calls += 1;
    if (calls === 1) await gate;
    return charge(...args);
  };
  return { tasks, collections, clock, caller, credits, runRequests, release };
}

const msg = (messageId: string) => textMsg(messageId);

describe('a stuck first send is taken over without a second task', () => {
  it('the retry takes over with the claim task id; the first send, when it goes on, answers with the same task', async () => {
    const { tasks, collections, clock, caller, credits, runRequests, release } = await setup();
    const before = await credits();
    const first = tasks.send(caller, msg('stuck'), { blocking: false });
    await expect
      .poll(async () => (await collections.messageIds.get('demo-subscription:stuck')) !== undefined)
      .toBe(true);
    // Within the claim's 10 s, a retry waits for the first and gives up as UNAVAILABLE (a client retries).
    clock.advance(11_000);
    const retried = await tasks.send(caller, msg('stuck'), { blocking: false });
    release();
    const firstAnswer = await first;
    expect(firstAnswer.id).toBe(retried.id);
    const stored = await collections.tasks.find({ subscriptionId: 'demo-subscription' });
    expect(stored.filter((t) => t.doc.history.some((m) => m.messageId === 'stuck')).map((t) => t.id)).toEqual([
      retried.id,
    ]);
    expect(runRequests.filter((k) => k === retried.id)).toHaveLength(1);
    expect(await credits()).toBe(before - 1);
    // A later repeat is the same task again, not charged.
    expect((await tasks.send(caller, msg('stuck'), { blocking: false })).id).toBe(retried.id);
    expect(await credits()).toBe(before - 1);
  });

  it('a first send that wins the race after the take-over began still makes one task: the retry answers with it', async () => {
    const { tasks, collections, clock, caller, credits, runRequests, release } = await setup();
    const before = await credits();
    const first = tasks.send(caller, msg('race'), { blocking: false });
    await expect
      .poll(async () => (await collections.messageIds.get('demo-subscription:race')) !== undefined)
      .toBe(true);
    clock.advance(11_000);
    // The retry takes the claim over but is held before its insert; the first request stores its task first.
    const insert = collections.tasks.insert.bind(collections.tasks);
    let hold!: () => void;
    const held = new Promise<void>((r) => (hold = r));
    let inserts = 0;
    collections.tasks.insert = async (...args: Parameters<typeof insert>) => {
      inserts += 1;
      if (inserts === 1) await held; // the retry's insert (it gets here first)
      return insert(...args);
    };
    const retried = tasks.send(caller, msg('race'), { blocking: false });
    await expect.poll(() => inserts).toBe(1);
    release();
    const firstAnswer = await first;
    hold();
    const retriedAnswer = await retried;
    expect(retriedAnswer.id).toBe(firstAnswer.id);
    const stored = await collections.tasks.find({ subscriptionId: 'demo-subscription' });
    expect(stored.filter((t) => t.doc.history.some((m) => m.messageId === 'race'))).toHaveLength(1);
    expect(runRequests.filter((k) => k === firstAnswer.id)).toHaveLength(1);
    expect(await credits()).toBe(before - 1);
  });
});

/**
 * A process that owns its data alone (the durable embedded mode: the data-directory lock) knows that a claim made
 * before it started was made by a process that is gone: a resend takes it over at once, not after 10 s. With
 * replicas (no such knowledge) the same claim is another replica's, possibly live, and is waited for.
 */
describe('claims older than a process that owns its data alone', () => {
  /** The claim a killed process left: its message was never stored. 2 s old, well within CLAIM_STALE_MS. */
  async function leftClaim(setup: Awaited<ReturnType<typeof taskServiceSetup>>, messageId: string) {
    await setup.collections.messageIds.insert(`demo-subscription:${messageId}`, {
      subscriptionId: 'demo-subscription',
      messageId,
      taskId: `left-${messageId}`,
      createdAtMs: setup.clock.now() - 2_000,
    });
  }

  it('takes a claim made before it started over at once (with the claim task id), and still waits for its own', async () => {
    const s = await taskServiceSetup();
    await leftClaim(s, 'cut-off');
    s.tasks.ownDataAlone();
    s.clock.advance(1);
    const before = await s.credits();
    const started = Date.now();
    const task = await s.tasks.send(s.caller, msg('cut-off'), { blocking: false });
    expect(Date.now() - started).toBeLessThan(2_000); // no wait for the first send
    expect(task.id).toBe('left-cut-off');
    expect(await s.credits()).toBe(before - 1);
    // A claim of this process (made after it started) is a live send's: a retry waits, then answers UNAVAILABLE.
    await s.collections.messageIds.insert('demo-subscription:mine', {
      subscriptionId: 'demo-subscription',
      messageId: 'mine',
      taskId: 'mine-task',
      createdAtMs: s.clock.now(),
    });
    await expect(s.tasks.send(s.caller, msg('mine'), { blocking: false })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
  }, 20_000);

  it('a claim that holds its charge (ADR 0041) is paid once: a process that paid before it died is not paid again', async () => {
    const s = await taskServiceSetup();
    const claim = (messageId: string) =>
      s.collections.messageIds.insert(`demo-subscription:${messageId}`, {
        subscriptionId: 'demo-subscription',
        messageId,
        taskId: `left-${messageId}`,
        createdAtMs: s.clock.now() - 2_000,
        charged: 3,
      });
    await claim('paid');
    await s.control.accounts.pay('demo-subscription', 'msg:paid', 3); // the dead process had paid
    await claim('unpaid'); // this one died before paying
    s.tasks.ownDataAlone();
    s.clock.advance(1);
    const before = await s.credits();
    expect((await s.tasks.send(s.caller, msg('paid'), { blocking: false })).id).toBe('left-paid');
    expect(await s.credits()).toBe(before);
    expect((await s.tasks.send(s.caller, msg('unpaid'), { blocking: false })).id).toBe('left-unpaid');
    expect(await s.credits()).toBe(before - 3); // the claim's amount, not today's cost per invocation (1)
    expect((await s.tasks.send(s.caller, msg('unpaid'), { blocking: false })).id).toBe('left-unpaid');
    expect(await s.credits()).toBe(before - 3);
  });

  it('with replicas (no sole owner) the same claim is waited for: UNAVAILABLE until it is CLAIM_STALE_MS old', async () => {
    const s = await taskServiceSetup();
    await leftClaim(s, 'cut-off');
    await expect(s.tasks.send(s.caller, msg('cut-off'), { blocking: false })).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    s.clock.advance(10_000);
    expect((await s.tasks.send(s.caller, msg('cut-off'), { blocking: false })).id).toBe('left-cut-off');
  }, 20_000);
});
