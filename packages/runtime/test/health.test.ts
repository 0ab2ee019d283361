import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@a2a-inbound/logger';
import { checkHealth, PeriodicReadiness, startGrpcServer, type GrpcServerHandle } from '../src/index';

describe('gRPC health: checkHealth against startGrpcServer', () => {
  let server: GrpcServerHandle | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('reports SERVING, then NOT_SERVING when isServing() turns false, and rejects when nothing listens', async () => {
    let serving = true;
    server = await startGrpcServer([], { host: '127.0.0.1', port: 0, isServing: () => serving });
    expect(await checkHealth(server.address)).toBe('SERVING');
    serving = false;
    expect(await checkHealth(server.address)).toBe('NOT_SERVING');
    const address = server.address;
    await server.close();
    server = undefined;
    await expect(checkHealth(address, { timeoutMs: 500 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('PeriodicReadiness', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('serves the last result of the background check (one check per interval, not per read) and is not ready once stopped', async () => {
    vi.useFakeTimers();
    let healthy = true;
    let checks = 0;
    const r = new PeriodicReadiness(
      async () => {
        checks += 1;
        if (!healthy) throw new Error('engine down');
      },
      { intervalMs: 2_000, log: createLogger({ service: 'test', level: 'silent' }) },
    );
    expect(r.isReady()).toBe(true);
    healthy = false;
    for (let i = 0; i < 100; i++) r.isReady();
    expect(checks).toBe(0);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(checks).toBe(1);
    expect(r.isReady()).toBe(false);
    healthy = true;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(r.isReady()).toBe(true);
    r.stop();
    expect(r.isReady()).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(checks).toBe(2);
    expect(await r.refresh()).toBe(false);
  });

  it('a check that hangs counts as failed after the timeout', async () => {
    vi.useFakeTimers();
    const r = new PeriodicReadiness(() => new Promise<void>(() => undefined), { intervalMs: 2_000, timeoutMs: 500 });
    const result = r.refresh();
    await vi.advanceTimersByTimeAsync(500);
    expect(await result).toBe(false);
    r.stop();
  });
});
