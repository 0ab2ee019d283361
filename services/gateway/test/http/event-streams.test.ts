import { connect, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { InMemoryBlobStore } from '@a2a-inbound/ports';
import { LargeBodyGate } from '../../src/http/spilled-body';
import { createA2aRouter } from '../../src/http/a2a-router';
import { createA2aV1Router } from '../../src/http/a2a-v1-router';
import { createInvokeRouter } from '../../src/http/invoke-router';
import { createLegacyRouter } from '../../src/http/legacy-router';
import { STREAM_OPEN_WAIT_MS } from '../../src/http/sse';
import { agentRouterDeps, TEST_KEY } from '../support/agent-routers';
import { agentView, event, fakeTasks, type FakeHandlers } from '../support/fake-tasks';

const KEY = TEST_KEY;
const HEARTBEAT_MS = 5_000;

/** The three agent routers over a fake `tasks`, as the gateway mounts them; one key with both scopes. */
async function start(
  handlers: FakeHandlers,
  admission = { maxPending: 100, acceptTimeoutMs: 10_000 },
  largeBodies = new LargeBodyGate(4),
  bodyLimitBytes = 1024 * 1024,
  agent: Parameters<typeof agentView>[0] = {},
) {
  const f = fakeTasks(handlers);
  const blobs = new InMemoryBlobStore();
  const put = blobs.put.bind(blobs);
  const stored: string[] = [];
  blobs.put = async (data, meta) => {
    const ref = await put(data, meta);
    stored.push(ref.id);
    return ref;
  };
  const deps = agentRouterDeps({
    tasks: f.client,
    admission,
    largeBodies,
    bodyLimitBytes,
    agent,
    blobs,
    sseHeartbeatMs: HEARTBEAT_MS,
  });
  const streams = deps.streams;
  const app = express();
  app.use('/agents/:agentId/a2a/v1', createA2aV1Router(deps));
  app.use('/agents/:agentId/a2a', createA2aRouter(deps));
  app.use(createLegacyRouter(deps));
  app.use(createInvokeRouter(deps));
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push(server);
  return { f, streams, blobs, stored, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const auth = { Authorization: `Bearer ${KEY}` };
const frames = (text: string) =>
  text
    .split('\n\n')
    .filter((f) => f.includes('data:'))
    .map((f) => ({
      id: /^id: (\d+)$/m.exec(f)?.[1],
      data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!),
    }));

describe('one SSE writer for the A2A, legacy and invoke streams', () => {
  it('every stream of a quiet task opens with its headers after the short open wait, not at the first event', async () => {
    const { base, streams } = await start({ resubscribe: () => undefined /* a task that is quiet for minutes */ });
    const opened = async (url: string, init: RequestInit) => {
      const ac = new AbortController();
      const t0 = Date.now();
      const res = await fetch(url, { ...init, signal: ac.signal });
      const ms = Date.now() - t0;
      ac.abort();
      return { res, ms };
    };
    const legacy = await opened(`${base}/agents/agent-1/tasks/t-1/events`, { headers: auth });
    expect(legacy.res.status).toBe(200);
    expect(legacy.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(legacy.res.headers.get('deprecation')).toBe('true');
    expect(legacy.ms).toBeLessThan(HEARTBEAT_MS);
    const a2a = await opened(`${base}/agents/agent-1/a2a`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: 't-1' } }),
    });
    expect(a2a.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(a2a.ms).toBeGreaterThanOrEqual(STREAM_OPEN_WAIT_MS - 50);
    expect(a2a.ms).toBeLessThan(HEARTBEAT_MS);
    await expect.poll(() => streams.size).toBe(0); // the client went: the writer ended and was released
  });

  it('a refusal before the stream opens is answered in the endpoint shape: REST JSON, JSON-RPC error frame', async () => {
    const missing = (_req: unknown, s: { fail(e: AppError): void }) =>
      s.fail(new AppError('TASK_NOT_FOUND', 'Task not found'));
    const { base } = await start({ resubscribe: missing });
    const legacy = await fetch(`${base}/agents/agent-1/tasks/nope/events`, { headers: auth });
    expect(legacy.status).toBe(404);
    expect(await legacy.json()).toMatchObject({ error: { code: 'TASK_NOT_FOUND' } });
    const a2a = await fetch(`${base}/agents/agent-1/a2a`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tasks/resubscribe', params: { id: 'nope' } }),
    });
    expect(frames(await a2a.text())).toEqual([
      { id: undefined, data: { jsonrpc: '2.0', id: 3, error: expect.objectContaining({ code: -32001 }) } },
    ]);
  });

  it('events carry their sequence numbers as SSE ids, mapped to each wire shape; run streams skip the snapshot', async () => {
    const { base, f } = await start({
      resubscribe: (_req, s) => {
        s.write(event(4, { kind: 'status-update', taskId: 't-1', contextId: 'c', status: { state: 'working' } }));
        s.write(event(5, { kind: 'status-update', taskId: 't-1', status: { state: 'completed' }, final: true }, true));
        s.end();
      },
      sendMessageStream: (_req, s) => {
        s.write(event(0, { kind: 'task', id: 't-2' }));
        s.write(event(1, { kind: 'status-update', taskId: 't-2', contextId: 'c', final: true }, true));
        s.end();
      },
    });
    const legacy = await fetch(`${base}/agents/agent-1/tasks/t-1/events?last_event_id=3`, { headers: auth });
    expect(frames(await legacy.text())).toEqual([
      { id: '4', data: expect.objectContaining({ task_id: 't-1', context_id: 'c', status: { state: 'working' } }) },
      { id: '5', data: expect.objectContaining({ task_id: 't-1', final: true }) },
    ]);
    expect(f.calls[0]?.request.afterSeq).toBe(3);
    const run = await fetch(`${base}/agents/agent-1/run/stream`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: 'go' }),
    });
    expect(frames(await run.text())).toEqual([
      {
        id: '1',
        data: expect.objectContaining({ run_id: 't-2', kind: 'status-update', context_id: 'c', final: true }),
      },
    ]);
  });

  it('a stream that breaks after it opened ends with one error frame in the endpoint shape', async () => {
    const breaking = (_req: unknown, s: { write(e: unknown): void; fail(e: AppError): void }) => {
      s.write(event(1, { kind: 'status-update', taskId: 't-1' }));
      setTimeout(() => s.fail(new AppError('UNAVAILABLE', 'event log down')), 10);
    };
    const { base } = await start({ resubscribe: breaking });
    const legacy = frames(await (await fetch(`${base}/agents/agent-1/tasks/t-1/events`, { headers: auth })).text());
    expect(legacy.at(-1)?.data).toEqual({
      error: { code: 'UNAVAILABLE', message: 'Stream interrupted; reconnect with Last-Event-ID' },
    });
    const a2a = await fetch(`${base}/agents/agent-1/a2a`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'r', method: 'tasks/resubscribe', params: { id: 't-1' } }),
    });
    expect(frames(await a2a.text()).at(-1)?.data).toEqual({
      jsonrpc: '2.0',
      id: 'r',
      error: {
        code: -32603,
        message: 'Stream interrupted; resume with tasks/resubscribe',
        data: { code: 'UNAVAILABLE' },
      },
    });
  });
});

