import {
  EnvReader,
  readGrpcHealthPort,
  readGrpcTls,
  refusePlaintextGrpc,
  type Env,
  type GrpcTlsSettings,
} from '@a2a-inbound/config';
import { readAgentSecurityConfig, type AgentSecurityConfig } from '@a2a-inbound/agent-definitions';
import type { BootstrapSpec } from './domain/bootstrap';
import type { ModelSeedSpec } from './domain/seed-model';
import type { TaskServiceConfig } from './domain/task-service';
import { DEFAULT_TASK_CONFIG } from './domain/task-service';

export interface TasksConfig {
  grpcHost: string;
  grpcPort: number;
  /** Mutual TLS of the gRPC server; with it every caller is authenticated (ADR 0032). Undefined: plaintext. */
  grpcTls: GrpcTlsSettings | undefined;
  /** GRPC_HEALTH_PORT: plaintext grpc.health.v1 only, for the kubelet's probes beside a TLS port (ADR 0035). */
  grpcHealthPort: number | undefined;
  seedDemo: boolean;
  /** Rate limit of the seeded demo agents (requests per minute). */
  seedRateLimitPerMinute: number;
  sweepIntervalMs: number;
  /** Run events of different tasks applied at once by this replica. */
  eventConcurrency: number;
  /** How often expired tasks, idempotency records and push configs are deleted. */
  retentionSweepIntervalMs: number;
  /** How often the engines are pinged for the gRPC health status. */
  readinessIntervalMs: number;
  task: TaskServiceConfig;
  /** First admin and platform operator from configuration; undefined when neither is configured. */
  bootstrap: BootstrapSpec | undefined;
  /** Secrets key(s) and the egress allow-list that version definitions are checked against. */
  agents: AgentSecurityConfig;
  /** A `model` agent seeded into the demo deployment (OPENAI_BASE_URL set); undefined otherwise. */
  seedModel: ModelSeedSpec | undefined;
  /** Plaintext links accepted in production by ALLOW_PLAINTEXT_LINKS: logged loudly at start (ADR 0035). */
  warnings: string[];
  /** How long a rotated-out agent-card signing key stays published in the JWKS (ADR 0034). */
  cardKeyRetentionMs: number;
}

const MIN_TOKEN_CHARS = 32;

