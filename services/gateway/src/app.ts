import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import express, { type Request, type RequestHandler } from 'express';
import type { Logger } from '@a2a-inbound/logger';
import type { BlobStore, Cache, Clock, RateLimiter } from '@a2a-inbound/ports';
import {
  checkHealth,
  grpcChannelCredentials,
  InFlightLimit,
  Lifecycle,
  pushEgressPolicy,
  withDeadline,
} from '@a2a-inbound/runtime';
import { connectClients, Lookups, type GatewayClients } from './clients';
import type { GatewayConfig } from './config';
import { createA2aEndpoint, createA2aRouter } from './http/a2a-router';
import { a2aFastPath, appMessageClasses } from './http/a2a-fast-path';
import { createA2aV1Routes } from './http/a2a-v1-router';
import { createCardsRouter } from './http/cards-router';
import { createConsole } from './http/console';
import { closeIfBodyUnread, jsonBody } from './http/body';
import { lingerOnEarlyClose } from './http/linger';
import { restErrorHandler } from './http/errors';
import { createInvokeRouter } from './http/invoke-router';
import { createLegacyRouter } from './http/legacy-router';
import type { GatewayAdmission } from './http/agent-access';
import { LargeBodyGate } from './http/spilled-body';
import { createLinkerRouter } from './http/linker-routes';
import { createManagementRouter } from './http/management-router';
import { requestMetrics } from './http/metrics';
import { authenticateUser } from './http/user-auth';
import { linkerV1 } from '@a2a-inbound/proto';
import { directClient, startGrpcServer, type GrpcServerHandle } from '@a2a-inbound/runtime';
import { a2aV1 } from '@a2a-inbound/proto';
import { a2aGrpcService } from './grpc/a2a-grpc';
import { CardSigner } from './protocol/card-signing';
import type { SseWriter } from './http/sse';
import type { Resolver } from '@a2a-inbound/runtime';

export type ReadinessCheck = (() => Promise<void>) | { name: string; check: () => Promise<void> };

export interface GatewayDeps {
  cache: Cache;
  limiter: RateLimiter;
  /** Where the file bytes of a send go as the body arrives (ADR 0031): the one tasks reads them from. */
  blobs: BlobStore;
  clock: Clock;
  log: Logger;
  /** Engines the readiness probe checks, each resolving when reachable (named: the name shows in /readyz). */
  readinessChecks?: ReadinessCheck[];
  resolver?: Resolver;
}

export interface GatewayApp {
  readonly port: number;
  /** The public A2A 1.0 gRPC port; undefined when not served (A2A_GRPC_PORT=-1). */
  readonly a2aGrpcPort: number | undefined;
  readonly baseUrl: string;
  readonly clients: GatewayClients;
  close(): Promise<void>;
}

/** The linker routes' bodies (application names, git URLs): small. */
const LINKER_BODY_LIMIT_BYTES = 1024 * 1024;

const CLIENT_ERRORS: Readonly<Record<string, [number, string, string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'The request headers are too large'],
};

/**
 * Answers what Node's HTTP parser refuses (a request not received within HTTP_REQUEST_TIMEOUT_MS or
 * HTTP_HEADERS_TIMEOUT_MS, oversized headers, malformed HTTP) with a JSON body instead of Node's empty one,
 * then closes the connection.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // Nothing to answer on a reset socket, nor in the middle of a response that already started.
  if (err.code === 'ECONNRESET' || !socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ error: { code: status === 408 ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST', message } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Builds and starts the gateway (HTTP) on config.host:config.port (0 = any free port). */