describe('message/send: the Task JSON of tasks spliced into the JSON-RPC answer (ADR 0053)', () => {
  it('answers what res.json would write, whatever the request id (string, number, null), with the same headers', async () => {
    const task = {
      kind: 'task',
      id: 't-1',
      status: { state: 'completed' },
      artifacts: [{ parts: [{ text: 'é "q" \\n' }] }],
    };
    const { base } = await start({ sendMessage: () => ({ taskJson: JSON.stringify(task) }) });
    for (const id of ['a"b', 7, null]) {
      const r = await fetch(`${base}/agents/agent-1/a2a`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'message/send',
          params: { message: { role: 'user', messageId: `m-${String(id)}`, parts: [{ kind: 'text', text: 'hi' }] } },
        }),
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await r.text()).toBe(JSON.stringify({ jsonrpc: '2.0', id, result: task }));
    }
  });
});

describe('load shedding: requests tasks has not accepted are bounded (GATEWAY_MAX_PENDING_REQUESTS)', () => {
  const send = (id: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'message/send',
      params: { message: { role: 'user', messageId: id, parts: [{ kind: 'text', text: 'hi' }] }, ...extra },
    });
  const post = (base: string, body: string) =>
    fetch(`${base}/agents/agent-1/a2a`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body,
    });

  it('refuses one more with -32056 and Retry-After at once; a blocking send stops counting once tasks accepted it', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const accepts: Array<() => void> = [];
    const { base, f } = await start(
      {
        sendMessage: async (_req, accept) => {
          accepts.push(accept);
          await released;
          return { taskJson: JSON.stringify({ kind: 'task', id: 't-1', status: { state: 'completed' } }) };
        },
      },
      { maxPending: 1, acceptTimeoutMs: 10_000 },
    );
    const first = post(base, send('m1'));
    await expect.poll(() => accepts.length).toBe(1);

    const t0 = Date.now();
    const refused = await post(base, send('m2'));
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(refused.status).toBe(200);
    expect(refused.headers.get('retry-after')).toBe('1');
    // Refused before its body was read (as a 429 is): no request id yet.
    expect(await refused.json()).toMatchObject({
      id: null,
      error: { code: -32056, data: { code: 'OVERLOADED', retryAfterSeconds: 1 } },
    });
    const rest = await fetch(`${base}/agents/agent-1/run`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { role: 'user', parts: [{ kind: 'text', text: 'hi' }] } }),
    });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('1');
    expect(await rest.json()).toMatchObject({ error: { code: 'OVERLOADED' } });
    expect(f.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(1); // never reached tasks

    // tasks accepted the first send (it now waits for its run): its slot is free for the next request.
    accepts[0]!();
    const second = post(base, send('m3'));
    await expect.poll(() => accepts.length).toBe(2);
    release();
    expect(await (await first).json()).toMatchObject({ result: { id: 't-1' } });
    expect(await (await second).json()).toMatchObject({ result: { id: 't-1' } });
  });

  it('a send or stream tasks does not accept within TASKS_ACCEPT_TIMEOUT_MS is cancelled and refused; an accepted one may block longer', async () => {
    const { base, f, streams } = await start(
      {
        sendMessage: async (req: { messageJson: string }, accept) => {
          if (JSON.parse(req.messageJson).messageId === 'stuck') return new Promise(() => undefined);
          accept();
          await new Promise((r) => setTimeout(r, 600)); // the run, after acceptance: longer than the timeout
          return { taskJson: JSON.stringify({ kind: 'task', id: 't-9', status: { state: 'completed' } }) };
        },
        sendMessageStream: () => undefined, // a starved tasks: neither headers nor an event
      },
      { maxPending: 10, acceptTimeoutMs: 300 },
    );
    const stuck = await post(base, send('stuck'));
    expect(stuck.headers.get('retry-after')).toBe('1');
    expect(await stuck.json()).toMatchObject({ error: { code: -32056, data: { code: 'OVERLOADED' } } });
    expect(await (await post(base, send('slow-run'))).json()).toMatchObject({ result: { id: 't-9' } });

    const stream = await fetch(`${base}/agents/agent-1/a2a`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 's',
        method: 'message/stream',
        params: { message: { role: 'user', messageId: 's', parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    expect(frames(await stream.text()).at(-1)?.data).toMatchObject({ error: { code: -32056 } });
    expect(f.streams[0]?.cancelled).toBe(true);
    await expect.poll(() => streams.size).toBe(0);
  });
});

describe('file bytes stream into the blob store as the body arrives (ADR 0031)', () => {
  const file = (mimeType: string, data: Buffer) => ({
    kind: 'file',
    file: { name: 'f', mimeType, bytes: data.toString('base64') },
  });
  const post = (base: string, parts: unknown[]) =>
    fetch(`${base}/agents/agent-1/a2a`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { role: 'user', messageId: 'm', parts } },
      }),
    });

  it('tasks gets a blob reference instead of the bytes; a refused send leaves no blob behind', async () => {
    const data = Buffer.alloc(300_000, 7);
    const { base, f, blobs, stored } = await start({
      sendMessage: () => ({ taskJson: JSON.stringify({ kind: 'task', id: 't-1', status: { state: 'completed' } }) }),
    });
    const ok = await post(base, [{ kind: 'text', text: 'hi' }, file('application/pdf', data)]);
    expect(await ok.json()).toMatchObject({ result: { id: 't-1' } });
    const sent = f.calls.find((c) => c.method === 'sendMessage')!.request;
    expect(sent.files).toHaveLength(1);
    expect(sent.files[0]).toMatchObject({ partIndex: 1, mimeType: 'application/pdf', size: data.length });
    expect(sent.files[0].data).toHaveLength(0);
    const first = await blobs.get(sent.files[0].blobId as string, 'sub-1');
    expect(Buffer.from(first!.data).equals(data)).toBe(true);
    expect(JSON.parse(sent.messageJson as string).parts[1].file.bytes).toBe('');

    // An unsupported file type is refused after its bytes were stored: they are deleted again.
    const refused = await post(base, [file('application/x-msdownload', data), file('application/pdf', data)]);
    expect(await refused.json()).toMatchObject({ error: { code: -32005 } });
    expect(stored).toHaveLength(3);
    for (const id of stored.slice(1)) expect(await blobs.get(id, 'sub-1')).toBeUndefined();
    expect(f.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(1);
  });
});

