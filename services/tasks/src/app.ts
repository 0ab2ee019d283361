import { isOutage } from '@a2a-inbound/errors';
import {
  InMemoryRateLimiter,
  type BusSubscription,
  type CommitBarrier,
  type DocumentStore,
  type RateLimiter,
} from '@a2a-inbound/ports';
import { controlV1, eventsV1, tasksV1 } from '@a2a-inbound/proto';
import {
  dnsResolver,
  EgressPolicy,
  Lifecycle,
  PeriodicReadiness,
  startGrpcServer,
  type GrpcServerHandle,
  type Resolver,
} from '@a2a-inbound/runtime';
import type { TasksConfig } from './config';
import { ControlPlane, openControlCollections } from './domain/control-plane';
import { bootstrapFromConfig, type BootstrapResult } from './domain/bootstrap';
import { Management } from './domain/management';
import { RunHistory } from './domain/run-history';
import { Secrets } from './domain/secrets';
import { CardKeys } from './domain/card-keys';
import { seedDemo, type SeedResult } from './domain/seed';
import { seedModelAgent } from './domain/seed-model';
import { openTaskCollections, TaskService, TOPICS, type TaskDeps } from './domain/task-service';
import { registerTaskStateGauge } from './task-metrics';
import { controlGrpcService, tasksGrpcService } from './transport/grpc-server';
import { tasksAuthPolicy } from './transport/grpc-auth';
import { audited } from './transport/audit';
import { AuditLog } from './domain/audit';

/** The engines the tasks service runs on: the task concerns' dependencies, less what the app makes itself. */
export interface TasksDeps extends Omit<TaskDeps, 'control' | 'config'> {
  store: DocumentStore;
  /** DNS of the definitions' egress checks and a team's file URIs (default: the system resolver); tests inject one. */
  resolve?: Resolver;
  /**
   * The agents' rate limiter, the gateway's (Redis in the distributed mode): a team key's direct calls count
   * against the same per-agent budget. Default: in memory, this process only.
   */
  limiter?: RateLimiter;
  /** The engines' commit barrier (the durable embedded mode, ADR 0069): every answer waits for it. */
  commits?: CommitBarrier;
}

