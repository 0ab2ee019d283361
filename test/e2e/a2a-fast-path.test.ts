import { request } from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { textMessage } from '@a2a-inbound/testing';

/**
 * The `node:http` fast path for `POST /agents/:id/a2a[/v0.3|/v0.2|/v1]` (ADR 0067): taken for those URLs, and answering
 * what Express answers. The same request with a query string goes through Express (the fast path takes
 * only the plain spelling), so each case is sent both ways and the answers compared: status, every header in order
 * (but `Date`) and the body.
 */

interface Answer {
  status: number;
  headers: string[];
  body: string;
}

function post(
  base: string,
  path: string,
  body: string | Buffer,
  headers: Record<string, string>,
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = res.rawHeaders.slice();
        const at = raw.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'date');
        if (at >= 0) raw[at + 1] = '<date>';
        // Each request takes one from the agent's rate limit, whichever path it came by.
        const left = raw.findIndex((h, i) => i % 2 === 0 && h === 'X-RateLimit-Remaining');
        if (left >= 0) raw[left + 1] = '<remaining>';
        resolve({ status: res.statusCode ?? 0, headers: raw, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    // A refusal before the body is read closes the connection: the rest of a large body may not be taken.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' ? undefined : reject(err)));
    req.end(body);
  });
}

