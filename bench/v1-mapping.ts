// The per-request cost of each A2A binding's own layer, in isolation (issue 21: "a 1.0 request costs no more
// CPU than a 0.3 one"): everything a binding does between the request bytes and the response bytes except the
// agent operation, which is the same call for every version (here a stub answering a stored echo task as tasks
// answers it: the Task JSON text). Per case, many iterations after a warm-up, cases interleaved over rounds;
// prints µs per request (the median round) and each 1.0 binding as a multiple of the 0.3 JSON-RPC one.
//   npx esbuild bench/v1-mapping.ts --bundle --platform=node --external:@grpc/reflection --outfile=/tmp/v1-mapping.cjs
//   NODE_PATH=$PWD/node_modules node /tmp/v1-mapping.cjs [iterations=20000] [rounds=7]
// What each case does is the router's sequence (http/a2a-router.ts, http/a2a-v1-router.ts, grpc/a2a-grpc.ts),
// calling the same functions: body parse and checks, envelope or route, version negotiation, the handler
// (validation, wire mapping), the answer's serialisation and its write on a real Express response (a socket that
// drops the bytes), as each router writes it: 0.3 through `res.json`/`res.send`, 1.0 directly (`writeJson`); the
// gRPC case ends at the encoded message (grpc-js frames it). Not included, and the same for every binding: the
// HTTP parse of the request, the key and rate-limit checks, the operation.
import http from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import express, { type Response } from 'express';
import { acceptProtoFieldNames } from '@a2a-inbound/a2a-wire';
import { a2aV1 } from '@a2a-inbound/proto';
import {
  asksForV0,
  assertJsonDepth,
  isV1Method,
  JSON_RPC_CONTENT_TYPE,
  JsonRpcHandler,
  matchRestRoute,
  negotiateV1,
  parseEnvelope,
  parseJsonBytes,
  REST_CONTENT_TYPE,
  restParams,
  spliceRawResult,
  V1Handler,
  writeJson,
  type AgentOperations,
  type OperationContext,
} from '@a2a-inbound/gateway';

const NOW = '2026-11-28T10:00:00.123Z';
const TASK_ID = '0f3c7a52-4a4e-4b8e-9a55-5d0c1b7f3e21';
const CONTEXT_ID = 'c2b6f0d8-8f0b-4a3e-a9a4-6b7c1f2e9d10';
const TEXT = 'Hello, echo agent: this is a short message of about the size a benchmark sends.';

/** The echo agent's finished task, as tasks stores and answers it (0.3 shapes). */
const TASK = {
  kind: 'task',
  id: TASK_ID,
  contextId: CONTEXT_ID,
  status: { state: 'completed', timestamp: NOW },
  history: [
    {
      kind: 'message',
      messageId: 'm-0001',
      role: 'user',
      parts: [{ kind: 'text', text: TEXT }],
      contextId: CONTEXT_ID,
      taskId: TASK_ID,
    },
    {
      kind: 'message',
      messageId: 'm-0002',
      role: 'agent',
      parts: [{ kind: 'text', text: 'working' }],
      contextId: CONTEXT_ID,
      taskId: TASK_ID,
    },
  ],
  artifacts: [{ artifactId: 'a-0001', name: 'echo', parts: [{ kind: 'text', text: TEXT }] }],
};
const TASK_JSON = JSON.stringify(TASK);

/** The operation layer, common to every version: answers the stored task as tasks answers it (a fresh parse). */
const ops = {
  sendJson: (): Promise<string> => Promise.resolve(TASK_JSON),
  send: (): Promise<Record<string, unknown>> => Promise.resolve(JSON.parse(TASK_JSON) as Record<string, unknown>),
  get: (): Promise<Record<string, unknown>> => Promise.resolve(JSON.parse(TASK_JSON) as Record<string, unknown>),
} as unknown as AgentOperations;

const agent = {
  agentId: 'demo-echo',
  a2aVersions: [],
  defaultA2aVersion: '0.3.0',
  pushNotificationsEnabled: false,
} as unknown as OperationContext['agent'];
const ctxOf = (version: OperationContext['version']): OperationContext => ({
  auth: { subscriptionId: 's-1', keyId: 'k-1' },
  agent,
  version,
});

const v03 = new JsonRpcHandler(ops);
const v1 = new V1Handler(ops);

let seq = 0;
const messageId = (): string => `bench-${(seq += 1)}`;
const bytes = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** The gateway's Express settings that touch an answer (app.ts). */
const app = express();
app.disable('x-powered-by');
app.set('etag', false);

/** A socket that takes the response's bytes and drops them; the last one keeps its answer for the test. */
let written = '';
class Sink extends Duplex {
  constructor() {
    super();
    written = '';
  }
  override _read(): void {}
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    written += chunk.toString();
    cb();
  }
}

