import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aFastPath, appMessageClasses } from '../../src/http/a2a-fast-path';

// A layer that throws synchronously on the fast path must reach the error handler (as Express's layers do),
// never the server's request listener, where it would be an uncaught exception.

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function serve(before: RequestHandler[], guard: RequestHandler): Promise<string> {
  const app = express();
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
    res.status(500).json({ jsonrpc: '2.0', id: null, error: { code: -32603, message: err.message } });
  };
  const handler = async (_req: unknown, res: { json: (b: unknown) => void }): Promise<void> => {
    res.json({ ok: true });
  };
  const endpoint = { guard, handler, onError } as unknown as Parameters<typeof a2aFastPath>[0]['endpoint'];
  const fast = a2aFastPath({ app, before, endpoint, v1: endpoint, v1Rest: endpoint });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!fast(req, res)) {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  close = () => new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('A2A fast path (ADR 0067)', () => {
  it('a middleware that throws synchronously is answered by the error handler, not thrown out of the listener', async () => {
    const base = await serve(
      [
        () => {
          throw new Error('middleware broke');
        },
      ],
      (_req, _res, next) => next(),
    );
    const r = await fetch(`${base}/agents/a1/a2a`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ error: { code: -32603, message: 'middleware broke' } });
  });

  it('a guard that throws synchronously is answered by the error handler too; a passing one reaches the handler', async () => {
    const throwing = await serve([], () => {
      throw new Error('guard broke');
    });
    const r = await fetch(`${throwing}/agents/a1/a2a/v0.3`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ error: { message: 'guard broke' } });
    await close?.();
    const passing = await serve([], (_req, _res, next) => next());
    const ok = await fetch(`${passing}/agents/a1/a2a/v1`, { method: 'POST', body: '{}' });
    expect(await ok.json()).toEqual({ ok: true });
  });

  it('gives the HTTP+JSON binding the plain spellings of /a2a/v1/rest/…, routed as the 1.0 router routes them', async () => {
    const app = express();
    const seen: unknown[] = [];
    const endpoint = (name: string) =>
      ({
        guard: (_req: unknown, _res: unknown, next: () => void) => next(),
        handler: async (
          req: { baseUrl: string; url: string; path: string; params: unknown },
          res: { json: (b: unknown) => void },
        ) => {
          seen.push([name, req.baseUrl, req.url, req.path, req.params]);
          res.json({ ok: true });
        },
        onError: () => undefined,
      }) as unknown as Parameters<typeof a2aFastPath>[0]['endpoint'];
    const fast = a2aFastPath({
      app,
      before: [],
      endpoint: endpoint('0.3'),
      v1: endpoint('v1'),
      v1Rest: endpoint('rest'),
    });
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (!fast(req, res)) {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    close = () => new Promise<void>((r) => server.close(() => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const taken: [string, string][] = [
      ['POST', '/agents/a1/a2a/v1/rest/message:send'],
      ['GET', '/agents/a1/a2a/v1/rest/tasks/t-1'],
      ['DELETE', '/agents/a1/a2a/v1/rest/tasks/t-1/pushNotificationConfigs/c1'],
      ['POST', '/agents/a1/a2a/v1'],
    ];
    for (const [method, path] of taken) expect((await fetch(`${base}${path}`, { method })).status, path).toBe(200);
    expect(seen).toEqual([
      ['rest', '/agents/a1/a2a/v1/rest', '/message:send', '/message:send', { agentId: 'a1' }],
      ['rest', '/agents/a1/a2a/v1/rest', '/tasks/t-1', '/tasks/t-1', { agentId: 'a1' }],
      [
        'rest',
        '/agents/a1/a2a/v1/rest',
        '/tasks/t-1/pushNotificationConfigs/c1',
        '/tasks/t-1/pushNotificationConfigs/c1',
        { agentId: 'a1' },
      ],
      ['v1', '/agents/a1/a2a/v1', '/', '/', { agentId: 'a1' }],
    ]);
    // Left to Express: a query string, percent-encoding, an empty segment, a trailing slash, `/rest` alone, HEAD, PUT,
    // and GET or DELETE of the JSON-RPC endpoints.
    const left: [string, string][] = [
      ['GET', '/agents/a1/a2a/v1/rest/tasks/t-1?historyLength=1'],
      ['GET', '/agents/a1/a2a/v1/rest/tasks/t%2D1'],
      ['GET', '/agents/a1/a2a/v1/rest//tasks'],
      ['GET', '/agents/a1/a2a/v1/rest/tasks/'],
      ['POST', '/agents/a1/a2a/v1/rest'],
      ['HEAD', '/agents/a1/a2a/v1/rest/tasks/t-1'],
      ['PUT', '/agents/a1/a2a/v1/rest/message:send'],
      ['GET', '/agents/a1/a2a/v1'],
      ['DELETE', '/agents/a1/a2a'],
    ];
    for (const [method, path] of left) expect((await fetch(`${base}${path}`, { method })).status, path).toBe(404);
    expect(seen).toHaveLength(4);
  });

  it("a server made with appMessageClasses hands out requests and responses with the app's prototypes, whole", async () => {
    const app = express();
    const seen: unknown[] = [];
    app.post('/x', express.json(), (req, res) => {
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
      seen.push(req.get('x-probe'), req.body, req.socket.remoteAddress, req.httpVersion);
      res.status(201).set('x-answer', 'yes').json({ got: req.body });
    });
    const server = createServer(appMessageClasses(app), (req, res) => {
      // Before Express touches them: Node built them with the app's prototypes.
      seen.push(Object.getPrototypeOf(req) === app.request, Object.getPrototypeOf(res) === app.response);
      app(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    close = () => new Promise<void>((r) => server.close(() => r()));
    const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-probe': 'p1' },
      body: '{"a":1}',
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('x-answer')).toBe('yes');
    expect(await r.json()).toEqual({ got: { a: 1 } });
    expect(seen).toEqual([true, true, true, true, 'p1', { a: 1 }, '127.0.0.1', '1.1']);
  });
});
