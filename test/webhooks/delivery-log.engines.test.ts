import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { connectEngines, loadEnginesConfig, type ConnectedEngines } from '@a2a-inbound/engines';
import { silentLogger } from '@a2a-inbound/logger';
import { eventsV1, webhooksV1 } from '@a2a-inbound/proto';
import { call, grpc } from '@a2a-inbound/runtime';
import { eventually } from '@a2a-inbound/testing';
import {
  loadWebhooksConfig,
  startWebhooksApp,
  TASK_UPDATES_TOPIC,
  type DeliveryLogDoc,
  type WebhooksApp,
} from '@a2a-inbound/webhooks';
import { selfSignedCert, startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

// The delivery log on the production engines: task updates from Kafka (their owner travels in the bus
// payload), records in MongoDB (FerretDB in CI), read back per agent over gRPC. Egress uses the test seams
// (a loopback receiver; a private answer that the guard refuses). Needs KAFKA_BROKERS and MONGO_URL.
const enginesSet = Boolean(process.env.KAFKA_BROKERS && process.env.MONGO_URL);
const namespace = `pushlog${randomBytes(4).toString('hex')}`;

describe.runIf(enginesSet)('push delivery log on Kafka and MongoDB', { timeout: 120_000 }, () => {
  let engines: ConnectedEngines;
  let receiver: Receiver;
  let app: WebhooksApp;
  let client: webhooksV1.WebhooksServiceClient;
  const finished: DeliveryLogDoc[] = [];
  const config = loadEnginesConfig({ ...process.env, NAMESPACE: namespace }, { engines: 'real', clientId: namespace });

  beforeAll(async () => {
    const tls = await selfSignedCert();
    receiver = await startReceiver(tls);
    engines = await connectEngines(config, ['bus', 'store'], silentLogger());
    app = await startWebhooksApp(
      {
        bus: engines.bus!,
        store: engines.store!,
        source: {
          get: (taskId) =>
            Promise.resolve({
              taskJson: JSON.stringify({ kind: 'task', id: taskId }),
              enabled: true,
              targets: [
                {
                  configId: 'hook',
                  url: `https://hook.public.example:${receiver.port}/ok?token=kafka-secret`,
                  token: 'hmac-secret',
                  authenticationJson: '',
                },
                {
                  configId: 'private',
                  url: 'https://private.public.example/in',
                  token: 'hmac-secret',
                  authenticationJson: '',
                },
              ],
            }),
        },
        log: silentLogger(),
        readinessIntervalMs: 600_000,
        egress: {
          isAllowed: (ip) => ip === '127.0.0.1',
          resolve: (host) => Promise.resolve(host === 'private.public.example' ? ['10.9.8.7'] : ['127.0.0.1']),
          ca: tls.cert,
          onDelivery: (d) => finished.push(d),
        },
      },
      loadWebhooksConfig({ WEBHOOKS_GRPC_PORT: '0' }),
    );
    client = new webhooksV1.WebhooksServiceClient(app.grpc.address, grpc.credentials.createInsecure());
    for (const [taskId, subscriptionId] of [
      ['kafka-task-a', 'sub-a'],
      ['kafka-task-b', 'sub-b'],
    ] as const) {
      const event: eventsV1.LoggedTaskEvent = {
        taskId,
        seq: 2,
        eventJson: JSON.stringify({ kind: 'status-update', taskId, status: { state: 'completed' }, final: true }),
        final: true,
        subscriptionId,
        agentId: 'shared-agent-id',
        preceding: [],
        pushOff: false,
      };
      await engines.bus!.publish({
        topic: TASK_UPDATES_TOPIC,
        key: taskId,
        value: eventsV1.LoggedTaskEvent.encode(event).finish(),
      });
    }
    await eventually(async () => {
      await Promise.resolve();
      return finished.length === 4;
    }, 90_000);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await app?.close();
    await engines?.close();
    await receiver?.close();
    const raw = new MongoClient(config.mongoUrl);
    await raw.connect();
    await raw
      .db(`${config.mongoDb}_${namespace}`)
      .dropDatabase()
      .catch(() => undefined);
    await raw.close();
  }, 60_000);

  it('records each delivery with its owner from the bus and reads it back per subscription, redacted', async () => {
    const list = (subscriptionId: string) =>
      call(client.listPushDeliveries.bind(client), {
        subscriptionId,
        agentId: 'shared-agent-id',
        limit: 10,
        pageToken: '',
      });
    const a = await list('sub-a');
    expect(a.deliveries.map((d) => d.taskId)).toEqual(['kafka-task-a', 'kafka-task-a']);
    const byConfig = new Map(a.deliveries.map((d) => [d.configId, d]));
    expect(byConfig.get('hook')).toMatchObject({
      outcome: 'delivered',
      httpStatus: 200,
      targetUrl: `https://hook.public.example:${receiver.port}/ok?token=REDACTED`,
    });
    expect(byConfig.get('private')).toMatchObject({
      outcome: 'refused',
      error: 'url must resolve to a public address',
    });
    expect((await list('sub-b')).deliveries.map((d) => d.taskId)).toEqual(['kafka-task-b', 'kafka-task-b']);
    const raw = new MongoClient(config.mongoUrl);
    await raw.connect();
    try {
      const stored = JSON.stringify(
        await raw.db(`${config.mongoDb}_${namespace}`).collection('push_deliveries').find().toArray(),
      );
      expect(stored).toContain('kafka-task-a');
      expect(stored).not.toContain('kafka-secret');
      expect(stored).not.toContain('hmac-secret');
    } finally {
      await raw.close();
    }
  });
});
