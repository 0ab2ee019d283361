import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryBus, InMemoryDocumentStore } from '@a2a-inbound/ports';
import { eventsV1, webhooksV1 } from '@a2a-inbound/proto';
import { call, grpc } from '@a2a-inbound/runtime';
import { eventually } from '@a2a-inbound/testing';
import { startWebhooksApp, TASK_UPDATES_TOPIC, type WebhooksApp } from '../../src/app';
import { loadWebhooksConfig } from '../../src/config';
import type { DeliveryLogDoc, PushDelivery } from '../../src/delivery';
import { selfSignedCert, startReceiver, type Receiver } from '../support/receiver';

// The delivery log end to end inside the webhooks service: task updates from the bus are delivered (test
// egress: the receiver on loopback), each outcome is recorded with its owner (subscription, agent) and a target
// without secrets, and WebhooksService.ListPushDeliveries reads it back per agent over real gRPC.
describe('push delivery log: recorded per agent, read over gRPC', () => {
  let receiver: Receiver;
  let app: WebhooksApp;
  let client: webhooksV1.WebhooksServiceClient;
  const bus = new InMemoryBus();
  const store = new InMemoryDocumentStore();
  const finished: DeliveryLogDoc[] = [];
  const TOKEN = 'hmac-token-never-stored';
  const CREDENTIAL = 'bearer-credential-never-stored';
  // What each task's push configs are (the tasks service's GetPushDelivery, faked).
  const configs = new Map<string, PushDelivery['targets']>();

  const hook = (path: string): string => `https://hook.public.example:${receiver.port}${path}`;
  const lookups: string[] = [];
  const publish = async (
    taskId: string,
    seq: number,
    subscriptionId: string,
    agentId: string,
    pushOff = false,
  ): Promise<void> => {
    const event: eventsV1.LoggedTaskEvent = {
      taskId,
      seq,
      eventJson: JSON.stringify({ kind: 'status-update', taskId, status: { state: 'completed' }, final: true }),
      final: true,
      subscriptionId,
      agentId,
      preceding: [],
      pushOff,
    };
    await bus.publish({
      topic: TASK_UPDATES_TOPIC,
      key: taskId,
      value: eventsV1.LoggedTaskEvent.encode(event).finish(),
    });
  };
  const list = (r: Partial<webhooksV1.ListPushDeliveriesRequest>): Promise<webhooksV1.ListPushDeliveriesResponse> =>
    call(client.listPushDeliveries.bind(client), { subscriptionId: '', agentId: '', limit: 0, pageToken: '', ...r });

  beforeAll(async () => {
    const tls = await selfSignedCert();
    receiver = await startReceiver(tls);
    app = await startWebhooksApp(
      {
        bus,
        store,
        source: {
          get: (taskId) => {
            lookups.push(taskId);
            return Promise.resolve({
              taskJson: JSON.stringify({ kind: 'task', id: taskId }),
              enabled: true,
              targets: configs.get(taskId) ?? [],
            });
          },
        },
        log: silentLogger(),
        readinessIntervalMs: 600_000,
        egress: {
          // Test-only egress: the receiver on loopback; 10.0.0.0/8 stays refused like any private address.
          isAllowed: (ip) => ip === '127.0.0.1',
          resolve: (host) => Promise.resolve(host === 'private.public.example' ? ['10.1.2.3'] : ['127.0.0.1']),
          ca: tls.cert,
          onDelivery: (d) => finished.push(d),
        },
      },
      loadWebhooksConfig({ WEBHOOKS_GRPC_PORT: '0', WEBHOOKS_RETRY_BASE_MS: '1', WEBHOOKS_RETRY_MAX_DELAY_MS: '5' }),
    );
    client = new webhooksV1.WebhooksServiceClient(app.grpc.address, grpc.credentials.createInsecure());

    const auth = JSON.stringify({ schemes: ['Bearer'], credentials: CREDENTIAL });
    configs.set('task-ok', [
      { configId: 'ok', url: hook('/ok?sig=query-secret-value'), token: TOKEN, authenticationJson: auth },
    ]);
    configs.set('task-bad', [{ configId: 'bad', url: hook('/bad'), token: TOKEN, authenticationJson: '' }]);
    configs.set('task-refused', [
      {
        configId: 'private',
        url: 'https://private.public.example/in?key=another-secret',
        token: TOKEN,
        authenticationJson: '',
      },
    ]);
    configs.set('task-other-tenant', [{ configId: 'ok', url: hook('/ok'), token: TOKEN, authenticationJson: '' }]);
    await publish('task-ok', 2, 'sub-a', 'agent-1');
    await publish('task-bad', 2, 'sub-a', 'agent-1');
    await publish('task-refused', 2, 'sub-a', 'agent-1');
    await publish('task-other-tenant', 2, 'sub-b', 'agent-1');
    await eventually(async () => {
      await Promise.resolve();
      return finished.length === 4;
    }, 15_000);
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
    await receiver?.close();
    await bus.close();
    await store.close();
  });

  it('an update announced with pushOff (its agent had push off) is not looked up or delivered (ADR 0046)', async () => {
    configs.set('task-skip', [{ configId: 'ok', url: hook('/ok'), token: TOKEN, authenticationJson: '' }]);
    await publish('task-skip', 1, 'sub-c', 'agent-3', true);
    await publish('task-skip', 2, 'sub-c', 'agent-3'); // same key: handled after the first
    await eventually(async () => {
      await Promise.resolve();
      return finished.some((d) => d.taskId === 'task-skip');
    }, 15_000);
    expect(lookups.filter((t) => t === 'task-skip')).toEqual(['task-skip']);
    expect(finished.filter((d) => d.taskId === 'task-skip').map((d) => d.seq)).toEqual([2]);
  });

  it('records each delivery with its outcome, HTTP status, attempts, times, task and target, newest first', async () => {
    const r = await list({ subscriptionId: 'sub-a', agentId: 'agent-1' });
    expect(r.deliveries).toHaveLength(3);
    expect(r.nextPageToken).toBe('');
    const byTask = new Map(r.deliveries.map((d) => [d.taskId, d]));
    expect(byTask.get('task-ok')).toMatchObject({
      seq: 2,
      configId: 'ok',
      outcome: 'delivered',
      httpStatus: 200,
      attempts: 1,
      error: '',
      targetUrl: `https://hook.public.example:${receiver.port}/ok?sig=REDACTED`,
      targetHost: `hook.public.example:${receiver.port}`,
    });
    expect(byTask.get('task-bad')).toMatchObject({ outcome: 'rejected', httpStatus: 400, attempts: 1 });
    // The SSRF guard refused the private address: nothing was sent, and the log says so.
    const refused = byTask.get('task-refused')!;
    expect(refused).toMatchObject({
      outcome: 'refused',
      attempts: 1,
      error: 'url must resolve to a public address',
      targetUrl: 'https://private.public.example/in?key=REDACTED',
    });
    expect(refused.httpStatus).toBeUndefined();
    for (const d of r.deliveries) {
      expect(d.startedAtMs).toBeGreaterThan(0);
      expect(d.finishedAtMs).toBeGreaterThanOrEqual(d.startedAtMs);
      expect(d.lastAttemptAtMs).toBeGreaterThanOrEqual(d.startedAtMs);
    }
    const times = r.deliveries.map((d) => d.startedAtMs);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('stores no token, credential, query value or userinfo anywhere in the log', async () => {
    const log = await store.collection<DeliveryLogDoc>({ name: 'push_deliveries' });
    const stored = JSON.stringify(await log.find({}));
    expect(stored).toContain('task-ok');
    for (const secret of [TOKEN, CREDENTIAL, 'query-secret-value', 'another-secret'])
      expect(stored).not.toContain(secret);
  });

  it('is scoped to the subscription: the same agent id of another subscription shows only its own delivery', async () => {
    const b = await list({ subscriptionId: 'sub-b', agentId: 'agent-1' });
    expect(b.deliveries.map((d) => d.taskId)).toEqual(['task-other-tenant']);
    expect((await list({ subscriptionId: 'sub-a', agentId: 'agent-2' })).deliveries).toEqual([]);
  });

  it('a batch announcement (ADR 0025) pushes for each status update in it, in order; artifact deltas are not pushed', async () => {
    configs.set('task-batch', [{ configId: 'ok', url: hook('/ok'), token: TOKEN, authenticationJson: '' }]);
    const logged = (seq: number, eventJson: string, final = false): eventsV1.LoggedTaskEvent => ({
      taskId: 'task-batch',
      seq,
      eventJson,
      final,
      subscriptionId: 'sub-batch',
      agentId: 'agent-1',
      preceding: [],
      pushOff: false,
    });
    const status = (state: string): string =>
      JSON.stringify({ kind: 'status-update', taskId: 'task-batch', status: { state }, final: state === 'completed' });
    const announcement: eventsV1.LoggedTaskEvent = {
      ...logged(5, status('completed'), true),
      preceding: [
        logged(2, JSON.stringify({ kind: 'artifact-update', taskId: 'task-batch', artifact: { parts: [] } })),
        logged(3, status('working')),
        logged(4, JSON.stringify({ kind: 'artifact-update', taskId: 'task-batch', artifact: { parts: [] } })),
      ],
    };
    await bus.publish({
      topic: TASK_UPDATES_TOPIC,
      key: 'task-batch',
      value: eventsV1.LoggedTaskEvent.encode(announcement).finish(),
    });
    await eventually(async () => {
      await Promise.resolve();
      return finished.filter((d) => d.taskId === 'task-batch').length === 2;
    }, 15_000);
    await bus.drain();
    expect(finished.filter((d) => d.taskId === 'task-batch').map((d) => [d.seq, d.state])).toEqual([
      [3, 'delivered'],
      [5, 'delivered'],
    ]);
  });

  it('an announcement of several tasks (ADR 0041) pushes each task its own updates, in order', async () => {
    for (const id of ['task-m1', 'task-m2'])
      configs.set(id, [{ configId: 'ok', url: hook('/ok'), token: TOKEN, authenticationJson: '' }]);
    const status = (taskId: string, seq: number, state: string): eventsV1.LoggedTaskEvent => ({
      taskId,
      seq,
      eventJson: JSON.stringify({ kind: 'status-update', taskId, status: { state }, final: state === 'completed' }),
      final: state === 'completed',
      subscriptionId: 'sub-multi',
      agentId: 'agent-1',
      preceding: [],
      pushOff: false,
    });
    const announcement: eventsV1.LoggedTaskEvent = {
      ...status('task-m2', 3, 'completed'),
      preceding: [status('task-m1', 1, 'working'), status('task-m2', 1, 'working'), status('task-m1', 3, 'completed')],
    };
    await bus.publish({
      topic: TASK_UPDATES_TOPIC,
      key: 'task-m1',
      value: eventsV1.LoggedTaskEvent.encode(announcement).finish(),
    });
    const of = (taskId: string) => finished.filter((d) => d.taskId === taskId).map((d) => [d.seq, d.state]);
    await eventually(async () => {
      await Promise.resolve();
      return of('task-m1').length === 2 && of('task-m2').length === 2;
    }, 15_000);
    await bus.drain();
    expect(of('task-m1')).toEqual([
      [1, 'delivered'],
      [3, 'delivered'],
    ]);
    expect(of('task-m2')).toEqual([
      [1, 'delivered'],
      [3, 'delivered'],
    ]);
  });

  it('pages by limit and token, and refuses a bad request with INVALID_ARGUMENT', async () => {
    const first = await list({ subscriptionId: 'sub-a', agentId: 'agent-1', limit: 2 });
    expect(first.deliveries).toHaveLength(2);
    const rest = await list({ subscriptionId: 'sub-a', agentId: 'agent-1', limit: 2, pageToken: first.nextPageToken });
    expect(rest.deliveries).toHaveLength(1);
    expect(rest.nextPageToken).toBe('');
    expect(new Set([...first.deliveries, ...rest.deliveries].map((d) => d.taskId)).size).toBe(3);
    await expect(list({ subscriptionId: 'sub-a', agentId: 'agent-1', limit: 1000 })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    await expect(list({ agentId: 'agent-1' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });
});