/** A real Express response on a socket of its own, as the router gets it (made on the client's side: not timed). */
function response(): Response {
  const socket = new Sink() as unknown as Socket;
  const req = new http.IncomingMessage(socket);
  req.method = 'POST';
  req.url = '/';
  req.headers = { host: 'bench', 'content-type': 'application/json' };
  const res = new http.ServerResponse(req);
  res.assignSocket(socket);
  Object.setPrototypeOf(req, app.request);
  Object.setPrototypeOf(res, app.response);
  Object.assign(req, { res, app });
  Object.assign(res, { req, app, locals: {} });
  return res as unknown as Response;
}

/** The last answer written (headers and body), once its bytes reached the socket. */
export const lastAnswer = async (): Promise<string> => {
  await new Promise((resolve) => setImmediate(resolve));
  return written;
};

/** `res`: the answer written on it as the router writes it; without one, the answer's bytes (mapping only). */
async function rpc03(body: Buffer, res: Response | undefined): Promise<unknown> {
  const raw = parseJsonBytes(body);
  assertJsonDepth(raw);
  const rpc = parseEnvelope(raw);
  const outcome = await v03.handle(rpc, ctxOf('0.3.0'));
  if (outcome.kind === 'stream') throw new Error('unexpected stream');
  // As http/a2a-router.ts's dispatch writes them (`res.json` serialises the result with JSON.stringify).
  if (!res)
    return outcome.kind === 'raw'
      ? spliceRawResult(rpc.id, outcome.result)
      : JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: outcome.result });
  if (outcome.kind === 'raw')
    res.status(200).set('Content-Type', 'application/json').send(spliceRawResult(rpc.id, outcome.result));
  else res.status(200).json({ jsonrpc: '2.0', id: rpc.id, result: outcome.result });
  return undefined;
}

async function rpc10(body: Buffer, version: string, res: Response | undefined): Promise<unknown> {
  const raw = parseJsonBytes(body);
  assertJsonDepth(raw);
  const rpc = parseEnvelope(raw);
  if (asksForV0(version)) throw new Error('0.x');
  const ctx = ctxOf('1.0');
  negotiateV1(version, ctx.agent);
  if (!isV1Method(rpc.method)) throw new Error('method');
  acceptProtoFieldNames(rpc.method, rpc.params);
  const outcome = await v1.handle(rpc.method, rpc.params, ctx, { lastEventId: undefined });
  if (outcome.kind !== 'result') throw new Error('unexpected stream');
  const answer = JSON.stringify({ jsonrpc: '2.0', id: rpc.id, result: outcome.result });
  if (!res) return answer;
  writeJson(res, JSON_RPC_CONTENT_TYPE, answer);
  return undefined;
}

async function rest10(
  method: 'GET' | 'POST',
  path: string,
  body: Buffer,
  version: string,
  res: Response | undefined,
): Promise<unknown> {
  const match = matchRestRoute(method, path);
  if (!match) throw new Error('route');
  const ctx = ctxOf('1.0');
  negotiateV1(version, ctx.agent);
  const params = restParams(match, body, undefined);
  const outcome = await v1.handle(match.route.op, params, ctx, { lastEventId: undefined });
  if (outcome.kind !== 'result') throw new Error('unexpected stream');
  const answer = JSON.stringify(outcome.result);
  if (!res) return answer;
  writeJson(res, REST_CONTENT_TYPE, answer);
  return undefined;
}

interface Codec<T> {
  decode(b: Uint8Array): T;
  toJSON(m: T): unknown;
}
interface Encoder<T> {
  fromJSON(o: unknown): T;
  encode(m: T): { finish(): Uint8Array };
}

async function grpc10<Req extends { tenant: string }, Res>(
  op: 'SendMessage' | 'GetTask',
  body: Uint8Array,
  req: Codec<Req>,
  res: Encoder<Res>,
): Promise<Buffer> {
  const request = req.decode(body);
  if (!request.tenant) throw new Error('tenant');
  const ctx = ctxOf('1.0');
  negotiateV1('1.0', ctx.agent);
  const outcome = await v1.handle(op, req.toJSON(request) as Record<string, unknown>, ctx);
  if (outcome.kind !== 'result') throw new Error('unexpected stream');
  // grpc-js frames these bytes (HTTP/2 DATA, trailers): the binding's own part ends here.
  return Buffer.from(res.encode(res.fromJSON(outcome.result)).finish());
}

const text03 = (id: string): unknown => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { message: { kind: 'message', messageId: id, role: 'user', parts: [{ kind: 'text', text: TEXT }] } },
});
const send10 = (id: string): Record<string, unknown> => ({
  message: { messageId: id, role: 'ROLE_USER', parts: [{ text: TEXT }] },
});

/** A case: the client's side (the request's bytes, a unique messageId per send; a response), then the server's. */
interface Case {
  request: () => { body: Buffer; res: Response | undefined };
  serve: (r: { body: Buffer; res: Response | undefined }) => Promise<unknown>;
}

const rpcBody = (method: string, params: unknown): Buffer => bytes({ jsonrpc: '2.0', id: 1, method, params });
/** Whether the JSON cases write their answer on an Express response (`measureMappings`' `write`). */
let writing = false;
const ask = (body: () => Buffer) => (): { body: Buffer; res: Response | undefined } => ({
  body: body(),
  res: writing ? response() : undefined,
});

