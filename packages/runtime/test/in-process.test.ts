import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { tasksV1 } from '@a2a-inbound/proto';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import {
  call,
  directClient,
  fromGrpcError,
  grpc,
  grpcClientOptions,
  serverStream,
  startGrpcServer,
  streamOf,
  unary,
  withInProcessGrpc,
  type GrpcServerHandle,
} from '../src/index';

// The in-process channel (ADR 0019) and the direct calls (ADR 0040) must be indistinguishable from the network
// for callers and handlers: every scenario runs against a server started normally (network), one started inside
// withInProcessGrpc dialled by a generated client (in-process) and the same dialled by `directClient` (direct),
// and the outcomes must be equal. The server records what the handlers saw (peer tells the paths apart).
// The one difference by design: direct calls share the request and response objects (read-only on both sides),
// where the channels hand each side its own decoded copy.

type Mode = 'network' | 'in-process' | 'direct';
const MODES: Mode[] = ['network', 'in-process', 'direct'];

interface Seen {
  peers: string[];
  metadata: string[];
  requests: tasksV1.GetTaskRequest[];
  cancelled: string[];
  produced: number;
}

const open: { server: GrpcServerHandle; client: tasksV1.TasksServiceClient }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    o.client.close();
    await o.server.close();
  }
});

async function setup(mode: Mode, graceMs = 5_000, options?: grpc.ClientOptions) {
  const seen: Seen = { peers: [], metadata: [], requests: [], cancelled: [], produced: 0 };
  const implementation: Partial<tasksV1.TasksServiceServer> = {
    getTask: (c, cb) => {
      seen.peers.push(c.getPeer());
      seen.metadata.push(String(c.metadata.get('x-test')[0] ?? ''));
      seen.requests.push(c.request);
      c.on('cancelled', () => seen.cancelled.push('getTask'));
      // The request the handler got is its own over a channel: changing it changes nothing for the client.
      c.request.taskId = 'mutated by the server';
      if (c.request.taskId && c.request.historyLength === 1) {
        cb(null, { taskJson: JSON.stringify({ id: seen.requests.length }) });
      } else if (c.request.historyLength === 2) {
        cb(new Error('plain failure'));
      } else if (c.request.historyLength === 3) {
        unary(async () => {
          throw new AppError('TASK_NOT_FOUND', 'Task not found', { details: { taskId: 't-3' } });
        })(c, cb);
      } else if (c.request.historyLength === 4) {
        // never answers: the caller's deadline ends it
      } else {
        const trailers = new grpc.Metadata();
        trailers.set('x-trailer', 'yes');
        cb({
          code: grpc.status.FAILED_PRECONDITION,
          details: 'with trailers',
          metadata: trailers,
        });
      }
    },
    // A stream that ends with trailers: `end(metadata)` sends them with the OK status.
    sendMessageStream: (c) => {
      c.write({ seq: 1, eventJson: '{}', final: true });
      const trailers = new grpc.Metadata();
      trailers.set('x-trailer', 'at the end');
      c.end(trailers);
    },
    resubscribe: serverStream(async function* (req: tasksV1.ResubscribeRequest, signal: AbortSignal) {
      try {
        for (let seq = 1; !signal.aborted; seq++) {
          seen.produced = seq;
          yield { seq, eventJson: '{}', final: false } satisfies tasksV1.TaskStreamEvent;
          if (req.afterSeq > 0 && seq === req.afterSeq) throw new AppError('UNAVAILABLE', 'tail lost');
          if (req.taskId === 'three' && seq === 3) return;
          if (req.taskId === 'slow') await new Promise((r) => setTimeout(r, 5));
        }
      } finally {
        if (signal.aborted) seen.cancelled.push('resubscribe');
      }
    }),
  };
  const start = () =>
    startGrpcServer(
      [
        {
          definition: tasksV1.TasksServiceService,
          implementation: implementation as grpc.UntypedServiceImplementation,
        },
      ],
      { host: '127.0.0.1', port: 0, isServing: () => true, graceMs },
    );
  const server = mode === 'network' ? await start() : await withInProcessGrpc(start);
  const client =
    mode === 'direct'
      ? directClient(tasksV1.TasksServiceClient, server.address, grpc.credentials.createInsecure(), options)
      : new tasksV1.TasksServiceClient(
          server.address,
          grpc.credentials.createInsecure(),
          options ?? grpcClientOptions(server.address),
        );
  open.push({ server, client });
  return { server, client, seen };
}

