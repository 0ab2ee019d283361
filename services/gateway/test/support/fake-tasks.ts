import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { AppError } from '@a2a-inbound/errors';
import { controlV1, type tasksV1 } from '@a2a-inbound/proto';
import { grpc, toGrpcError } from '@a2a-inbound/runtime';
import type { TasksClient } from '../../src/protocol/operations';

/** One gRPC call the fake received: the method, the request and the deadline it was given (ms from the call). */
export interface RecordedCall {
  method: string;
  request: any;
  deadlineMs: number | undefined;
}

/** Answers a unary call (a value or a promise of one); `accept()` sends the response headers first, as tasks does. */
type Unary = (req: any, accept: () => void) => unknown;
type StreamFn = (req: any, stream: FakeStream) => void;

/** A server stream as grpc-js hands it to clients: object-mode, async-iterable, `cancel()`. */
export interface FakeStream extends PassThrough {
  cancel(): void;
  cancelled: boolean;
  fail(err: AppError): void;
}

function fakeStream(): FakeStream {
  const s = new PassThrough({ objectMode: true }) as unknown as FakeStream;
  s.cancelled = false;
  s.cancel = () => {
    s.cancelled = true;
    s.destroy(Object.assign(new Error('Cancelled on client'), { code: grpc.status.CANCELLED }));
  };
  s.fail = (err) => s.destroy(toGrpcError(err));
  return s;
}

/**
 * A fake `tasks` gRPC client: unary handlers answer (or throw an AppError, sent as its gRPC status), stream
 * handlers get the stream to push events into; every call is recorded with its deadline.
 */
export interface FakeHandlers {
  sendMessage?: Unary;
  getTask?: Unary;
  cancelTask?: Unary;
  listTasks?: Unary;
  setPushConfig?: Unary;
  getPushConfig?: Unary;
  listPushConfigs?: Unary;
  deletePushConfig?: Unary;
  sendMessageStream?: StreamFn;
  resubscribe?: StreamFn;
}

export function fakeTasks(handlers: FakeHandlers): {
  client: TasksClient;
  calls: RecordedCall[];
  streams: FakeStream[];
} {
  const calls: RecordedCall[] = [];
  const streams: FakeStream[] = [];
  const unary =
    (method: keyof TasksClient) =>
    (req: unknown, _md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: (e: unknown, r?: unknown) => void) => {
      const deadline = opts.deadline instanceof Date ? opts.deadline.getTime() - Date.now() : undefined;
      calls.push({ method, request: req, deadlineMs: deadline });
      const h = handlers[method] as Unary | undefined;
      // A ClientUnaryCall: 'metadata' when the server sent its headers, `cancel()` ends the call CANCELLED.
      let done = false;
      let headers = false;
      const call = Object.assign(new EventEmitter(), {
        cancelled: false,
        cancel: () => {
          call.cancelled = true;
          finish(Object.assign(new Error('Cancelled on client'), { code: grpc.status.CANCELLED }));
        },
      });
      const accept = (): void => {
        if (headers || done) return;
        headers = true;
        call.emit('metadata', new grpc.Metadata());
      };
      const finish = (err: unknown, res?: unknown): void => {
        if (done) return;
        if (!err) accept();
        done = true;
        cb(err, res);
      };
      queueMicrotask(() => {
        void (async () => {
          if (!h) throw new AppError('INTERNAL', `no fake for ${method}`);
          return await h(req, accept);
        })().then(
          (res) => finish(null, res),
          (err: unknown) => finish(toGrpcError(err)),
        );
      });
      return call;
    };
  const stream = (method: keyof TasksClient) => (req: unknown) => {
    calls.push({ method, request: req, deadlineMs: undefined });
    const s = fakeStream();
    streams.push(s);
    const h = handlers[method] as StreamFn | undefined;
    if (h) queueMicrotask(() => h(req, s));
    return s;
  };
  const client = {
    sendMessage: unary('sendMessage'),
    getTask: unary('getTask'),
    cancelTask: unary('cancelTask'),
    listTasks: unary('listTasks'),
    setPushConfig: unary('setPushConfig'),
    getPushConfig: unary('getPushConfig'),
    listPushConfigs: unary('listPushConfigs'),
    deletePushConfig: unary('deletePushConfig'),
    sendMessageStream: stream('sendMessageStream'),
    resubscribe: stream('resubscribe'),
  } as unknown as TasksClient;
  return { client, calls, streams };
}

export function agentView(over: Partial<controlV1.AgentView> = {}): controlV1.AgentView {
  return controlV1.AgentView.fromPartial({
    agentId: 'agent-1',
    deploymentId: 'dep-1',
    subscriptionId: 'sub-1',
    type: 'AI Agent',
    status: 'running',
    a2aEnabled: true,
    defaultA2aVersion: '0.3.0',
    blockingBudgetMs: 5_000,
    rateLimitPerMinute: 60,
    pushNotificationsEnabled: true,
    streaming: true, // as the demo agents: the streaming operations are served
    ...over,
  });
}

export const event = (seq: number, e: Record<string, unknown>, final = false): tasksV1.TaskStreamEvent => ({
  seq,
  eventJson: JSON.stringify(e),
  final,
});
