import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  randomIds,
  systemClock,
} from '@a2a-inbound/ports';
import { checkHealth } from '@a2a-inbound/runtime';
import { startTasksApp } from '../../src/app';
import { loadTasksConfig } from '../../src/config';

/** Makes an adapter's ping fail on demand (the engine went away). */
function breakable<T extends { ping(): Promise<void> }>(adapter: T): { adapter: T; down: (v: boolean) => void } {
  let down = false;
  const ping = adapter.ping.bind(adapter);
  adapter.ping = () => (down ? Promise.reject(new Error('engine unreachable')) : ping());
  return { adapter, down: (v) => (down = v) };
}

describe('tasks gRPC health reflects its engines', () => {
  it('NOT_SERVING when the store, the bus or the event log stops answering; SERVING again when they answer', async () => {
    const store = breakable(new InMemoryDocumentStore());
    const bus = breakable(new InMemoryBus());
    const eventLog = breakable(new InMemoryEventLog());
    const app = await startTasksApp(
      {
        store: store.adapter,
        blobs: new InMemoryBlobStore(),
        bus: bus.adapter,
        eventLog: eventLog.adapter,
        cache: new InMemoryCache(),
        clock: systemClock,
        ids: randomIds,
        log: silentLogger(),
      },
      // A long interval: the test refreshes readiness itself (app.ready()) instead of waiting for it.
      loadTasksConfig({ TASKS_GRPC_PORT: '0', SEED_DEMO: 'false', TASKS_READINESS_INTERVAL_MS: '600000' }),
    );
    try {
      expect(await checkHealth(app.grpc.address)).toBe('SERVING');
      for (const engine of [store, bus, eventLog]) {
        engine.down(true);
        // Check reads the last refreshed result: still SERVING until the next refresh.
        expect(await checkHealth(app.grpc.address)).toBe('SERVING');
        expect(await app.ready()).toBe(false);
        expect(await checkHealth(app.grpc.address)).toBe('NOT_SERVING');
        engine.down(false);
        expect(await app.ready()).toBe(true);
        expect(await checkHealth(app.grpc.address)).toBe('SERVING');
      }
    } finally {
      await app.close();
    }
    expect(await app.ready()).toBe(false);
  });
});
