import { describe, expect, it } from 'vitest';
import { FairScheduler } from '../../src/domain/fair-scheduler';

const never = new AbortController().signal;

describe('FairScheduler', () => {
  it("one tenant's backlog never takes more than its share: another tenant's run starts at once", async () => {
    const s = new FairScheduler(4, 2);
    const a = await Promise.all([s.acquire('A', never), s.acquire('A', never)]);
    let aThird = false;
    void s.acquire('A', never).then(() => (aThird = true));
    const b = await s.acquire('B', never); // a free slot, and B is under its share
    expect(s.running).toBe(3);
    await Promise.resolve();
    expect(aThird).toBe(false); // A is at its per-tenant cap although a slot is free
    a[0]();
    await new Promise((r) => setImmediate(r));
    expect(aThird).toBe(true);
    b();
  });

  it('hands freed slots round-robin to the tenants that wait', async () => {
    const s = new FairScheduler(1, 1);
    const first = await s.acquire('A', never);
    const order: string[] = [];
    const wait = (t: string): Promise<void> =>
      s.acquire(t, never).then((release) => {
        order.push(t);
        release();
      });
    const all = Promise.all([wait('A'), wait('A'), wait('A'), wait('B'), wait('C')]);
    first();
    await all;
    // Rotation between the tenants that wait, not first come first served: A's backlog waits behind B and C.
    expect(order).toEqual(['A', 'B', 'C', 'A', 'A']);
    expect(s.running).toBe(0);
    expect(s.queued).toBe(0);
  });

  it('a waiter whose signal aborts leaves the queue (drain hands its run back)', async () => {
    const s = new FairScheduler(1, 1);
    const held = await s.acquire('A', never);
    const ac = new AbortController();
    const waiting = s.acquire('B', ac.signal);
    expect(s.queued).toBe(1);
    ac.abort(new Error('draining'));
    await expect(waiting).rejects.toThrow('draining');
    expect(s.queued).toBe(0);
    held();
    expect(s.running).toBe(0);
  });

  it('tryAcquire grants only what acquire would grant at once, and serves the same rotation afterwards', async () => {
    const s = new FairScheduler(2, 1);
    const a = s.tryAcquire('A');
    expect(a).toBeDefined();
    expect(s.tryAcquire('A')).toBeUndefined(); // A at its per-tenant cap
    const b = s.tryAcquire('B');
    expect(b).toBeDefined();
    expect(s.tryAcquire('C')).toBeUndefined(); // no free slot
    const order: string[] = [];
    const wait = (t: string): Promise<void> =>
      s.acquire(t, never).then((release) => {
        order.push(t);
        release();
      });
    const all = Promise.all([wait('A'), wait('C')]);
    expect(s.tryAcquire('D')).toBeUndefined(); // others wait: no overtaking them
    a!();
    a!(); // released once only
    b!();
    await all;
    // The freed slots go to the waiters as acquire's own grants would leave them.
    expect(order).toEqual(['A', 'C']);
    expect(s.running).toBe(0);
    expect(s.queued).toBe(0);
  });
});
