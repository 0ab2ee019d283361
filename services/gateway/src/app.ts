import type { Server } from 'node:http';
import { once } from 'node:events';
import express, { type Request } from 'express';
import type { Logger } from '@a2a-inbound/logger';
import type { Cache, Clock, RateLimiter } from '@a2a-inbound/ports';
import { Lifecycle } from '@a2a-inbound/runtime';
import { connectClients, Lookups, type GatewayClients } from './clients';
import type { GatewayConfig } from './config';
import { createA2aRouter } from './http/a2a-router';
import { createCardsRouter } from './http/cards-router';
import { restErrorHandler } from './http/errors';
import { createInvokeRouter } from './http/invoke-router';
import { createLegacyRouter } from './http/legacy-router';
import { createManagementRouter } from './http/management-router';
import type { SseWriter } from './http/sse';
import type { Resolver } from '@a2a-inbound/runtime';

export interface GatewayDeps {
  cache: Cache;
  limiter: RateLimiter;
  clock: Clock;
  log: Logger;
  /** Engines the readiness probe checks (cache, limiter), each resolving when reachable. */
  readinessChecks?: (() => Promise<void>)[];
  resolver?: Resolver;
}

export interface GatewayApp {
  readonly port: number;
  readonly baseUrl: string;
  readonly clients: GatewayClients;
  close(): Promise<void>;
}

/** Builds and starts the gateway (HTTP) on config.host:config.port (0 = any free port). */
export async function startGatewayApp(deps: GatewayDeps, config: GatewayConfig): Promise<GatewayApp> {
  const { log } = deps;
  const lifecycle = new Lifecycle();
  const clients = connectClients({ tasks: config.tasksAddress, control: config.tasksAddress });
  lifecycle.onClose('grpc clients', async () => clients.close());
  const lookups = new Lookups(clients.control, deps.cache, deps.clock);
  const streams = new Set<SseWriter>();
  let draining = false;

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  const baseUrl = (req: Request): string => config.publicBaseUrl || `${req.protocol}://${req.get('host') ?? `127.0.0.1:${config.port}`}`;

  app.use((req, res, next) => {
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      log.info(
        { method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - start) / 1e6 },
        'request',
      );
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (draining) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    try {
      await Promise.all((deps.readinessChecks ?? []).map((c) => c()));
      await new Promise<void>((resolve, reject) => {
        clients.tasks.waitForReady(new Date(Date.now() + 2_000), (err) => (err ? reject(err) : resolve()));
      });
      res.json({ status: 'ready' });
    } catch (err) {
      log.warn({ err }, 'not ready');
      res.status(503).json({ status: 'not ready' });
    }
  });

  app.use(
    createCardsRouter({ lookups, log, baseUrl, providerOrganization: config.providerOrganization, providerUrl: config.providerUrl }),
  );
  app.options(/^\/agents\/[^/]+\/a2a(\/.*)?$/, (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, A2A-Version, Last-Event-ID');
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  });
  app.use('/agents/:agentId/a2a', (_req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    next();
  });
  app.use(
    '/agents/:agentId/a2a',
    createA2aRouter({
      clients,
      lookups,
      limiter: deps.limiter,
      clock: deps.clock,
      log,
      bodyLimitBytes: config.bodyLimitBytes,
      sseHeartbeatMs: config.sseHeartbeatMs,
      streams,
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
    }),
  );
  let listeningPort = config.port;
  const selfBaseUrl = (): string => config.publicBaseUrl || `http://127.0.0.1:${listeningPort}`;
  app.use(
    createManagementRouter({ clients, lookups, log, baseUrl, selfBaseUrl, providerOrganization: config.providerOrganization, providerUrl: config.providerUrl }),
  );
  const agentRouterDeps = { clients, lookups, limiter: deps.limiter, clock: deps.clock, log, baseUrl, bodyLimitBytes: config.bodyLimitBytes };
  app.use(createLegacyRouter({ ...agentRouterDeps, sseHeartbeatMs: config.sseHeartbeatMs, streams }));
  app.use(createInvokeRouter({ ...agentRouterDeps, sseHeartbeatMs: config.sseHeartbeatMs, streams }));
  app.use((_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'Not found' } });
  });
  app.use(restErrorHandler(log));

  const server: Server = app.listen(config.port, config.host);
  await once(server, 'listening');
  server.requestTimeout = 0; // SSE and large uploads; idle sockets are still reaped by headersTimeout/keepAlive
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  listeningPort = port;
  lifecycle.onClose('http server', async () => {
    draining = true;
    // Streams end now: clients resume with tasks/resubscribe (Last-Event-ID) on another replica.
    for (const s of streams) s.end();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
    await closed;
    clearTimeout(timer);
  });
  log.info({ port }, 'gateway listening');
  return {
    port,
    baseUrl: config.publicBaseUrl || `http://127.0.0.1:${port}`,
    clients,
    close: () => lifecycle.close(log),
  };
}
