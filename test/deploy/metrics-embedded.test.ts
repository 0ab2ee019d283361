// The embedded mode (`npm start`, one process) with METRICS_PORT: after some A2A traffic its /metrics holds
// the request counts and latencies by method, agent and outcome, and follows the open SSE streams.
// The distributed mode's scrape (every process, every metric of issue 13) is in metrics-distributed.test.ts.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describe('embedded mode /metrics', () => {
  let child: ChildProcess;
  let out = '';
  let exited: Promise<number | null>;
  let base = '';
  let key = '';
  let metricsUrl = '';

  beforeAll(async () => {
    if (!existsSync(join(root, 'embedded/dist/main.js')))
      execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    child = spawn(process.execPath, [join(root, 'embedded/dist/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        METRICS_PORT: String(metricsPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    exited = new Promise((r) => child.once('exit', (code) => r(code)));
    const deadline = Date.now() + 30_000;
    while (!/a2a key:[\s\S]*curl[\s\S]*\n\n/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no banner:\n${out}`);
      await sleep(25);
    }
    base = /base URL:\s+(http:\/\/\S+)/.exec(out)![1]!;
    key = /a2a key:\s+(\S+)/.exec(out)![1]!;
  }, 60_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  const rpc = (agent: string, method: string, params: unknown, auth = key): Promise<Response> =>
    fetch(`${base}/agents/${agent}/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const message = (text: string, extra: object[] = []): unknown => ({
    message: { role: 'user', messageId: `m-${Math.random()}`, parts: [{ kind: 'text', text }, ...extra] },
  });
  const scrape = async (): Promise<string> => (await fetch(metricsUrl)).text();

  it('counts requests by method, agent and outcome, with latency histograms', async () => {
    expect((await rpc('demo-echo', 'message/send', message('one'))).status).toBe(200);
    expect((await rpc('demo-echo', 'message/send', message('two'))).status).toBe(200);
    expect((await rpc('demo-echo', 'tasks/get', { id: 'nope' })).status).toBe(200);
    expect((await rpc('demo-echo', 'no/such/method', {})).status).toBe(200);
    expect((await rpc('demo-echo', 'tasks/get', { id: 'nope' }, 'wrong-key')).status).toBe(401);
    const text = await scrape();
    expect(sample(text, 'a2a_requests_total', { method: 'message/send', agent: 'demo-echo', outcome: 'ok' })).toBe(2);
    expect(
      sample(text, 'a2a_requests_total', { method: 'tasks/get', agent: 'demo-echo', outcome: 'task_not_found' }),
    ).toBe(1);
    expect(
      sample(text, 'a2a_requests_total', { method: '_OTHER', agent: 'demo-echo', outcome: 'method_not_found' }),
    ).toBe(1);
    // Unauthenticated: the path's agent id is not trusted as a label value.
    expect(sample(text, 'a2a_requests_total', { method: '_none', agent: '_unknown', outcome: 'unauthenticated' })).toBe(
      1,
    );
    expect(sample(text, 'a2a_request_duration_seconds_count', { method: 'message/send', agent: 'demo-echo' })).toBe(2);
    expect(sample(text, 'a2a_request_duration_seconds_bucket', { method: 'message/send', le: '+Inf' })).toBe(2);
    expect(sample(text, 'a2a_sse_streams_open')).toBe(0);
    // Tasks by state, counted in the store: the two sends completed before they answered.
    expect(sample(text, 'a2a_tasks', { state: 'completed' })).toBe(2);
    expect(sample(text, 'a2a_tasks', { state: 'working' })).toBe(0);
    expect(text).not.toContain(key);
  });

  it('counts credits charged (each accepted message once) and runs by runtime and outcome', async () => {
    const before = await scrape();
    const charged0 = sample(before, 'a2a_credits_charged_total') ?? 0;
    const runs0 = sample(before, 'a2a_run_duration_seconds_count', { runtime: 'demo:echo', outcome: 'completed' }) ?? 0;
    const failed0 =
      sample(before, 'a2a_run_duration_seconds_count', { runtime: 'demo:failing', outcome: 'failed' }) ?? 0;
    const repeated = message('charged once');
    expect((await rpc('demo-echo', 'message/send', repeated)).status).toBe(200);
    expect((await rpc('demo-echo', 'message/send', repeated)).status).toBe(200); // an idempotent repeat: free
    expect((await rpc('demo-failing', 'message/send', message('fail'))).status).toBe(200);
    await sleep(100);
    const text = await scrape();
    expect(sample(text, 'a2a_credits_charged_total')).toBe(charged0 + 2);
    expect(sample(text, 'a2a_run_duration_seconds_count', { runtime: 'demo:echo', outcome: 'completed' })).toBe(
      runs0 + 1,
    );
    expect(sample(text, 'a2a_run_duration_seconds_count', { runtime: 'demo:failing', outcome: 'failed' })).toBe(
      failed0 + 1,
    );
    expect(sample(text, 'a2a_runs_in_flight', { runtime: 'demo:echo' })).toBe(0);
  });

  it('follows the open SSE streams', async () => {
    const stream = await rpc(
      'demo-slow',
      'message/stream',
      message('slow', [{ kind: 'data', data: { workMs: 1500 } }]),
    );
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body!.getReader();
    await reader.read(); // the first frame: the stream is open
    expect(sample(await scrape(), 'a2a_sse_streams_open')).toBe(1);
    while (!(await reader.read()).done) {
      /* until the run ends the stream */
    }
    await sleep(50);
    const text = await scrape();
    expect(sample(text, 'a2a_sse_streams_open')).toBe(0);
    expect(sample(text, 'a2a_requests_total', { method: 'message/stream', agent: 'demo-slow', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'a2a_request_duration_seconds_sum', { method: 'message/stream' })).toBeGreaterThan(1);
  }, 30_000);
});
