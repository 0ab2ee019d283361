import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Logger } from '@a2a-inbound/logger';
import { type Resolver, isPublicAddress, withInProcessGrpc } from '@a2a-inbound/runtime';
import { tracedBus } from '@a2a-inbound/telemetry';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  InMemoryRateLimiter,
  randomIds,
  systemClock,
  type BlobStore,
  type Bus,
  type Cache,
  type Clock,
  type CommitBarrier,
  type DocumentStore,
  type EventLog,
  type IdGenerator,
  type RateLimiter,
} from '@a2a-inbound/ports';
import { loadGatewayConfig, startGatewayApp, type GatewayApp } from '@a2a-inbound/gateway';
import { loadTasksConfig, startTasksApp, type TasksApp } from '@a2a-inbound/tasks';
import { loadRunnerConfig, startRunnerApp, type RunnerApp } from '@a2a-inbound/runner';
import type { LmdbDatabase, LmdbOutboxBus, PendingCommit } from '@a2a-inbound/adapter-lmdb';
import {
  grpcPushSource,
  grpcUserVerifier,
  loadWebhooksConfig,
  startWebhooksApp,
  webhooksAuthPolicy,
  TASK_UPDATES_GROUP,
  TASK_UPDATES_TOPIC,
  type WebhookEgressOptions,
  type WebhooksApp,
} from '@a2a-inbound/webhooks';
import { loadLinkerConfig, startLinkerApp, type LinkerApp } from '@a2a-inbound/linker';
import { IN_MEMORY_RETAINED } from './config';
import { LocalRuns } from './local-runs';

export interface Engines {
  store: DocumentStore;
  blobs: BlobStore;
  bus: Bus;
  eventLog: EventLog;
  cache: Cache;
  limiter: RateLimiter;
  clock: Clock;
  ids: IdGenerator;
  /** Writes resolve before they are durable (the durable engines): every effect leaving the process waits (ADR 0069). */
  commits?: CommitBarrier;
}

