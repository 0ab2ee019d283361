import { describe, expect, it } from 'vitest';
import { InMemoryCache } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { TOPICS } from '../../src/domain/task-core';
import { pushOn, taskServiceSetup, textMsg } from '../support/task-service-setup';

/** An in-memory cache whose next write of `key` waits until `release` (a reader slower than a writer). */
class HeldCache extends InMemoryCache {
  #held: { key: string; gate: Promise<void>; reached: () => void } | undefined;

  /** Holds the next write of `key`; resolves once it is held, with the function that lets it go. */
  hold(key: string): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    let reached!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const isReached = new Promise<void>((r) => (reached = r));
    this.#held = { key, gate, reached };
    return { reached: isReached, release };
  }

  override async set(key: string, value: string, ttlMs: number): Promise<void> {
    const held = this.#held;
    if (held?.key === key) {
      this.#held = undefined;
      held.reached();
      await held.gate;
    }
    return super.set(key, value, ttlMs);
  }
}

describe('the cached agent view (review 23 #8, review 22 #7)', () => {
  it('a view read before push was enabled and cached after its invalidation does not stay: the updates are announced', async () => {
    const cache = new HeldCache();
    const { tasks, bus, caller, control } = await taskServiceSetup({ cache });
    const announced: eventsV1.LoggedTaskEvent[] = [];
    const publish = bus.publish.bind(bus);
    bus.publish = async (m) => {
      if (m.topic === TOPICS.taskUpdates) announced.push(eventsV1.LoggedTaskEvent.decode(m.value));
      return publish(m);
    };
    // A reader fetches the agent (push off) and is slow to cache it; the operator enables push meanwhile (stored,
    // then the entry deleted: there is none yet); then the reader's write lands.
    const held = cache.hold('agent-view:demo-echo');
    const reading = control.catalog.resolveAgent('demo-echo');
    await held.reached;
    await pushOn(control);
    held.release();
    expect((await reading).pushNotificationsEnabled).toBe(false); // what it read, before the change
    expect((await control.catalog.resolveAgent('demo-echo')).pushNotificationsEnabled).toBe(true);
    const sent = await tasks.send(caller, textMsg('after'), { blocking: false });
    await bus.drain();
    // Announced (push is on): a push config set now would be served.
    expect(announced.map((e) => [e.taskId, Number(e.seq)])).toContainEqual([sent.id, 1]);
  });
});