export interface TasksApp {
  readonly grpc: GrpcServerHandle;
  readonly seed: SeedResult | undefined;
  readonly bootstrap: BootstrapResult | undefined;
  readonly tasks: TaskService;
  readonly control: ControlPlane;
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** Composition root of the tasks service: wires ports, domain and gRPC; returns a running app. */
export async function startTasksApp(deps: TasksDeps, config: TasksConfig): Promise<TasksApp> {
  const lifecycle = new Lifecycle();
  const { log } = deps;
  const control = new ControlPlane(await openControlCollections(deps.store), deps.cache, deps.clock, deps.ids);
  const secrets = await Secrets.open(deps.store, config.agents.secretBox, deps.clock);
  const audit = await AuditLog.open(deps.store, deps.clock, deps.ids);
  const cardKeys = await CardKeys.open(deps.store, {
    box: config.agents.secretBox,
    cache: deps.cache,
    clock: deps.clock,
    retentionMs: config.cardKeyRetentionMs,
  });
  const management = new Management(
    control,
    {
      secrets,
      egress: {
        policy: new EgressPolicy(config.agents.egressAllowList),
        ...(deps.resolve ? { resolve: deps.resolve } : {}),
      },
    },
    audit,
    cardKeys,
  );
  const taskCollections = await openTaskCollections(deps.store);
  const tasks = new TaskService(taskCollections, {
    control,
    secrets,
    blobs: deps.blobs,
    bus: deps.bus,
    eventLog: deps.eventLog,
    cache: deps.cache,
    clock: deps.clock,
    ids: deps.ids,
    log,
    config: config.task,
    ...(deps.runHandOff ? { runHandOff: deps.runHandOff } : {}),
    ...(deps.localSettles ? { localSettles: true } : {}),
  });
  lifecycle.add('run publish retries', tasks);

  const seed = config.seedDemo
    ? await seedDemo(control, { rateLimitPerMinute: config.seedRateLimitPerMinute })
    : undefined;
  if (seed && config.seedModel) {
    const id = await seedModelAgent(control, secrets, config.seedModel);
    if (id) seed.modelAgentId = id;
  }
  const bootstrap = config.bootstrap ? await bootstrapFromConfig(control, config.bootstrap) : undefined;
  for (const u of bootstrap?.users ?? []) {
    if (u.created) log.info({ email: u.email, role: u.role }, 'bootstrap user created');
    else if (!u.tokenMatches)
      log.warn(
        { email: u.email, role: u.role },
        'bootstrap user exists with another token; the configured token is not applied',
      );
  }
  const runs = await RunHistory.open(deps.store);
  // `a2a_tasks{state}` from the shared store at scrape time (a no-op when metrics are off).
  const taskStates = registerTaskStateGauge(taskCollections.tasks, { clock: deps.clock, log });
  lifecycle.onClose('task state gauge', async () => taskStates.close());
  lifecycle.onClose('upstream card egress', () => management.close());

  // Different tasks' events are applied concurrently; one task's stay in order (keyed by task id).
  const sub: BusSubscription = await deps.bus.subscribe(
    TOPICS.taskEvents,
    'tasks',
    async (m) => {
      await tasks.applyRunEvent(eventsV1.TaskEvent.decode(m.value));
    },
    { concurrency: config.eventConcurrency, isTransient: isOutage },
  );
  lifecycle.add('task-events consumer', sub);

  let sweeping = false;
  let lastRetentionSweep = deps.clock.now();
  const sweep = async (): Promise<void> => {
    await tasks.sweepStuckRuns();
    if (deps.clock.now() - lastRetentionSweep >= config.retentionSweepIntervalMs) {
      lastRetentionSweep = deps.clock.now();
      const swept = {
        ...(await tasks.sweepRetention()),
        creditCharges: await control.accounts.sweepExpiredCharges(),
        auditEvents: await audit.sweep(),
      };
      if (swept.tasks + swept.messageIds + swept.pushConfigs + swept.creditCharges > 0)
        log.info(swept, 'retention sweep');
    }
  };
  const sweeper = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweep()
      .catch((err: unknown) => log.error({ err }, 'sweep failed'))
      .finally(() => {
        sweeping = false;
      });
  }, config.sweepIntervalMs);
  sweeper.unref();
  lifecycle.onClose('sweeper', async () => clearInterval(sweeper));

  // gRPC health reads the last result of a background ping of the engines (not a ping per Check).
  const readiness = new PeriodicReadiness(
    async () => {
      await Promise.all([deps.store.ping(), deps.bus.ping(), deps.eventLog.ping()]);
    },
    { intervalMs: config.readinessIntervalMs, log },
  );
  lifecycle.onClose('readiness', async () => readiness.stop());
  // With mutual TLS every caller is authenticated and its caller/actor verified (ADR 0032); plaintext (no
  // certificates configured: development and the test layouts) keeps trusting them as before.
  const auth = config.grpcTls
    ? tasksAuthPolicy(control, {
        clock: deps.clock,
        limiter: deps.limiter ?? new InMemoryRateLimiter({ clock: deps.clock }),
        resolver: deps.resolve ?? dnsResolver,
      })
    : undefined;
  const grpc = await startGrpcServer(
    [
      {
        definition: tasksV1.TasksServiceService,
        implementation: tasksGrpcService(tasks, log, runs),
        ...(auth ? { auth } : {}),
      },
      {
        definition: controlV1.ControlPlaneServiceService,
        implementation: audited(
          controlV1.ControlPlaneServiceService,
          controlGrpcService(control, log, management, cardKeys),
          audit,
          log,
        ),
        ...(auth ? { auth } : {}),
      },
    ],
    {
      host: config.grpcHost,
      port: config.grpcPort,
      isServing: () => readiness.isReady(),
      tls: config.grpcTls,
      healthPort: config.grpcHealthPort,
      commits: deps.commits,
    },
  );
  lifecycle.add('grpc server', grpc);
  log.info({ address: grpc.address }, 'tasks service listening');

  return {
    grpc,
    seed,
    bootstrap,
    tasks,
    control,
    ready: () => readiness.refresh(),
    close: async () => {
      readiness.stop(); // NOT_SERVING before anything closes
      await lifecycle.close(log);
    },
  };
}
