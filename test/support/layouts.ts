import { silentLogger } from '@a2a-inbound/logger';
import { inMemoryEngines, startSystem } from '@a2a-inbound/embedded';
import { loadGatewayConfig, startGatewayApp } from '@a2a-inbound/gateway';
import type { Resolver } from '@a2a-inbound/runtime';
import type { Sut } from '@a2a-inbound/testing';

export interface LayoutOptions {
  /** Resolves hosts for the public-address checks (file URIs, webhook URLs). */
  resolver?: Resolver;
}

/** Embedded layout: the five services in this process, in-memory adapters (what `npm start` runs). */
export async function startEmbeddedSut(options: LayoutOptions = {}): Promise<Sut> {
  const system = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1' },
    log: silentLogger(),
    ...(options.resolver ? { resolver: options.resolver } : {}),
  });
  const creds = system.tasks.seed!.credentials!;
  return {
    baseUrl: system.baseUrl,
    a2aKey: creds.a2aKey,
    invokeKey: creds.invokeKey,
    otherBaseUrls: [],
    tasksAddress: system.tasks.grpc.address,
    subscriptionId: system.tasks.seed!.subscriptionId,
    close: () => system.close(),
  };
}

/**
 * Split layout: two runner replicas and a second gateway replica, each gRPC server on its own loopback port;
 * the replicas share nothing but the engines (bus, store, event log, cache, limiter) and gRPC, over the loopback
 * network (no in-process channel: the embedded layout covers that one).
 */
export async function startSplitSut(options: LayoutOptions = {}): Promise<Sut> {
  const engines = inMemoryEngines();
  const log = silentLogger();
  const resolver = options.resolver ? { resolver: options.resolver } : {};
  const system = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1' },
    log,
    engines,
    runners: 2,
    inProcessGrpc: false,
    ...resolver,
  });
  const second = await startGatewayApp(
    { cache: engines.cache, limiter: engines.limiter, blobs: engines.blobs, clock: engines.clock, log, ...resolver },
    loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      A2A_GRPC_PORT: '0',
      SHUTDOWN_READINESS_DELAY_MS: '0',
      TASKS_GRPC_ADDR: system.tasks.grpc.address,
      WEBHOOKS_GRPC_ADDR: system.webhooks.grpc.address,
    }),
  );
  const creds = system.tasks.seed!.credentials!;
  return {
    baseUrl: system.baseUrl,
    a2aKey: creds.a2aKey,
    invokeKey: creds.invokeKey,
    otherBaseUrls: [second.baseUrl],
    tasksAddress: system.tasks.grpc.address,
    subscriptionId: system.tasks.seed!.subscriptionId,
    close: async () => {
      await second.close();
      await system.close();
      for (const c of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
        await c.close();
    },
  };
}
