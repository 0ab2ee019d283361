import {
  EnvReader,
  mongoUrlTls,
  readGrpcHealthPort,
  readGrpcTls,
  readPlaintextPolicy,
  refusePlaintext,
  refusePlaintextGrpc,
  ConfigError as EnvConfigError,
  type GrpcTlsSettings,
} from '@a2a-inbound/config';
import type { EnginesConfig } from '@a2a-inbound/engines';
import type { IngestLimits } from './domain/sources';
import { defaultParseWorkers } from './parse-pool';

/** Linker configuration: read once from the environment, every problem reported together. */
export interface LinkerConfig {
  readonly grpcHost: string;
  readonly grpcPort: number;
  readonly store: 'memory' | 'mongo';
  readonly mongoUrl?: string;
  readonly mongoDb: string;
  readonly allowMemoryInProduction: boolean;
  readonly production: boolean;
  readonly logLevel: string;
  readonly maxArchiveBytes: number;
  /** LINKER_MAX_UNPACKED_BYTES, LINKER_MAX_FILES, LINKER_MAX_FILE_BYTES. */
  readonly ingestLimits: IngestLimits;
  readonly allowedLocalRoots: readonly string[];
  /** The internal service credential every RPC must carry (the gateway holds the same value). */
  readonly serviceToken: string;
  /** Mutual TLS of the server: then only the gateway's service certificate is accepted (ADR 0032). */
  readonly grpcTls: GrpcTlsSettings | undefined;
  /** GRPC_HEALTH_PORT: plaintext grpc.health.v1 only, for the kubelet's probes beside a TLS port (ADR 0035). */
  readonly grpcHealthPort: number | undefined;
  /** On SIGTERM, calls in progress (an ingest: fetch, parse, link) get this long before they are cut. */
  readonly shutdownGraceMs: number;
  /** LINKER_PARSE_BUDGET_MS: a file whose tree-sitter parse takes longer is skipped, not waited for. */
  readonly parseBudgetMs: number;
  /** LINKER_PARSE_WORKERS: worker threads that parse and extract code files (0: in the main thread). */
  readonly parseWorkers: number;
  /** Plaintext links accepted in production by ALLOW_PLAINTEXT_LINKS: logged loudly at start (ADR 0035). */
  readonly warnings: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n- ${problems.join('\n- ')}`);
  }
}

export function loadLinkerConfig(env: Readonly<Record<string, string | undefined>>): LinkerConfig {
  const problems: string[] = [];
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer between ${min} and ${max}`);
      return def;
    }
    return n;
  };
  const grpcPort = int('LINKER_GRPC_PORT', 50055, 0, 65535);
  const maxArchiveBytes = int('LINKER_MAX_ARCHIVE_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  const ingestLimits: IngestLimits = {
    maxUnpackedBytes: int('LINKER_MAX_UNPACKED_BYTES', 1024 * 1024 * 1024, 1024 * 1024, 64 * 1024 * 1024 * 1024),
    maxFiles: int('LINKER_MAX_FILES', 50_000, 1, 10_000_000),
    maxFileBytes: int('LINKER_MAX_FILE_BYTES', 1024 * 1024, 1024, 256 * 1024 * 1024),
  };
  const shutdownGraceMs = int('LINKER_SHUTDOWN_GRACE_MS', 5_000, 0, 600_000);
  const parseBudgetMs = int('LINKER_PARSE_BUDGET_MS', 10_000, 1, 600_000);
  const parseWorkers = int('LINKER_PARSE_WORKERS', defaultParseWorkers(), 0, 64);
  const store = env.STORE ?? 'memory';
  if (store !== 'memory' && store !== 'mongo') problems.push('STORE must be memory or mongo');
  const production = env.NODE_ENV === 'production';
  const allowMemoryInProduction = env.ALLOW_MEMORY_IN_PRODUCTION === 'true';
  if (store === 'memory' && production && !allowMemoryInProduction)
    problems.push('STORE=memory is refused in production unless ALLOW_MEMORY_IN_PRODUCTION=true');
  const mongoUrl = env.MONGO_URL;
  if (store === 'mongo' && !mongoUrl) problems.push('MONGO_URL is required when STORE=mongo');
  const roots = (env.LINKER_ALLOWED_DIRS ?? '').split(':').filter((r) => r.length > 0);
  for (const r of roots)
    if (!r.startsWith('/')) problems.push(`LINKER_ALLOWED_DIRS entries must be absolute paths (${r})`);
  // Local sources read the server's disk on any tenant's behalf: a development and test facility only.
  if (roots.length > 0 && production)
    problems.push('LINKER_ALLOWED_DIRS is refused in production (tenants must not read the server disk)');
  const serviceToken = env.LINKER_SERVICE_TOKEN ?? '';
  if (serviceToken.length < 32)
    problems.push('LINKER_SERVICE_TOKEN is required: at least 32 characters, the same value as the gateway');
  else if (serviceToken.length > 512) problems.push('LINKER_SERVICE_TOKEN must have at most 512 characters');
  const tlsReader = new EnvReader(env);
  const grpcTls = readGrpcTls(tlsReader);
  const grpcHealthPort = readGrpcHealthPort(tlsReader, grpcTls);
  refusePlaintextGrpc(tlsReader, grpcTls, [env.LINKER_GRPC_HOST || '127.0.0.1']);
  const mongo = mongoUrlTls(mongoUrl ?? '');
  if (store === 'mongo' && mongoUrl && !mongo.tls)
    refusePlaintext(
      tlsReader,
      readPlaintextPolicy(tlsReader),
      'mongo',
      mongo.hosts,
      'MONGO_URL must turn TLS on (tls=true, or mongodb+srv://)',
    );
  try {
    tlsReader.done();
  } catch (err) {
    if (err instanceof EnvConfigError) problems.push(...err.problems);
    else throw err;
  }
  // Everything is read before refusing, so the report (and the README check) sees every variable.
  const config: LinkerConfig = {
    grpcHost: env.LINKER_GRPC_HOST || '127.0.0.1',
    grpcPort,
    store: store as 'memory' | 'mongo',
    ...(mongoUrl ? { mongoUrl } : {}),
    mongoDb: env.MONGO_DB ?? 'a2a_inbound',
    allowMemoryInProduction,
    production,
    logLevel: env.LOG_LEVEL ?? 'info',
    maxArchiveBytes,
    ingestLimits,
    allowedLocalRoots: roots,
    serviceToken,
    grpcTls,
    grpcHealthPort,
    shutdownGraceMs,
    parseBudgetMs,
    parseWorkers,
    warnings: tlsReader.warnings,
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/**
 * The linker's engines: only the document store, chosen by its own `STORE` / `MONGO_URL` / `MONGO_DB`
 * (the linker uses no bus, cache or event log, so the other ports stay in memory and are never connected).
 */
export function linkerEngines(config: LinkerConfig, clientId: string): EnginesConfig {
  return {
    store: config.store,
    bus: 'memory',
    eventLog: 'memory',
    cache: 'memory',
    limiter: 'memory',
    mongoUrl: config.mongoUrl ?? '',
    mongoDb: config.mongoDb,
    kafkaBrokers: [],
    kafkaPartitions: 1,
    kafkaTls: undefined,
    kafkaSasl: undefined,
    redisUrl: '',
    namespace: '',
    clientId,
    warnings: [],
  };
}
