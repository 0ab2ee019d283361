import type { Logger } from '@a2a-inbound/logger';
import type { Bus } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { Lifecycle, PeriodicReadiness, startGrpcServer, type GrpcServerHandle } from '@a2a-inbound/runtime';
import type { WebhooksConfig } from './config';

export const TASK_UPDATES_TOPIC = 'a2a.task.updates';
const READINESS_INTERVAL_MS = 2_000;

export interface WebhooksApp {
  readonly grpc: GrpcServerHandle;
  /** Task updates seen (for operators; delivery is the push-delivery issue). */
  readonly seen: () => number;
  /** Pings the bus now; resolves whether the service is ready (what gRPC health reports). */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The webhooks service: consumes task updates (the fan-out of every applied task event). Signed, SSRF-guarded
 * delivery with retries is built on this consumer in the push-delivery issue; today it records what it sees.
 */
export async function startWebhooksApp(
  deps: { bus: Bus; log: Logger; readinessIntervalMs?: number },
  config: WebhooksConfig,
): Promise<WebhooksApp> {
  const lifecycle = new Lifecycle();
  let seen = 0;
  lifecycle.add(
    'task-updates consumer',
    await deps.bus.subscribe(TASK_UPDATES_TOPIC, 'webhooks', async (m) => {
      const e = eventsV1.LoggedTaskEvent.decode(m.value);
      seen += 1;
      deps.log.debug({ taskId: e.taskId, seq: e.seq }, 'task update');
      await Promise.resolve();
    }),
  );
  // gRPC health: SERVING while the bus answered its last background ping; NOT_SERVING once close() began.
  const readiness = new PeriodicReadiness(() => deps.bus.ping(), {
    intervalMs: deps.readinessIntervalMs ?? READINESS_INTERVAL_MS,
    log: deps.log,
  });
  const grpc = await startGrpcServer([], {
    host: config.grpcHost,
    port: config.grpcPort,
    isServing: () => readiness.isReady(),
  });
  lifecycle.add('grpc server', grpc);
  return {
    grpc,
    seen: () => seen,
    ready: () => readiness.refresh(),
    close: async () => {
      readiness.stop();
      await lifecycle.close(deps.log);
    },
  };
}
