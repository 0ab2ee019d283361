import { EventEmitter } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import {
  IN_PROCESS_CALL,
  deadlineMs,
  endInProcess,
  localServer,
  serverErrorToStatus,
  type LocalMethod,
  type LocalServer,
} from './in-process';
import { grpcClientOptions } from './grpc';

/**
 * Direct in-process calls (ADR 0040). A client made by `grpcClient` answers a unary call to a server registered
 * in this process (ADR 0019) by running the server's handler with the caller's request object: no grpc-js
 * client layer (its interceptor chain, the caller stack it captures per call), no protobuf encoding, no copy.
 * Messages are plain data both sides treat as read-only (nothing in the services mutates a request or a
 * response it did not build). What the caller sees otherwise stays what grpc-js gives: the same callback and
 * `ClientUnaryCall` events (`metadata` once the handler sends its headers or answers, `status`), errors turned
 * into the same ServiceError (code, details, trailers), deadlines and `cancel()` ending the call with
 * DEADLINE_EXCEEDED / CANCELLED and emitting `cancelled` on the handler's call, the in-process marker that
 * authentication trusts (ADR 0032), and the server's close waiting for (or cancelling) calls in flight.
 *
 * Everything else takes the client's own path, the in-process gRPC channel or the network: server streams, a
 * server in another process or closed, and every call while tracing is on (the gRPC instrumentation's client
 * and server spans and the trace context in metadata live in grpc-js's layers).
 */

/** The no-op provider `trace` delegates to while no tracing SDK is registered. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** A tracing SDK is registered: calls inside one process keep the layers that carry the trace context. */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

type Callback = (err: grpc.ServiceError | null, value?: unknown) => void;
type ClientCtor<C> = {
  new (address: string, credentials: grpc.ChannelCredentials, options?: Partial<grpc.ClientOptions>): C;
  service: grpc.ServiceDefinition;
};

/**
 * A generated client for `address`: the network client built with `options` (default: the channel options and
 * the in-process channel), whose unary methods call a
 * server of this process directly when one is registered there (and tracing is off).
 */
export function directClient<C extends grpc.Client>(
  Ctor: ClientCtor<C>,
  address: string,
  credentials: grpc.ChannelCredentials,
  options: Partial<grpc.ClientOptions> = grpcClientOptions(address),
): C {
  const net = new Ctor(address, credentials, options);
  const client = Object.create(net) as C;
  const methods = client as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const [name, def] of Object.entries(Ctor.service)) {
    if (def.requestStream || def.responseStream) continue;
    const viaNetwork = methods[name] as (...args: unknown[]) => unknown;
    const path = def.path;
    const direct = function (this: unknown, ...args: unknown[]): unknown {
      const server = localServer(address);
      const method = server?.methods.get(path);
      if (!server || !method || tracingOn()) return viaNetwork.apply(net, args);
      return startDirectUnary(server, method, address, args);
    };
    methods[name] = direct;
    if (def.originalName && def.originalName !== name) methods[def.originalName] = direct;
  }
  return client;
}

/** grpc-js's overloads: (request, [metadata], [options], callback). */
function startDirectUnary(server: LocalServer, method: LocalMethod, peer: string, args: unknown[]): DirectUnaryCall {
  const [request, a, b, c] = args;
  let metadata: grpc.Metadata | undefined;
  let options: Partial<grpc.CallOptions> | undefined;
  let callback: Callback;
  if (typeof a === 'function') callback = a as Callback;
  else if (typeof b === 'function') {
    if (a instanceof grpc.Metadata) metadata = a;
    else options = a as Partial<grpc.CallOptions>;
    callback = b as Callback;
  } else {
    metadata = a as grpc.Metadata;
    options = b as Partial<grpc.CallOptions>;
    callback = c as Callback;
  }
  const call = new DirectUnaryCall(server, method, peer, callback);
  call.start(request, metadata ?? new grpc.Metadata(), options?.deadline);
  return call;
}

/** A status as the client sees it: grpc-js's `callErrorFromStatus`, without the caller stack. */
function serviceError(status: grpc.StatusObject): grpc.ServiceError {
  return Object.assign(new Error(`${status.code} ${grpc.status[status.code]}: ${status.details}`), status);
}

