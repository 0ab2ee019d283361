import * as grpc from '@grpc/grpc-js';
import {
  AppError,
  ERROR_TABLE,
  GRPC_ERROR_CODE_KEY,
  GRPC_ERROR_DETAILS_KEY,
  isErrorCode,
  toAppError,
} from '@a2a-inbound/errors';
import { healthV1 } from '@a2a-inbound/proto';
import type { Logger } from '@a2a-inbound/logger';
import { addReflection } from './reflection';
import {
  cancelInProcess,
  drainedInProcess,
  inProcessGrpcEnabled,
  inProcessInterceptor,
  registerInProcess,
} from './in-process';
import { authenticated, grpcServerCredentials, type GrpcAuthPolicy, type GrpcTlsFiles } from './grpc-auth';
import { gatedByCommits, type CommitGate } from './commit-gate';

/** Large enough for a message with 10 files of 20 MB (sent decoded over gRPC). */
export const GRPC_MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

export const grpcChannelOptions: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': GRPC_MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': GRPC_MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // A restarted peer (a crashed tasks replica coming back) is reconnected within a second, not after grpc-js's
  // default backoff of up to two minutes during which every call fails at once.
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 1_000,
  // Nothing here serves or reads channelz; its per-call counters, timestamps and traces are work on every call.
  'grpc.enable_channelz': 0,
};

/**
 * A server's options: the channel options with channelz left on. grpc-js (1.14.7) records a server's HTTP/2
 * sessions only in its channelz session handler, and `forceShutdown` destroys the sessions it recorded: with
 * channelz off, the shutdown grace cut nothing and calls outlived it (services' SIGTERM, the linker's ingests).
 */
export const grpcServerOptions: grpc.ChannelOptions = { ...grpcChannelOptions, 'grpc.enable_channelz': 1 };

/**
 * A client's options for `address`: the channel options, plus the in-process channel (ADR 0019) that serves the
 * call without a network hop when a server started in-process in this process listens there (embedded mode).
 */
export function grpcClientOptions(address: string): grpc.ClientOptions {
  return { ...grpcChannelOptions, interceptors: [inProcessInterceptor(address)] };
}

/** AppError → gRPC ServiceError, with the stable code (and client-safe details) in trailers. */
export function toGrpcError(err: unknown, log?: Logger): grpc.ServiceError {
  const app = toAppError(err);
  const mapping = ERROR_TABLE[app.code];
  if (!mapping.exposeMessage) log?.error({ err }, 'internal error');
  const metadata = new grpc.Metadata();
  metadata.set(GRPC_ERROR_CODE_KEY, app.code);
  if (mapping.exposeMessage && app.details)
    metadata.set(GRPC_ERROR_DETAILS_KEY, Buffer.from(JSON.stringify(app.details)));
  const e = new Error(mapping.exposeMessage ? app.message : mapping.wireMessage) as grpc.ServiceError;
  e.code = mapping.grpc;
  e.details = e.message;
  e.metadata = metadata;
  return e;
}

/** gRPC error from a call → AppError (code from trailers; transport failures become UNAVAILABLE). */
export function fromGrpcError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as Partial<grpc.ServiceError>;
  const code = e.metadata?.get(GRPC_ERROR_CODE_KEY)[0];
  if (isErrorCode(code)) {
    let details: Record<string, unknown> | undefined;
    const raw = e.metadata?.get(GRPC_ERROR_DETAILS_KEY)[0];
    if (raw instanceof Buffer) {
      try {
        details = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        details = undefined;
      }
    }
    return new AppError(code, e.details ?? 'error', { ...(details ? { details } : {}), cause: err });
  }
  if (e.code === grpc.status.UNAVAILABLE) return new AppError('UNAVAILABLE', 'service unavailable', { cause: err });
  if (e.code === grpc.status.DEADLINE_EXCEEDED)
    return new AppError('DEADLINE_EXCEEDED', 'deadline exceeded', { cause: err });
  if (e.code === grpc.status.CANCELLED) return new AppError('UNAVAILABLE', 'call cancelled', { cause: err });
  return new AppError('INTERNAL', 'Internal error', { cause: err });
}

