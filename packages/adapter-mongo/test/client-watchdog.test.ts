import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ClientWatchdog } from '../src/client-watchdog';

/** A client whose heartbeats, probe answer and reconnects the test controls. */
function fakeClient(probeAnswers: boolean) {
  const events = new EventEmitter();
  const state = { reconnects: 0, probes: 0, probeAnswers };
  const client = {
    on: (event: 'serverHeartbeatSucceeded', listener: () => void) => events.on(event, listener),
    probe: async () => {
      state.probes += 1;
      return state.probeAnswers;
    },
    reconnect: async () => {
      state.reconnects += 1;
    },
  };
  return { client, state, beat: () => events.emit('serverHeartbeatSucceeded') };
}

describe('MongoDB client watchdog (a stuck server monitor is reconnected)', () => {
  const log = { warn: () => undefined, error: () => undefined };

  it('reconnects once when no heartbeat succeeded for staleMs but a fresh connection answers', async () => {
    let now = 0;
    const { client, state } = fakeClient(true);
    const w = new ClientWatchdog(client, { log, name: 't', staleMs: 15_000, now: () => now });
    now = 14_000;
    expect(await w.check()).toBe(false);
    expect(state.probes).toBe(0); // healthy enough: not even probed
    now = 16_000;
    expect(await w.check()).toBe(true);
    expect(state.reconnects).toBe(1);
    now = 17_000; // the reconnect counts as healthy: no second reconnect right away
    expect(await w.check()).toBe(false);
    expect(state.reconnects).toBe(1);
  });

  it('leaves a client alone while heartbeats succeed', async () => {
    let now = 0;
    const { client, state, beat } = fakeClient(true);
    const w = new ClientWatchdog(client, { log, name: 't', staleMs: 15_000, now: () => now });
    for (let t = 5_000; t <= 60_000; t += 5_000) {
      now = t;
      beat();
      expect(await w.check()).toBe(false);
    }
    expect(state.reconnects).toBe(0);
  });

  it('does nothing when the server is really down (the probe fails too): the driver reconnects by itself', async () => {
    let now = 0;
    const { client, state } = fakeClient(false);
    const w = new ClientWatchdog(client, { log, name: 't', staleMs: 15_000, now: () => now });
    now = 60_000;
    expect(await w.check()).toBe(false);
    expect(state.probes).toBe(1);
    expect(state.reconnects).toBe(0);
  });
});
