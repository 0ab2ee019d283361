import { timingSafeEqual } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { eventually, manage, rpc, textMessage, uniqueId } from '@a2a-inbound/testing';
import { isPublicAddress, type Resolver } from '@a2a-inbound/runtime';
import { signBody, type DeliveryLogDoc } from '@a2a-inbound/webhooks';
import { selfSignedCert, startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

// Push delivery end to end in the embedded system: gateway registration (public at registration), tasks'
// internal GetPushDelivery, the webhooks consumer and its guarded HTTPS egress to a receiver on 127.0.0.1.
const AGENT = 'demo-approval';
const TOKEN = 'push-token-e2e';

/** The gateway's registration-time DNS: every *.public.example is public. */
const registrationResolver: Resolver = async (host) => {
  await Promise.resolve();
  if (host.endsWith('.public.example')) return ['93.184.216.34'];
  throw new Error(`getaddrinfo ENOTFOUND ${host}`);
};

/** The webhooks service's DNS at delivery: the receiver is on loopback; `rebind` now answers privately. */
const deliveryResolver: Resolver = async (host) => {
  await Promise.resolve();
  if (host === 'hook.public.example') return ['127.0.0.1'];
  if (host === 'rebind.public.example') return ['10.1.2.3'];
  throw new Error(`getaddrinfo ENOTFOUND ${host}`);
};

describe('push-notification delivery (embedded)', () => {
  let system: System;
  let receiver: Receiver;
  const finished: DeliveryLogDoc[] = [];
  let key: string;
  let endpoint: string;
  let taskId: string;

  const call = async (method: string, params: unknown): Promise<Record<string, unknown>> =>
    (await rpc(endpoint, { jsonrpc: '2.0', id: uniqueId('rpc'), method, params }, { key })).body as Record<
      string,
      unknown
    >;
  const docsOf = (configId: string): DeliveryLogDoc[] => finished.filter((d) => d.configId === configId);
  const hook = (path: string, host = 'hook.public.example'): string => `https://${host}:${receiver.port}${path}`;

  beforeAll(async () => {
    const tls = await selfSignedCert();
    receiver = await startReceiver(tls);
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', WEBHOOKS_RETRY_BASE_MS: '5', WEBHOOKS_RETRY_MAX_DELAY_MS: '50' },
      log: silentLogger(),
      resolver: registrationResolver,
      // Test-only egress: loopback (the receiver) is allowed besides public addresses; its CA is trusted.
      webhookEgress: {
        isAllowed: (ip) => ip === '127.0.0.1' || isPublicAddress(ip),
        resolve: deliveryResolver,
        ca: tls.cert,
        onDelivery: (d) => finished.push(d),
      },
    });
    key = system.tasks.seed!.credentials!.a2aKey;
    endpoint = `${system.baseUrl}/agents/${AGENT}/a2a`;
    const sut = { tasksAddress: system.tasks.grpc.address, subscriptionId: system.tasks.seed!.subscriptionId };

    // Webhook rule 5: -32003 until the operator enables push for the agent.
    const first = await call('message/send', { message: textMessage('deploy v2') });
    taskId = (first.result as Task).id;
    expect((first.result as Task).status.state).toBe('input-required');
    const off = await call('tasks/pushNotificationConfig/set', {
      taskId,
      pushNotificationConfig: { id: 'ok', url: hook('/ok'), token: TOKEN },
    });
    expect((off.error as { code: number }).code).toBe(-32003);
    await manage(sut, 'operator', 'settings.update', { agentId: AGENT, settings: { pushNotificationsEnabled: true } });

    for (const [id, url] of [
      ['ok', hook('/ok')],
      ['fail', hook('/fail')],
      ['bad', hook('/bad')],
      ['limited', hook('/limited')],
      ['redirect', hook('/redirect')],
      ['rebind', hook('/rebind', 'rebind.public.example')],
    ] as const) {
      const set = await call('tasks/pushNotificationConfig/set', {
        taskId,
        pushNotificationConfig: { id, url, token: TOKEN },
      });
      expect(set.error, `${id}: ${JSON.stringify(set.error)}`).toBeUndefined();
    }
    // The reply completes the task: status updates `working` then `completed` (final) are pushed.
    const done = await call('message/send', { message: { ...textMessage('approve'), taskId } });
    expect((done.result as Task).status.state).toBe('completed');
    // The final event is logged before the blocking answer: its seq is the task's last. Updates of one task are
    // handled in order, so once every config has finished that seq, every earlier delivery is finished too.
    const tasksColl = await system.engines.store.collection<{ lastSeq: number }>({ name: 'tasks' });
    const lastSeq = (await tasksColl.get(taskId))!.doc.lastSeq;
    await eventually(async () => {
      await Promise.resolve();
      return ['ok', 'fail', 'bad', 'limited', 'redirect', 'rebind'].every((c) =>
        docsOf(c).some((d) => d.seq === lastSeq),
      );
    }, 20_000);
  });

  afterAll(async () => {
    await system?.close();
    await receiver?.close();
  });

  it('Authentication rule 9 / Webhook rule 4: the receiver gets the final Task with a valid X-A2A-Signature', () => {
    const bodies = receiver.received.filter((r) => r.path === '/ok');
    const final = bodies.find((r) => (JSON.parse(r.body) as Task).status.state === 'completed');
    expect(final).toBeDefined();
    const task = JSON.parse(final!.body) as Task;
    expect(task).toMatchObject({ kind: 'task', id: taskId, status: { state: 'completed' } });
    expect(task).not.toHaveProperty('history');
    expect(final!.headers['content-type']).toBe('application/json');
    for (const r of bodies) {
      const got = Buffer.from(String(r.headers['x-a2a-signature']), 'hex');
      const want = Buffer.from(signBody(r.body, TOKEN), 'hex');
      expect(got.length).toBe(32);
      expect(timingSafeEqual(got, want)).toBe(true);
    }
    // The token itself never travels: only the signature made with it.
    expect(JSON.stringify(receiver.received.map((r) => r.headers))).not.toContain(TOKEN);
    expect(docsOf('ok').every((d) => d.state === 'delivered' && d.attempts.length === 1)).toBe(true);
  });

  it('Webhook rule 3: a 500 is retried up to 3 times (4 attempts), then given up', () => {
    expect(docsOf('fail').length).toBeGreaterThan(0);
    for (const d of docsOf('fail')) {
      expect(d.state).toBe('failed');
      expect(d.attempts.map((a) => a.status)).toEqual([500, 500, 500, 500]);
    }
    const deliveries = docsOf('fail').length;
    expect(receiver.received.filter((r) => r.path === '/fail')).toHaveLength(4 * deliveries);
  });

  it('Webhook rule 3: a 400 is a permanent rejection, not retried', () => {
    for (const d of docsOf('bad')) {
      expect(d.state).toBe('failed');
      expect(d.attempts.map((a) => a.status)).toEqual([400]);
    }
    expect(receiver.received.filter((r) => r.path === '/bad')).toHaveLength(docsOf('bad').length);
  });

  it('Webhook rule 3: a 429 is retried (Retry-After honoured) and then delivered', () => {
    expect(docsOf('limited').length).toBeGreaterThan(0);
    for (const d of docsOf('limited')) {
      expect(d.state).toBe('delivered');
      expect(d.attempts.map((a) => a.status)).toEqual([429, 200]);
    }
  });

  it('Webhook rule 2: a redirect is not followed (a 3xx is a failure, not retried)', () => {
    for (const d of docsOf('redirect')) {
      expect(d.state).toBe('failed');
      expect(d.attempts.map((a) => a.status)).toEqual([302]);
    }
    expect(receiver.received.filter((r) => r.path.includes('from=redirect'))).toHaveLength(0);
  });

  it('Webhook rule 1: a destination public at registration but private at delivery (DNS rebinding) is refused', () => {
    expect(docsOf('rebind').length).toBeGreaterThan(0);
    for (const d of docsOf('rebind')) {
      expect(d.state).toBe('failed');
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]!.error).toMatch(/public address/);
    }
    expect(receiver.received.filter((r) => r.path.startsWith('/rebind'))).toHaveLength(0);
  });

  it('Idempotency: each (task, seq, config) is in the delivery log once', async () => {
    const log = await system.engines.store.collection<DeliveryLogDoc>({ name: 'push_deliveries' });
    const ok = await log.find({ taskId });
    const ids = ok.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(`${taskId}:${docsOf('ok')[0]!.seq}:ok`);
  });
});
