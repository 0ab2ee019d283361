import {
  EnvReader,
  readGrpcHealthPort,
  readGrpcTls,
  refusePlaintextGrpc,
  type Env,
  type GrpcTlsSettings,
} from '@a2a-inbound/config';
import { readPushAllowList, type EgressAllowList } from '@a2a-inbound/runtime';

export interface WebhooksConfig {
  grpcHost: string;
  grpcPort: number;
  /** Mutual TLS of the server and of the link to tasks (ADR 0032); with it every caller is authenticated. */
  grpcTls: GrpcTlsSettings | undefined;
  /** GRPC_HEALTH_PORT: plaintext grpc.health.v1 only, for the kubelet's probes beside a TLS port (ADR 0035). */
  grpcHealthPort: number | undefined;
  /** The tasks service (internal GetPushDelivery RPC). */
  tasksAddress: string;
  /** First retry delay (ms); doubles per retry, plus jitter. */
  retryBaseMs: number;
  /** Cap of one retry delay (ms), Retry-After included. */
  retryMaxDelayMs: number;
  /** Task updates handled at once (different tasks; one task's updates stay in order). */
  concurrency: number;
  /** Private push receivers the operator trusts (PUSH_ALLOW_HOSTS / PUSH_ALLOW_CIDRS); else public only. */
  pushAllowList: EgressAllowList;
  /** Plaintext links accepted in production by ALLOW_PLAINTEXT_LINKS: logged loudly at start (ADR 0035). */
  warnings: string[];
}

export function loadWebhooksConfig(env: Env): WebhooksConfig {
  const r = new EnvReader(env);
  const c: WebhooksConfig = {
    grpcHost: r.string('WEBHOOKS_GRPC_HOST', '127.0.0.1'),
    grpcPort: r.int('WEBHOOKS_GRPC_PORT', 50053, { min: 0, max: 65535 }),
    grpcTls: readGrpcTls(r),
    grpcHealthPort: undefined,
    tasksAddress: r.string('TASKS_GRPC_ADDR', '127.0.0.1:50051'),
    retryBaseMs: r.int('WEBHOOKS_RETRY_BASE_MS', 1_000, { min: 0, max: 60_000 }),
    concurrency: r.int('WEBHOOKS_CONCURRENCY', 64, { min: 1, max: 10_000 }),
    retryMaxDelayMs: r.int('WEBHOOKS_RETRY_MAX_DELAY_MS', 30_000, { min: 0, max: 300_000 }),
    pushAllowList: readPushAllowList(r),
    warnings: [],
  };
  c.grpcHealthPort = readGrpcHealthPort(r, c.grpcTls);
  refusePlaintextGrpc(r, c.grpcTls, [c.grpcHost, c.tasksAddress]);
  c.warnings = r.warnings;
  r.done();
  return c;
}
