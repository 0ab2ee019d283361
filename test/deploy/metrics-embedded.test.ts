// The embedded mode (`npm start`, one process) with METRICS_PORT: after some A2A traffic its /metrics holds
// every metric of issue 13 with the values of that traffic: requests and latencies by method, agent and
// outcome, rate-limit refusals, credits charged, tasks by state, runs in flight and run durations by runtime,
// the in-memory bus's consumer lag, open SSE streams, and webhook deliveries by outcome (retries: none here;
// services/webhooks/test/integration/delivery-metrics.test.ts scrapes them against a receiver that fails).
// The distributed mode's scrape (every process) is in metrics-distributed.test.ts.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { grpc } from '@a2a-inbound/runtime';
import { a2aV1, tasksV1 } from '@a2a-inbound/proto';
import { eventually, manage } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;

/** A port for a child to bind, below the ephemeral range (scripts/cluster.mjs says why). */
async function freePort(): Promise<number> {
  const { freePort: draw } = (await import('../../scripts/cluster.mjs')) as { freePort: () => Promise<number> };
  return draw();
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
  let tasksAddress = '';

  beforeAll(async () => {
    if (!existsSync(join(root, 'embedded/dist/main.js')))
      execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const tasksPort = await freePort();
    tasksAddress = `127.0.0.1:${tasksPort}`;
    child = spawn(process.execPath, [join(root, 'embedded/dist/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        STORE: 'memory',
        LOG_LEVEL: 'warn',
        METRICS_PORT: String(metricsPort),
        // The internal gRPC API on a known port (a push config the public API would refuse, below).
        TASKS_GRPC_PORT: String(tasksPort),
        // Low enough for the rate-limit refusal below, high enough for the rest of this traffic.
        SEED_RATE_LIMIT_PER_MINUTE: '30',
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

  it("counts the HTTP+JSON binding's GET and DELETE requests as A2A requests, by 1.0 operation", async () => {
    const rest = (method: string, path: string): Promise<Response> =>
      fetch(`${base}/agents/demo-echo/a2a/v1/rest${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'a2a-version': '1.0' },
      });
    const sent = await fetch(`${base}/agents/demo-echo/a2a/v1/rest/message:send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'a2a-version': '1.0', 'content-type': 'application/json' },
      body: JSON.stringify({ message: { role: 'ROLE_USER', messageId: 'm-rest', parts: [{ text: 'rest' }] } }),
    });
    expect(sent.status).toBe(200);
    const { task } = (await sent.json()) as { task: { id: string } };
    expect((await rest('GET', `/tasks/${task.id}`)).status).toBe(200);
    expect((await rest('GET', '/tasks/no-such-task')).status).toBe(404);
    expect((await rest('GET', '/tasks')).status).toBe(200);
    // Push is off for demo-echo: the DELETE is answered (and counted) with the push error.
    expect((await rest('DELETE', `/tasks/${task.id}/pushNotificationConfigs/c1`)).status).toBeGreaterThanOrEqual(400);
    const text = await scrape();
    const count = (method: string, outcome: string): number | undefined =>
      sample(text, 'a2a_requests_total', { method, agent: 'demo-echo', outcome });
    expect(count('SendMessage', 'ok')).toBe(1);
    expect(count('GetTask', 'ok')).toBe(1);
    expect(count('GetTask', 'task_not_found')).toBe(1);
    expect(count('ListTasks', 'ok')).toBe(1);
    expect(count('DeleteTaskPushNotificationConfig', 'push_not_supported')).toBe(1);
    expect(
      sample(text, 'a2a_request_duration_seconds_count', { method: 'GetTask', agent: 'demo-echo', outcome: 'ok' }),
    ).toBe(1);
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
    // The run starts once a runner took the request (the first frame may come before): in flight for 1.5 s.
    await eventually(async () => sample(await scrape(), 'a2a_runs_in_flight', { runtime: 'demo:slow' }) === 1);
    while (!(await reader.read()).done) {
      /* until the run ends the stream */
    }
    await sleep(50);
    const text = await scrape();
    expect(sample(text, 'a2a_sse_streams_open')).toBe(0);
    expect(sample(text, 'a2a_runs_in_flight', { runtime: 'demo:slow' })).toBe(0);
    expect(sample(text, 'a2a_requests_total', { method: 'message/stream', agent: 'demo-slow', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'a2a_request_duration_seconds_sum', { method: 'message/stream' })).toBeGreaterThan(1);
  }, 30_000);

  it("counts the gRPC binding's calls as the HTTP bindings' (binding, version, method, agent, outcome), refusals and streams included", async () => {
    const card = (await (await fetch(`${base}/agents/demo-echo/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; tenant?: string }[];
    };
    const grpcInterface = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC')!;
    expect(grpcInterface.tenant).toBe('demo-echo');
    const client = new a2aV1.A2AServiceClient(grpcInterface.url, grpc.credentials.createInsecure());
    const metadata = (auth: string): grpc.Metadata => {
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${auth}`);
      md.set('a2a-version', '1.0');
      return md;
    };
    const getTask = (id: string, auth = key): Promise<{ code: number; task?: a2aV1.Task }> =>
      new Promise((resolve) =>
        client.getTask({ tenant: 'demo-echo', id }, metadata(auth), (err, task) =>
          resolve(err ? { code: err.code } : { code: grpc.status.OK, task }),
        ),
      );
    const message = (messageId: string): a2aV1.SendMessageRequest =>
      a2aV1.SendMessageRequest.fromJSON({
        tenant: 'demo-echo',
        message: { role: 'ROLE_USER', messageId, parts: [{ text: 'over gRPC' }] },
      });
    try {
      const sent = await new Promise<a2aV1.SendMessageResponse>((resolve, reject) =>
        client.sendMessage(message('m-grpc-send'), metadata(key), (err, res) => (err ? reject(err) : resolve(res))),
      );
      expect(sent.payload?.$case).toBe('task');
      const taskId = sent.payload?.$case === 'task' ? sent.payload.task.id : '';
      expect((await getTask(taskId)).task?.id).toBe(taskId);
      expect((await getTask('no-such-task')).code).toBe(grpc.status.NOT_FOUND);
      expect((await getTask(taskId, 'wrong-key')).code).toBe(grpc.status.UNAUTHENTICATED);
      const events: a2aV1.StreamResponse[] = [];
      for await (const e of client.sendStreamingMessage(message('m-grpc-stream'), metadata(key)))
        events.push(e as a2aV1.StreamResponse);
      expect(events.length).toBeGreaterThan(0);
    } finally {
      client.close();
    }
    // Counted when the call ended, which can come after the client read its answer.
    const grpcCount = (text: string, method: string, agent: string, outcome: string): number | undefined =>
      sample(text, 'a2a_requests_total', { binding: 'grpc', version: '1.0', method, agent, outcome });
    await eventually(async () => grpcCount(await scrape(), 'SendStreamingMessage', 'demo-echo', 'ok') === 1);
    const text = await scrape();
    expect(grpcCount(text, 'SendMessage', 'demo-echo', 'ok')).toBe(1);
    expect(grpcCount(text, 'GetTask', 'demo-echo', 'ok')).toBe(1);
    expect(grpcCount(text, 'GetTask', 'demo-echo', 'task_not_found')).toBe(1);
    // Refused before the key was checked: the tenant is caller-chosen text, not a label value.
    expect(grpcCount(text, 'GetTask', '_unknown', 'unauthenticated')).toBe(1);
    expect(
      sample(text, 'a2a_request_duration_seconds_count', {
        binding: 'grpc',
        method: 'SendMessage',
        agent: 'demo-echo',
      }),
    ).toBe(1);
    // The HTTP bindings of the tests above, told apart by the same labels.
    expect(
      sample(text, 'a2a_requests_total', {
        binding: 'jsonrpc',
        version: '0.3.0',
        method: 'message/send',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(text, 'a2a_requests_total', { binding: 'rest', version: '1.0', method: 'SendMessage', outcome: 'ok' }),
    ).toBe(1);
  });

  it('counts rate-limit refusals by agent', async () => {
    let refused = 0;
    for (let i = 0; i < 60 && refused === 0; i++)
      if ((await rpc('demo-approval', 'tasks/get', { id: 'nope' })).status === 429) refused++;
    expect(refused).toBe(1);
    const text = await scrape();
    expect(sample(text, 'a2a_rate_limit_refusals_total', { agent: 'demo-approval' })).toBe(1);
    expect(sample(text, 'a2a_rate_limit_refusals_total', { agent: 'demo-echo' })).toBeUndefined();
  });

  it('counts webhook deliveries by outcome: a push config to a non-public address is refused, never retried', async () => {
    const sut = { tasksAddress, subscriptionId: 'demo-subscription' };
    await manage(sut, 'operator', 'settings.update', {
      agentId: 'demo-slow',
      settings: { pushNotificationsEnabled: true },
    });
    const stream = await rpc(
      'demo-slow',
      'message/stream',
      message('hook', [{ kind: 'data', data: { workMs: 2000 } }]),
    );
    const reader = stream.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = /"(?:taskId|id)":"([^"]+)"/.exec(first)![1]!;
    // Through the internal API (the public one refuses a non-public URL at once): the webhooks service checks
    // the address again before each delivery and refuses it (its DNS-rebinding defence).
    const client = new tasksV1.TasksServiceClient(tasksAddress, grpc.credentials.createInsecure());
    try {
      await new Promise<void>((resolve, reject) =>
        client.setPushConfig(
          {
            caller: {
              subscriptionId: 'demo-subscription',
              deploymentId: 'demo-deployment',
              agentId: 'demo-slow',
              keyId: 'metrics-test',
              protocolVersion: '0.3.0',
            },
            taskId,
            config: {
              id: 'hook',
              url: 'https://127.0.0.1:9/hook',
              token: 'push-token-not-a-label',
              authenticationJson: '',
              protocolVersion: '',
            },
          },
          (err) => (err ? reject(err) : resolve()),
        ),
      );
    } finally {
      client.close();
    }
    while (!(await reader.read()).done) {
      /* until the run ends the stream */
    }
    const text = await eventually(async () => {
      const t = await scrape();
      return (sample(t, 'a2a_webhook_deliveries_total', { outcome: 'refused' }) ?? 0) >= 1 ? t : undefined;
    });
    const refused = sample(text, 'a2a_webhook_deliveries_total', { outcome: 'refused' })!;
    expect(refused).toBeLessThanOrEqual(10); // one per task update after the config landed (timing decides how many)
    expect(sample(text, 'a2a_webhook_deliveries_total', { outcome: 'delivered' })).toBeUndefined();
    expect(sample(text, 'a2a_webhook_delivery_duration_seconds_count', { outcome: 'refused' })).toBe(refused);
    expect(sample(text, 'a2a_webhook_retries_total')).toBeUndefined();
    expect(text).not.toContain('push-token-not-a-label');
  }, 30_000);

  it('reports the bus consumer lag of every consumer group and topic, 0 once the traffic is handled', async () => {
    const text = await eventually(async () => {
      const t = await scrape();
      const lags = t.split('\n').filter((l) => l.startsWith('a2a_bus_consumer_lag{'));
      return lags.length > 0 && lags.every((l) => Number(l.split(' ').at(-1)) === 0) ? t : undefined;
    });
    const topics = new Set(
      text
        .split('\n')
        .filter((l) => l.startsWith('a2a_bus_consumer_lag{'))
        .map((l) => /topic="([^"]+)"/.exec(l)![1]),
    );
    expect([...topics].sort()).toEqual(['a2a.run.cancel', 'a2a.run.requested', 'a2a.task.events', 'a2a.task.updates']);
    for (const l of text.split('\n').filter((x) => x.startsWith('a2a_bus_consumer_lag{')))
      expect(l).toMatch(/group="[^"]+"/);
  });
});
