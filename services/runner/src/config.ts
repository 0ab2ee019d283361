import { readSecretsConfig, type SecretBox } from '@a2a-inbound/agent-definitions';
import {
  EnvReader,
  readGrpcHealthPort,
  readGrpcTls,
  refusePlaintextGrpc,
  type Env,
  type GrpcTlsSettings,
} from '@a2a-inbound/config';
import { parseEgressAllowList, type EgressAllowList } from '@a2a-inbound/runtime';

export interface RunnerAppConfig {
  instanceId: string;
  grpcHost: string;
  grpcPort: number;
  /** Mutual TLS of the health server (ADR 0032): the same files as every service; undefined = plaintext. */
  grpcTls: GrpcTlsSettings | undefined;
  /** GRPC_HEALTH_PORT: plaintext grpc.health.v1 only, for the kubelet's probes beside a TLS port (ADR 0035). */
  grpcHealthPort: number | undefined;
  heartbeatMs: number;
  leaseMs: number;
  shutdownGraceMs: number;
  maxConcurrentRuns: number;
  maxRunsPerTenant: number;
  maxQueuedRuns: number;
  /** Private destinations the `a2a-upstream` and `http` runtimes may reach (public ones always). */
  egressAllowList: EgressAllowList;
  /** Opens the sealed secrets of run requests (SECRETS_KEY, SECRETS_KEY_PREVIOUS); undefined without a key. */
  secretBox: SecretBox | undefined;
  /** Plaintext links accepted in production by ALLOW_PLAINTEXT_LINKS: logged loudly at start (ADR 0035). */
  warnings: string[];
}

export function loadRunnerConfig(env: Env, fallbackInstanceId: string): RunnerAppConfig {
  const r = new EnvReader(env);
  const c: RunnerAppConfig = {
    instanceId: r.string('RUNNER_INSTANCE_ID', fallbackInstanceId),
    grpcHost: r.string('RUNNER_GRPC_HOST', '127.0.0.1'),
    grpcPort: r.int('RUNNER_GRPC_PORT', 50052, { min: 0, max: 65535 }),
    grpcTls: readGrpcTls(r),
    grpcHealthPort: undefined,
    heartbeatMs: r.int('RUNNER_HEARTBEAT_MS', 3_000, { min: 100 }),
    leaseMs: r.int('RUNNER_LEASE_MS', 9_000, { min: 300 }),
    shutdownGraceMs: r.int('RUNNER_SHUTDOWN_GRACE_MS', 10_000, { min: 0 }),
    maxConcurrentRuns: r.int('RUNNER_MAX_CONCURRENT_RUNS', 256, { min: 1, max: 100_000 }),
    maxRunsPerTenant: r.int('RUNNER_MAX_RUNS_PER_TENANT', 64, { min: 1, max: 100_000 }),
    maxQueuedRuns: r.int('RUNNER_MAX_QUEUED_RUNS', 4_096, { min: 0, max: 1_000_000 }),
    egressAllowList: { hosts: [], cidrs: [] },
    secretBox: readSecretsConfig(r),
    warnings: [],
  };
  const egress = parseEgressAllowList(r.list('EGRESS_ALLOW_HOSTS', []), r.list('EGRESS_ALLOW_CIDRS', []));
  for (const p of egress.problems) r.problem(p);
  c.egressAllowList = egress.allowList;
  if (c.leaseMs < 2 * c.heartbeatMs) r.problem('RUNNER_LEASE_MS must be at least twice RUNNER_HEARTBEAT_MS');
  c.grpcHealthPort = readGrpcHealthPort(r, c.grpcTls);
  refusePlaintextGrpc(r, c.grpcTls, [c.grpcHost]);
  c.warnings = r.warnings;
  r.done();
  return c;
}