const getTask = (client: tasksV1.TasksServiceClient, req: Partial<tasksV1.GetTaskRequest>, deadlineMs?: number) => {
  const md = new grpc.Metadata();
  md.set('x-test', 'hello');
  return new Promise<{ err: grpc.ServiceError | null; res?: tasksV1.TaskResponse }>((resolve) => {
    const options: Partial<grpc.CallOptions> = deadlineMs ? { deadline: Date.now() + deadlineMs } : {};
    client.getTask({ taskId: 't', ...req }, md, options, (err, res) => resolve({ err, res }));
  });
};

/**
 * A connected channel before a timing-sensitive call: on a loaded machine a first call's connection setup can
 * outlast a short deadline, and the handler would never run. An unimplemented method (UNIMPLEMENTED from the
 * server) connects without running a handler that records anything.
 */
const connected = (client: tasksV1.TasksServiceClient) =>
  new Promise<void>((resolve) => client.cancelTask({ caller: undefined, taskId: 'warm-up' }, () => resolve()));

const statusOf = (err: grpc.ServiceError | null) =>
  err && {
    code: err.code,
    details: err.details,
    message: err.message,
    trailer: err.metadata?.get('x-trailer')[0],
    app: fromGrpcError(err).code,
    appDetails: fromGrpcError(err).details,
  };

async function both<T>(scenario: (mode: Mode) => Promise<T>): Promise<Record<Mode, T>> {
  const out = {} as Record<Mode, T>;
  for (const mode of MODES) out[mode] = await scenario(mode);
  return out;
}