/** Wraps an async unary handler: resolves the callback, maps thrown errors. */
export function unary<Req, Res>(
  fn: (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>,
  log?: Logger,
  toError: (err: unknown, log?: Logger) => grpc.ServiceError = toGrpcError,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    fn(call.request, call).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toError(err, log)),
    );
  };
}

/** Wraps an async-iterable server-streaming handler; the iterator's signal aborts when the client goes. */
export function serverStream<Req, Res>(
  fn: (request: Req, signal: AbortSignal, call: grpc.ServerWritableStream<Req, Res>) => AsyncIterable<Res>,
  log?: Logger,
  toError: (err: unknown, log?: Logger) => grpc.ServiceError = toGrpcError,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const ac = new AbortController();
    call.on('cancelled', () => ac.abort());
    call.on('close', () => ac.abort());
    // Cancelled before this handler ran (while an authentication check awaited): the events are past.
    if (call.cancelled) ac.abort();
    void (async () => {
      try {
        for await (const item of fn(call.request, ac.signal, call)) {
          if (ac.signal.aborted) break;
          if (!call.write(item)) {
            await new Promise<void>((resolve) => {
              const done = (): void => {
                call.off('drain', done);
                ac.signal.removeEventListener('abort', done);
                resolve();
              };
              call.once('drain', done);
              ac.signal.addEventListener('abort', done, { once: true });
            });
          }
        }
        if (!ac.signal.aborted) call.end();
      } catch (err) {
        // Emitted, not destroy(): grpc-js sends the status from its 'error' handler (end → _final); a
        // destroyed stream never sends one and the client would wait forever.
        if (!ac.signal.aborted) call.emit('error', toError(err, log));
      }
    })();
  };
}

export type HealthState = () => boolean;

/** The grpc.health.v1 service: SERVING while `isServing()`; Watch answers the current status and ends. */
export function healthService(isServing: HealthState): healthV1.HealthServer {
  const status = (): healthV1.HealthCheckResponse => ({
    status: isServing()
      ? healthV1.HealthCheckResponse_ServingStatus.SERVING
      : healthV1.HealthCheckResponse_ServingStatus.NOT_SERVING,
  });
  return {
    check: (_call, callback) => callback(null, status()),
    watch: (call) => {
      call.write(status());
      call.end();
    },
  };
}

export interface GrpcServerHandle {
  readonly port: number;
  readonly address: string;
  /** The plaintext health-only port (`healthPort`), when one was asked for. */
  readonly healthPort?: number;
  close(): Promise<void>;
}

/**
 * Starts a gRPC server with the given services plus health and server reflection, bound to host:port (0 = any
 * free port). With `tls` it speaks mutual TLS (ADR 0032); a service with `auth` answers only the callers its
 * policy authenticates and authorises (health and reflection stay open: reflection describes the schema only).
 * `healthPort` adds a plaintext listener that serves grpc.health.v1 only: Kubernetes' native `grpc:` probes
 * cannot speak TLS, and the health status is no secret (ADR 0035).
 */
