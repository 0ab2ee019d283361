import { createServer, connect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisCache } from '@a2a-inbound/adapter-redis';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryBlobStore, InMemoryCache, InMemoryRateLimiter, systemClock } from '@a2a-inbound/ports';
import { startGrpcServer, type GrpcServerHandle } from '@a2a-inbound/runtime';
import { startGatewayApp, type GatewayApp, type ReadinessCheck } from '../../src/app';
import { loadGatewayConfig } from '../../src/config';

/** A TCP proxy we can cut: the engine stays up for everyone else, only this gateway loses it. */
async function tcpProxy(
  target: { host: string; port: number },
  port = 0,
): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    cut: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

const readyz = async (gw: GatewayApp): Promise<{ status: number; body: { status: string; failed?: string[] } }> => {
  const res = await fetch(`${gw.baseUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; failed?: string[] } };
};

describe('gateway /readyz reflects tasks gRPC health and the engines', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.reverse()) await c();
    cleanup.length = 0;
  });

  async function start(options: { checks?: ReadinessCheck[]; env?: Record<string, string> } = {}) {
    let serving = true;
    const tasks: GrpcServerHandle = await startGrpcServer([], { host: '127.0.0.1', port: 0, isServing: () => serving });
    cleanup.push(() => tasks.close());
    const gateway = await startGatewayApp(
      {
        cache: new InMemoryCache(),
        limiter: new InMemoryRateLimiter(),
        blobs: new InMemoryBlobStore(),
        clock: systemClock,
        log: silentLogger(),
        readinessChecks: options.checks ?? [],
      },
      loadGatewayConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        TASKS_GRPC_ADDR: tasks.address,
        READINESS_TIMEOUT_MS: '300',
        SHUTDOWN_READINESS_DELAY_MS: '0',
        ...options.env,
      }),
    );
    cleanup.push(() => gateway.close());
    return { tasks, gateway, setTasksServing: (v: boolean) => (serving = v) };
  }

  it('200 when tasks answers SERVING and every engine check answers; 503 when tasks is NOT_SERVING or unreachable', async () => {
    // Nothing here hangs: a budget a loaded machine's first gRPC connect fits in (300 ms answered 503 under load).
    const { tasks, gateway, setTasksServing } = await start({
      checks: [async () => undefined],
      env: { READINESS_TIMEOUT_MS: '5000' },
    });
    expect(await readyz(gateway)).toEqual({ status: 200, body: { status: 'ready' } });
    setTasksServing(false);
    expect(await readyz(gateway)).toMatchObject({
      status: 503,
      body: { status: 'not ready', failed: ['tasks: NOT_SERVING'] },
    });
    setTasksServing(true);
    expect((await readyz(gateway)).status).toBe(200);
    await tasks.close();
    expect(await readyz(gateway)).toMatchObject({ status: 503, body: { failed: ['tasks: unreachable'] } });
    // /healthz is liveness: the process is fine, only its dependencies are not.
    expect((await fetch(`${gateway.baseUrl}/healthz`)).status).toBe(200);
  });

  it('503 when an engine check fails or hangs past READINESS_TIMEOUT_MS', async () => {
    let mode: 'ok' | 'fail' | 'hang' = 'ok';
    const { gateway } = await start({
      checks: [
        () => {
          if (mode === 'fail') return Promise.reject(new Error('down'));
          if (mode === 'hang') return new Promise<void>(() => undefined);
          return Promise.resolve();
        },
      ],
    });
    expect((await readyz(gateway)).status).toBe(200);
    mode = 'fail';
    expect(await readyz(gateway)).toMatchObject({ status: 503, body: { failed: ['engine 1: unreachable'] } });
    mode = 'hang';
    const started = Date.now();
    expect((await readyz(gateway)).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it.runIf(Boolean(process.env.REDIS_URL))(
    '503 when Redis is unreachable, 200 again when it answers (real Redis through a proxy we cut)',
    async () => {
      const target = new URL(process.env.REDIS_URL!);
      let proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
      const port = proxy.port;
      cleanup.push(() => proxy.cut());
      const cache = await RedisCache.connect({ url: `redis://127.0.0.1:${port}`, prefix: 'readiness-test:' });
      cleanup.push(() => cache.close());
      const { gateway } = await start({
        checks: [{ name: 'redis', check: async () => void (await cache.get('probe')) }],
      });
      expect((await readyz(gateway)).status).toBe(200);
      await proxy.cut();
      expect(await readyz(gateway)).toMatchObject({
        status: 503,
        body: { status: 'not ready', failed: ['redis: unreachable'] },
      });
      proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) }, port);
      let status = 0;
      for (const deadline = Date.now() + 10_000; Date.now() < deadline && status !== 200;) {
        status = (await readyz(gateway)).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    },
  );

  it('on close, /readyz answers 503 first while requests are still served, then the listener closes', async () => {
    const { gateway } = await start({ env: { SHUTDOWN_READINESS_DELAY_MS: '400' } });
    expect((await readyz(gateway)).status).toBe(200);
    const closing = gateway.close();
    expect(await readyz(gateway)).toMatchObject({ status: 503, body: { status: 'draining' } });
    expect((await fetch(`${gateway.baseUrl}/healthz`)).status).toBe(200);
    await closing;
    await expect(fetch(`${gateway.baseUrl}/healthz`)).rejects.toThrow();
  });
});
