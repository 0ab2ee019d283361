import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';

/**
 * The in-process gRPC channel (ADR 0019). When a client and the server it dials live in one process (the
 * embedded mode), a call skips the loopback HTTP/2 connection: a client interceptor hands the request to the
 * server's handler directly. What a caller or a handler sees stays what grpc-js gives over the network:
 * - the generated clients and service implementations are unchanged (only the client's options differ);
 * - requests and responses are still serialised and parsed with the method's own (de)serialisers, so each side
 *   gets its own copy with protobuf defaults, never a shared object;
 * - metadata is copied both ways; errors become the same status (code, details, trailers) as grpc-js's server
 *   makes of them (`serverErrorToStatus`), and the client turns them into the same ServiceError;
 * - deadlines end the call with DEADLINE_EXCEEDED and cancel the handler (`cancelled` event); a client cancel
 *   cancels the handler and ends the call with CANCELLED;
 * - a server stream keeps flow control: the handler's writes wait while the client has not read;
 * - a server that is not (or no longer) registered here is dialled over the network as before, so a closed
 *   server answers UNAVAILABLE like a closed port does. Client- and bidi-streaming methods always use the network.
 * Only servers started inside `withInProcessGrpc` register; everything else is untouched.
 */

type AnyHandler = grpc.UntypedHandleCall;
/** grpc-js's interface of the call below the interceptors (not exported by name). */
type InterceptingCallInterface = ConstructorParameters<typeof grpc.InterceptingCall>[0];
type MessageContext = Parameters<InterceptingCallInterface['sendMessageWithContext']>[0];

export interface LocalMethod {
  readonly definition: grpc.MethodDefinition<unknown, unknown>;
  readonly handler: AnyHandler;
}

/** An in-process call in flight: a forced close cancels it. */
export interface ActiveCall {
  cancelWithStatus(code: grpc.status, details: string): void;
}

/** A server registered for in-process calls. */
export interface LocalServer {
  readonly methods: ReadonlyMap<string, LocalMethod>;
  /** In-process calls in flight (a graceful close waits for them; a forced one cancels them). */
  readonly active: Set<ActiveCall>;
  /** Resolvers of `drained()`: called whenever `active` empties. */
  readonly idle: Set<() => void>;
}

const registry = new Map<string, LocalServer>();
// A counter, not an AsyncLocalStorage: one would turn on Node's promise hooks for the whole process, which
// costs more on the request path than the channel saves. A server started by something else in this process
// while `fn` runs registers too; that only lets this process's own clients reach it without the network.
let starting = 0;

/** Marks the server call objects of in-process calls: a network call can never carry it (ADR 0019, 0032). */
export const IN_PROCESS_CALL = Symbol('a2a-inbound.in-process-call');

/** True for a call made by this process through the in-process channel: trusted by construction. */
export function isInProcessCall(call: object): boolean {
  return (call as { [IN_PROCESS_CALL]?: boolean })[IN_PROCESS_CALL] === true;
}

/** Runs `fn` so that the gRPC servers it starts also answer in-process calls (the embedded mode). */
export async function withInProcessGrpc<T>(fn: () => Promise<T>): Promise<T> {
  starting += 1;
  try {
    return await fn();
  } finally {
    starting -= 1;
  }
}

/** Whether servers started now register for in-process calls. */
export function inProcessGrpcEnabled(): boolean {
  return starting > 0;
}

/** The server registered in this process under `address`, if any (checked per call: a closed one unregisters). */
export function localServer(address: string): LocalServer | undefined {
  return registry.get(address);
}

/** Forgets a call that ended; wakes `drainedInProcess` when it was the last one. */
export function endInProcess(server: LocalServer, call: ActiveCall): void {
  server.active.delete(call);
  if (server.active.size === 0 && server.idle.size > 0) {
    for (const resolve of [...server.idle]) resolve();
    server.idle.clear();
  }
}

/** Addresses a server bound to `host:port` is dialled by from this process. */
function addressesOf(host: string, port: number): string[] {
  const out = [`${host}:${port}`];
  if (host === '0.0.0.0' || host === '::' || host === '[::]') out.push(`127.0.0.1:${port}`, `localhost:${port}`);
  if (host === '127.0.0.1') out.push(`localhost:${port}`);
  return out;
}