export async function startGrpcServer(
  services: {
    definition: grpc.ServiceDefinition;
    implementation: grpc.UntypedServiceImplementation;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each service has its own team principal
    auth?: GrpcAuthPolicy<any>;
  }[],
  options: {
    host: string;
    port: number;
    isServing: HealthState;
    graceMs?: number;
    tls?: GrpcTlsFiles | undefined;
    healthPort?: number | undefined;
    /** The largest request message the server accepts (a public endpoint's body limit); default GRPC_MAX_MESSAGE_BYTES. */
    maxReceiveMessageBytes?: number;
    /** Concurrent calls per connection (a public endpoint's bound); default: grpc-js's (unbounded). */
    maxConcurrentStreams?: number;
    /**
     * The engines' commit barrier, when their writes resolve before they are durable (the durable embedded
     * mode, ADR 0069): every answer and stream frame of these services waits for it.
     */
    commits?: CommitGate | undefined;
  },
): Promise<GrpcServerHandle> {
  const server = new grpc.Server({
    ...grpcServerOptions,
    ...(options.maxReceiveMessageBytes === undefined
      ? {}
      : { 'grpc.max_receive_message_length': options.maxReceiveMessageBytes }),
    ...(options.maxConcurrentStreams === undefined
      ? {}
      : { 'grpc.max_concurrent_streams': options.maxConcurrentStreams }),
  });
  const streams = new Set<grpc.ServerWritableStream<unknown, unknown>>();
  const gate = options.commits;
  // The gate innermost: an authentication refusal wrote nothing and need not wait.
  services = services.map((s) =>
    gate ? { ...s, implementation: gatedByCommits(s.definition, s.implementation, gate) } : s,
  );
  services = services.map((s) =>
    s.auth ? { ...s, implementation: authenticated(s.definition, s.implementation, s.auth) } : s,
  );
  for (const s of services)
    server.addService(s.definition, trackServerStreams(s.definition, s.implementation, streams));
  server.addService(healthV1.HealthService, healthService(options.isServing));
  addReflection(server, [...services.map((s) => s.definition), healthV1.HealthService]);
  const credentials = await grpcServerCredentials(options.tls);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${options.host}:${options.port}`, credentials, (err, p) => (err ? reject(err) : resolve(p)));
  });
  const health = options.healthPort === undefined ? undefined : new grpc.Server(grpcServerOptions);
  let healthPort: number | undefined;
  if (health) {
    health.addService(healthV1.HealthService, healthService(options.isServing));
    healthPort = await new Promise<number>((resolve, reject) => {
      health.bindAsync(`${options.host}:${options.healthPort}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
        err ? reject(err) : resolve(p),
      );
    }).catch((err: unknown) => {
      server.forceShutdown();
      throw err;
    });
  }
  // Embedded mode: the same handlers (with the stream tracking) also answer in-process calls (ADR 0019).
  const local = inProcessGrpcEnabled()
    ? registerInProcess(
        options.host,
        port,
        services.map((s) => ({
          definition: s.definition,
          implementation: trackServerStreams(s.definition, s.implementation, streams),
        })),
        server,
      )
    : undefined;
  let closed: Promise<void> | undefined;
  return {
    port,
    address: `${options.host}:${port}`,
    ...(healthPort === undefined ? {} : { healthPort }),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        // New in-process calls go to the network from now on, and find the port closed (UNAVAILABLE).
        local?.unregister();
        // Server streams are live tails: they would hold tryShutdown for the whole grace period. End them now
        // with UNAVAILABLE (clients resume elsewhere: tasks/resubscribe with Last-Event-ID); unary calls finish.
        const shuttingDown = toGrpcError(new AppError('UNAVAILABLE', 'server shutting down; resume the stream'));
        for (const call of streams) call.emit('error', shuttingDown);
        streams.clear();
        // The probes keep their answer (NOT_SERVING while draining) until the service port is closed.
        const done = (): void => {
          health?.forceShutdown();
          resolve();
        };
        const timer = setTimeout(() => {
          server.forceShutdown();
          if (local) cancelInProcess(local.server);
          done();
        }, options.graceMs ?? 5_000);
        const network = new Promise<void>((r) => server.tryShutdown(() => r()));
        void Promise.all([network, local ? drainedInProcess(local.server) : undefined]).then(() => {
          clearTimeout(timer);
          done();
        });
      })),
  };
}