/** The host of OPENAI_BASE_URL, when it is a URL. */
function providerHost(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/**
 * In-memory stand-ins for the engines: one instance shared by every service, as one cluster would be.
 * `retained`: finished work kept (ADR 0075): per collection, the documents with a retention (finished tasks,
 * messageId records, ledger records), and the event-log streams; one more drops the oldest before its retention
 * ends, as a full cache would. Everything lives in the heap (about 10 kB per finished send), and the garbage
 * collector's work grows with it: at the store's former bound (200,000 per collection, then sends refused) a
 * 2 GB heap made the p99 of every request 10x the durable mode's. The durable mode keeps the whole retention
 * window on disk.
 */
export function inMemoryEngines(
  clock: Clock = systemClock,
  bus: Bus = new InMemoryBus(),
  retained = IN_MEMORY_RETAINED,
): Engines {
  return {
    store: new InMemoryDocumentStore({
      maxRetainedPerCollection: retained,
      // Written with their retention while their task may still run: a running task's push config must not go.
      retainedBoundExempt: ['push_configs', 'push_config_lists', 'contexts'],
    }),
    blobs: new InMemoryBlobStore(),
    bus,
    eventLog: new InMemoryEventLog({ clock, maxStreams: retained }),
    cache: new InMemoryCache({ clock }),
    limiter: new InMemoryRateLimiter({ clock }),
    clock,
    ids: randomIds,
  };
}

/** The durable engines, and the outbox that keeps the task updates until the webhooks service handled them. */
export interface DurableEngines extends Engines {
  outbox: LmdbOutboxBus;
  /** The LMDB environment under them (its commit barrier is `commits`; tests count its commits). */
  database: LmdbDatabase;
  commits: CommitBarrier;
}

/**
 * The durable engines of the embedded mode: documents, the event log and blobs in one LMDB database in `dir`
 * (ADR 0029); the bus, cache and rate limiter stay in memory. Nothing in them must outlive the process but
 * the task updates not yet pushed: those go through an outbox in the same database (ADR 0038). A restart
 * fails the runs that were in flight (see `soleOwner`).
 */
export async function durableEngines(
  dir: string,
  options: {
    durability?: 'interval' | 'commit';
    syncIntervalMs?: number;
    /** LMDB's shared writable map for `interval` durability (default true; ADR 0077). */
    writemap?: boolean;
    clock?: Clock;
    bus?: Bus;
    /** When the open transaction commits (tests delay or fail a commit; default: when its writers pause). */
    scheduleCommit?: (txn: PendingCommit) => void;
    /** The longest the default schedule keeps a transaction open while writes keep coming (LmdbOpenOptions). */
    maxOpenMs?: number;
  } = {},
): Promise<DurableEngines> {
  const { LmdbBlobStore, LmdbDatabase, LmdbDocumentStore, LmdbEventLog, LmdbOutboxBus } =
    await import('@a2a-inbound/adapter-lmdb');
  const { clock = systemClock, bus = new InMemoryBus() } = options;
  const db = LmdbDatabase.open(dir, {
    ...(options.durability ? { durability: options.durability } : {}),
    ...(options.syncIntervalMs ? { syncIntervalMs: options.syncIntervalMs } : {}),
    ...(options.scheduleCommit ? { scheduleCommit: options.scheduleCommit } : {}),
    ...(options.maxOpenMs ? { maxOpenMs: options.maxOpenMs } : {}),
    ...(options.writemap === false ? { writemap: false } : {}),
  });
  // A push pending when the process dies is pushed after the restart (the in-memory bus would lose it).
  const outbox = new LmdbOutboxBus(db, bus, { topics: { [TASK_UPDATES_TOPIC]: TASK_UPDATES_GROUP } });
  return {
    outbox,
    database: db,
    commits: db,
    store: new LmdbDocumentStore(db),
    blobs: new LmdbBlobStore(db),
    bus: outbox,
    eventLog: new LmdbEventLog(db, { clock }),
    cache: new InMemoryCache({ clock }),
    limiter: new InMemoryRateLimiter({ clock }),
    clock,
    ids: randomIds,
  };
}

export interface System {
  gateway: GatewayApp;
  tasks: TasksApp;
  runners: RunnerApp[];
  webhooks: WebhooksApp;
  linker: LinkerApp;
  engines: Engines;
  baseUrl: string;
  close(): Promise<void>;
}

export interface SystemOptions {
  env?: Record<string, string | undefined>;
  engines?: Engines;
  log: Logger;
  runners?: number;
  /** DNS for the gateway's public-address checks (webhook URLs, file URIs); tests inject a fake one. */
  resolver?: Resolver;
  /**
   * Test seams of the webhooks service's egress (policy, DNS, extra CA). Production passes none: the strict
   * public-address policy stays the default.
   */
  webhookEgress?: WebhookEgressOptions;
  /**
   * Calls between the services of this process skip the loopback network (ADR 0019; default true). The gRPC
   * servers still listen on their ports for anything outside the process. False: every call over the network.
   */
  inProcessGrpc?: boolean;
  /**
   * Run requests and run events pass between tasks and the runners of this process directly, not through
   * the bus, and a blocking send is woken by the write that settles its task, not by tailing the event log
   * (ADR 0053; default: as `inProcessGrpc`). False: all of it as between processes.
   */
  localRuns?: boolean;
  /**
   * This process owns durable engines alone (the durable embedded mode: the data-directory lock): before
   * anything runs, the runs that a previous process left `working` end `failed` with a reason that says so
   * (no runner holds them now); the messageId claims and push delivery claims it left are taken over at once.
   */
  soleOwner?: boolean;
}

/**
 * Starts the five services in this process. Each gRPC server listens on its own loopback port; the gateway
 * reaches tasks only through gRPC (served in-process by default: ADR 0019), and tasks/runner/webhooks talk
 * only through the bus and the event log.
 */
export async function startSystem(options: SystemOptions): Promise<System> {
  return options.inProcessGrpc === false ? start(options) : withInProcessGrpc(() => start(options));
}

async function start(options: SystemOptions): Promise<System> {
  // One process, no load balancer to tell: the gateway need not answer 503 for a while before it closes.
  const env: Record<string, string | undefined> = {
    TASKS_GRPC_PORT: '0',
    RUNNER_GRPC_PORT: '0',
    WEBHOOKS_GRPC_PORT: '0',
    // The public A2A 1.0 gRPC service (every agent's card gives its address).
    A2A_GRPC_PORT: '0',
    SHUTDOWN_READINESS_DELAY_MS: '0',
    // One process holds tasks and the runners: a key of its own when none is configured (secrets live as
    // long as the in-memory store; with real engines configure SECRETS_KEY, or secrets sealed by an earlier
    // process do not open).
    SECRETS_KEY: randomBytes(32).toString('base64'),
    ...(options.env ?? {}),
  };
  // The operator's own model provider (the seeded model agent) may be on this machine or network.
  const provider = providerHost(env.OPENAI_BASE_URL);
  if (provider) {
    // A name goes on the host list; an address on the range list (a host entry never matches an IP literal).
    const [key, entry] =
      isIP(provider) === 0
        ? (['EGRESS_ALLOW_HOSTS', provider] as const)
        : (['EGRESS_ALLOW_CIDRS', `${provider}/${isIP(provider) === 4 ? 32 : 128}`] as const);
    if (!(env[key] ?? '').split(',').includes(entry)) env[key] = [env[key], entry].filter(Boolean).join(',');
  }
  const e = options.engines ?? inMemoryEngines();
  // Trace context crosses the bus in message headers (a no-op until a tracing SDK is started).
  const bus = tracedBus(e.bus);
  const log = options.log;
  const local = (options.localRuns ?? options.inProcessGrpc !== false) ? new LocalRuns() : undefined;
  const tasks = await startTasksApp(
    {
      // One tasks service on these engines applies every run event: its writes wake the blocking sends.
      ...(local ? { runHandOff: local.request, localSettles: true } : {}),
      ...(e.commits ? { commits: e.commits } : {}),
      store: e.store,
      blobs: e.blobs,
      bus,
      eventLog: e.eventLog,
      cache: e.cache,
      limiter: e.limiter,
      clock: e.clock,
      ids: e.ids,
      log: log.child({ service: 'tasks' }),
    },
    loadTasksConfig(env),
  );
  if (options.soleOwner) {
    const failed = await tasks.tasks.failInterruptedRuns();
    if (failed > 0) log.warn({ failed }, 'runs in flight when the previous process stopped ended failed');
  }
  const runners: RunnerApp[] = [];
  const runnerCount = options.runners ?? 1;
  for (let i = 0; i < runnerCount; i++) {
    const runnerConfig = loadRunnerConfig(env, `runner-${i}-${process.pid}`);
    // RUNNER_INSTANCE_ID names the process: each of its runners needs an id of its own (the run lease's holder,
    // its cancel consumer group), or one runner takes another's lease for its own and a cancel reaches one.
    if (runnerCount > 1 && env.RUNNER_INSTANCE_ID) runnerConfig.instanceId = `${runnerConfig.instanceId}-${i}`;
    runners.push(
      await startRunnerApp(
        {
          bus,
          cache: e.cache,
          blobs: e.blobs,
          clock: e.clock,
          log: log.child({ service: 'runner', replica: i }),
          ...(local ? { localEvents: local.events } : {}),
          ...(e.commits ? { commits: e.commits } : {}),
        },
        runnerConfig,
      ),
    );
  }
  // Before anything is served: the runs the restart recovery failed above went through the store only.
  local?.connect(tasks.tasks, runners);
  const webhooksConfig = loadWebhooksConfig({ ...env, TASKS_GRPC_ADDR: tasks.grpc.address });
  const pushSource = grpcPushSource(tasks.grpc.address, webhooksConfig.grpcTls);
  const webhookUsers = grpcUserVerifier(tasks.grpc.address, webhooksConfig.grpcTls);
  // The same rule as the distributed webhooks service: with mutual TLS its port (reachable by other processes)
  // authenticates every caller; in-process calls of this process stay trusted (ADR 0032).
  const webhooksAuth = webhooksConfig.grpcTls ? webhooksAuthPolicy((t) => webhookUsers.verify(t)) : undefined;
  const webhooks = await startWebhooksApp(
    {
      bus,
      store: e.store,
      source: pushSource,
      clock: e.clock,
      log: log.child({ service: 'webhooks' }),
      ...(options.soleOwner ? { soleOwner: true } : {}),
      ...(e.commits ? { commits: e.commits } : {}),
      ...(options.webhookEgress ? { egress: options.webhookEgress } : {}),
      ...(webhooksAuth ? { auth: webhooksAuth } : {}),
    },
    webhooksConfig,
  );
  // The gateway's credential towards the linker: one per system unless configured (ADR 0012).
  const linkerServiceToken = options.env?.LINKER_SERVICE_TOKEN || randomBytes(32).toString('base64url');
  const linkerConfig = loadLinkerConfig({
    ...env,
    STORE: 'memory',
    LINKER_GRPC_PORT: '0',
    LINKER_SERVICE_TOKEN: linkerServiceToken,
  });
  const linker = await startLinkerApp(
    {
      store: e.store,
      clock: e.clock,
      ids: e.ids,
      log: log.child({ service: 'linker' }),
      ...(e.commits ? { commits: e.commits } : {}),
      ...(options.resolver ? { egress: { resolve: options.resolver, isAllowed: isPublicAddress } } : {}),
    },
    // Reached only by the gateway of this process: loopback, whatever LINKER_GRPC_HOST says.
    { ...linkerConfig, grpcHost: '127.0.0.1' },
  );
  const linkerGrpc = linker.grpc;
  // Nothing was sent to this process yet: every messageId claim in the store is a gone process's.
  if (options.soleOwner) {
    const since = tasks.tasks.ownDataAlone();
    log.info(
      { since },
      'messageId claims made before now were made by a stopped process: a resend takes them over at once',
    );
  }
  const gateway = await startGatewayApp(
    {
      cache: e.cache,
      limiter: e.limiter,
      blobs: e.blobs,
      clock: e.clock,
      log: log.child({ service: 'gateway' }),
      ...(options.resolver ? { resolver: options.resolver } : {}),
    },
    loadGatewayConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      ...env,
      TASKS_GRPC_ADDR: tasks.grpc.address,
      LINKER_GRPC_ADDR: linkerGrpc.address,
      LINKER_SERVICE_TOKEN: linkerServiceToken,
      WEBHOOKS_GRPC_ADDR: webhooks.grpc.address,
    }),
  );
  let closing: Promise<void> | undefined;
  return {
    gateway,
    tasks,
    runners,
    webhooks,
    linker,
    engines: e,
    baseUrl: gateway.baseUrl,
    close: () =>
      (closing ??= (async () => {
        await gateway.close();
        await webhooks.close();
        pushSource.close();
        webhookUsers.close();
        await linker.close();
        // Runners drain with the tasks service still applying their events (directly, then on the bus).
        for (const r of runners) await r.close();
        local?.disconnect();
        await tasks.close();
        if (!options.engines) {
          for (const c of [e.bus, e.eventLog, e.cache, e.limiter, e.blobs, e.store]) await c.close();
        }
      })()),
  };
}
