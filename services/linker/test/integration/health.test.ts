import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, systemClock } from '@a2a-inbound/ports';
import { checkHealth } from '@a2a-inbound/runtime';
import { startLinkerApp } from '../../src/app';

describe('linker gRPC health', () => {
  it('SERVING once started; NOT_SERVING while the store does not answer; NOT_SERVING once closing', async () => {
    const store = new InMemoryDocumentStore();
    let storeDown = false;
    const ping = store.ping.bind(store);
    store.ping = () => (storeDown ? Promise.reject(new Error('store unreachable')) : ping());
    // A long interval: the test refreshes readiness itself (app.ready()) instead of waiting.
    const app = await startLinkerApp(
      {
        store,
        clock: systemClock,
        log: silentLogger(),
        readinessIntervalMs: 600_000,
      },
      { serviceToken: 'h'.repeat(32) },
    );
    const server = await app.start();
    try {
      expect(await checkHealth(server.address)).toBe('SERVING');
      storeDown = true;
      expect(await app.ready()).toBe(false);
      expect(await checkHealth(server.address)).toBe('NOT_SERVING');
      storeDown = false;
      expect(await app.ready()).toBe(true);
      expect(await checkHealth(server.address)).toBe('SERVING');
    } finally {
      await app.close();
    }
    expect(await app.ready()).toBe(false);
  });
});