/** Raw HTTP/1.1 on a socket: `head` then `chunks` (each sent as one chunk of a chunked body). */
function rawPost(base: string, headers: Record<string, string>, chunks: Buffer[], end: boolean) {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  const closed = new Promise<void>((r) => socket.on('close', () => r()));
  socket.on('error', () => undefined);
  const lines = [`POST /agents/a1/a2a HTTP/1.1`, `Host: ${url.host}`, 'Transfer-Encoding: chunked'];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  for (const c of chunks)
    socket.write(Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]));
  if (end) socket.write('0\r\n\r\n');
  return { socket, closed, answer: () => answer };
}

describe('a refusal under /a2a/*rest', () => {
  it("is answered by the A2A router itself, as the app's last error handler answers (whatever is mounted after)", async () => {
    const { base } = await start({});
    const got = await fetch(`${base}/agents/a1/a2a/no/such`, { method: 'POST', body: '{}' });
    expect(got.status).toBe(401);
    expect(await got.json()).toEqual({
      error: {
        code: 'UNAUTHENTICATED',
        message: 'Missing bearer token: send Authorization: Bearer <API_KEY>',
        details: { code: 'UNAUTHENTICATED' },
      },
    });
  });
});

describe('streamed request bodies: cut-off uploads and refusals mid-body', () => {
  const auth = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };

  it('a gzip upload cut off mid-body gives its large-body slot back (the next large body is read)', async () => {
    const { base } = await start({}, undefined, new LargeBodyGate(1));
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { parts: [{ kind: 'text', text: randomText(600_000) }] } },
      }),
    );
    const gz = gzipSync(body);
    const cut = rawPost(base, { ...auth, 'Content-Encoding': 'gzip' }, [gz.subarray(0, gz.length >> 1)], false);
    await new Promise((r) => setTimeout(r, 300)); // it holds the one slot, reading
    cut.socket.destroy();
    // Chunked (unknown length) counts as large: it needs the slot the cut-off upload held.
    const next = rawPost(base, auth, [Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'no/such' }))], true);
    const deadline = Date.now() + 5_000;
    while (!next.answer().includes('\r\n\r\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    next.socket.destroy();
    expect(next.answer()).toMatch(/^HTTP\/1\.1 200/);
    expect(next.answer()).toContain('-32601');
  });

  it('a chunked body over the limit is answered with a JSON-RPC error, not a reset connection', async () => {
    const { base } = await start({});
    const head = Buffer.from(
      '{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"parts":[{"kind":"text","text":"',
    );
    const filler = Buffer.alloc(64 * 1024, 'a');
    const up = rawPost(base, auth, [head, ...Array.from({ length: 20 }, () => filler)], false);
    await Promise.race([up.closed, new Promise((r) => setTimeout(r, 5_000))]);
    up.socket.destroy();
    expect(up.answer()).toMatch(/^HTTP\/1\.1 413/);
    expect(up.answer()).toContain('"id":null');
    expect(up.answer()).toMatch(/connection: close/i);
  });
});

