import type { Logger } from '@a2a-inbound/logger';
import { type Clock, type CommitBarrier, type DocumentStore, type IdGenerator, randomIds } from '@a2a-inbound/ports';
import { AppError } from '@a2a-inbound/errors';
import {
  type GrpcAuthPolicy,
  type GrpcServerHandle,
  type GrpcTlsFiles,
  Lifecycle,
  PeriodicReadiness,
  startGrpcServer,
} from '@a2a-inbound/runtime';
import { LinkerService } from './domain/linker-service';
import { type EgressPolicy, publicEgress } from './domain/git-url';
import { DEFAULT_INGEST_LIMITS, type IngestLimits, type SourceAccess } from './domain/sources';
import { fetchSource, listSourceFiles } from './ingest/index';
import { linkerGrpcService, serviceCredentialCheck } from './transport/grpc-server';
import { linkerV1 } from './transport/proto';
import { ParsePool, defaultParseWorkers } from './parse-pool';

export interface LinkerDeps {
  readonly store: DocumentStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly ids?: IdGenerator;
  /** Overrides how sources are fetched and listed (tests); defaults to git, archives unpacked in process, and the disk. */
  readonly access?: SourceAccess;
  /** Which addresses remote git sources may reach (default: public unicast only, resolved by DNS). */
  readonly egress?: EgressPolicy;
  /** How often the store is pinged for the gRPC health status (default 2 s). */
  readonly readinessIntervalMs?: number;
  /** The store's commit barrier (the durable embedded mode, ADR 0069): every answer waits for it. */
  readonly commits?: CommitBarrier;
}

/** The part of {@link LinkerConfig} the app uses (a whole `LinkerConfig` fits). */
export interface LinkerAppConfig {
  /** The internal service credential every RPC must carry (at least 32 characters; LINKER_SERVICE_TOKEN). */
  readonly serviceToken: string;
  /** Listen address (default 127.0.0.1: only this machine's gateway reaches the linker). */
  readonly grpcHost?: string;
  /** 0 picks a free port (the default). */
  readonly grpcPort?: number;
  readonly maxArchiveBytes?: number;
  /** Unpacked bytes, file count and file size of a source (default DEFAULT_INGEST_LIMITS). */
  readonly ingestLimits?: IngestLimits;
  readonly allowedLocalRoots?: readonly string[];
  /** On close, calls in progress get this long before the server cuts them (default 5 s). */
  readonly shutdownGraceMs?: number;
  /** A file whose tree-sitter parse takes longer is skipped and listed (default 10 s). */
  readonly parseBudgetMs?: number;
  /** Worker threads that parse code files (default 0, ADR 0049; 0 or no bundled worker: in process). */
  readonly parseWorkers?: number;
  /** Mutual TLS: then the caller must also present the gateway's service certificate (ADR 0032). */
  readonly grpcTls?: GrpcTlsFiles | undefined;
  readonly grpcHealthPort?: number | undefined;
}

/** With mutual TLS the linker answers the gateway's certificate only (the service credential is still required). */
const gatewayOnly: GrpcAuthPolicy<unknown> = {
  authorize: (rpc, principal) => {
    if (principal.kind === 'in-process' || (principal.kind === 'service' && principal.service === 'gateway')) return;
    throw new AppError(
      'PERMISSION_DENIED',
      `${principal.kind === 'service' ? `the ${principal.service} service` : 'this caller'} may not call ${rpc}`,
    );
  },
};

export interface LinkerApp {
  readonly service: LinkerService;
  /** The gRPC server (port, address). */
  readonly grpc: GrpcServerHandle;
  /** Resolves the gRPC server's handle (the server is already listening). */
  start(): Promise<GrpcServerHandle>;
  /** Stops serving, then closes what the app opened, once, in reverse order. */
  close(): Promise<void>;
  /** Pings the store now; resolves whether the app is ready (what gRPC health reports). */
  ready(): Promise<boolean>;
}

/**
 * git, archives unpacked in process, and the disk; local directories and repositories only below `allowedDirs`
 * (real paths); remote git URLs through the egress guard, checked again at each fetch; every source within `limits`.
 */
export function diskSourceAccess(
  allowedDirs: readonly string[],
  egress: EgressPolicy = publicEgress,
  limits: IngestLimits = DEFAULT_INGEST_LIMITS,
): SourceAccess {
  return {
    fetch: (location) => fetchSource(location, { allowedDirs, egress, limits }),
    list: (root, options) => listSourceFiles(root, { ...options, maxFileBytes: limits.maxFileBytes }),
  };
}

/** Composition root of the linker: domain on the document-store port, exposed over gRPC; returns a running app. */
export async function startLinkerApp(deps: LinkerDeps, config: LinkerAppConfig): Promise<LinkerApp> {
  const lifecycle = new Lifecycle();
  const checkCredential = serviceCredentialCheck(config.serviceToken);
  const egress = deps.egress ?? publicEgress;
  const limits = config.ingestLimits ?? DEFAULT_INGEST_LIMITS;
  const parsePool = ParsePool.open(config.parseWorkers ?? defaultParseWorkers());
  if (parsePool) lifecycle.onClose('parse workers', () => parsePool.close());
  const service = await LinkerService.open({
    store: deps.store,
    clock: deps.clock,
    ids: deps.ids ?? randomIds,
    access: deps.access ?? diskSourceAccess(config.allowedLocalRoots ?? [], egress, limits),
    egress,
    maxFileBytes: limits.maxFileBytes,
    ...(config.parseBudgetMs !== undefined ? { parseBudgetMs: config.parseBudgetMs } : {}),
    ...(parsePool ? { parser: parsePool } : {}),
    ...(config.maxArchiveBytes !== undefined ? { maxArchiveBytes: config.maxArchiveBytes } : {}),
    ...(config.allowedLocalRoots ? { allowedLocalRoots: config.allowedLocalRoots } : {}),
  });
  let serving = false;
  // gRPC health also says whether the store answered its last background ping (every 2 s).
  const readiness = new PeriodicReadiness(() => deps.store.ping(), {
    intervalMs: deps.readinessIntervalMs ?? 2_000,
    log: deps.log,
  });
  lifecycle.onClose('readiness', async () => readiness.stop());
  let server: GrpcServerHandle;
  try {
    server = await startGrpcServer(
      [
        {
          definition: linkerV1.LinkerServiceService,
          implementation: linkerGrpcService(service, deps.log, checkCredential),
          ...(config.grpcTls ? { auth: gatewayOnly } : {}),
        },
      ],
      {
        host: config.grpcHost ?? '127.0.0.1',
        port: config.grpcPort ?? 0,
        isServing: () => serving && readiness.isReady(),
        tls: config.grpcTls,
        healthPort: config.grpcHealthPort,
        commits: deps.commits,
        ...(config.shutdownGraceMs !== undefined ? { graceMs: config.shutdownGraceMs } : {}),
      },
    );
  } catch (err) {
    await lifecycle.close(deps.log);
    throw err;
  }
  serving = true;
  lifecycle.onClose('grpc server', () => server.close());
  deps.log.info({ address: server.address }, 'linker listening');
  return {
    service,
    grpc: server,
    start: async () => server,
    async ready() {
      return serving && (await readiness.refresh());
    },
    close() {
      // Readiness flips before draining.
      serving = false;
      readiness.stop();
      return lifecycle.close(deps.log);
    },
  };
}
