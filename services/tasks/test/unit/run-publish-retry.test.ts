import { describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { InMemoryBus, type BusMessage, type ManualClock } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import type { Sleep } from '../../src/domain/run-publish-retries';
import { TOPICS } from '../../src/domain/task-service';
import { taskServiceSetup, textMsg } from '../support/task-service-setup';

/** A bus whose run-request publishes fail while `down` (Kafka, or the store the request is built from, restarting). */
class FlakyBus extends InMemoryBus {
  down = false;
  refused = 0;
  override publish(message: BusMessage): Promise<void> {
    if (this.down && message.topic === TOPICS.runRequested) {
      this.refused += 1;
      return Promise.reject(new AppError('UNAVAILABLE', 'write EPIPE'));
    }
    return super.publish(message);
  }
}

/** Sleeps the test ends by hand, moving the manual clock by what each asked for. */
class ManualSleeps {
  readonly waiting: { ms: number; wake: () => void }[] = [];
  readonly sleep: Sleep = (ms, signal) =>
    new Promise((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiting.push({ ms, wake });
      signal.addEventListener('abort', wake, { once: true });
    });

  /**
   * Lets the retries run until none is left: each sleep ends at once and moves the clock by its length;
   * `beforeWake(at)` sees the clock each retry will wake at (an outage ends there).
   */
  async runRetries(
    clock: ManualClock,
    tasks: { retryingPublishes: number },
    beforeWake: (at: number) => void = () => undefined,
  ) {
    for (;;) {
      await expect.poll(() => this.waiting.length > 0 || tasks.retryingPublishes === 0).toBe(true);
      const w = this.waiting.shift();
      if (!w) return;
      clock.advance(w.ms);
      beforeWake(clock.now());
      w.wake();
    }
  }
}

async function setup() {
  const bus = new FlakyBus();
  const sleeps = new ManualSleeps();
  const s = await taskServiceSetup({ bus, sleep: sleeps.sleep, config: { runStallMs: 60_000 } });
  const requested: string[] = [];
  await bus.subscribe(TOPICS.runRequested, 'test', async (m) => {
    requested.push(eventsV1.RunRequested.decode(m.value).taskId);
  });
  const published = async (taskId: string): Promise<number> => {
    await bus.drain();
    return requested.filter((id) => id === taskId).length;
  };
  return { ...s, bus, sleeps, published };
}

describe('a run request the bus refused is published again within seconds, in the background', () => {
  it('after a 3 s outage the run is requested about a second later, not after RUN_STALL_MS', async () => {
    const { tasks, caller, bus, sleeps, clock, published } = await setup();
    const t0 = clock.now();
    bus.down = true;
    // The send is answered (accepted, charged, stored) without waiting for the retries: no sleep has ended.
    const task = await tasks.send(caller, textMsg('m1'), { blocking: false });
    expect(task.status.state).toBe('working');
    expect(bus.refused).toBe(1);
    expect(await published(task.id)).toBe(0);
    // The outage lasts 3 s of the clock; each retry waits what its backoff says.
    let publishedAt: number | undefined;
    await sleeps.runRetries(clock, tasks, (at) => {
      bus.down = at - t0 < 3_000;
      if (!bus.down) publishedAt ??= at;
    });
    expect(publishedAt).toBeDefined();
    // Published by the first retry after the outage (the attempt log says when): within a backoff step.
    const after = clock.now() - t0;
    expect(after).toBe(publishedAt! - t0);
    expect(after).toBeGreaterThanOrEqual(3_000);
    expect(after).toBeLessThanOrEqual(3_000 + 4_000); // the outage plus one backoff step at most
    expect(await published(task.id)).toBe(1);
    expect(tasks.retryingPublishes).toBe(0);
    expect(sleeps.waiting).toHaveLength(0);
  });

  it('stops once the task no longer waits for the run (canceled), and gives up at RUN_STALL_MS (the sweeper republishes)', async () => {
    const { tasks, caller, bus, sleeps, clock, published } = await setup();
    bus.down = true;
    const canceled = await tasks.send(caller, textMsg('c1'), { blocking: false });
    await tasks.cancel(caller, canceled.id);
    bus.down = false;
    await sleeps.runRetries(clock, tasks);
    expect(await published(canceled.id)).toBe(0);
    expect(sleeps.waiting).toHaveLength(0);

    bus.down = true;
    const t0 = clock.now();
    const stuck = await tasks.send(caller, textMsg('c2'), { blocking: false });
    const refusedBefore = bus.refused;
    // Retried until RUN_STALL_MS has passed; then left to the sweeper.
    await sleeps.runRetries(clock, tasks);
    const gaveUpAfter = clock.now() - t0;
    expect(gaveUpAfter).toBeGreaterThanOrEqual(60_000);
    expect(gaveUpAfter).toBeLessThan(60_000 + 5_000);
    // 0.25 + 0.5 + 1 + 2 + 4 s, then every 5 s: about 16 attempts in the minute, not one per tick.
    expect(bus.refused - refusedBefore).toBeLessThan(20);
    expect(await published(stuck.id)).toBe(0);
  });

  it('close() ends the retries at once', async () => {
    const { tasks, caller, bus, sleeps, published } = await setup();
    bus.down = true;
    const task = await tasks.send(caller, textMsg('x1'), { blocking: false });
    await expect.poll(() => sleeps.waiting.length).toBe(1);
    await tasks.close();
    expect(tasks.retryingPublishes).toBe(0);
    bus.down = false;
    expect(await published(task.id)).toBe(0);
  });
});
