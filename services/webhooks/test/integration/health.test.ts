import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryBus, InMemoryDocumentStore } from '@a2a-inbound/ports';
import { checkHealth } from '@a2a-inbound/runtime';
import { startWebhooksApp } from '../../src/app';
import { loadWebhooksConfig } from '../../src/config';

describe('webhooks gRPC health', () => {
  it('SERVING while the bus answers, NOT_SERVING when it does not, and not ready once closed', async () => {
    const bus = new InMemoryBus();
    let busDown = false;
    const ping = bus.ping.bind(bus);
    bus.ping = () => (busDown ? Promise.reject(new Error('kafka unreachable')) : ping());
    // A long interval: the test refreshes readiness itself (app.ready()) instead of waiting.
    const app = await startWebhooksApp(
      {
        bus,
        store: new InMemoryDocumentStore(),
        source: { get: () => Promise.resolve({ taskJson: '', enabled: false, targets: [] }) },
        log: silentLogger(),
        readinessIntervalMs: 600_000,
      },
      loadWebhooksConfig({ WEBHOOKS_GRPC_PORT: '0' }),
    );
    try {
      expect(await checkHealth(app.grpc.address)).toBe('SERVING');
      busDown = true;
      expect(await app.ready()).toBe(false);
      expect(await checkHealth(app.grpc.address)).toBe('NOT_SERVING');
      busDown = false;
      expect(await app.ready()).toBe(true);
      expect(await checkHealth(app.grpc.address)).toBe('SERVING');
    } finally {
      await app.close();
      await bus.close();
    }
    expect(await app.ready()).toBe(false);
  });
});
