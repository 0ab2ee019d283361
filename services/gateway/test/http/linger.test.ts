import { connect, type AddressInfo } from 'node:net';
import { Agent, createServer, request, type Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { halfOpenUpload, rawHeaders, rawJson, rawStatus } from '@a2a-inbound/testing';
import { createA2aRouter } from '../../src/http/a2a-router';
import { createA2aV1Router } from '../../src/http/a2a-v1-router';
import { createInvokeRouter } from '../../src/http/invoke-router';
import { createLegacyRouter } from '../../src/http/legacy-router';
import { lingerOnEarlyClose, type LingerPolicy } from '../../src/http/linger';
import { agentRouterDeps, TEST_KEY } from '../support/agent-routers';
import { fakeTasks } from '../support/fake-tasks';

/**
 * Lingering close (ADR 0073): a request refused before its body was read (bad key → 401, too large → 413) is
 * answered with `Connection: close`, and the gateway reads and discards the rest of the upload for a bounded
 * time instead of closing at once, so a client still uploading reads the answer instead of ECONNRESET/EPIPE.
 */

const KEY = TEST_KEY;
const BODY_LIMIT_BYTES = 1024 * 1024;
const MiB = 1024 * 1024;

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** The agent routers over a fake `tasks`, as the gateway mounts them, on a server that lingers by `policy`. */
async function start(policy: LingerPolicy) {
  const deps = agentRouterDeps({
    tasks: fakeTasks({}).client,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    sseHeartbeatMs: 5_000,
  });
  const seen: string[] = [];
  const app = express();
  app.use((req, _res, next) => {
    seen.push(`${req.method} ${req.url}`);
    next();
  });
  app.use('/agents/:agentId/a2a/v1', createA2aV1Router(deps));
  app.use('/agents/:agentId/a2a', createA2aRouter(deps));
  app.use(createLegacyRouter(deps));
  app.use(createInvokeRouter(deps));
  app.get('/ping', (_req, res) => {
    res.json({ ok: true });
  });
  const server = createServer(app);
  lingerOnEarlyClose(server, policy);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, seen };
}

const headOf = (method: string, path: string, key: string, length: number): string =>
  `${method} ${path} HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${length}\r\n\r\n`;

