import { isOutage } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { BlobStore, Bus, Cache, Clock, CommitBarrier } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import {
  createEgressAgent,
  EgressPolicy,
  Lifecycle,
  PeriodicReadiness,
  startGrpcServer,
  type GrpcServerHandle,
  type Resolver,
} from '@a2a-inbound/runtime';
import type { RunnerAppConfig } from './config';
import { DEMO_RUNTIMES } from './domain/demo-agents';
import { Runner, TOPICS, type LocalRunEvents } from './domain/runner';
import { HandBacks } from './hand-backs';
import { egressRuntimes } from './runtimes';

const READINESS_INTERVAL_MS = 2_000;

export interface RunnerApp {
  readonly grpc: GrpcServerHandle;
  readonly runner: Runner;
  /**
   * Takes a run request handed over in this process instead of the bus (the embedded mode, ADR 0053); false
   * when this runner cannot take it now (stopping, or at its bound): publish it on the bus then.
   */
  offer(req: eventsV1.RunRequested): boolean;
  /** Pings the bus now; resolves whether the runner is ready (what gRPC health reports). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** Composition root of the runner: consumes run requests and cancels; serves gRPC health. */
export async function startRunnerApp(
  deps: {
    bus: Bus;
    cache: Cache;
    blobs: BlobStore;
    clock: Clock;
    log: Logger;
    readinessIntervalMs?: number;
    /** DNS of the runtimes' egress (default: the system resolver); tests inject one. */
    resolve?: Resolver;
    /** The tasks service of this process applies run events directly (the embedded mode, ADR 0053). */
    localEvents?: LocalRunEvents;
    /** The engines' commit barrier (the durable embedded mode, ADR 0069): every outbound call waits for it. */
    commits?: CommitBarrier;
  },
  config: RunnerAppConfig,
): Promise<RunnerApp> {
  const lifecycle = new Lifecycle();
  // Upstream agents (a2a-upstream, http) and model providers and tools are called through one guarded egress agent: public addresses, plus
  // the operator's allow-list, checked at connect time.
  const policy = new EgressPolicy(config.egressAllowList);
  const egress = createEgressAgent({ policy, ...(deps.resolve ? { resolve: deps.resolve } : {}) });
  lifecycle.add('egress agent', egress);
  const handBacks = new HandBacks(deps.bus, deps.log);
  // Closed after the drain (reverse order), whose hand-backs it still publishes.
  lifecycle.onClose('hand-back publishes', () => handBacks.close());
  const runner = new Runner({
    bus: deps.bus,
    cache: deps.cache,
    blobs: deps.blobs,
    clock: deps.clock,
    log: deps.log,
    runtimes: { ...DEMO_RUNTIMES, ...egressRuntimes(egress, deps.log, deps.commits) },
    secretBox: config.secretBox,
    localEvents: deps.localEvents,
    config: {
      instanceId: config.instanceId,
      heartbeatMs: config.heartbeatMs,
      leaseMs: config.leaseMs,
      shutdownGraceMs: config.shutdownGraceMs,
      maxConcurrentRuns: config.maxConcurrentRuns,
      maxRunsPerTenant: config.maxRunsPerTenant,
      // The bus consumer's bound below: a request handed over directly counts against the same one.
      maxOfferedRuns: config.maxConcurrentRuns + config.maxQueuedRuns,
    },
  });
  // Every runner sees every cancel (its own group), and aborts the run if it has it.
  lifecycle.add(
    'run-cancel consumer',
    await deps.bus.subscribe(TOPICS.runCancel, `runner-cancel-${config.instanceId}`, async (m) => {
      const c = eventsV1.RunCancel.decode(m.value);
      runner.cancel(c.taskId, c.runId);
      await Promise.resolve();
    }),
  );
  // Requests in flight = runs executing + runs waiting for a fair slot (different tasks concurrently).
  const runs = await deps.bus.subscribe(
    TOPICS.runRequested,
    'runner',
    async (m) => {
      await runner.handle(eventsV1.RunRequested.decode(m.value));
    },
    { concurrency: config.maxConcurrentRuns + config.maxQueuedRuns, isTransient: isOutage },
  );
  runner.state = 'RUNNING';
  // gRPC health: SERVING while RUNNING and the bus answered its last background ping (every 2 s).
  const readiness = new PeriodicReadiness(() => deps.bus.ping(), {
    intervalMs: deps.readinessIntervalMs ?? READINESS_INTERVAL_MS,
    log: deps.log,
  });
  // Closing order (reverse): NOT_SERVING and drain runs first, then stop consuming, then the gRPC server.
  const grpc = await startGrpcServer([], {
    host: config.grpcHost,
    port: config.grpcPort,
    isServing: () => runner.state === 'RUNNING' && readiness.isReady(),
    tls: config.grpcTls,
    healthPort: config.grpcHealthPort,
  });
  lifecycle.add('grpc server', grpc);
  lifecycle.add('run-requested consumer', runs);
  lifecycle.onClose('drain runs', () => {
    readiness.stop();
    return runner.drain();
  });
  deps.log.info({ address: grpc.address, instanceId: config.instanceId }, 'runner started');
  // A run handed over directly and then handed back (a drain, an outage) is redelivered by the bus: published
  // again with backoff while the bus refuses it, until the runner has closed (then only logged).
  const handBack = (req: eventsV1.RunRequested, err: unknown): void => {
    deps.log.warn({ err, taskId: req.taskId, runId: req.runId }, 'run handed back: request published on the bus');
    handBacks.publish(req);
  };
  return {
    grpc,
    runner,
    offer: (req) => runner.offer(req, handBack),
    ready: async () => (await readiness.refresh()) && runner.state === 'RUNNING',
    close: () => lifecycle.close(deps.log),
  };
}
