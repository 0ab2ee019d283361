// The distributed mode (separate processes on Kafka, FerretDB and Redis: tasks, webhooks, linker, two runners,
// two gateways), each serving /metrics: after some traffic, every metric issue 13 lists is scraped from the
// process that owns it, with the values this traffic must have produced (a fresh namespace: exact counts).
// Needs the engines (REDIS_URL, KAFKA_BROKERS, MONGO_URL: `npm test` sets them) and the bundles (`npm run build`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpc } from '@a2a-inbound/runtime';
import { eventually, manage, rpc, sseFrames, textMessage, type Sut } from '@a2a-inbound/testing';
import { tasksV1 } from '@a2a-inbound/proto';
import { engineUrlsSet, startDistributed, type Cluster } from '../distributed/cluster';

/** The value of the first sample of `name` whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

/** The sum over several processes' scrapes (replicas), 0 where a process has no such sample. */
const total = (texts: string[], name: string, labels: Record<string, string> = {}): number =>
  texts.reduce((s, t) => s + (sample(t, name, labels) ?? 0), 0);

const slowMessage = (workMs: number, text: string): Record<string, unknown> => ({
  ...textMessage(text),
  parts: [
    { kind: 'text', text },
    { kind: 'data', data: { workMs } },
  ],
});