describe('the large-body gate holds uploads only (review finding 1)', () => {
  const auth = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
  const task = { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'completed' } };

  it('while every large-body slot is taken, 1.0 HTTP+JSON GETs and a bodiless POST are still answered', async () => {
    const { base } = await start(
      { getTask: async () => ({ taskJson: JSON.stringify(task) }) },
      undefined,
      new LargeBodyGate(1),
    );
    const head = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"parts":[');
    const upload = rawPost(base, auth, [head], false); // chunked, never ended: holds the one slot
    await new Promise((r) => setTimeout(r, 200));
    const v1 = { ...auth, 'a2a-version': '1.0' };
    const timeout = AbortSignal.timeout(3_000);
    const got = await fetch(`${base}/agents/a1/a2a/v1/rest/tasks/t-1`, { headers: v1, signal: timeout });
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ id: 't-1' });
    // No Content-Length and no Transfer-Encoding: an empty body (a parse error, answered), not an unknown length.
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.write(`POST /agents/a1/a2a HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    await expect.poll(() => answer, { timeout: 3_000 }).toContain('-32700');
    socket.destroy();
    // A GET that announces a (chunked) body does not read it, so does not queue for a slot either.
    const chunkedGet = connect(Number(url.port), url.hostname);
    let got2 = '';
    chunkedGet.on('data', (d: Buffer) => (got2 += d.toString('latin1')));
    chunkedGet.write(
      `GET /agents/a1/a2a/v1/rest/tasks/t-1 HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${KEY}\r\n` +
        'A2A-Version: 1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    );
    await expect.poll(() => got2, { timeout: 3_000 }).toMatch(/^HTTP\/1\.1 200/);
    chunkedGet.destroy();
    upload.socket.destroy();
  });
});

describe('a corrupt compressed body is a parse error, not a reset (review finding 6)', () => {
  /**
   * A multi-megabyte gzip body that is corrupt from its first block (stored blocks, level 0: the block's length
   * check NLEN is flipped, a decoder error after 15 bytes), sent whole with its length.
   */
  const corruptPost = async (base: string, path: string, headers: Record<string, string>, body: object) => {
    const gz = gzipSync(Buffer.from(JSON.stringify(body)), { level: 0 });
    gz[13] = gz[13]! ^ 0xff;
    const url = new URL(base);
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('error', () => undefined); // the server may close before it read everything: that is the point
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    const head = [
      `POST ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      `Content-Length: ${gz.length}`,
      'Content-Encoding: gzip',
    ];
    for (const [k, v] of Object.entries(headers)) head.push(`${k}: ${v}`);
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    socket.write(gz);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 5_000))]);
    socket.destroy();
    return answer;
  };
  const text = { kind: 'text', text: randomText(3_000_000) };
  const auth = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };

  it('0.3 JSON-RPC answers -32700 with Connection: close', async () => {
    const { base } = await start({}, undefined, undefined, 32 * 1024 * 1024);
    const body = { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { parts: [text] } } };
    const answer = await corruptPost(base, '/agents/a1/a2a', auth, body);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('-32700');
    expect(answer).toMatch(/connection: close/i);
  });

  it('1.0 JSON-RPC answers -32700 and HTTP+JSON 400, with Connection: close', async () => {
    const { base } = await start({}, undefined, undefined, 32 * 1024 * 1024);
    const v1 = { ...auth, 'A2A-Version': '1.0' };
    const message = { role: 'ROLE_USER', messageId: 'm-1', parts: [{ text: text.text }] };
    const rpc = await corruptPost(base, '/agents/a1/a2a/v1', v1, {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message },
    });
    expect(rpc).toContain('-32700');
    expect(rpc).toMatch(/connection: close/i);
    const rest = await corruptPost(base, '/agents/a1/a2a/v1/rest/message:send', v1, { message });
    expect(rest).toMatch(/^HTTP\/1\.1 400/);
    expect(rest).toMatch(/connection: close/i);
  });
});

