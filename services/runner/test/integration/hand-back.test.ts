import { describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryBlobStore, InMemoryBus, InMemoryCache, systemClock, type BusMessage } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { startRunnerApp } from '../../src/app';
import { loadRunnerConfig } from '../../src/config';
import { runEventsOf } from '../../src/domain/event-pipe';
import { TOPICS } from '../../src/domain/runner';

describe('a run handed over in this process and handed back (ADR 0053)', () => {
  it('is published on the bus again while the bus refuses it, and runs once the bus is back (review 23 #10)', async () => {
    const bus = new InMemoryBus();
    const events: eventsV1.TaskEvent[] = [];
    const observer = await bus.subscribe(TOPICS.taskEvents, 'observer', async (m: BusMessage) => {
      events.push(...runEventsOf(eventsV1.TaskEvent.decode(m.value)));
      await Promise.resolve();
    });
    // The bus is down: the run's events cannot go (the direct apply fails too), so the run is handed back, and
    // the hand-back's own publish is refused for a while after that.
    let down = true;
    const refused: string[] = [];
    const publish = bus.publish.bind(bus);
    bus.publish = (m) => {
      if (!down) return publish(m);
      refused.push(m.topic);
      return Promise.reject(new AppError('UNAVAILABLE', 'the bus did not accept the message'));
    };
    const app = await startRunnerApp(
      {
        bus,
        cache: new InMemoryCache(),
        blobs: new InMemoryBlobStore(),
        clock: systemClock,
        log: silentLogger(),
        readinessIntervalMs: 600_000,
        localEvents: { accepts: () => true, apply: () => Promise.reject(new Error('tasks is unavailable')) },
      },
      loadRunnerConfig({ RUNNER_GRPC_PORT: '0' }, 'runner-hand-back'),
    );
    try {
      const run = eventsV1.RunRequested.fromPartial({
        taskId: 't1',
        runId: 'r1',
        runtime: 'demo:echo',
        messageJson: JSON.stringify({
          kind: 'message',
          role: 'user',
          messageId: 'm1',
          parts: [{ kind: 'text', text: 'hi' }],
        }),
      });
      expect(app.offer(run)).toBe(true);
      // Handed back, and its publish refused more than once: retried, not dropped.
      for (const until = Date.now() + 5_000; refused.filter((t) => t === TOPICS.runRequested).length < 2;) {
        expect(Date.now()).toBeLessThan(until);
        await new Promise((r) => setTimeout(r, 10));
      }
      down = false;
      const final = (): eventsV1.TaskEvent | undefined =>
        events.find((e) => e.event?.$case === 'status' && e.event.status.state !== 'working');
      for (const until = Date.now() + 10_000; !final() && Date.now() < until;)
        await new Promise((r) => setTimeout(r, 10));
      expect(final()?.event).toMatchObject({ $case: 'status', status: { state: 'completed' } });
    } finally {
      await app.close();
      await observer.close();
      await bus.close();
    }
  });
});
