import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGraphRuntime, GRAPH_STATE_KEY } from '../../src/runtimes/graph-runtime';
import type { GuardedFetch } from '../../src/runtimes/guarded-fetch';
import { fakeRun } from '../support/fake-run';

/** A price service and an OpenAI-compatible provider, counting calls. */
let server: Server;
let base = '';
const calls: { path: string; body: string; auth: string | undefined }[] = [];
let priceStatus = 200;

const read = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString()));
    req.on('end', () => resolve(b));
  });

beforeAll(async () => {
  server = createServer((req, res) => {
    void read(req).then((body) => {
      calls.push({ path: req.url ?? '', body, auth: req.headers['x-key'] as string | undefined });
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/price/')) {
        res.statusCode = priceStatus;
        const sku = decodeURIComponent(req.url.split('/')[2]!.split('?')[0]!);
        return res.end(JSON.stringify({ sku, price: sku === 'gold' ? 500 : 20 }));
      }
      if (req.url === '/v1/chat/completions') {
        const prompt = (JSON.parse(body) as { messages: { content: string }[] }).messages.at(-1)!.content;
        return res.end(
          JSON.stringify({
            choices: [{ message: { role: 'assistant', content: `summary of ${prompt}` }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
          }),
        );
      }
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  calls.length = 0;
  priceStatus = 200;
});

const fetch: GuardedFetch = (url, init) => globalThis.fetch(url, init);
const runtime = createGraphRuntime({ fetch, expressionTimeoutMs: 300 });

const config = () => ({
  steps: [
    {
      id: 'price',
      kind: 'http',
      url: `${base}/price/{sku}`,
      params: '{ "sku": input.sku }',
      headerSecrets: { 'X-Key': 'k' },
    },
    {
      id: 'shape',
      kind: 'transform',
      expression: '{ "sku": steps.price.body.sku, "total": steps.price.body.price * input.qty }',
    },
    { id: 'big', kind: 'branch', condition: 'steps.shape.total > 100', then: ['ask'], else: ['note'] },
    { id: 'ask', kind: 'approval', prompt: '"Order " & steps.shape.sku & " for " & steps.shape.total & "?"' },
    {
      id: 'note',
      kind: 'model',
      baseUrl: `${base}/v1`,
      model: 'm',
      prompt: '"order " & steps.shape.sku',
    },
  ],
  edges: [
    { from: 'price', to: 'shape' },
    { from: 'shape', to: 'big' },
  ],
  output: '{ "total": steps.shape.total, "note": steps.note, "approved": steps.ask.approved }',
});

const dataInput = (data: Record<string, unknown>) => [{ kind: 'data' as const, data }];

describe('graph runtime (executor)', () => {
  it('runs the steps in order, one artifact per step, skips the branch side not taken, completes with the output', async () => {
    const run = fakeRun({ parts: dataInput({ sku: 'tin', qty: 2 }), config: config(), secrets: { k: 'key-1' } });
    await runtime(run.ctx);
    expect(run.artifacts.map((a) => a.name)).toEqual([
      'step:price',
      'step:shape',
      'step:big',
      'step:note',
      'agent_response',
    ]);
    expect(run.artifacts[1]!.parts).toEqual([
      { kind: 'data', data: { step: 'shape', kind: 'transform', output: { sku: 'tin', total: 40 } } },
    ]);
    expect(run.final()).toMatchObject({ state: 'completed' });
    expect(JSON.parse(run.final()!.text)).toEqual({ total: 40, note: 'summary of order tin' });
    expect(calls.map((c) => c.path)).toEqual(['/price/tin', '/v1/chat/completions']);
    expect(calls[0]!.auth).toBe('key-1'); // the header secret, opened at run time
  });

  it("a step after an approval gets the run's input, not the approval reply", async () => {
    const graph = {
      steps: [
        { id: 'ask', kind: 'approval', prompt: '"Go on with " & input.sku & "?"' },
        { id: 'after', kind: 'transform', expression: '{ "sku": input.sku, "qty": input.qty }' },
      ],
      edges: [{ from: 'ask', to: 'after' }],
      output: 'steps.after',
    };
    const first = fakeRun({ parts: dataInput({ sku: 'gold', qty: 3 }), config: graph });
    await runtime(first.ctx);
    expect(first.final()).toMatchObject({ state: 'input-required', text: expect.stringContaining('Go on with gold?') });
    const reply = fakeRun({
      text: 'approve',
      config: graph,
      taskId: first.ctx.taskId,
      // The task's history as stored: the first user message may be trimmed away; the paused state keeps the input.
      history: [first.final()!.message!],
    });
    await runtime(reply.ctx);
    expect(reply.final()?.state).toBe('completed');
    expect(JSON.parse(reply.final()!.text)).toEqual({ sku: 'gold', qty: 3 });
  });

  it('an approval step pauses in input-required; the reply resumes after it without re-running earlier steps', async () => {
    const first = fakeRun({ parts: dataInput({ sku: 'gold', qty: 1 }), config: config(), secrets: { k: 'key-1' } });
    await runtime(first.ctx);
    expect(first.final()).toMatchObject({
      state: 'input-required',
      text: expect.stringContaining('Order gold for 500?'),
    });
    const prompt = first.final()!.message!;
    expect(prompt.metadata?.[GRAPH_STATE_KEY]).toMatchObject({ pending: 'ask' });
    expect(calls).toHaveLength(1);

    const history = [
      {
        kind: 'message' as const,
        role: 'user' as const,
        messageId: 'u1',
        taskId: first.ctx.taskId,
        parts: dataInput({ sku: 'gold', qty: 1 }),
      },
      prompt,
    ];
    const reply = fakeRun({
      text: 'approve',
      config: config(),
      taskId: first.ctx.taskId,
      history,
      secrets: { k: 'key-1' },
    });
    await runtime(reply.ctx);
    expect(reply.artifacts.map((a) => a.name)).toEqual(['step:ask', 'agent_response']);
    expect(JSON.parse(reply.final()!.text)).toEqual({ total: 500, approved: true });
    expect(calls).toHaveLength(1); // the price was not fetched again

    const rejected = fakeRun({ text: 'reject', config: config(), taskId: first.ctx.taskId, history });
    await runtime(rejected.ctx);
    expect(rejected.final()).toEqual(
      expect.objectContaining({ state: 'failed', text: 'Step "ask" (approval) was rejected: the run stopped there.' }),
    );
  });

  it('executed again (redelivered after a crash), it replays completed steps from the checkpoint and runs only the rest', async () => {
    const checkpoint: { value?: unknown } = {};
    const first = fakeRun({
      parts: dataInput({ sku: 'tin', qty: 2 }),
      config: config(),
      taskId: 'task-crash',
      checkpoint,
      secrets: { k: 'k1' },
    });
    // The runner dies while the model step runs: the run is aborted there (its process is gone).
    const origFetch = fetch;
    const dying = createGraphRuntime({
      fetch: async (url, init) => {
        if (url.includes('/chat/completions')) {
          first.abort.abort(new Error('runner died'));
          throw new Error('runner died');
        }
        return origFetch(url, init);
      },
    });
    await expect(dying(first.ctx)).rejects.toThrow();
    expect(first.artifacts.map((a) => a.name)).toEqual(['step:price', 'step:shape', 'step:big']);
    expect(calls.map((c) => c.path)).toEqual(['/price/tin']);

    const again = fakeRun({
      parts: dataInput({ sku: 'tin', qty: 2 }),
      config: config(),
      taskId: 'task-crash',
      checkpoint,
      secrets: { k: 'k1' },
    });
    await runtime(again.ctx);
    // The same events as before for the completed steps (same run_seq: the tasks service drops duplicates) …
    expect(again.artifacts.slice(0, 3)).toEqual(first.artifacts);
    expect(again.artifacts.map((a) => a.name)).toEqual([
      'step:price',
      'step:shape',
      'step:big',
      'step:note',
      'agent_response',
    ]);
    // … but the price service was called once in all: the resumed run started at the model step.
    expect(calls.map((c) => c.path)).toEqual(['/price/tin', '/v1/chat/completions']);
    expect(again.final()).toMatchObject({ state: 'completed' });
  });

  it("records the model steps' token usage: once per run (per model), a replayed step's too, the total on the last status", async () => {
    const graph = {
      steps: [
        { id: 'ask', kind: 'model', baseUrl: `${base}/v1`, model: 'm', prompt: 'input' },
        { id: 'after', kind: 'http', url: `${base}/price/{sku}`, params: '{ "sku": "tin" }' },
      ],
      edges: [{ from: 'ask', to: 'after' }],
    };
    const checkpoint: { value?: unknown } = {};
    const first = fakeRun({ text: 'hi', config: graph, taskId: 'task-usage', checkpoint });
    const reported: unknown[] = [];
    // The runner dies during the step after the model step: that run reports nothing.
    const dying = createGraphRuntime({
      fetch: async (url, init) => {
        if (url.includes('/price/')) {
          first.abort.abort(new Error('runner died'));
          throw new Error('runner died');
        }
        return fetch(url, init);
      },
      onUsage: (u) => reported.push(u),
    });
    await expect(dying(first.ctx)).rejects.toThrow();
    expect(reported).toEqual([]);
    const again = fakeRun({ text: 'hi', config: graph, taskId: 'task-usage', checkpoint });
    await createGraphRuntime({ fetch, onUsage: (u) => reported.push(u) })(again.ctx);
    expect(calls.filter((c) => c.path === '/v1/chat/completions')).toHaveLength(1); // replayed, not called again
    expect(reported).toEqual([
      { promptTokens: 3, completionTokens: 4, totalTokens: 7, model: 'm', taskId: 'task-usage', outcome: 'completed' },
    ]);
    expect(again.final()!.message!.metadata!['a2a-inbound/usage']).toEqual({
      promptTokens: 3,
      completionTokens: 4,
      totalTokens: 7,
      models: ['m'],
    });
  });

  it('a failing step ends the run failed, naming the step and what to check; no secret appears', async () => {
    priceStatus = 503;
    const run = fakeRun({ parts: dataInput({ sku: 'tin', qty: 2 }), config: config(), secrets: { k: 'key-1' } });
    await runtime(run.ctx);
    expect(run.final()).toMatchObject({ state: 'failed' });
    expect(run.final()!.text).toMatch(/^Step "price" \(http\) failed: 127\.0\.0\.1:\d+ answered HTTP 503$/);

    const missing = fakeRun({ parts: dataInput({ sku: 'tin', qty: 2 }), config: config(), secrets: {} });
    await runtime(missing.ctx);
    expect(missing.final()!.text).toBe(
      'Step "price" (http) failed: secret "k" is not available: it does not exist; the agent version needs it',
    );

    priceStatus = 200;
    const badExpr = config();
    badExpr.steps[1] = { id: 'shape', kind: 'transform', expression: '$number("x" & steps.price.body.sku)' };
    const run2 = fakeRun({ parts: dataInput({ sku: 'tin', qty: 2 }), config: badExpr, secrets: { k: 'key-1' } });
    await runtime(run2.ctx);
    expect(run2.final()!.text).toMatch(/^Step "shape" \(transform\): the expression failed: /);

    // A runaway expression (endless recursion) fails its step within JSONata's guardrails.
    const runaway = config();
    runaway.steps[1] = {
      id: 'shape',
      kind: 'transform',
      expression: '($f := function($n) { $f($n + 1) }; $f(steps.price.status))',
    };
    const run3 = fakeRun({ parts: dataInput({ sku: 'tin', qty: 2 }), config: runaway, secrets: { k: 'key-1' } });
    await runtime(run3.ctx);
    expect(run3.final()).toMatchObject({ state: 'failed' });
    expect(run3.final()!.text).toMatch(/^Step "shape" \(transform\): the expression failed: .*(stack|D1011|timeout)/i);

    // An approval cannot carry more than 256 KiB of earlier outputs (they ride in its status event).
    const heavy = {
      steps: [
        { id: 'big', kind: 'transform', expression: '$pad("", 300000, "x")' },
        { id: 'ask', kind: 'approval', prompt: '"ok?"' },
      ],
      edges: [{ from: 'big', to: 'ask' }],
    };
    const run4 = fakeRun({ text: 'go', config: heavy });
    await runtime(run4.ctx);
    expect(run4.final()).toMatchObject({ state: 'failed' });
    expect(run4.final()!.text).toContain('Step "ask" (approval) failed: the outputs of the steps before it exceed');
  });
});