function randomText(n: number): string {
  // Not compressible to nothing: the gzip stream is long enough to be cut in the middle.
  let out = '';
  while (out.length < n) out += Math.random().toString(36).slice(2);
  return out.slice(0, n);
}

describe('A2A 1.0 JSON-RPC and HTTP+JSON read large bodies as a stream (ADR 0031), as the 0.3 endpoint does', () => {
  const v1Headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'a2a-version': '1.0' };
  const sendMessage = () => ({
    taskJson: JSON.stringify({ kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'completed' } }),
  });

  /**
   * Sends `head` (which ends just after the file's base64 string), waits until the gateway has stored the file,
   * then sends `tail`: a body buffered whole before it is parsed would never store it before the tail came.
   */
  async function sendInTwo(
    base: string,
    path: string,
    head: string,
    tail: string,
    stored: () => number,
  ): Promise<{ status: number; body: Record<string, any> }> {
    const { request } = await import('node:http');
    return new Promise((resolve, reject) => {
      const req = request(`${base}${path}`, { method: 'POST', headers: v1Headers }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, any> }));
      });
      req.on('error', reject);
      req.write(head);
      const waitStart = Date.now();
      const poll = setInterval(() => {
        if (stored() > 0) {
          clearInterval(poll);
          req.end(tail);
        } else if (Date.now() - waitStart > 10_000) {
          clearInterval(poll);
          req.destroy();
          reject(new Error('the file was not stored before the body ended: the body was buffered'));
        }
      }, 20);
    });
  }

  const bigFile = Buffer.alloc(5 * 1024 * 1024, 9);
  const part = { raw: bigFile.toString('base64'), mediaType: 'application/pdf', filename: 'big.pdf' };

  it('JSON-RPC SendMessage: the file is stored while the body arrives; tasks gets a reference', async () => {
    const { base, f, blobs, stored } = await start({ sendMessage }, undefined, undefined, 32 * 1024 * 1024);
    const message = { role: 'ROLE_USER', messageId: 'm-v1', parts: [{ text: 'see file' }, part] };
    const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message } });
    const cut = body.indexOf(part.raw) + part.raw.length + 1;
    const answer = await sendInTwo(base, '/agents/a1/a2a/v1', body.slice(0, cut), body.slice(cut), () => stored.length);
    expect(answer.body).toMatchObject({ id: 7, result: { task: { id: 't-1' } } });
    const sent = f.calls.find((c) => c.method === 'sendMessage')!.request;
    expect(sent.files[0]).toMatchObject({ partIndex: 1, mimeType: 'application/pdf', size: bigFile.length });
    expect(sent.files[0].data).toHaveLength(0);
    const kept = await blobs.get(sent.files[0].blobId as string, 'sub-1');
    expect(Buffer.from(kept!.data).equals(bigFile)).toBe(true);
  });

  it('HTTP+JSON message:send: the same; a refused send (unsupported type) leaves no blob behind', async () => {
    const { base, f, blobs, stored } = await start({ sendMessage }, undefined, undefined, 32 * 1024 * 1024);
    const message = { role: 'ROLE_USER', messageId: 'm-rest', parts: [part] };
    const body = JSON.stringify({ message });
    const cut = body.indexOf(part.raw) + part.raw.length + 1;
    const path = '/agents/a1/a2a/v1/rest/message:send';
    const answer = await sendInTwo(base, path, body.slice(0, cut), body.slice(cut), () => stored.length);
    expect(answer).toMatchObject({ status: 200, body: { task: { id: 't-1' } } });
    expect(f.calls.find((c) => c.method === 'sendMessage')!.request.files[0].data).toHaveLength(0);

    const bad = { ...part, mediaType: 'application/x-msdownload' };
    const refused = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: v1Headers,
      body: JSON.stringify({ message: { role: 'ROLE_USER', messageId: 'm-bad', parts: [bad] } }),
    });
    expect(refused.status).toBe(400);
    expect(stored).toHaveLength(2);
    expect(await blobs.get(stored[1]!, 'sub-1')).toBeUndefined();
  });
});