export function loadTasksConfig(env: Env): TasksConfig {
  const r = new EnvReader(env);
  const config: TasksConfig = {
    grpcHost: r.string('TASKS_GRPC_HOST', '127.0.0.1'),
    grpcPort: r.int('TASKS_GRPC_PORT', 50051, { min: 0, max: 65535 }),
    grpcTls: readGrpcTls(r),
    grpcHealthPort: undefined,
    seedDemo: r.bool('SEED_DEMO', true),
    seedRateLimitPerMinute: r.int('SEED_RATE_LIMIT_PER_MINUTE', 600, { min: 1, max: 10_000_000 }),
    sweepIntervalMs: r.int('TASKS_SWEEP_INTERVAL_MS', 5_000, { min: 100 }),
    eventConcurrency: r.int('TASKS_EVENT_CONCURRENCY', 64, { min: 1, max: 10_000 }),
    retentionSweepIntervalMs: r.int('TASKS_RETENTION_SWEEP_INTERVAL_MS', 60_000, { min: 1_000 }),
    readinessIntervalMs: r.int('TASKS_READINESS_INTERVAL_MS', 2_000, { min: 50 }),
    task: {
      runTimeoutMs: r.int('RUN_TIMEOUT_MS', DEFAULT_TASK_CONFIG.runTimeoutMs, { min: 1_000 }),
      runStallMs: r.int('RUN_STALL_MS', DEFAULT_TASK_CONFIG.runStallMs, { min: 1_000 }),
      memoryMessages: r.int('CONTEXT_MEMORY_MESSAGES', DEFAULT_TASK_CONFIG.memoryMessages, { min: 0, max: 1000 }),
      memoryMaxBytes: r.int('CONTEXT_MEMORY_MAX_BYTES', DEFAULT_TASK_CONFIG.memoryMaxBytes, {
        min: 0,
        max: 64 * 1024 * 1024,
      }),
      retentionMs: r.int('TASK_RETENTION_MS', DEFAULT_TASK_CONFIG.retentionMs, { min: 60_000 }),
      maxHistory: r.int('TASK_MAX_HISTORY', DEFAULT_TASK_CONFIG.maxHistory, { min: 10 }),
      maxStreams: r.int('TASKS_MAX_STREAMS', DEFAULT_TASK_CONFIG.maxStreams, { min: 1, max: 1_000_000 }),
      maxPendingSends: r.int('TASKS_MAX_PENDING_SENDS', DEFAULT_TASK_CONFIG.maxPendingSends, {
        min: 1,
        max: 100_000,
      }),
      streamStoreCheckMs: r.int('TASKS_STREAM_STORE_CHECK_MS', DEFAULT_TASK_CONFIG.streamStoreCheckMs, {
        min: 50,
        max: 600_000,
      }),
    },
    bootstrap: undefined,
    agents: readAgentSecurityConfig(r),
    seedModel: undefined,
    warnings: [],
    cardKeyRetentionMs: r.int('CARD_KEY_RETENTION_MS', 7 * 24 * 3_600_000, { min: 60_000 }),
  };
  const providerUrl = r.optionalString('OPENAI_BASE_URL');
  const providerKey = r.optionalString('OPENAI_API_KEY');
  const providerModel = r.optionalString('OPENAI_MODEL') ?? r.optionalString('MODEL');
  if (providerUrl !== undefined) {
    if (!/^https?:\/\/[^/]/.test(providerUrl))
      r.problem('OPENAI_BASE_URL must be an http(s) URL, e.g. http://127.0.0.1:11434/v1');
    if (providerModel === undefined) r.problem('OPENAI_BASE_URL needs OPENAI_MODEL (or MODEL): the model to use');
    if (providerKey !== undefined && !config.agents.secretBox)
      r.problem('OPENAI_API_KEY is kept as a secret: set SECRETS_KEY too');
    config.seedModel = { baseUrl: providerUrl, model: providerModel ?? '', apiKey: providerKey };
  }
  const adminEmail = r.optionalString('BOOTSTRAP_ADMIN_EMAIL');
  const adminToken = r.optionalString('BOOTSTRAP_ADMIN_TOKEN');
  const operatorEmail = r.string('BOOTSTRAP_OPERATOR_EMAIL', 'operator@platform.local');
  const operatorToken = r.optionalString('BOOTSTRAP_OPERATOR_TOKEN');
  const subscriptionId = r.string('BOOTSTRAP_SUBSCRIPTION_ID', 'default');
  const credits = r.int('BOOTSTRAP_SUBSCRIPTION_CREDITS', 10_000, { min: 0 });
  if ((adminEmail === undefined) !== (adminToken === undefined))
    r.problem('BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_TOKEN go together: set both or neither');
  for (const [name, token] of [
    ['BOOTSTRAP_ADMIN_TOKEN', adminToken],
    ['BOOTSTRAP_OPERATOR_TOKEN', operatorToken],
  ] as const) {
    if (token !== undefined && (token.length < MIN_TOKEN_CHARS || /\s/.test(token)))
      r.problem(`${name} must be at least ${MIN_TOKEN_CHARS} characters without spaces`);
  }
  if (adminEmail !== undefined && !/^[^\s@]+@[^\s@]+$/.test(adminEmail))
    r.problem('BOOTSTRAP_ADMIN_EMAIL must be an email address');
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(subscriptionId))
    r.problem('BOOTSTRAP_SUBSCRIPTION_ID must be 1-100 characters of letters, digits, ".", "_" or "-"');
  const users: BootstrapSpec['users'] = [];
  if (adminEmail && adminToken) users.push({ email: adminEmail, token: adminToken, role: 'admin' });
  if (operatorToken) users.push({ email: operatorEmail, token: operatorToken, role: 'operator' });
  if (users.length > 0)
    config.bootstrap = { subscriptionId, subscriptionName: subscriptionId, initialCredits: credits, users };
  config.grpcHealthPort = readGrpcHealthPort(r, config.grpcTls);
  refusePlaintextGrpc(r, config.grpcTls, [config.grpcHost]);
  config.warnings = r.warnings;
  r.done();
  return config;
}