describe('lingering close: an early answer reaches a client that is still uploading', () => {
  it('30 uploads of 4 MiB refused early (401 bad key, 413 too large) on the 0.3 and 1.0 JSON-RPC, 1.0 HTTP+JSON, legacy and invoke endpoints: every client reads the status and JSON body, no reset', async () => {
    const { port } = await start({ timeoutMs: 5_000, maxBytes: 8 * MiB });
    const total = 4 * MiB;
    const cases: { path: string; key: string; status: number; error: (body: any) => unknown }[] = [
      { path: '/agents/agent-1/a2a', key: 'wrong', status: 401, error: (b) => b.error.code },
      { path: '/agents/agent-1/a2a/v1', key: 'wrong', status: 401, error: (b) => b.error.code },
      { path: '/agents/agent-1/a2a/v1/rest/message:send', key: 'wrong', status: 401, error: (b) => b.error.status },
      { path: '/agents/agent-1/tasks', key: 'wrong', status: 401, error: (b) => b.error.code },
      { path: '/agents/agent-1/runs', key: 'wrong', status: 401, error: (b) => b.error.code },
      { path: '/agents/agent-1/a2a', key: KEY, status: 413, error: (b) => b.error.code },
      { path: '/agents/agent-1/a2a/v1', key: KEY, status: 413, error: (b) => b.error.code },
      { path: '/agents/agent-1/a2a/v1/rest/message:send', key: KEY, status: 413, error: (b) => b.error.status },
      { path: '/agents/agent-1/tasks', key: KEY, status: 413, error: (b) => b.error.code },
      { path: '/agents/agent-1/runs', key: KEY, status: 413, error: (b) => b.error.code },
    ];
    const failures: string[] = [];
    for (let i = 0; i < 30; i++) {
      const c = cases[i % cases.length]!;
      const r = await halfOpenUpload(port, headOf('POST', c.path, c.key, total), {
        total,
        chunk: 64 * 1024,
        pauseMs: 1,
      });
      const where = `#${i} ${c.path} (${c.status}): ${r.text.slice(0, 160)} errors=${r.errors.join(',')}`;
      let body: unknown;
      try {
        body = rawJson(r.text);
      } catch {
        body = undefined;
      }
      if (
        rawStatus(r.text) !== c.status ||
        !/\r\nconnection: close\r\n/i.test(rawHeaders(r.text)) ||
        body === undefined ||
        c.error(body) === undefined ||
        r.errors.length > 0 ||
        r.sent !== total
      )
        failures.push(where);
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('an upload past HTTP_LINGER_MAX_BYTES is cut off: the socket closes long before the client is done', async () => {
    const { port } = await start({ timeoutMs: 10_000, maxBytes: MiB });
    const total = 256 * MiB;
    const r = await halfOpenUpload(port, headOf('POST', '/agents/agent-1/a2a', 'wrong', total), {
      total,
      chunk: 64 * 1024,
      pauseMs: 0,
    });
    expect(r.sent).toBeLessThan(64 * MiB);
    expect(r.closedAfterMs).toBeLessThan(5_000); // the cap cut it, not the deadline
    expect(r.errors.length, r.errors.join(',')).toBeGreaterThan(0); // cut: the client sees the reset
  }, 30_000);

  it('an upload dribbled past HTTP_LINGER_TIMEOUT_MS is cut off at the deadline (after its 401 was read)', async () => {
    const timeoutMs = 1_500;
    const { port } = await start({ timeoutMs, maxBytes: 8 * MiB });
    const total = MiB;
    const r = await halfOpenUpload(port, headOf('POST', '/agents/agent-1/a2a/v1', 'wrong', total), {
      total,
      chunk: 1024,
      pauseMs: 50,
    });
    expect(rawStatus(r.text), r.text).toBe(401);
    expect(rawJson(r.text).error.code).toBeDefined();
    expect(r.sent).toBeLessThan(total);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(timeoutMs - 100);
    expect(r.closedAfterMs).toBeLessThan(timeoutMs + 2_000);
  }, 30_000);

  it('a chunked upload over the limit on a body-parser route (legacy) is refused at the limit, not read to its end', async () => {
    const { port } = await start({ timeoutMs: 3_000, maxBytes: 8 * MiB });
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(
      `POST /agents/agent-1/tasks HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${KEY}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    // Chunks for as long as no answer came (body-parser alone would read them until the request timeout).
    const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`;
    let sent = 0;
    const started = Date.now();
    while (!text && !socket.destroyed && Date.now() - started < 5_000) {
      if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r).once('close', r));
      sent += 64 * 1024;
    }
    socket.end();
    await closed;
    expect(rawStatus(text), text.slice(0, 200)).toBe(413);
    expect(rawHeaders(text)).toMatch(/\r\nconnection: close/i);
    expect(rawJson(text).error.code).toBeDefined();
    expect(sent).toBeLessThan(BODY_LIMIT_BYTES + 8 * MiB);
  }, 20_000);

  it('bytes after the refused body are discarded, never parsed as a next request on the closed connection', async () => {
    const { port, seen } = await start({ timeoutMs: 3_000, maxBytes: 8 * MiB });
    const body = '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}';
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(headOf('POST', '/agents/agent-1/a2a', 'wrong', body.length) + body.slice(0, 10));
    await expect.poll(() => rawStatus(text)).toBe(401);
    // The rest of the body, then a pipelined request that must not reach the app.
    socket.write(`${body.slice(10)}GET /ping HTTP/1.1\r\nHost: gw\r\n\r\n`);
    socket.end();
    await closed;
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(seen).toEqual(['POST /agents/agent-1/a2a']);
  });

  it('keep-alive still works: requests whose bodies were read, and a bodiless 401, reuse the connection', async () => {
    const { port } = await start({ timeoutMs: 5_000, maxBytes: 8 * MiB });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, key: string, body?: string) =>
      new Promise<{ status: number; reused: boolean; connection: string | undefined }>((resolve, reject) => {
        const req = request(
          {
            agent,
            host: '127.0.0.1',
            port,
            method,
            path,
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, connection: res.headers.connection }),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no/such', params: {} });
      const first = await send('POST', '/agents/agent-1/a2a', KEY, rpc);
      const second = await send('POST', '/agents/agent-1/a2a', KEY, rpc);
      const bodiless = await send('GET', '/agents/agent-1/a2a/v1/rest/tasks/t-1', 'wrong');
      const third = await send('POST', '/agents/agent-1/a2a', KEY, rpc);
      expect(first).toMatchObject({ status: 200, reused: false, connection: 'keep-alive' });
      expect(second).toMatchObject({ status: 200, reused: true, connection: 'keep-alive' });
      expect(bodiless).toMatchObject({ status: 401, reused: true, connection: 'keep-alive' });
      expect(third).toMatchObject({ status: 200, reused: true, connection: 'keep-alive' });
    } finally {
      agent.destroy();
    }
  });
});