export async function startGatewayApp(deps: GatewayDeps, config: GatewayConfig): Promise<GatewayApp> {
  const { log } = deps;
  const lifecycle = new Lifecycle();
  // One set of credentials for every internal link: the certificate files are watched once (ADR 0032).
  const grpcCreds = grpcChannelCredentials(config.grpcTls);
  const clients = connectClients(
    {
      tasks: config.tasksAddress,
      control: config.tasksAddress,
      webhooks: config.webhooksAddress,
    },
    grpcCreds,
  );
  lifecycle.onClose('grpc clients', async () => clients.close());
  const lookups = new Lookups(clients.control, deps.cache);
  const cardSigner = new CardSigner(
    {
      keys: (d) => lookups.cardKeys(d),
      sign: (d, jku, payloads, id, kid) => lookups.signCard(d, jku, payloads, id, kid),
    },
    log,
    Date.now,
    config.publicBaseUrl,
  );
  const streams = new Set<SseWriter>();
  const pushPolicy = pushEgressPolicy(config.pushAllowList);
  const admission: GatewayAdmission = {
    pending: new InFlightLimit(config.maxPendingRequests, 'requests waiting for the tasks service'),
    acceptTimeoutMs: config.acceptTimeoutMs,
    largeBodies: new LargeBodyGate(config.maxLargeBodies),
  };
  let draining = false;

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  const baseUrl = (req: Request): string =>
    config.publicBaseUrl || `${req.protocol}://${req.get('host') ?? `127.0.0.1:${config.port}`}`;

  // One line per request: method, path (taken now: mounted routers rewrite req.path; no query string, it may
  // carry secrets), status and ms. Never headers: the Authorization header carries the key.
  const requestLog: RequestHandler = (req, res, next) => {
    const start = process.hrtime.bigint();
    const method = req.method;
    const path = req.path;
    // 'close' comes after 'finish', and also when the client went away first (aborted: an SSE reader left).
    res.once('close', () => {
      const ms = Math.round(Number(process.hrtime.bigint() - start) / 1e4) / 100;
      log.info(
        { method, path, status: res.statusCode, ms, ...(res.writableFinished ? {} : { aborted: true }) },
        'request',
      );
    });
    next();
  };
  const metrics = requestMetrics(streams);
  const a2aCors: RequestHandler = (_req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    next();
  };
  app.use(requestLog);
  app.use(metrics);
  // The A2A endpoints first: every send passes each layer above its router (Express matches them in order), and
  // no route below shares a path with them (health, cards and .well-known, console, management, linker).
  // The A2A 1.0 HTTP+JSON binding reads with GET and deletes with DELETE.
  app.options(/^\/agents\/[^/]+\/a2a\/v1\/rest(\/.*)?$/, (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
    res.setHeader(
      'Access-Control-Allow-Headers',
      'Authorization, Content-Type, A2A-Version, A2A-Extensions, Last-Event-ID',
    );
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  });
  app.options(/^\/agents\/[^/]+\/a2a(\/.*)?$/, (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, A2A-Version, Last-Event-ID');
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  });
  app.use('/agents/:agentId/a2a', a2aCors);
  const a2aRouterDeps = {
    admission,
    blobs: deps.blobs,
    clients,
    lookups,
    limiter: deps.limiter,
    clock: deps.clock,
    log,
    bodyLimitBytes: config.bodyLimitBytes,
    sseHeartbeatMs: config.sseHeartbeatMs,
    streams,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    pushPolicy,
  };
  // A2A 1.0 (JSON-RPC and HTTP+JSON) before the 0.3/0.2 router, which answers every other path under /a2a.
  const v1Routes = createA2aV1Routes(a2aRouterDeps);
  app.use('/agents/:agentId/a2a/v1', v1Routes.router);
  const a2aEndpoint = createA2aEndpoint(a2aRouterDeps);
  app.use('/agents/:agentId/a2a', createA2aRouter(a2aRouterDeps, a2aEndpoint));
  // The JSON-RPC sends and reads skip the layers above (ADR 0067); the same middleware, in the same order.
  const fastPath = a2aFastPath({
    app,
    before: [requestLog, metrics, a2aCors],
    endpoint: a2aEndpoint,
    v1: v1Routes.jsonRpc,
    v1Rest: v1Routes.rest,
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Ready = not shutting down, tasks answers its gRPC health check with SERVING, and every engine check
  // (Redis: cache and rate limiter) answers; each within READINESS_TIMEOUT_MS, so a hung engine is a 503.
  let lastReady = true;
  app.get('/readyz', async (_req, res) => {
    if (draining) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    const failed: string[] = [];
    await Promise.all([
      checkHealth(config.tasksAddress, { timeoutMs: config.readinessTimeoutMs, credentials: grpcCreds }).then(
        (status) => {
          if (status !== 'SERVING') failed.push(`tasks: ${status}`);
        },
        () => failed.push('tasks: unreachable'),
      ),
      ...(deps.readinessChecks ?? []).map((c, i) => {
        const [name, check] = typeof c === 'function' ? [`engine ${i + 1}`, c] : [c.name, c.check];
        return withDeadline(check(), config.readinessTimeoutMs, name).catch(() => failed.push(`${name}: unreachable`));
      }),
    ]);
    if (draining) failed.push('draining');
    const ready = failed.length === 0;
    // Transitions only: a probe every few seconds during an outage would drown the log.
    if (ready !== lastReady && !draining) {
      if (ready) log.info('ready again');
      else log.warn({ failed }, 'not ready');
    }
    lastReady = ready;
    if (!ready) {
      res.status(503).json({ status: draining ? 'draining' : 'not ready', failed });
      return;
    }
    res.json({ status: 'ready' });
  });

  // Known once the gRPC server has bound (below); the cards read it per request.
  let a2aGrpc: GrpcServerHandle | undefined;
  const grpcAddress = (req: Request): string => {
    if (!a2aGrpc) return '';
    if (config.a2aGrpcPublicAddress) return config.a2aGrpcPublicAddress;
    return `${new URL(baseUrl(req)).hostname}:${a2aGrpc.port}`;
  };
  app.use(
    createCardsRouter({
      lookups,
      log,
      baseUrl,
      grpcAddress,
      providerOrganization: config.providerOrganization,
      providerUrl: config.providerUrl,
      signer: cardSigner,
    }),
  );
  // The web console (static files, sign-in) and its session cookie, which /api/v1 and /api/applications
  // accept in place of the bearer user token (ADR 0024).
  const consoleApp = createConsole({
    dir: config.consoleDir || join(__dirname, 'console'),
    cache: deps.cache,
    control: clients.control,
    log,
    sessionTtlMs: config.consoleSessionTtlMs,
    publicBaseUrl: config.publicBaseUrl,
    now: () => deps.clock.now(),
  });
  app.use(consoleApp.router);
  app.use(['/api/v1', '/api/applications'], consoleApp.sessions.middleware);
  let listeningPort = config.port;
  const selfBaseUrl = (): string => config.publicBaseUrl || `http://127.0.0.1:${listeningPort}`;
  app.use(
    createManagementRouter({
      clients,
      lookups,
      log,
      baseUrl,
      grpcAddress,
      selfBaseUrl,
      providerOrganization: config.providerOrganization,
      providerUrl: config.providerUrl,
    }),
  );
  const agentRouterDeps = {
    admission,
    clients,
    lookups,
    limiter: deps.limiter,
    clock: deps.clock,
    log,
    baseUrl,
    bodyLimitBytes: config.bodyLimitBytes,
    ...(deps.resolver ? { resolver: deps.resolver } : {}),
    pushPolicy,
  };
  // The linker's REST endpoints for the console: a signed-in user (Bearer usr_…), authenticated here through
  // tasks; the linker trusts that identity only with the internal service credential, and scopes
  // everything to the user's subscription and enforces the role (ADR 0012).
  const linker = directClient(linkerV1.LinkerServiceClient, config.linkerAddress, grpcCreds);
  lifecycle.onClose('linker client', async () => linker.close());
  const linkerCallers = new WeakMap<Request, linkerV1.Caller>();
  app.use('/api/applications', (req, res, next) => {
    authenticateUser(req, clients.control).then(
      (u) => {
        linkerCallers.set(req, { subscriptionId: u.subscriptionId, role: u.role, userId: u.userId });
        next();
      },
      (err: unknown) => {
        closeIfBodyUnread(req, res);
        next(err);
      },
    );
  });
  // JSON bodies are parsed here, after authentication, with the gateway's nesting limit (the linker routes' own
  // JSON parser then finds the body read and keeps this value). Archive uploads (gzip, zip) are the linker
  // routes' own to read.
  const [readLinkerJson, parseLinkerJson] = jsonBody(LINKER_BODY_LIMIT_BYTES) as [RequestHandler, RequestHandler];
  app.use('/api/applications', (req, res, next) => {
    if (!req.is('application/json')) {
      next();
      return;
    }
    readLinkerJson(req, res, (err?: unknown) => (err ? next(err) : parseLinkerJson(req, res, next)));
  });
  app.use(
    createLinkerRouter({
      linker,
      callerOf: (req) => linkerCallers.get(req),
      serviceToken: config.linkerServiceToken,
      log,
    }),
  );
  app.use(createLegacyRouter({ ...agentRouterDeps, sseHeartbeatMs: config.sseHeartbeatMs, streams }));
  app.use(createInvokeRouter({ ...agentRouterDeps, sseHeartbeatMs: config.sseHeartbeatMs, streams }));
  app.use((_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'Not found' } });
  });
  app.use(restErrorHandler(log));

  // requestTimeout bounds receiving a request (headers and body: a slow-dribbled body is cut off with a 408);
  // it does not apply to the response, so SSE streams live as long as they need.
  const server: Server = createServer(
    {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(config.headersTimeoutMs / 4))),
      ...appMessageClasses(app),
    },
    (req, res) => {
      if (!fastPath(req, res)) app(req, res);
    },
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket));
  lingerOnEarlyClose(server, { timeoutMs: config.lingerTimeoutMs, maxBytes: config.lingerMaxBytes });
  // The A2A 1.0 gRPC binding, for every agent on one port (closed after the HTTP server has drained).
  if (config.a2aGrpcPort >= 0) {
    try {
      a2aGrpc = await startGrpcServer(
        [
          {
            definition: a2aV1.A2AServiceService,
            implementation: a2aGrpcService({
              admission,
              clients,
              lookups,
              limiter: deps.limiter,
              clock: deps.clock,
              log,
              ...(deps.resolver ? { resolver: deps.resolver } : {}),
              pushPolicy,
            }),
          },
        ],
        {
          host: config.a2aGrpcHost,
          port: config.a2aGrpcPort,
          isServing: () => !draining,
          graceMs: config.shutdownGraceMs,
          // Every input is size-limited. grpc-js reads a whole message before the handler authenticates it, so
          // the bound is far lower than the HTTP bindings' (which stream file bytes to the blob store), and never
          // above a request body's limit.
          maxReceiveMessageBytes: Math.min(config.a2aGrpcMaxMessageBytes, config.bodyLimitBytes),
          maxConcurrentStreams: config.a2aGrpcMaxConcurrentStreams,
        },
      );
    } catch (err) {
      await lifecycle.close(log);
      throw err;
    }
    const grpcServer = a2aGrpc;
    lifecycle.onClose('a2a grpc server', async () => grpcServer.close());
  }
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  listeningPort = port;
  lifecycle.onClose('http server', async () => {
    // Readiness flips first; everything is still served while load balancers notice (the delay).
    draining = true;
    log.info(
      { delayMs: config.shutdownReadinessDelayMs, graceMs: config.shutdownGraceMs },
      'draining: /readyz answers 503',
    );
    if (config.shutdownReadinessDelayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, config.shutdownReadinessDelayMs));
    // Then the listener closes and streams end (cleanly): clients resume with tasks/resubscribe and
    // Last-Event-ID on another replica. In-flight requests get the grace period, then their sockets close.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const ended = streams.size;
    for (const s of streams) s.end();
    server.closeIdleConnections();
    const timer = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
    await closed;
    clearTimeout(timer);
    log.info({ streamsEnded: ended }, 'http server closed');
  });
  log.info({ port, a2aGrpcPort: a2aGrpc?.port }, 'gateway listening');
  return {
    port,
    a2aGrpcPort: a2aGrpc?.port,
    baseUrl: config.publicBaseUrl || `http://127.0.0.1:${port}`,
    clients,
    close: () => lifecycle.close(log),
  };
}