/** Registers a started server's services under its addresses; returns the entry and its unregistration. */
export function registerInProcess(
  host: string,
  port: number,
  services: { definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation }[],
  registered?: grpc.Server,
): { server: LocalServer; unregister: () => void } {
  const methods = new Map<string, LocalMethod>();
  for (const s of services) {
    for (const [name, definition] of Object.entries(s.definition)) {
      // The handler the network server runs, as registered (with whatever wraps `Server.register`, such as
      // OpenTelemetry's server spans and trace-context extraction), else the implementation itself.
      const handler = registeredHandler(registered, definition.path) ?? s.implementation[name];
      if (!handler || definition.requestStream) continue; // client/bidi streaming: over the network
      methods.set(definition.path, { definition: definition as grpc.MethodDefinition<unknown, unknown>, handler });
    }
  }
  const server: LocalServer = { methods, active: new Set(), idle: new Set() };
  const addresses = addressesOf(host, port);
  for (const a of addresses) registry.set(a, server);
  return {
    server,
    unregister: () => {
      for (const a of addresses) if (registry.get(a) === server) registry.delete(a);
    },
  };
}

/**
 * A method's handler as the grpc-js server registered it (`Server.handlers`, private in grpc-js 1.14: read
 * defensively; without it the caller falls back to the implementation).
 */
function registeredHandler(server: grpc.Server | undefined, path: string): AnyHandler | undefined {
  const handlers = (server as unknown as { handlers?: unknown } | undefined)?.handlers;
  if (!(handlers instanceof Map)) return undefined;
  const entry = handlers.get(path) as { func?: unknown } | undefined;
  return typeof entry?.func === 'function' ? (entry.func as AnyHandler) : undefined;
}

/** Resolves once no in-process call of `server` is in flight. */
export function drainedInProcess(server: LocalServer): Promise<void> {
  if (server.active.size === 0) return Promise.resolve();
  return new Promise((resolve) => server.idle.add(resolve));
}

/** Cancels every in-process call of `server` still in flight (a forced shutdown). */
export function cancelInProcess(server: LocalServer): void {
  for (const c of [...server.active]) c.cancelWithStatus(grpc.status.UNAVAILABLE, 'server shut down');
}

/** grpc-js's server: an error passed to a callback or emitted on a stream → the status it sends. */
export function serverErrorToStatus(error: Partial<grpc.ServiceError>, trailers?: grpc.Metadata): grpc.StatusObject {
  const status: grpc.StatusObject = {
    code: grpc.status.UNKNOWN,
    details: 'message' in error && typeof error.message === 'string' ? error.message : 'Unknown Error',
    metadata: trailers ?? error.metadata ?? new grpc.Metadata(),
  };
  if (typeof error.code === 'number' && Number.isInteger(error.code)) {
    status.code = error.code;
    if (typeof error.details === 'string') status.details = error.details;
  }
  return status;
}

/** The client's call, implemented by running the server's handler in this process. */
class LocalCall implements InterceptingCallInterface {
  #listener: Partial<grpc.InterceptingListener> = {};
  #metadata = new grpc.Metadata();
  #request: unknown;
  #hasRequest = false;
  #started = false;
  #done = false;
  #headersSent = false;
  #reads = 0;
  #received = false;
  readonly #queue: unknown[] = [];
  #status: grpc.StatusObject | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #serverCall: (EventEmitter & { cancelled: boolean }) | undefined;
  /** Server writes waiting for the client to read (flow control). */
  readonly #writeWaiters: (() => void)[] = [];

  constructor(
    private readonly server: LocalServer,
    private readonly method: LocalMethod,
    private readonly deadline: grpc.Deadline | undefined,
    private readonly peer: string,
  ) {}

  start(metadata: grpc.Metadata, listener?: Partial<grpc.InterceptingListener>): void {
    this.#metadata = metadata.clone();
    this.#listener = listener ?? {};
    // A unary response is read at once (grpc-js's unary bottom call does the same).
    if (!this.method.definition.responseStream) this.#reads = 1;
    this.server.active.add(this);
    const ms = deadlineMs(this.deadline);
    if (ms !== undefined) {
      if (ms <= 0) {
        this.#fail(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded');
        return;
      }
      this.#deadlineTimer = setTimeout(() => this.#fail(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'), ms);
    }
  }

  sendMessageWithContext(context: MessageContext, message: unknown): void {
    this.sendMessage(message);
    context.callback?.();
  }

