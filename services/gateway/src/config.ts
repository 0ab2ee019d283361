import { EnvReader, readGrpcTls, refusePlaintextGrpc, type Env, type GrpcTlsSettings } from '@a2a-inbound/config';
import { readPushAllowList, type EgressAllowList } from '@a2a-inbound/runtime';

export interface GatewayConfig {
  host: string;
  port: number;
  tasksAddress: string;
  linkerAddress: string;
  /** The webhooks service (the push delivery log the console shows per agent). */
  webhooksAddress: string;
  /** Mutual TLS towards tasks, webhooks and the linker: this gateway's service certificate (ADR 0032). */
  grpcTls: GrpcTlsSettings | undefined;
  /** The linker's internal service credential; empty = the linker routes answer 503. */
  linkerServiceToken: string;
  /** Public base URL used in cards; derived from the request when empty. */
  publicBaseUrl: string;
  /** JSON body limit: 10 files × 20 MB as base64 (≈ 267 MB) plus the envelope. */
  bodyLimitBytes: number;
  sseHeartbeatMs: number;
  /**
   * Agent requests (A2A, legacy, invoke) this gateway holds before the tasks service accepted them; one more
   * is refused with OVERLOADED (-32056, HTTP 503 on REST, Retry-After) before its body is read.
   */
  maxPendingRequests: number;
  /** A send or stream the tasks service has not accepted within this long is cancelled and refused (OVERLOADED). */
  acceptTimeoutMs: number;
  /** Bodies over 1 MiB (or of unknown length) read at once; more wait with their upload unread (ADR 0031). */
  maxLargeBodies: number;
  /** In-flight requests get this long after the listener closed; then their sockets are closed. */
  shutdownGraceMs: number;
  /** After SIGTERM, /readyz answers 503 for this long while everything is still served; then the listener closes. */
  shutdownReadinessDelayMs: number;
  /** Each readiness check (tasks gRPC health, Redis) must answer within this. */
  readinessTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this; responses (SSE) are not limited by it. */
  requestTimeoutMs: number;
  /** The request headers must arrive within this. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /**
   * A connection answered before its request body was read (401, 403, 404, 413, 415, 429…) keeps reading and
   * discarding the upload for this long after the answer, so the client reads the answer, not a reset (0 = off).
   */
  lingerTimeoutMs: number;
  /** …and for at most this many discarded bytes; then it is cut. */
  lingerMaxBytes: number;
  trustProxy: boolean;
  /** Folder of the built web console served at /console; empty = the `console` folder beside the bundle. */
  consoleDir: string;
  /** A console session (cookie) lasts this long after sign-in. */
  consoleSessionTtlMs: number;
  providerOrganization: string;
  providerUrl: string;
  /** The public A2A 1.0 gRPC service (every agent, chosen by `tenant`): its port, -1 = not served, 0 = any free. */
  a2aGrpcPort: number;
  a2aGrpcHost: string;
  /** `host:port` the cards give gRPC clients; empty = the host of the card's base URL and the bound port. */
  a2aGrpcPublicAddress: string;
  /** Private push receivers accepted at registration (PUSH_ALLOW_HOSTS / PUSH_ALLOW_CIDRS; set webhooks alike). */
  pushAllowList: EgressAllowList;
  /**
   * The largest A2A 1.0 gRPC message: grpc-js holds a whole message in memory before authentication, with no
   * large-body gate, so far below BODY_LIMIT_BYTES (the HTTP bindings stream file bytes to the blob store).
   */
  a2aGrpcMaxMessageBytes: number;
  /** Concurrent streams (calls) per gRPC connection. */
  a2aGrpcMaxConcurrentStreams: number;
  /** Plaintext links accepted in production by ALLOW_PLAINTEXT_LINKS: logged loudly at start (ADR 0035). */
  warnings: string[];
}