describe.runIf(engineUrlsSet)('distributed mode /metrics after traffic', () => {
  let cluster: Cluster;
  let sut: Sut;
  let namespace: string;
  const url = (base: string, agent: string): string => `${base}/agents/${agent}/a2a`;
  const scrape = async (name: string): Promise<string> => {
    const res = await fetch(cluster.metricsUrls.get(name)!);
    expect(res.status, name).toBe(200);
    return res.text();
  };
  const scrapeAll = (prefix: string): Promise<string[]> =>
    Promise.all([...cluster.metricsUrls.keys()].filter((n) => n.startsWith(prefix)).map(scrape));
  const send = async (base: string, agent: string, params: Record<string, unknown>) => {
    const r = await rpc(
      url(base, agent),
      { jsonrpc: '2.0', id: 1, method: 'message/send', params },
      { key: sut.a2aKey },
    );
    expect(r.body?.error, r.text).toBeUndefined();
    return r.body.result as { id: string; status: { state: string } };
  };

  beforeAll(async () => {
    ({ cluster, sut, namespace } = await startDistributed({
      metrics: true,
      // Low enough for the rate-limit refusal below, high enough for the rest of this traffic.
      tasksEnv: { SEED_RATE_LIMIT_PER_MINUTE: '20' },
    }));
    expect([...cluster.metricsUrls.keys()].sort()).toEqual(
      ['gateway-1', 'gateway-2', 'linker', 'runner-1', 'runner-2', 'tasks', 'webhooks'].sort(),
    );
    await manage(sut, 'operator', 'settings.update', {
      agentId: 'demo-slow',
      settings: { pushNotificationsEnabled: true },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.stopAll();
  }, 120_000);

  it('every listed metric, from the process that owns it, with the values of the traffic', async () => {
    const [g1, g2] = cluster.gateways as [string, string];
    const { credits: creditsBefore } = (await manage(sut, 'admin', 'credits.get', {})) as { credits: number };

    // Traffic through both gateways: 3 completed, 1 failed, 1 canceled, an unknown task, a refused caller.
    for (const [i, g] of [g1, g1, g2].entries()) {
      expect((await send(g, 'demo-echo', { message: textMessage(`echo ${i}`) })).status.state).toBe('completed');
    }
    expect((await send(g1, 'demo-failing', { message: textMessage('fail') })).status.state).toBe('failed');
    const toCancel = await send(g2, 'demo-slow', {
      message: slowMessage(30_000, 'cancel me'),
      configuration: { blocking: false },
    });
    // Cancel once a runner runs it: a cancel that comes first is marked for the runners, which then skip the
    // request and record no run (be1f634), and this test counts the canceled run's outcome.
    await eventually(
      async () => total(await scrapeAll('runner-'), 'a2a_runs_in_flight', { runtime: 'demo:slow' }) === 1,
    );
    await eventually(async () => {
      const c = await rpc(
        url(g2, 'demo-slow'),
        { jsonrpc: '2.0', id: 2, method: 'tasks/cancel', params: { id: toCancel.id } },
        { key: sut.a2aKey },
      );
      return c.body?.result?.status?.state === 'canceled';
    });
    const unknown = await rpc(
      url(g1, 'demo-echo'),
      { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: 'no-such-task' } },
      { key: sut.a2aKey },
    );
    expect(unknown.body?.error?.code).toBe(-32001);
    let refused = 0;
    for (let i = 0; i < 60 && refused === 0; i++) {
      const r = await rpc(
        url(g1, 'demo-approval'),
        { jsonrpc: '2.0', id: 4, method: 'tasks/get', params: { id: 'no-such-task' } },
        { key: sut.a2aKey },
      );
      if (r.status === 429) refused++;
    }
    expect(refused).toBe(1);
    // The canceled run ends on its runner once the cancel reaches it over the bus: wait until it has.
    await eventually(
      async () => total(await scrapeAll('runner-'), 'a2a_runs_in_flight', { runtime: 'demo:slow' }) === 0,
    );

    // A stream through gateway 2, open while the other processes are scraped.
    const stream = await fetch(url(g2, 'demo-slow'), {
      method: 'POST',
      headers: { authorization: `Bearer ${sut.a2aKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'message/stream',
        params: { message: slowMessage(4_000, 'stream me') },
      }),
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const frames = sseFrames(stream);
    const first = (await frames.next()).value as { data: { result: { id?: string; taskId?: string } } };
    const streamTaskId = first.data.result.taskId ?? first.data.result.id!;
    // A push config registered through the internal API (the public one refuses non-public URLs at once): the
    // webhooks service re-checks the address before delivering and refuses it (its DNS-rebinding defence).
    const tasksClient = new tasksV1.TasksServiceClient(sut.tasksAddress, grpc.credentials.createInsecure());
    try {
      await new Promise<void>((resolve, reject) =>
        tasksClient.setPushConfig(
          {
            caller: {
              subscriptionId: sut.subscriptionId,
              deploymentId: 'demo-deployment',
              agentId: 'demo-slow',
              keyId: 'metrics-test',
              protocolVersion: '0.3.0',
            },
            taskId: streamTaskId,
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
      tasksClient.close();
    }

    const [gw1Open, gw2Open] = [await scrape('gateway-1'), await scrape('gateway-2')];
    expect(sample(gw2Open, 'a2a_sse_streams_open'), gw2Open).toBe(1);
    expect(sample(gw1Open, 'a2a_sse_streams_open'), gw1Open).toBe(0);
    // The stream's run (the canceled one has ended, above).
    await eventually(
      async () => total(await scrapeAll('runner-'), 'a2a_runs_in_flight', { runtime: 'demo:slow' }) === 1,
    );
    // Tasks by state, from the store: the same on every tasks replica.
    const tasksOpen = await scrape('tasks');
    expect(
      Object.fromEntries(
        ['working', 'input-required', 'completed', 'failed', 'canceled'].map((s) => [
          s,
          sample(tasksOpen, 'a2a_tasks', { state: s }),
        ]),
      ),
      tasksOpen,
    ).toEqual({ working: 1, 'input-required': 0, completed: 3, failed: 1, canceled: 1 });
    expect(sample(tasksOpen, 'a2a_tasks_count_age_seconds')).toBeLessThan(15);

    for await (const f of frames) if ((f.data as { result?: { final?: boolean } })?.result?.final) break;

    // Gateways: requests by method, agent and outcome, latency histograms, refusals, streams closed.
    const gws = await eventually(async () => {
      const t = await scrapeAll('gateway-');
      return total(t, 'a2a_requests_total', { method: 'message/stream', agent: 'demo-slow', outcome: 'ok' }) === 1 &&
        total(t, 'a2a_sse_streams_open') === 0
        ? t
        : undefined;
    });
    const gwText = gws.join('\n');
    expect(
      total(gws, 'a2a_requests_total', { method: 'message/send', agent: 'demo-echo', outcome: 'ok' }),
      gwText,
    ).toBe(3);
    expect(sample(gws[0]!, 'a2a_requests_total', { method: 'message/send', agent: 'demo-echo', outcome: 'ok' })).toBe(
      2,
    );
    expect(sample(gws[1]!, 'a2a_requests_total', { method: 'message/send', agent: 'demo-echo', outcome: 'ok' })).toBe(
      1,
    );
    expect(total(gws, 'a2a_requests_total', { method: 'message/send', agent: 'demo-failing', outcome: 'ok' })).toBe(1);
    expect(total(gws, 'a2a_requests_total', { method: 'tasks/cancel', agent: 'demo-slow', outcome: 'ok' })).toBe(1);
    expect(
      total(gws, 'a2a_requests_total', { method: 'tasks/get', agent: 'demo-echo', outcome: 'task_not_found' }),
    ).toBe(1);
    expect(total(gws, 'a2a_rate_limit_refusals_total', { agent: 'demo-approval' }), gwText).toBe(1);
    expect(total(gws, 'a2a_request_duration_seconds_count', { method: 'message/send', agent: 'demo-echo' })).toBe(3);
    expect(
      total(gws, 'a2a_request_duration_seconds_bucket', { method: 'message/send', agent: 'demo-echo', le: '+Inf' }),
    ).toBe(3);
    const streamSeconds = total(gws, 'a2a_request_duration_seconds_sum', { method: 'message/stream' });
    expect(streamSeconds).toBeGreaterThan(3);
    expect(streamSeconds).toBeLessThan(60);

    // Runners (two replicas): runs by runtime and outcome, none in flight now.
    const runners = await eventually(async () => {
      const t = await scrapeAll('runner-');
      return total(t, 'a2a_run_duration_seconds_count', { runtime: 'demo:slow', outcome: 'completed' }) === 1 &&
        total(t, 'a2a_runs_in_flight', { runtime: 'demo:slow' }) === 0
        ? t
        : undefined;
    });
    expect(total(runners, 'a2a_run_duration_seconds_count', { runtime: 'demo:echo', outcome: 'completed' })).toBe(3);
    expect(total(runners, 'a2a_run_duration_seconds_count', { runtime: 'demo:failing', outcome: 'failed' })).toBe(1);
    expect(total(runners, 'a2a_run_duration_seconds_count', { runtime: 'demo:slow', outcome: 'canceled' })).toBe(1);
    expect(
      total(runners, 'a2a_run_duration_seconds_sum', { runtime: 'demo:slow', outcome: 'completed' }),
    ).toBeGreaterThan(3);
    expect(total(runners, 'a2a_runs_in_flight', { runtime: 'demo:echo' })).toBe(0);

    // Tasks: credits charged, one per accepted message (a fresh subscription: the balance tells the truth).
    const tasksText = await scrape('tasks');
    const { credits: creditsAfter, cost } = (await manage(sut, 'admin', 'credits.get', {})) as {
      credits: number;
      cost: number;
    };
    expect(sample(tasksText, 'a2a_credits_charged_total'), tasksText).toBe(6 * cost);
    expect(creditsBefore - creditsAfter).toBe(6 * cost);

    // Webhooks: the stream's status updates after the push config was set, each refused, never retried.
    const hooks = await eventually(async () => {
      const t = await scrape('webhooks');
      return (sample(t, 'a2a_webhook_deliveries_total', { outcome: 'refused' }) ?? 0) >= 1 ? t : undefined;
    });
    const refusedDeliveries = sample(hooks, 'a2a_webhook_deliveries_total', { outcome: 'refused' })!;
    // One refused delivery per task update after the push config landed: the final one, and as many working
    // updates (progress, artifact deltas) as the stream emitted after it — how many depends on timing.
    expect(refusedDeliveries).toBeGreaterThanOrEqual(1);
    expect(refusedDeliveries).toBeLessThanOrEqual(10);
    expect(sample(hooks, 'a2a_webhook_deliveries_total', { outcome: 'delivered' })).toBeUndefined();
    expect(sample(hooks, 'a2a_webhook_retries_total')).toBeUndefined();
    expect(sample(hooks, 'a2a_webhook_delivery_duration_seconds_count', { outcome: 'refused' })).toBe(
      refusedDeliveries,
    );
    expect(hooks).not.toContain('push-token-not-a-label');

    // Bus consumer lag: every consuming process, per group and topic of this namespace, small once idle.
    for (const name of ['tasks', 'webhooks', 'runner-1', 'runner-2']) {
      const text = await scrape(name);
      const lags = text.split('\n').filter((l) => l.startsWith('a2a_bus_consumer_lag{'));
      expect(lags.length, `${name}:\n${text}`).toBeGreaterThan(0);
      for (const l of lags) {
        expect(l).toContain(namespace);
        const lag = Number(l.split(' ').at(-1));
        expect(lag).toBeGreaterThanOrEqual(0);
        expect(lag).toBeLessThan(100);
      }
    }
    // Every process: uptime, and no secret in any scrape.
    for (const name of cluster.metricsUrls.keys()) {
      const text = await scrape(name);
      const service = name.replace(/-\d+$/, '');
      expect(sample(text, 'process_uptime_seconds', { service: `a2a-inbound-${service}` }), name).toBeGreaterThan(0);
      expect(text).not.toContain(sut.a2aKey);
    }
  }, 180_000);
});