  sendMessage(message: unknown): void {
    if (this.#done) return;
    const def = this.method.definition;
    try {
      this.#request = def.requestDeserialize(def.requestSerialize(message));
      this.#hasRequest = true;
    } catch (err) {
      this.#fail(grpc.status.INTERNAL, `Request message serialization failure: ${(err as Error).message}`);
    }
  }

  halfClose(): void {
    if (this.#done || this.#started) return;
    this.#started = true;
    if (!this.#hasRequest) {
      this.#fail(grpc.status.UNIMPLEMENTED, `No message received for unary call ${this.method.definition.path}`);
      return;
    }
    // A later turn, as a network call would be: the caller's stack unwinds first.
    setImmediate(() => {
      if (!this.#done) this.#invoke();
    });
  }

  startRead(): void {
    this.#reads += 1;
    this.#flush();
  }

  cancelWithStatus(code: grpc.status, details: string): void {
    this.#fail(code, details);
  }

  getPeer(): string {
    return this.peer;
  }

  getAuthContext(): null {
    return null;
  }

  #invoke(): void {
    const def = this.method.definition;
    if (def.responseStream) this.#invokeServerStream();
    else this.#invokeUnary();
  }

  #serverCallBase<C extends EventEmitter>(call: C): C & { cancelled: boolean } {
    const deadline = this.deadline;
    const path = this.method.definition.path;
    return Object.assign(call, {
      [IN_PROCESS_CALL]: true,
      cancelled: false,
      request: this.#request,
      metadata: this.#metadata,
      getPeer: () => 'in-process',
      sendMetadata: (md: grpc.Metadata) => this.#sendHeaders(md),
      getDeadline: () => deadline ?? Infinity,
      getPath: () => path,
      getHost: () => 'in-process',
      getAuthContext: () => ({}),
    });
  }

  #invokeUnary(): void {
    const call = this.#serverCallBase(new EventEmitter());
    this.#serverCall = call;
    const def = this.method.definition;
    const callback = (err: Partial<grpc.ServiceError> | null, value?: unknown, trailers?: grpc.Metadata): void => {
      if (this.#done) return;
      if (err) {
        this.#finish(serverErrorToStatus(err, trailers));
        return;
      }
      try {
        this.#queue.push(def.responseDeserialize(def.responseSerialize(value)));
      } catch (e) {
        this.#finish({
          code: grpc.status.INTERNAL,
          details: `Response message serialization failure: ${(e as Error).message}`,
          metadata: new grpc.Metadata(),
        });
        return;
      }
      this.#finish({ code: grpc.status.OK, details: 'OK', metadata: trailers ?? new grpc.Metadata() });
    };
    try {
      (this.method.handler as grpc.handleUnaryCall<unknown, unknown>)(
        call as unknown as grpc.ServerUnaryCall<unknown, unknown>,
        callback,
      );
    } catch {
      // As grpc-js's server answers a handler that throws.
      this.#finish({ code: grpc.status.UNKNOWN, details: 'Unknown error', metadata: new grpc.Metadata() });
    }
  }

  #invokeServerStream(): void {
    const stream = new LocalServerStream(this);
    const call = this.#serverCallBase(stream);
    this.#serverCall = call;
    try {
      (this.method.handler as grpc.handleServerStreamingCall<unknown, unknown>)(
        call as unknown as grpc.ServerWritableStream<unknown, unknown>,
      );
    } catch {
      this.#finish({ code: grpc.status.UNKNOWN, details: 'Unknown error', metadata: new grpc.Metadata() });
    }
  }

  /** A server-stream write (`LocalServerStream._write`). */
  write(chunk: unknown, cb: (error?: Error | null) => void): void {
    this.#push(chunk, this.method.definition, cb);
  }

  /** The handler ended its stream (`LocalServerStream._final`). */
  finish(status: grpc.StatusObject): void {
    this.#finish(status);
  }

  /** A server-stream write: serialised for the client, and acknowledged once the client has room. */
  #push(chunk: unknown, def: grpc.MethodDefinition<unknown, unknown>, cb: (error?: Error | null) => void): void {
    if (this.#done) return cb(null); // the client went: writes are dropped, as grpc-js does
    let copy: unknown;
    try {
      copy = def.responseDeserialize(def.responseSerialize(chunk));
    } catch (e) {
      cb(null);
      this.#fail(grpc.status.INTERNAL, `Response message serialization failure: ${(e as Error).message}`);
      return;
    }
    this.#queue.push(copy);
    if (this.#queue.length <= 1) cb(null);
    else this.#writeWaiters.push(() => cb(null));
    this.#flush();
  }

  #sendHeaders(md?: grpc.Metadata): void {
    if (this.#headersSent) return;
    this.#headersSent = true;
    this.#listener.onReceiveMetadata?.(md ? md.clone() : new grpc.Metadata());
  }

  /** Delivers queued messages the client asked for, then the status once every message is out. */
  #flush(): void {
    while (this.#reads > 0 && this.#queue.length > 0) {
      this.#reads -= 1;
      this.#sendHeaders();
      const message = this.#queue.shift();
      this.#received = true;
      this.#listener.onReceiveMessage?.(message);
      const waiter = this.#writeWaiters.shift();
      waiter?.();
    }
    if (this.#status && this.#queue.length === 0) {
      const status = this.#status;
      this.#status = undefined;
      this.#sendHeaders();
      // As grpc-js's unary bottom call: a status without a message comes after an empty (null) one.
      if (!this.method.definition.responseStream && !this.#received) this.#listener.onReceiveMessage?.(null);
      this.#listener.onReceiveStatus?.(status);
    }
  }

  /** The handler's own end: its messages, then its status. */
  #finish(status: grpc.StatusObject): void {
    if (this.#done) return;
    this.#done = true;
    this.#end();
    this.#status = { ...status, metadata: status.metadata ? status.metadata.clone() : new grpc.Metadata() };
    this.#flush();
  }

  /** An end from outside the handler (deadline, client cancel, shutdown): the handler is cancelled. */
  #fail(code: grpc.status, details: string): void {
    if (this.#done) return;
    this.#done = true;
    this.#end();
    this.#queue.length = 0;
    for (const w of this.#writeWaiters.splice(0)) w();
    const call = this.#serverCall;
    if (call && !call.cancelled) {
      call.cancelled = true;
      call.emit('cancelled', code === grpc.status.DEADLINE_EXCEEDED ? 'deadline' : 'cancelled');
    }
    this.#status = { code, details, metadata: new grpc.Metadata() };
    // The client hears of it on a later turn, as from a network call.
    setImmediate(() => this.#flush());
  }

  #end(): void {
    clearTimeout(this.#deadlineTimer);
    endInProcess(this.server, this);
  }
}

/**
 * The handler's side of an in-process server stream. One class for every call (not a class per call: each
 * one would cost its own hidden classes and closures, kept for as long as an idle stream stays open).
 */
class LocalServerStream extends Writable {
  /** The status an emitted error set; OK otherwise. */
  #status: grpc.StatusObject | undefined;
  #trailers: grpc.Metadata | undefined;

  constructor(private readonly local: LocalCall) {
    super({ objectMode: true });
    this.on('error', (err: Partial<grpc.ServiceError>) => {
      this.#status = serverErrorToStatus(err);
      this.end();
    });
  }

  override _write(chunk: unknown, _enc: BufferEncoding, cb: (error?: Error | null) => void): void {
    this.local.write(chunk, cb);
  }

  override _final(cb: (error?: Error | null) => void): void {
    cb(null);
    const status = this.#status ?? { code: grpc.status.OK, details: 'OK', metadata: undefined };
    // As before: an error's own metadata, else the trailers given to `end`.
    this.local.finish({ ...status, metadata: status.metadata ?? this.#trailers ?? new grpc.Metadata() });
  }

  override end(...args: unknown[]): this {
    if (args[0] instanceof grpc.Metadata) {
      this.#trailers = args[0];
      return super.end();
    }
    return super.end(...(args as []));
  }
}

export function deadlineMs(deadline: grpc.Deadline | undefined): number | undefined {
  if (deadline === undefined) return undefined;
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  if (!Number.isFinite(at)) return undefined;
  return at - Date.now();
}

/** A client interceptor that serves calls to `address` in-process when a server registered there. */
export function inProcessInterceptor(address: string): grpc.Interceptor {
  return (options, nextCall) => {
    const server = registry.get(address);
    const method = server?.methods.get(options.method_definition.path);
    if (!server || !method) return new grpc.InterceptingCall(nextCall(options));
    return new grpc.InterceptingCall(new LocalCall(server, method, options.deadline, address));
  };
}