export const DEFAULT_BODY_LIMIT_BYTES = 280 * 1024 * 1024;
/** One file of the spec's largest (20 MB) with room for the rest of the message; more goes by HTTP. */
export const DEFAULT_A2A_GRPC_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export function loadGatewayConfig(env: Env): GatewayConfig {
  const r = new EnvReader(env);
  const c: GatewayConfig = {
    // Loopback unless the operator opens it: the gateway image sets HOST=0.0.0.0 (Dockerfile).
    host: r.string('HOST', '127.0.0.1'),
    port: r.int('PORT', 8080, { min: 0, max: 65535 }),
    tasksAddress: r.string('TASKS_GRPC_ADDR', '127.0.0.1:50051'),
    linkerAddress: r.string('LINKER_GRPC_ADDR', '127.0.0.1:50055'),
    webhooksAddress: r.string('WEBHOOKS_GRPC_ADDR', '127.0.0.1:50053'),
    grpcTls: readGrpcTls(r),
    linkerServiceToken: r.string('LINKER_SERVICE_TOKEN', ''),
    publicBaseUrl: r.string('PUBLIC_BASE_URL', '').replace(/\/+$/, ''),
    bodyLimitBytes: r.int('BODY_LIMIT_BYTES', DEFAULT_BODY_LIMIT_BYTES, { min: 1024 }),
    sseHeartbeatMs: r.int('SSE_HEARTBEAT_MS', 15_000, { min: 100 }),
    maxPendingRequests: r.int('GATEWAY_MAX_PENDING_REQUESTS', 256, { min: 1, max: 1_000_000 }),
    acceptTimeoutMs: r.int('TASKS_ACCEPT_TIMEOUT_MS', 10_000, { min: 100, max: 600_000 }),
    maxLargeBodies: r.int('GATEWAY_MAX_LARGE_BODIES', 4, { min: 1, max: 10_000 }),
    shutdownGraceMs: r.int('SHUTDOWN_GRACE_MS', 10_000, { min: 0 }),
    shutdownReadinessDelayMs: r.int('SHUTDOWN_READINESS_DELAY_MS', 2_000, { min: 0, max: 120_000 }),
    readinessTimeoutMs: r.int('READINESS_TIMEOUT_MS', 1_500, { min: 50, max: 60_000 }),
    requestTimeoutMs: r.int('HTTP_REQUEST_TIMEOUT_MS', 300_000, { min: 1_000, max: 3_600_000 }),
    headersTimeoutMs: r.int('HTTP_HEADERS_TIMEOUT_MS', 20_000, { min: 1_000, max: 600_000 }),
    keepAliveTimeoutMs: r.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, { min: 1_000, max: 600_000 }),
    lingerTimeoutMs: r.int('HTTP_LINGER_TIMEOUT_MS', 5_000, { min: 0, max: 60_000 }),
    lingerMaxBytes: r.int('HTTP_LINGER_MAX_BYTES', 8 * 1024 * 1024, { min: 0, max: 1024 * 1024 * 1024 }),
    trustProxy: r.bool('TRUST_PROXY', false),
    consoleDir: r.string('CONSOLE_DIR', ''),
    consoleSessionTtlMs: r.int('CONSOLE_SESSION_TTL_SECONDS', 28_800, { min: 60, max: 604_800 }) * 1000,
    providerOrganization: r.string('PROVIDER_ORGANIZATION', 'a2a-inbound'),
    providerUrl: r.string('PROVIDER_URL', ''),
    a2aGrpcPort: r.int('A2A_GRPC_PORT', -1, { min: -1, max: 65535 }),
    a2aGrpcHost: r.string('A2A_GRPC_HOST', ''),
    a2aGrpcPublicAddress: r.string('A2A_GRPC_PUBLIC_ADDR', ''),
    pushAllowList: readPushAllowList(r),
    a2aGrpcMaxMessageBytes: r.int('A2A_GRPC_MAX_MESSAGE_BYTES', DEFAULT_A2A_GRPC_MAX_MESSAGE_BYTES, { min: 1024 }),
    a2aGrpcMaxConcurrentStreams: r.int('A2A_GRPC_MAX_CONCURRENT_STREAMS', 16, { min: 1, max: 10_000 }),
    warnings: [],
  };
  if (!c.a2aGrpcHost) c.a2aGrpcHost = c.host;
  if (c.a2aGrpcPublicAddress && !/^[A-Za-z0-9.[\]:-]+:\d{1,5}$/.test(c.a2aGrpcPublicAddress))
    r.problem('A2A_GRPC_PUBLIC_ADDR must be host:port (what gRPC clients dial)');
  if (c.linkerServiceToken && (c.linkerServiceToken.length < 32 || c.linkerServiceToken.length > 512))
    r.problem('LINKER_SERVICE_TOKEN must have 32 to 512 characters (the same value as the linker)');
  if (c.publicBaseUrl && !/^https?:\/\/[^/]+/.test(c.publicBaseUrl))
    r.problem('PUBLIC_BASE_URL must be an http(s) URL');
  if (c.headersTimeoutMs > c.requestTimeoutMs)
    r.problem('HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS');
  refusePlaintextGrpc(r, c.grpcTls, [c.tasksAddress, c.linkerAddress, c.webhooksAddress]);
  c.warnings = r.warnings;
  r.done();
  return c;
}
