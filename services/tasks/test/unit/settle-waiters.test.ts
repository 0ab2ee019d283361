import { describe, expect, it } from 'vitest';
import type { TaskDoc } from '../../src/domain/model';
import { SettleWaiters } from '../../src/domain/settle-waiters';

/** The fields the waiters read of a task. */
const task = (id: string, state: string, lastSeq: number): TaskDoc =>
  ({ id, status: { state, timestamp: '' }, lastSeq }) as unknown as TaskDoc;
const ev = (seq: number, final: boolean) => ({ seq, eventJson: '{}', final });

describe('SettleWaiters (ADR 0053)', () => {
  it('the write that settles the task wakes its waiter with the final event, not an earlier one', async () => {
    const w = new SettleWaiters();
    const wait = w.wait('t1', 1, 5_000, () => Promise.resolve(task('t1', 'working', 1)), 60_000);
    await Promise.resolve();
    w.written(task('t1', 'working', 2), [ev(2, false)]);
    w.written(task('t2', 'completed', 9), [ev(9, true)]); // another task
    w.written(task('t1', 'completed', 5), [ev(3, false), ev(4, false), ev(5, true)]);
    expect(await wait).toBe(5);
    expect(w.size).toBe(0);
  });

  it('a task settled before the wait began is answered at once; the budget ends a wait nothing settles', async () => {
    const w = new SettleWaiters();
    expect(await w.wait('t1', 1, 5_000, () => Promise.resolve(task('t1', 'completed', 3)), 60_000)).toBe(3);
    expect(await w.wait('t2', 1, 30, () => Promise.resolve(task('t2', 'working', 2)), 60_000)).toBeUndefined();
    expect(w.size).toBe(0);
  });

  it('a write that no wake reported is found by the periodic look at the stored task', async () => {
    const w = new SettleWaiters();
    let stored = task('t1', 'working', 1);
    const wait = w.wait('t1', 1, 5_000, () => Promise.resolve(stored), 20);
    stored = task('t1', 'input-required', 2);
    expect(await wait).toBe(2);
  });

  it('one timer serves the looks and the budget: looks every checkMs until the budget ends the wait', async () => {
    const w = new SettleWaiters();
    let looks = 0;
    const started = performance.now();
    const wait = w.wait('t1', 1, 120, () => Promise.resolve((looks++, task('t1', 'working', 2))), 20);
    expect(await wait).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(119);
    expect(looks).toBeGreaterThanOrEqual(3); // the first look, then one per 20 ms (fewer on a loaded machine)
    expect(w.size).toBe(0);
  });
});