describe('in-process gRPC channel (embedded mode) behaves as the network does', () => {
  it('serves calls without the network only for servers started inside withInProcessGrpc', async () => {
    const r = await both(async (mode) => {
      const { client, seen } = await setup(mode);
      await getTask(client, { historyLength: 1 });
      return seen.peers[0];
    });
    expect(r.network).toMatch(/127\.0\.0\.1:\d+/);
    expect(r['in-process']).toBe('in-process');
    expect(r.direct).toBe('in-process');
  });

  it('unary success: the same response, the caller metadata reaches the handler, each side owns its copy', async () => {
    const r = await both(async (mode) => {
      const { client, seen } = await setup(mode);
      const req = { taskId: 'abc', historyLength: 1 };
      const { err, res } = await getTask(client, req);
      return { err, res, metadata: seen.metadata[0], req, serverReq: seen.requests[0] };
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.network.res).toEqual({ taskJson: '{"id":1}' });
    expect(r['in-process'].metadata).toBe('hello');
    expect(r['in-process'].req.taskId).toBe('abc'); // the server's change stayed on its side
    // Direct: the same answer and metadata, and no encoding (the handler got the object the client was given).
    const { req, serverReq, ...rest } = r.direct;
    expect(rest).toEqual({ err: r.network.err, res: r.network.res, metadata: 'hello' });
    expect(serverReq).toEqual({ taskId: 'mutated by the server', historyLength: 1 }); // not decoded: no defaults
    expect(req).toEqual({ taskId: 'abc', historyLength: 1 });
  });

  it('errors: plain errors, AppErrors with details, and statuses with trailers arrive identically', async () => {
    const r = await both(async (mode) => {
      const { client } = await setup(mode);
      return Promise.all([2, 3, 5].map(async (h) => statusOf((await getTask(client, { historyLength: h })).err)));
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.direct).toEqual(r.network);
    expect(r.network[0]).toMatchObject({ code: grpc.status.UNKNOWN, details: 'plain failure' });
    expect(r.network[1]).toMatchObject({ app: 'TASK_NOT_FOUND', appDetails: { taskId: 't-3' } });
    expect(r.network[2]).toMatchObject({ code: grpc.status.FAILED_PRECONDITION, trailer: 'yes' });
  });

  it('a deadline ends the call with DEADLINE_EXCEEDED and cancels the handler', async () => {
    const r = await both(async (mode) => {
      const { client, seen } = await setup(mode);
      await connected(client);
      const started = Date.now();
      const { err } = await getTask(client, { historyLength: 4 }, 100);
      const took = Date.now() - started;
      while (seen.cancelled.length === 0 && Date.now() - started < 10_000) await new Promise((x) => setTimeout(x, 10));
      return { code: err?.code, app: fromGrpcError(err).code, cancelled: seen.cancelled, fast: took < 1_500 };
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.direct).toEqual(r.network);
    expect(r.network).toEqual({
      code: grpc.status.DEADLINE_EXCEEDED,
      app: 'DEADLINE_EXCEEDED',
      cancelled: ['getTask'],
      fast: true,
    });
  });

  it('server streams: messages in order then the end; an error after messages arrives after them', async () => {
    const r = await both(async (mode) => {
      const { client } = await setup(mode);
      const three: number[] = [];
      for await (const e of streamOf(client.resubscribe({ taskId: 'three', afterSeq: 0, snapshotFirst: false })))
        three.push(e.seq);
      const failing: number[] = [];
      let failure: unknown;
      try {
        for await (const e of streamOf(client.resubscribe({ taskId: 'x', afterSeq: 4, snapshotFirst: false })))
          failing.push(e.seq);
      } catch (err) {
        failure = (err as AppError).code;
      }
      return { three, failing, failure };
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.direct).toEqual(r.network);
    expect(r.network).toEqual({ three: [1, 2, 3], failing: [1, 2, 3, 4], failure: 'UNAVAILABLE' });
  });

  it('server streams: trailers given to end() arrive with the OK status', async () => {
    const r = await both(async (mode) => {
      const { client } = await setup(mode);
      const stream = client.sendMessageStream(tasksV1.SendMessageRequest.fromPartial({}));
      const seqs: number[] = [];
      stream.on('data', (e: tasksV1.TaskStreamEvent) => seqs.push(e.seq));
      const status = await new Promise<grpc.StatusObject>((resolve) => stream.on('status', resolve));
      return { seqs, code: status.code, trailer: status.metadata.get('x-trailer')[0] };
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.direct).toEqual(r.network);
    expect(r.network).toEqual({ seqs: [1], code: grpc.status.OK, trailer: 'at the end' });
  });

  it('a client that stops reading a stream (abort) cancels the server side', async () => {
    const r = await both(async (mode) => {
      const { client, seen } = await setup(mode);
      const ac = new AbortController();
      const got: number[] = [];
      for await (const e of streamOf(
        client.resubscribe({ taskId: 'slow', afterSeq: 0, snapshotFirst: false }),
        ac.signal,
      )) {
        got.push(e.seq);
        if (got.length === 3) ac.abort();
      }
      const started = Date.now();
      while (!seen.cancelled.includes('resubscribe') && Date.now() - started < 10_000)
        await new Promise((x) => setTimeout(x, 10));
      return { got, cancelled: seen.cancelled.includes('resubscribe') };
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.direct).toEqual(r.network);
    expect(r.network).toEqual({ got: [1, 2, 3], cancelled: true });
  });

  it('keeps flow control: a stream the client does not read does not run ahead without bound', async () => {
    const { client, seen } = await setup('in-process');
    const stream = client.resubscribe({ taskId: 'fast', afterSeq: 0, snapshotFirst: false });
    const it = (stream as AsyncIterable<tasksV1.TaskStreamEvent>)[Symbol.asyncIterator]();
    await it.next();
    await new Promise((x) => setTimeout(x, 200)); // the client reads nothing for a while
    expect(seen.produced).toBeLessThan(100);
    stream.cancel();
  });

  it('a closed server answers UNAVAILABLE, as its closed port does', async () => {
    const r = await both(async (mode) => {
      const { client, server } = await setup(mode);
      await server.close();
      const { err } = await getTask(client, { historyLength: 1 }, 5_000);
      return { code: err?.code, app: fromGrpcError(err).code };
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.direct).toEqual(r.network);
    expect(r.network).toEqual({ code: grpc.status.UNAVAILABLE, app: 'UNAVAILABLE' });
  });

  it.each(['in-process', 'direct'] as const)(
    'close() waits for %s calls in flight, like tryShutdown does for network calls',
    async (mode) => {
      const { client, server } = await setup(mode, 5_000);
      const calling = call(client.getTask.bind(client), { taskId: 't', historyLength: 4 }, { deadlineMs: 300 }).catch(
        (e: AppError) => e.code,
      );
      await new Promise((x) => setTimeout(x, 50));
      const started = Date.now();
      await server.close();
      expect(Date.now() - started).toBeGreaterThanOrEqual(150); // held until the call ended (its deadline)
      expect(await calling).toBe('DEADLINE_EXCEEDED');
    },
  );

  it('runs the handler as the server registered it (what wraps Server.register, such as tracing, applies)', async () => {
    const proto = grpc.Server.prototype as unknown as { register: (...a: unknown[]) => boolean };
    const original = proto.register;
    const wrapped: string[] = [];
    proto.register = function (this: unknown, name: unknown, handler: unknown, ...rest: unknown[]) {
      const h = handler as (...a: unknown[]) => unknown;
      return original.call(this, name, (...a: unknown[]) => (wrapped.push(String(name)), h(...a)), ...rest);
    };
    try {
      for (const mode of ['in-process', 'direct'] as const) {
        wrapped.length = 0;
        const { client, seen } = await setup(mode);
        const { res } = await getTask(client, { historyLength: 1 });
        expect(res).toEqual({ taskJson: '{"id":1}' });
        expect(seen.peers).toEqual(['in-process']);
        expect(wrapped).toEqual(['/a2a_inbound.tasks.v1.TasksService/GetTask']);
      }
    } finally {
      proto.register = original;
    }
  });

  it('direct calls skip the grpc-js client (its interceptors never run), unless tracing is on', async () => {
    const intercepted: string[] = [];
    const recorder: grpc.Interceptor = (options, next) => {
      intercepted.push(options.method_definition.path);
      return new grpc.InterceptingCall(next(options));
    };
    let address = '';
    const options = (): grpc.ClientOptions => ({
      interceptors: [recorder, ...(grpcClientOptions(address).interceptors ?? [])],
    });
    const { server } = await setup('direct');
    address = server.address;
    const client = directClient(tasksV1.TasksServiceClient, address, grpc.credentials.createInsecure(), options());
    open.push({ server, client });
    expect((await getTask(client, { historyLength: 1 })).res).toEqual({ taskJson: '{"id":1}' });
    expect(intercepted).toEqual([]);
    // With a tracing SDK registered the call takes grpc-js's path, where the gRPC instrumentation makes its spans.
    trace.setGlobalTracerProvider(new BasicTracerProvider());
    try {
      expect((await getTask(client, { historyLength: 1 })).res).toEqual({ taskJson: '{"id":2}' });
      expect(intercepted).toEqual(['/a2a_inbound.tasks.v1.TasksService/GetTask']);
    } finally {
      trace.disable();
    }
    expect((await getTask(client, { historyLength: 1 })).res).toEqual({ taskJson: '{"id":3}' });
    expect(intercepted).toHaveLength(1);
  });

  it('a client cancel ends a direct call with CANCELLED and cancels the handler, as over the network', async () => {
    const r = await both(async (mode) => {
      const { client, seen } = await setup(mode);
      await connected(client);
      const ended = new Promise<grpc.ServiceError | null>((resolve) => {
        const c = client.getTask({ taskId: 't', historyLength: 4 }, new grpc.Metadata(), {}, (err) => resolve(err));
        setTimeout(() => c.cancel(), 50);
      });
      const err = await ended;
      const started = Date.now();
      while (seen.cancelled.length === 0 && Date.now() - started < 10_000) await new Promise((x) => setTimeout(x, 10));
      return { code: err?.code, app: fromGrpcError(err).code, cancelled: seen.cancelled };
    });
    expect(r['in-process']).toEqual(r.network);
    expect(r.direct).toEqual(r.network);
    expect(r.network).toEqual({ code: grpc.status.CANCELLED, app: 'UNAVAILABLE', cancelled: ['getTask'] });
  });
});