/** Both sides of a direct unary call: the client's `ClientUnaryCall` and the handler's call object. */
class DirectUnaryCall extends EventEmitter implements grpc.ClientUnaryCall {
  #done = false;
  #headersSent = false;
  #timer: NodeJS.Timeout | undefined;
  #serverCall: (EventEmitter & { cancelled: boolean }) | undefined;

  constructor(
    private readonly server: LocalServer,
    private readonly method: LocalMethod,
    private readonly peer: string,
    private readonly callback: Callback,
  ) {
    super();
  }

  start(request: unknown, metadata: grpc.Metadata, deadline: grpc.Deadline | undefined): void {
    this.server.active.add(this);
    const ms = deadlineMs(deadline);
    if (ms !== undefined) {
      if (ms <= 0) {
        this.#fail(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded');
        return;
      }
      this.#timer = setTimeout(() => this.#fail(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'), ms);
    }
    // After the caller's synchronous code (it attaches its listeners first), as a network call would be.
    queueMicrotask(() => {
      if (!this.#done) this.#invoke(request, metadata, deadline);
    });
  }

  cancel(): void {
    this.#fail(grpc.status.CANCELLED, 'Cancelled on client');
  }

  /** A forced shutdown of the server (`cancelInProcess`). */
  cancelWithStatus(code: grpc.status, details: string): void {
    this.#fail(code, details);
  }

  getPeer(): string {
    return this.peer;
  }

  getAuthContext(): null {
    return null;
  }

  #invoke(request: unknown, metadata: grpc.Metadata, deadline: grpc.Deadline | undefined): void {
    const path = this.method.definition.path;
    const call = Object.assign(new EventEmitter(), {
      [IN_PROCESS_CALL]: true,
      cancelled: false,
      request,
      metadata,
      getPeer: () => 'in-process',
      sendMetadata: (md: grpc.Metadata) => this.#sendHeaders(md),
      getDeadline: () => deadline ?? Infinity,
      getPath: () => path,
      getHost: () => 'in-process',
      getAuthContext: () => ({}),
    });
    this.#serverCall = call;
    const answer = (err: Partial<grpc.ServiceError> | null, value?: unknown, trailers?: grpc.Metadata): void => {
      if (this.#done) return;
      if (err) this.#end(serverErrorToStatus(err, trailers));
      else this.#end({ code: grpc.status.OK, details: 'OK', metadata: trailers ?? new grpc.Metadata() }, value);
    };
    try {
      (this.method.handler as grpc.handleUnaryCall<unknown, unknown>)(
        call as unknown as grpc.ServerUnaryCall<unknown, unknown>,
        answer,
      );
    } catch {
      // As grpc-js's server answers a handler that throws.
      this.#end({ code: grpc.status.UNKNOWN, details: 'Unknown error', metadata: new grpc.Metadata() });
    }
  }

  #sendHeaders(md?: grpc.Metadata): void {
    if (this.#headersSent || this.#done) return;
    this.#headersSent = true;
    this.emit('metadata', md ?? new grpc.Metadata());
  }

  /** The handler's answer (or an end from outside it): headers if none went yet, the callback, the status. */
  #end(status: grpc.StatusObject, value?: unknown): void {
    if (this.#done) return;
    this.#sendHeaders();
    this.#done = true;
    clearTimeout(this.#timer);
    endInProcess(this.server, this);
    if (status.code === grpc.status.OK) this.callback(null, value);
    else this.callback(serviceError(status));
    this.emit('status', status);
  }

  /** A deadline, a client cancel or a forced shutdown: the handler is cancelled, the caller told on a later turn. */
  #fail(code: grpc.status, details: string): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    endInProcess(this.server, this);
    const call = this.#serverCall;
    if (call && !call.cancelled) {
      call.cancelled = true;
      call.emit('cancelled', code === grpc.status.DEADLINE_EXCEEDED ? 'deadline' : 'cancelled');
    }
    const status: grpc.StatusObject = { code, details, metadata: new grpc.Metadata() };
    setImmediate(() => {
      this.callback(serviceError(status));
      this.emit('status', status);
    });
  }
}
