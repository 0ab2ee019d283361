import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { loadRunnerConfig, startRunnerApp } from '@a2a-inbound/runner';
import { eventually } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, uid } from '../management/helpers';

/**
 * The `graph` runtime (Task Agent) end to end in the embedded layout: the definition checked through the
 * management API, a run started through the invoke endpoints (run id at once, status and per-step outputs in
 * run details and history), an approval step answered on the same run, a runner that dies between steps,
 * against a real HTTP step endpoint and an OpenAI-compatible endpoint that count their calls.
 */
const DEPLOYMENT = 'demo-deployment';

describe('graph runtime (embedded, Task Agent through the invoke endpoints)', () => {
  let system: System;
  let server: Server;
  let upstream = '';
  let base = '';
  let admin = '';
  let invokeKey = '';
  let agent = '';
  const calls: string[] = [];
  /** The first call of `/slow` is held open (its runner dies meanwhile). */
  const held: ServerResponse[] = [];

  const api = (method: string, path: string, body?: unknown) =>
    http(base, method, `/api/v1${path}`, { token: admin, ...(body !== undefined ? { body } : {}) });
  const invoke = (method: string, path: string, body?: unknown) =>
    http(base, method, `/agents/${agent}${path}`, { token: invokeKey, ...(body !== undefined ? { body } : {}) });
  const settled = (runId: string, states = ['completed', 'failed', 'input-required']) =>
    eventually(async () => {
      const r = await invoke('GET', `/runs/${runId}`);
      return states.includes(r.body.status) ? r.body : undefined;
    }, 15_000);

  const graph = () => ({
    steps: [
      { id: 'price', kind: 'http', url: `${upstream}/price/{sku}`, params: '{ "sku": input.sku }' },
      {
        id: 'shape',
        kind: 'transform',
        expression: '{ "sku": steps.price.body.sku, "total": steps.price.body.price * input.qty }',
      },
      { id: 'big', kind: 'branch', condition: 'steps.shape.total > 100', then: ['ask'], else: ['note'] },
      { id: 'ask', kind: 'approval', prompt: '"Order " & steps.shape.sku & " for " & steps.shape.total & "?"' },
      { id: 'note', kind: 'model', baseUrl: `${upstream}/v1`, model: 'm', prompt: '"order " & steps.shape.sku' },
    ],
    edges: [
      { from: 'price', to: 'shape' },
      { from: 'shape', to: 'big' },
    ],
    output: '{ "total": steps.shape.total, "note": steps.note, "approved": steps.ask.approved }',
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      calls.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.url === '/slow' && calls.filter((c) => c === '/slow').length === 1) {
          held.push(res);
          return;
        }
        if (req.url?.startsWith('/first') || req.url === '/slow')
          return res.end(JSON.stringify({ at: req.url, n: calls.length }));
        if (req.url?.startsWith('/price/')) {
          const sku = req.url.split('/')[2]!;
          return res.end(JSON.stringify({ sku, price: sku === 'gold' ? 500 : 20 }));
        }
        res.end(
          JSON.stringify({
            choices: [{ message: { role: 'assistant', content: 'noted' } }],
            usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    system = await startSystem({
      // A closed runner hands its runs back at once (no grace): the "runner dies" of this layout.
      env: { PORT: '0', HOST: '127.0.0.1', EGRESS_ALLOW_CIDRS: '127.0.0.1/32', RUNNER_SHUTDOWN_GRACE_MS: '0' },
      engines: inMemoryEngines(),
      log: createLogger({ service: 'test', level: 'silent' }),
    });
    base = system.baseUrl;
    admin = system.tasks.seed!.credentials!.adminToken;
    invokeKey = system.tasks.seed!.credentials!.invokeKey;
    const created = await api('POST', '/agents', {
      name: uid('Graph'),
      description: 'An order graph',
      type: 'Task Agent',
      skills: [{ id: 'order', name: 'Order', description: 'Orders', tags: [], examples: [] }],
    });
    expect(created.status, created.text).toBe(201);
    agent = created.body.id as string;
  }, 60_000);

  afterAll(async () => {
    for (const r of held) r.destroy();
    await system?.close();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  }, 60_000);

  it('refuses a graph with a cycle, an unbound input or an unknown step kind (400, path and reason); nothing is created', async () => {
    const cyclic = graph();
    cyclic.edges.push({ from: 'note', to: 'price' });
    const unbound = graph();
    unbound.edges.splice(0, 1);
    const unknownKind = { steps: [{ id: 'x', kind: 'shell' }] };
    const cases: [unknown, string, RegExp][] = [
      [cyclic, 'runtimeConfig.edges', /the graph has a cycle: price → shape → big → note → price/],
      [unbound, 'runtimeConfig.steps[1].expression', /steps\.price is not bound here/],
      [unknownKind, 'runtimeConfig.steps[0].kind', /unknown step kind "shell"/],
    ];
    for (const [config, path, reason] of cases) {
      const r = await api('POST', `/agents/${agent}/versions`, {
        version: '0.0.1',
        runtime: 'graph',
        runtimeConfig: config,
      });
      expect(r.status, r.text).toBe(400);
      const problems = r.body.error.details.problems as { path: string; reason: string }[];
      expect(problems.find((p) => p.path === path)?.reason).toMatch(reason);
    }
    const after = await api('GET', `/agents/${agent}`);
    expect(after.status).toBe(200);
    expect(after.body.versions).toEqual([]);
  });

  it('a run starts at once (202, run id), runs in the background, and run details show each step output', async () => {
    const v = await api('POST', `/agents/${agent}/versions`, {
      version: '1.0.0',
      runtime: 'graph',
      runtimeConfig: graph(),
    });
    expect(v.status, v.text).toBe(201);
    expect((await api('POST', `/agents/${agent}/versions/1.0.0/promote`)).status).toBe(200);
    expect((await api('POST', `/deployments/${DEPLOYMENT}/agents`, { agentId: agent })).status).toBe(201);
    calls.length = 0;
    const started = await invoke('POST', '/runs', { data: { sku: 'tin', qty: 2 } });
    expect(started.status, started.text).toBe(202);
    expect(started.body).toMatchObject({ run_id: expect.any(String), run_url: expect.stringContaining('/runs/') });
    const run = await settled(started.body.run_id);
    expect(run.status).toBe('completed');
    expect(JSON.parse(run.output)).toEqual({ total: 40, note: 'noted' });
    expect(run.steps).toEqual([
      { id: 'price', kind: 'http', output: { status: 200, body: { sku: 'tin', price: 20 } } },
      { id: 'shape', kind: 'transform', output: { sku: 'tin', total: 40 } },
      { id: 'big', kind: 'branch', output: false },
      { id: 'note', kind: 'model', output: 'noted' },
    ]);
    expect(calls).toEqual(['/price/tin', '/v1/chat/completions']);
    // The model step's token usage is recorded with the run.
    expect(run.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, models: ['m'] });
    const history = await invoke('GET', '/runs');
    expect(history.body.runs.map((r: { run_id: string }) => r.run_id)).toContain(started.body.run_id);
    // A2A is not available for Task Agents; the blocking run endpoint refuses them too.
    expect((await invoke('POST', '/run', { input: 'x' })).status).toBe(409);
  });

  it('an approval step pauses the run (input-required, the prompt); the reply with run_id resumes it after that step', async () => {
    calls.length = 0;
    const started = await invoke('POST', '/runs', { data: { sku: 'gold', qty: 1 } });
    const paused = await settled(started.body.run_id);
    expect(paused.status).toBe('input-required');
    expect(paused.status_message).toContain('Order gold for 500?');
    expect(paused.steps.map((s: { id: string }) => s.id)).toEqual(['price', 'shape', 'big']);
    const reply = await invoke('POST', '/runs', { run_id: started.body.run_id, input: 'approve' });
    expect(reply.status, reply.text).toBe(202);
    const done = await settled(started.body.run_id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(JSON.parse(done.output)).toEqual({ total: 500, approved: true });
    expect(done.steps.map((s: { id: string }) => s.id)).toEqual(['price', 'shape', 'big', 'ask']);
    expect(done.steps[3].output).toEqual({ approved: true, reply: 'approve' });
    expect(calls).toEqual(['/price/gold']); // the earlier steps did not run again
  });

  it('a runner dies between steps: another runner resumes at the interrupted step; completed steps are not run again', async () => {
    const created = await api('POST', '/agents', {
      name: uid('Graph'),
      description: 'A graph that survives its runner',
      type: 'Task Agent',
      skills: [{ id: 'g', name: 'G', description: 'G', tags: [], examples: [] }],
    });
    const crashAgent = created.body.id as string;
    const v = await api('POST', `/agents/${crashAgent}/versions`, {
      version: '1.0.0',
      runtime: 'graph',
      runtimeConfig: {
        steps: [
          { id: 'first', kind: 'http', url: `${upstream}/first`, params: '{ "q": input.q }' },
          { id: 'slow', kind: 'http', method: 'POST', url: `${upstream}/slow`, timeoutMs: 60_000 },
          { id: 'last', kind: 'transform', expression: '{ "first": steps.first.body.at, "slow": steps.slow.body.at }' },
        ],
        edges: [
          { from: 'first', to: 'slow' },
          { from: 'slow', to: 'last' },
        ],
      },
    });
    expect(v.status, v.text).toBe(201);
    expect((await api('POST', `/agents/${crashAgent}/versions/1.0.0/promote`)).status).toBe(200);
    expect((await api('POST', `/deployments/${DEPLOYMENT}/agents`, { agentId: crashAgent })).status).toBe(201);
    const run = (method: string, path: string, body?: unknown) =>
      http(base, method, `/agents/${crashAgent}${path}`, {
        token: invokeKey,
        ...(body !== undefined ? { body } : {}),
      });
    calls.length = 0;
    const started = await run('POST', '/runs', { data: { q: 'x' } });
    expect(started.status, started.text).toBe(202);
    const runId = started.body.run_id as string;
    // The first step is done (in the run record) and the second is in flight.
    await eventually(async () => Promise.resolve(held.length === 1 ? true : undefined), 15_000);
    const before = await eventually(async () => {
      const r = await run('GET', `/runs/${runId}`);
      return Array.isArray(r.body.steps) && r.body.steps.length > 0 ? r.body : undefined;
    }, 15_000);
    expect(before.status).toBe('working');
    expect(before.steps.map((s: { id: string }) => s.id)).toEqual(['first']);
    // Another runner joins; the one holding the run goes away mid-step (its request goes back to the bus).
    const fresh = await startRunnerApp(
      {
        bus: system.engines.bus,
        cache: system.engines.cache,
        blobs: system.engines.blobs,
        clock: system.engines.clock,
        log: createLogger({ service: 'runner', level: 'silent' }),
      },
      loadRunnerConfig({ RUNNER_GRPC_PORT: '0', EGRESS_ALLOW_CIDRS: '127.0.0.1/32' }, 'runner-after-crash'),
    );
    const dead = system.runners.splice(0, 1, fresh)[0]!;
    await dead.close();
    const done = await eventually(
      async () => {
        const r = await run('GET', `/runs/${runId}`);
        return r.body.status === 'working' ? undefined : r.body;
      },
      30_000,
      100,
    );
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect(calls.filter((c) => c.startsWith('/first'))).toHaveLength(1); // not run again after the crash
    expect(calls.filter((c) => c === '/slow')).toHaveLength(2); // the interrupted step ran again
    expect(done.steps).toEqual([
      { id: 'first', kind: 'http', output: { status: 200, body: { at: '/first?q=x', n: 1 } } },
      { id: 'slow', kind: 'http', output: { status: 200, body: { at: '/slow', n: 3 } } },
      { id: 'last', kind: 'transform', output: { first: '/first?q=x', slow: '/slow' } },
    ]);
    expect(JSON.parse(done.output)).toEqual({ first: '/first?q=x', slow: '/slow' });
  }, 60_000);
});