describe('A2A 1.0 endpoints: refusals and request parsing', () => {
  const v1 = { ...auth, 'content-type': 'application/json', 'a2a-version': '1.0' };
  const task = { kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'completed' } };
  const v1Send = (id: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'SendMessage',
      params: { message: { role: 'ROLE_USER', messageId: id, parts: [{ text: 'hi' }] } },
    });

  it('OVERLOADED carries Retry-After on JSON-RPC and HTTP+JSON, as on 0.3 (ADR 0030)', async () => {
    const accepts: Array<() => void> = [];
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const { base } = await start(
      {
        sendMessage: async (_req, accept) => {
          accepts.push(accept);
          await released;
          return { taskJson: JSON.stringify(task) };
        },
      },
      { maxPending: 1, acceptTimeoutMs: 10_000 },
    );
    const first = fetch(`${base}/agents/agent-1/a2a/v1`, { method: 'POST', headers: v1, body: v1Send('m1') });
    await expect.poll(() => accepts.length).toBe(1);

    const rpc = await fetch(`${base}/agents/agent-1/a2a/v1`, { method: 'POST', headers: v1, body: v1Send('m2') });
    expect(rpc.headers.get('retry-after')).toBe('1');
    expect(await rpc.json()).toMatchObject({ error: { code: -32056 } });
    const rest = await fetch(`${base}/agents/agent-1/a2a/v1/rest/tasks/t-1`, { headers: v1 });
    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('1');
    accepts[0]!();
    release();
    expect(await (await first).json()).toMatchObject({ result: { task: { id: 't-1' } } });
  });

  it('an agent whose card says capabilities.streaming false refuses SendStreamingMessage and SubscribeToTask', async () => {
    const handlers = {
      getTask: async () => ({ taskJson: JSON.stringify({ ...task, status: { state: 'working' } }) }),
      sendMessageStream: (_req: unknown, s: ReturnType<typeof fakeTasks>['streams'][number]) => {
        s.write(event(0, { ...task, status: { state: 'working' } }));
        s.write(
          event(
            1,
            { kind: 'status-update', taskId: 't-1', contextId: 'c-1', status: { state: 'completed' }, final: true },
            true,
          ),
        );
        s.end();
      },
    };
    const streamBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 's',
      method: 'SendStreamingMessage',
      params: { message: { role: 'ROLE_USER', messageId: 's', parts: [{ text: 'hi' }] } },
    });
    const restBody = JSON.stringify({ message: { role: 'ROLE_USER', messageId: 'r', parts: [{ text: 'hi' }] } });
    const off = await start(handlers, undefined, undefined, undefined, { streaming: false });
    const rpc = await fetch(`${off.base}/agents/agent-1/a2a/v1`, { method: 'POST', headers: v1, body: streamBody });
    expect(await rpc.json()).toMatchObject({ id: 's', error: { code: -32004 } });
    const sub = await fetch(`${off.base}/agents/agent-1/a2a/v1`, {
      method: 'POST',
      headers: v1,
      body: JSON.stringify({ jsonrpc: '2.0', id: 'u', method: 'SubscribeToTask', params: { id: 't-1' } }),
    });
    expect(await sub.json()).toMatchObject({ id: 'u', error: { code: -32004 } });
    for (const [method, path, body] of [
      ['POST', 'message:stream', restBody],
      ['GET', 'tasks/t-1:subscribe', undefined],
      ['POST', 'tasks/t-1:subscribe', undefined],
    ] as const) {
      const r = await fetch(`${off.base}/agents/agent-1/a2a/v1/rest/${path}`, {
        method,
        headers: v1,
        ...(body ? { body } : {}),
      });
      expect(r.status, path).toBe(400);
      expect(await r.json()).toMatchObject({ error: { status: 'FAILED_PRECONDITION' } });
    }
    expect(off.f.streams).toHaveLength(0); // nothing reached tasks

    // The same request to a streaming agent is served.
    const on = await start(handlers, undefined, undefined, undefined, { streaming: true });
    const served = await fetch(`${on.base}/agents/agent-1/a2a/v1`, { method: 'POST', headers: v1, body: streamBody });
    expect(served.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(frames(await served.text()).at(-1)?.data).toMatchObject({ id: 's', result: { statusUpdate: {} } });
  });

  it('HTTP+JSON query parameters are typed by field: an all-digit contextId stays a string', async () => {
    const { base, f } = await start({
      listTasks: async () => ({ tasks: [{ taskId: 't-1', createdAtMs: 5, updatedAtMs: 5, state: 'completed' }] }),
      getTask: async () => ({ taskJson: JSON.stringify({ ...task, contextId: '12345' }) }),
    });
    const list = await fetch(
      `${base}/agents/agent-1/a2a/v1/rest/tasks?contextId=12345&pageSize=5&historyLength=0&includeArtifacts=true`,
      { headers: v1 },
    );
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ tasks: [{ id: 't-1', contextId: '12345', artifacts: [] }], pageSize: 5 });
    expect(f.calls.find((c) => c.method === 'listTasks')!.request).toMatchObject({ contextId: '12345' });
    // A field typed as a number still refuses a value that is not one, by its name.
    const bad = await fetch(`${base}/agents/agent-1/a2a/v1/rest/tasks?pageSize=many`, { headers: v1 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('pageSize');
  });

  it('a bad percent-escape in an HTTP+JSON path is refused as invalid params, not an internal error', async () => {
    const { base, f } = await start({ getTask: async () => ({ taskJson: JSON.stringify(task) }) });
    const bad = await fetch(`${base}/agents/agent-1/a2a/v1/rest/tasks/%E0`, { headers: v1 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    expect(f.calls).toHaveLength(0);
    const good = await fetch(`${base}/agents/agent-1/a2a/v1/rest/tasks/t%2D1`, { headers: v1 });
    expect(await good.json()).toMatchObject({ id: 't-1' });
    expect(f.calls[0]!.request).toMatchObject({ taskId: 't-1' });
  });

  it('ListTasks page tokens carry the last task id with its creation time: a tie of one millisecond is not skipped', async () => {
    const all = ['t-3', 't-2', 't-1'].map((taskId) => ({ taskId, createdAtMs: 7, updatedAtMs: 7, state: 'completed' }));
    const { base, f } = await start({
      // tasks' order and cursor (run-history.ts): newest first, ties by id descending, after (ms, id).
      listTasks: async (req: { createdBeforeMs: number; createdBeforeTaskId: string; limit: number }) => ({
        tasks: all
          .filter(
            (t) =>
              !req.createdBeforeMs ||
              t.createdAtMs < req.createdBeforeMs ||
              (t.createdAtMs === req.createdBeforeMs && t.taskId < req.createdBeforeTaskId),
          )
          .slice(0, req.limit),
      }),
      getTask: async (req: { taskId: string }) => ({ taskJson: JSON.stringify({ ...task, id: req.taskId }) }),
    });
    const seen: string[] = [];
    let token = '';
    for (let page = 0; page < 5; page++) {
      const r = await fetch(`${base}/agents/agent-1/a2a/v1/rest/tasks?pageSize=1&pageToken=${token}`, { headers: v1 });
      const body = (await r.json()) as { tasks: { id: string }[]; nextPageToken: string };
      seen.push(...body.tasks.map((t) => t.id));
      token = body.nextPageToken;
      if (!token) break;
    }
    expect(seen).toEqual(['t-3', 't-2', 't-1']);
    expect(f.calls.filter((c) => c.method === 'listTasks')[1]!.request).toMatchObject({
      createdBeforeMs: 7,
      createdBeforeTaskId: 't-3',
    });
  });
});