export const CASES: Record<string, Case> = {
  'send 0.3 JSON-RPC': {
    request: ask(() => bytes(text03(messageId()))),
    serve: (r) => rpc03(r.body, r.res),
  },
  'send 1.0 JSON-RPC': {
    request: ask(() => rpcBody('SendMessage', send10(messageId()))),
    serve: (r) => rpc10(r.body, '1.0', r.res),
  },
  'send 1.0 HTTP+JSON': {
    request: ask(() => bytes(send10(messageId()))),
    serve: (r) => rest10('POST', '/message:send', r.body, '1.0', r.res),
  },
  'send 1.0 gRPC': {
    request: ask(() =>
      Buffer.from(
        a2aV1.SendMessageRequest.encode(
          a2aV1.SendMessageRequest.fromJSON({ tenant: 'demo-echo', ...send10(messageId()) }),
        ).finish(),
      ),
    ),
    serve: (r) => grpc10('SendMessage', r.body, a2aV1.SendMessageRequest, a2aV1.SendMessageResponse),
  },
  'get 0.3 JSON-RPC': {
    request: ask(() => rpcBody('tasks/get', { id: TASK_ID })),
    serve: (r) => rpc03(r.body, r.res),
  },
  'get 1.0 JSON-RPC': {
    request: ask(() => rpcBody('GetTask', { id: TASK_ID })),
    serve: (r) => rpc10(r.body, '1.0', r.res),
  },
  'get 1.0 HTTP+JSON': {
    request: ask(() => Buffer.alloc(0)),
    serve: (r) => rest10('GET', `/tasks/${TASK_ID}`, r.body, '1.0', r.res),
  },
  'get 1.0 gRPC': {
    request: ask(() => Buffer.from(a2aV1.GetTaskRequest.encode({ tenant: 'demo-echo', id: TASK_ID }).finish())),
    serve: (r) => grpc10('GetTask', r.body, a2aV1.GetTaskRequest, a2aV1.Task),
  },
};

/** One request of a case, the client's side included; with `write`, the JSON answers go out on a response. */
export const runCase = async (name: string, write = false): Promise<unknown> => {
  writing = write;
  const c = CASES[name]!;
  return c.serve(c.request());
};

async function timeCase(run: () => unknown, iterations: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations; // µs of this process's CPU per iteration
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export interface MappingResult {
  /** µs of CPU per request, the median over rounds, client side taken off. */
  us: Record<string, number>;
  /** Per round, per case (µs, client side taken off): the spread. */
  rounds: Record<string, number[]>;
}

/** Every case in `rounds` rounds (the order reversed every other round), `iterations` requests each. */
export async function measureMappings(iterations = 20_000, rounds = 7, write = false): Promise<MappingResult> {
  const names = Object.keys(CASES);
  const whole = (n: string) => () => runCase(n, write);
  writing = write; // for the client side timed alone
  for (const n of names) {
    await timeCase(whole(n), Math.min(iterations, 5_000)); // warm-up: JIT and inline caches
    await timeCase(CASES[n]!.request, Math.min(iterations, 5_000));
  }
  const per: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of r % 2 ? [...names].reverse() : names) {
      writing = write;
      const total = await timeCase(whole(n), iterations);
      const client = await timeCase(CASES[n]!.request, iterations);
      per[n]!.push(Math.max(0, total - client));
    }
  }
  return { us: Object.fromEntries(names.map((n) => [n, median(per[n]!)])), rounds: per };
}

export function formatMappings(r: MappingResult): string[] {
  const lines: string[] = [];
  for (const [n, us] of Object.entries(r.us)) {
    const base = r.us[`${n.split(' ')[0]} 0.3 JSON-RPC`]!;
    const spread = `${Math.min(...r.rounds[n]!).toFixed(1)}–${Math.max(...r.rounds[n]!).toFixed(1)}`;
    const ratio = n.includes(' 0.3 ') ? '' : `  ${(us / base).toFixed(2)}× the 0.3 one`;
    lines.push(`${n.padEnd(20)} ${us.toFixed(1).padStart(7)} µs/req (rounds ${spread})${ratio}`);
  }
  return lines;
}

if (process.argv[1] && /v1-mapping\.(c?js|ts)$/.test(process.argv[1])) {
  const iterations = Number(process.argv[2] ?? 20_000);
  const rounds = Number(process.argv[3] ?? 7);
  void (async () => {
    const mapping = await measureMappings(iterations, rounds);
    process.stdout.write(`The binding layer, to the answer's bytes:\n${formatMappings(mapping).join('\n')}\n`);
    const written = await measureMappings(iterations, rounds, true);
    process.stdout.write(
      `The same, the JSON answers written on an Express response as each router writes them (gRPC: the bytes):\n${formatMappings(written).join('\n')}\n`,
    );
  })();
}
