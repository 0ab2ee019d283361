import { EnvReader, type Env } from '@a2a-inbound/config';

export interface RunnerAppConfig {
  instanceId: string;
  grpcHost: string;
  grpcPort: number;
  heartbeatMs: number;
  shutdownGraceMs: number;
}

export function loadRunnerConfig(env: Env, fallbackInstanceId: string): RunnerAppConfig {
  const r = new EnvReader(env);
  const c: RunnerAppConfig = {
    instanceId: r.string('RUNNER_INSTANCE_ID', fallbackInstanceId),
    grpcHost: r.string('RUNNER_GRPC_HOST', '127.0.0.1'),
    grpcPort: r.int('RUNNER_GRPC_PORT', 50052, { min: 0, max: 65535 }),
    heartbeatMs: r.int('RUNNER_HEARTBEAT_MS', 5_000, { min: 100 }),
    shutdownGraceMs: r.int('RUNNER_SHUTDOWN_GRACE_MS', 10_000, { min: 0 }),
  };
  r.done();
  return c;
}
