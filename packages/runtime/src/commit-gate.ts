import * as grpc from '@grpc/grpc-js';

/** The commit barrier of ADR 0069, as the ports define it (`CommitBarrier`), without depending on them. */
export interface CommitGate {
  committed(): Promise<void> | undefined;
}

/** A commit that failed: what was written for the call is lost, so the call fails (INTERNAL, logged by none). */
function commitFailed(): grpc.ServiceError {
  const e = new Error('Internal error') as grpc.ServiceError;
  e.code = grpc.status.INTERNAL;
  e.details = e.message;
  e.metadata = new grpc.Metadata();
  return e;
}

/**
 * Wraps the handlers of a service so that nothing of a call leaves the server before the writes made so far
 * are committed (ADR 0069): a unary answer (or error) waits for `gate.committed()`; a server stream's writes,
 * end and error go out in order, each after the commit pending when it was made. A failed commit fails the
 * call. No commit pending: everything goes out at once, as without the gate.
 */
export function gatedByCommits(
  definition: grpc.ServiceDefinition,
  implementation: grpc.UntypedServiceImplementation,
  gate: CommitGate,
): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = { ...implementation };
  for (const [name, method] of Object.entries(definition)) {
    const handler = implementation[name];
    if (!handler || method.requestStream) continue;
    if (!method.responseStream) {
      const unary = handler as grpc.handleUnaryCall<unknown, unknown>;
      out[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) =>
        unary(call, (err, value, trailer, flags) => {
          const pending = gate.committed();
          if (!pending) return callback(err, value, trailer, flags);
          pending.then(
            () => callback(err, value, trailer, flags),
            () => callback(commitFailed()),
          );
        })) as grpc.UntypedHandleCall;
      continue;
    }
    const streaming = handler as grpc.handleServerStreamingCall<unknown, unknown>;
    out[name] = ((call: grpc.ServerWritableStream<unknown, unknown>) => {
      gateStream(call, gate);
      streaming(call);
    }) as grpc.UntypedHandleCall;
  }
  return out;
}

/** A server stream's writes, end and error, in order, each after the commit pending when it was made. */
function gateStream(call: grpc.ServerWritableStream<unknown, unknown>, gate: CommitGate): void {
  const write = call.write.bind(call);
  const end = call.end.bind(call);
  const emit = call.emit.bind(call);
  /** The last effect still waiting for a commit: the ones after it wait for it too (order). */
  let queue: Promise<void> | undefined;
  let failed = false;
  const after = (effect: () => void): void => {
    if (failed) return;
    const pending = gate.committed();
    if (!pending && !queue) return effect();
    const next = (queue ?? Promise.resolve())
      .then(() => pending)
      .then(
        () => {
          if (!failed) effect();
        },
        () => {
          if (failed) return;
          failed = true;
          emit('error', commitFailed());
        },
      );
    queue = next;
    void next.then(() => {
      if (queue === next) queue = undefined;
    });
  };
  call.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    const pending = gate.committed();
    // Nothing waiting: the write (and its flow control) as it is.
    if (!pending && !queue) return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    after(() => void (write as (...a: unknown[]) => boolean)(chunk, ...rest));
    return true;
  }) as typeof call.write;
  call.end = ((...args: unknown[]) => {
    after(() => void (end as (...a: unknown[]) => unknown)(...args));
    return call;
  }) as typeof call.end;
  call.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    if (event !== 'error') return emit(event, ...args);
    after(() => void emit(event, ...args));
    return true;
  }) as typeof call.emit;
}
