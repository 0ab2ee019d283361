import { describe, expect, it } from 'vitest';
import { eventsV1 } from '@a2a-inbound/proto';
import { TOPICS } from '../../src/domain/task-core';
import { pushOn, taskServiceSetup, textMsg } from '../support/task-service-setup';

// Task updates reach webhooks in batches (ADR 0041): what is announced while a message is being published goes
// in the next one, together; a lone announcement goes at once (no timer, no added latency).
describe('task updates announced to webhooks in batches', () => {
  it('a lone send is announced at once in its own message; sends during a publish share the next message', async () => {
    const { tasks, bus, caller } = await taskServiceSetup({ pushOn: true });
    const messages: eventsV1.LoggedTaskEvent[] = [];
    let hold: Promise<void> | undefined;
    const publish = bus.publish.bind(bus);
    bus.publish = async (m) => {
      if (m.topic === TOPICS.taskUpdates) {
        messages.push(eventsV1.LoggedTaskEvent.decode(m.value));
        if (hold) await hold;
      }
      return publish(m);
    };
    const lone = await tasks.send(caller, textMsg('lone'), { blocking: false });
    expect(messages.map((m) => [m.taskId, m.preceding.length])).toEqual([[lone.id, 0]]);

    // The next publish is slow (a busy broker): three sends announce meanwhile.
    let release!: () => void;
    hold = new Promise<void>((r) => (release = r));
    const first = tasks.send(caller, textMsg('b1'), { blocking: false });
    await expect.poll(() => messages.length).toBe(2);
    const others = [
      tasks.send(caller, textMsg('b2'), { blocking: false }),
      tasks.send(caller, textMsg('b3'), { blocking: false }),
    ];
    await new Promise((r) => setTimeout(r, 50));
    expect(messages).toHaveLength(2); // queued behind the publish in flight
    hold = undefined;
    release();
    const [t1, t2, t3] = await Promise.all([first, ...others]);
    expect(messages).toHaveLength(3);
    const batch = messages[2]!;
    expect([...batch.preceding, batch].map((e) => [e.taskId, Number(e.seq)])).toEqual([
      [t2!.id, 1],
      [t3!.id, 1],
    ]);
    expect(messages[1]!.taskId).toBe(t1.id);
  });

  it('a failed publish fails every announcement of its batch (each caller handles it as before)', async () => {
    const { tasks, bus, caller, credits } = await taskServiceSetup({ pushOn: true });
    const before = await credits();
    const publish = bus.publish.bind(bus);
    bus.publish = async (m) => {
      if (m.topic === TOPICS.taskUpdates) throw Object.assign(new Error('broker down'), { code: 'UNAVAILABLE' });
      return publish(m);
    };
    const results = await Promise.allSettled([
      tasks.send(caller, textMsg('f1'), { blocking: false }),
      tasks.send(caller, textMsg('f2'), { blocking: false }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await credits()).toBe(before); // refused sends are not charged
  });

  it('does not announce the updates of an agent with push notifications off: webhooks would push none (ADR 0055)', async () => {
    const { tasks, bus, caller, control } = await taskServiceSetup();
    const announced: eventsV1.LoggedTaskEvent[] = [];
    const publish = bus.publish.bind(bus);
    bus.publish = async (m) => {
      if (m.topic === TOPICS.taskUpdates) {
        const d = eventsV1.LoggedTaskEvent.decode(m.value);
        announced.push(...d.preceding, d);
      }
      return publish(m);
    };
    await tasks.send(caller, textMsg('off'), { blocking: false }); // the demo agent starts with push off
    await bus.drain();
    expect(announced).toEqual([]);
    await pushOn(control);
    const on = await tasks.send(caller, textMsg('on'), { blocking: false });
    await bus.drain();
    // Its first update (`working`), not marked push-off: webhooks looks it up, as before.
    expect(announced.map((e) => [e.taskId, Number(e.seq), e.pushOff])).toEqual([[on.id, 1, false]]);
  });
});