describe('the A2A fast path', () => {
  let system: System;
  let key: string;
  let logText = '';
  // Express's `app.handle` (copied onto each app when it is made): how often a request went through Express.
  const handle = vi.spyOn(express.application as unknown as { handle: (...args: unknown[]) => void }, 'handle');

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logText += chunk.toString('utf8');
        cb();
      },
    });
    system = await startSystem({
      // A small body limit, so that "too large" is cheap to send.
      env: { PORT: '0', HOST: '127.0.0.1', STORE: 'memory', BODY_LIMIT_BYTES: String(64 * 1024) },
      log: createLogger({ service: 'embedded', level: 'info', destination }),
      resolver: async () => ['93.184.216.34'],
    });
    key = system.tasks.seed!.credentials!.a2aKey;
  });
  afterAll(async () => {
    handle.mockRestore();
    await system?.close();
  });

  const json = { 'Content-Type': 'application/json' };
  const auth = (): Record<string, string> => ({ ...json, Authorization: `Bearer ${key}` });
  const send = (id: number, messageId: string): string =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'message/send',
      params: { message: { ...textMessage('fast'), messageId } },
    });

  /** Sends a request on the fast path and through Express; returns both answers and how often Express ran. */
  const both = async (path: string, body: string | Buffer, headers: Record<string, string>) => {
    handle.mockClear();
    const fast = await post(system.baseUrl, path, body, headers);
    const viaFast = handle.mock.calls.length;
    const slow = await post(system.baseUrl, `${path}?via=express`, body, headers);
    return { fast, slow, expressCalls: [viaFast, handle.mock.calls.length - viaFast] };
  };

  it('answers a send and a tasks/get without Express, with the headers and body Express writes', async () => {
    const sent = await both('/agents/demo-echo/a2a', send(1, 'fast-path-1'), auth());
    expect(sent.expressCalls).toEqual([0, 1]);
    expect(sent.fast.status).toBe(200);
    const task = JSON.parse(sent.fast.body) as { id: number; result: { id: string; status: { state: string } } };
    expect(task.result.status.state).toBe('completed');
    // The second send (the same messageId) answers the stored task: the same bytes.
    expect(sent.fast).toEqual(sent.slow);

    const get = JSON.stringify({ jsonrpc: '2.0', id: 'g', method: 'tasks/get', params: { id: task.result.id } });
    for (const path of ['/agents/demo-echo/a2a', '/agents/demo-echo/a2a/v0.3']) {
      const got = await both(path, get, auth());
      expect(got.expressCalls).toEqual([0, 1]);
      expect(got.fast).toEqual(got.slow);
      expect(got.fast.status).toBe(200);
      expect(got.fast.headers).toContain('Access-Control-Allow-Origin');
    }
    // The same messageId again: the stored answer, the same bytes both ways.
    const replay = await both('/agents/demo-echo/a2a', send(2, 'fast-path-1'), auth());
    expect(replay.fast).toEqual(replay.slow);
  });

  it.each([
    ['bad JSON', '/agents/demo-echo/a2a', '{"jsonrpc": "2.0", "id": 1,', 'auth', 200, -32700],
    ['an empty body', '/agents/demo-echo/a2a', '', 'auth', 200, -32700],
    ['invalid UTF-8', '/agents/demo-echo/a2a', Buffer.from([0x7b, 0xff, 0x7d]), 'auth', 200, -32700],
    [
      'no key',
      '/agents/demo-echo/a2a',
      '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}',
      'none',
      401,
      -32050,
    ],
    [
      'a wrong key',
      '/agents/demo-echo/a2a',
      '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}',
      'wrong',
      401,
      -32050,
    ],
    [
      'an unknown agent',
      '/agents/no-such-agent/a2a',
      '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}',
      'auth',
      404,
      -32052,
    ],
    [
      'an unknown method',
      '/agents/demo-echo/a2a',
      '{"jsonrpc":"2.0","id":7,"method":"tasks/nothing","params":{}}',
      'auth',
      200,
      -32601,
    ],
    [
      'an unknown task',
      '/agents/demo-echo/a2a/v0.2',
      '{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"id":"none"}}',
      'auth',
      200,
      -32001,
    ],
    ['not JSON-RPC', '/agents/demo-echo/a2a', '{"id":1,"method":"tasks/get"}', 'auth', 200, -32600],
    [
      'a refused stream',
      '/agents/demo-echo/a2a',
      '{"jsonrpc":"2.0","id":3,"method":"message/stream","params":{}}',
      'auth',
      200,
      -32602,
    ],
    [
      'too large',
      '/agents/demo-echo/a2a',
      `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"${'x'.repeat(70_000)}"}}`,
      'auth',
      413,
      -32600,
    ],
  ] as const)('answers %s as Express does', async (_name, path, body, who, status, code) => {
    const headers =
      who === 'none' ? json : who === 'wrong' ? { ...json, Authorization: 'Bearer sk-a2a-not-a-key' } : auth();
    const r = await both(path, body, headers);
    expect(r.expressCalls).toEqual([0, 1]);
    expect(r.fast).toEqual(r.slow);
    expect(r.fast.status).toBe(status);
    const data = r.fast.body.startsWith('data: ') ? r.fast.body.slice(6) : r.fast.body;
    expect((JSON.parse(data) as { error: { code: number } }).error.code).toBe(code);
  });

  it('answers the 1.0 JSON-RPC binding (/a2a/v1) without Express, as Express does', async () => {
    const v1 = { ...auth(), 'A2A-Version': '1.0' };
    const message = { role: 'ROLE_USER', messageId: 'fast-path-v1', parts: [{ text: 'fast' }] };
    const sent = await both(
      '/agents/demo-echo/a2a/v1',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
      v1,
    );
    expect(sent.expressCalls).toEqual([0, 1]);
    expect(sent.fast).toEqual(sent.slow);
    const task = (JSON.parse(sent.fast.body) as { result: { task: { id: string; status: { state: string } } } }).result
      .task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const cases: [string, Record<string, string>][] = [
      [JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: task.id } }), v1],
      ['{"jsonrpc":"2.0","id":3,', v1],
      [JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'NoSuchMethod', params: {} }), v1],
      [
        JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: task.id } }),
        { ...json, 'A2A-Version': '1.0' },
      ],
      [JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'GetTask', params: { id: task.id } }), auth()],
    ];
    for (const [body, headers] of cases) {
      const r = await both('/agents/demo-echo/a2a/v1', body, headers);
      expect(r.expressCalls, body).toEqual([0, 1]);
      expect(r.fast, body).toEqual(r.slow);
    }
  });

  it('answers the 1.0 HTTP+JSON binding (/a2a/v1/rest/…) without Express, as Express does', async () => {
    // Through Express: the same URL spelt `/Agents/…`, which Express routes alike (its paths are case-insensitive) and
    // the fast path leaves to it (a query string would be read as the request's fields, and its A2A-Version too).
    const rest = async (method: string, path: string, body: string, headers: Record<string, string>) => {
      handle.mockClear();
      const fast = await post(system.baseUrl, path, body, headers, method);
      const viaFast = handle.mock.calls.length;
      const slow = await post(system.baseUrl, path.replace(/^\/agents\//, '/Agents/'), body, headers, method);
      return { fast, slow, expressCalls: [viaFast, handle.mock.calls.length - viaFast] };
    };
    const v1 = { ...auth(), 'A2A-Version': '1.0' };
    const base = '/agents/demo-echo/a2a/v1/rest';
    const message = { role: 'ROLE_USER', messageId: 'fast-path-rest', parts: [{ text: 'fast' }] };
    const sent = await rest('POST', `${base}/message:send`, JSON.stringify({ message }), v1);
    expect(sent.expressCalls).toEqual([0, 1]);
    // The second send (the same messageId) answers the stored task: the same bytes.
    expect(sent.fast).toEqual(sent.slow);
    expect(sent.fast.status).toBe(200);
    expect(sent.fast.headers).toContain('application/a2a+json; charset=utf-8');
    const task = (JSON.parse(sent.fast.body) as { task: { id: string; status: { state: string } } }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const cases: [string, string, string, Record<string, string>, number][] = [
      ['GET', `${base}/tasks/${task.id}`, '', v1, 200],
      ['GET', `${base}/tasks/no-such-task`, '', v1, 404],
      ['POST', `${base}/tasks/${task.id}:cancel`, '{}', v1, 400],
      // The echo agent takes no push configs: refused, the same way both ways.
      ['GET', `${base}/tasks/${task.id}/pushNotificationConfigs`, '', v1, 400],
      ['DELETE', `${base}/tasks/${task.id}/pushNotificationConfigs/none`, '', v1, 400],
      ['POST', `${base}/message:send`, '{"message":', v1, 400],
      ['POST', `${base}/message:send`, '[1]', v1, 400],
      ['POST', `${base}/message:send`, JSON.stringify({ message: { ...message, messageId: 'fp-r2' } }), auth(), 400],
      ['POST', `${base}/message:send`, JSON.stringify({ message }), { ...json, 'A2A-Version': '1.0' }, 401],
      ['POST', `${base}/message:send`, `{"message":"${'x'.repeat(70_000)}"}`, v1, 413],
      ['DELETE', `${base}/message:send`, '', v1, 400],
      ['GET', `${base}/no/such/operation`, '', v1, 404],
      ['GET', `/agents/no-such-agent/a2a/v1/rest/tasks/${task.id}`, '', v1, 404],
    ];
    const statuses: [string, number, number][] = [];
    for (const [method, path, body, headers, status] of cases) {
      const r = await rest(method, path, body, headers);
      const name = `${method} ${path.slice(0, 80)} ${body.slice(0, 40)}`;
      expect(r.expressCalls, name).toEqual([0, 1]);
      expect(r.fast, name).toEqual(r.slow);
      statuses.push([name, r.fast.status, status]);
    }
    expect(statuses.filter(([, got, want]) => got !== want)).toEqual([]);
  });

  it('refuses an A2A-Version it does not serve as Express does', async () => {
    const body = '{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"id":"x"}}';
    const r = await both('/agents/demo-echo/a2a', body, { ...auth(), 'A2A-Version': '1.0' });
    expect(r.expressCalls).toEqual([0, 1]);
    expect(r.fast).toEqual(r.slow);
    expect((JSON.parse(r.fast.body) as { error: { code: number } }).error.code).toBe(-32004);
  });

  it('leaves other methods, paths and spellings to Express', async () => {
    for (const path of [
      '/agents/demo-echo/a2a/',
      '/Agents/demo-echo/a2a',
      '/agents/demo%2Decho/a2a',
      '/agents/demo-echo/a2a/v1/rest/message:send?A2A-Version=1.0',
      '/agents/demo-echo/a2a/v1/rest/tasks%3Acancel',
      '/agents/demo-echo/a2a/v0.4',
    ]) {
      handle.mockClear();
      await post(system.baseUrl, path, '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}', auth());
      expect(handle.mock.calls.length, path).toBe(1);
    }
  });

  it('logs a fast-path request as Express logs it', async () => {
    await post(
      system.baseUrl,
      '/agents/demo-echo/a2a',
      '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x"}}',
      {
        ...json,
        Authorization: 'Bearer sk-a2a-logged-never',
      },
    );
    let line: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      line = logText
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === 'request' && l.status === 401 && l.path === '/agents/demo-echo/a2a');
      if (!line) await new Promise((r) => setTimeout(r, 10));
    }
    expect(line).toMatchObject({ method: 'POST', path: '/agents/demo-echo/a2a', status: 401 });
    expect(logText).not.toContain('sk-a2a-logged-never');
  });
});