/** Wraps the server-streaming handlers of a service so that the server knows its open streams. */
function trackServerStreams(
  definition: grpc.ServiceDefinition,
  implementation: grpc.UntypedServiceImplementation,
  streams: Set<grpc.ServerWritableStream<unknown, unknown>>,
): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = { ...implementation };
  for (const [name, method] of Object.entries(definition)) {
    const handler = implementation[name];
    if (!handler || !method.responseStream || method.requestStream) continue;
    const serverStreaming = handler as grpc.handleServerStreamingCall<unknown, unknown>;
    out[name] = ((call: grpc.ServerWritableStream<unknown, unknown>) => {
      streams.add(call);
      const forget = (): void => void streams.delete(call);
      call.once('close', forget);
      call.once('finish', forget);
      call.once('cancelled', forget);
      serverStreaming(call);
    }) as grpc.UntypedHandleCall;
  }
  return out;
}

/** Promise wrapper for a generated unary client method. */
export function call<Req, Res>(
  method: (
    req: Req,
    metadata: grpc.Metadata,
    options: Partial<grpc.CallOptions>,
    cb: (err: grpc.ServiceError | null, res: Res) => void,
  ) => grpc.ClientUnaryCall,
  request: Req,
  options: { deadlineMs?: number; metadata?: grpc.Metadata } = {},
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const opts: Partial<grpc.CallOptions> = {};
    if (options.deadlineMs !== undefined) opts.deadline = new Date(Date.now() + options.deadlineMs);
    method(request, options.metadata ?? new grpc.Metadata(), opts, (err, res) =>
      err ? reject(fromGrpcError(err)) : resolve(res),
    );
  });
}

/**
 * A unary call whose server announces when it has accepted the request, by sending its response headers
 * before the answer (`call.sendMetadata`; a blocking send then waits for its run). Queueing is bounded, not
 * the work: a call not accepted within `acceptWithinMs` (a starved or saturated server) is cancelled and
 * rejected with `notAccepted()`, while an accepted one may take until `deadlineMs`.
 */
export function callAccepted<Req, Res>(
  method: (
    req: Req,
    metadata: grpc.Metadata,
    options: Partial<grpc.CallOptions>,
    cb: (err: grpc.ServiceError | null, res: Res) => void,
  ) => grpc.ClientUnaryCall,
  request: Req,
  options: { deadlineMs: number; acceptWithinMs: number; onAccepted?: () => void; notAccepted: () => AppError },
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    let accepted = false;
    let refused = false;
    const c = method(
      request,
      new grpc.Metadata(),
      { deadline: new Date(Date.now() + options.deadlineMs) },
      (err, res) => {
        clearTimeout(timer);
        if (refused) return;
        if (err) reject(fromGrpcError(err));
        else resolve(res);
      },
    );
    const timer = setTimeout(() => {
      if (accepted) return;
      refused = true;
      c.cancel();
      reject(options.notAccepted());
    }, options.acceptWithinMs);
    c.once('metadata', () => {
      accepted = true;
      clearTimeout(timer);
      options.onAccepted?.();
    });
  });
}

/**
 * Async iterator over a server stream; aborting the signal cancels the call. `map` turns each message into
 * what the caller iterates (in this generator: one layer less for every open stream to keep than a mapping
 * generator around it).
 */
export function streamOf<Res>(stream: grpc.ClientReadableStream<Res>, signal?: AbortSignal): AsyncIterable<Res>;
export function streamOf<Res, Out>(
  stream: grpc.ClientReadableStream<Res>,
  signal: AbortSignal | undefined,
  map: (message: Res) => Out,
): AsyncIterable<Out>;
export async function* streamOf<Res, Out>(
  stream: grpc.ClientReadableStream<Res>,
  signal?: AbortSignal,
  map?: (message: Res) => Out,
): AsyncIterable<Res | Out> {
  const onAbort = (): void => stream.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const item of stream as AsyncIterable<Res>) yield map ? map(item) : item;
  } catch (err) {
    if (signal?.aborted) return;
    throw fromGrpcError(err);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.cancel();
  }
}

export { grpc };
