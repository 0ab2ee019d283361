import { timingSafeEqual } from 'node:crypto';
import type { Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { eventually, manage, rpc, textMessage, uniqueId } from '@a2a-inbound/testing';
import { isPublicAddress, type Resolver } from '@a2a-inbound/runtime';
import { createAdminUser } from '@a2a-inbound/tasks';
import { signBody, type DeliveryLogDoc } from '@a2a-inbound/webhooks';
import { selfSignedCert, startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';

// Push delivery end to end in the embedded system: gateway registration (public at registration), tasks'
// internal GetPushDelivery, the webhooks consumer and its guarded HTTPS egress to a receiver on 127.0.0.1.
const AGENT = 'demo-approval';
const TOKEN = 'push-token-e2e';
const QUERY_SECRET = 'query-secret-e2e';

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
      // Credentials in the query (some receivers want them there): the log must never show their values.
      ['query', hook(`/ok?token=${QUERY_SECRET}`)],
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
      return ['ok', 'query', 'fail', 'bad', 'limited', 'redirect', 'rebind'].every((c) =>
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

  describe('the per-agent delivery log (GET /api/v1/agents/{agentId}/push-deliveries)', () => {
    const creds = (): { adminToken: string; operatorToken: string } => system.tasks.seed!.credentials!;
    const get = async (
      path: string,
      token: string | undefined,
    ): Promise<{ status: number; body: any; text: string }> => {
      const res = await fetch(`${system.baseUrl}/api/v1${path}`, {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
      const text = await res.text();
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      return { status: res.status, body: JSON.parse(text) as unknown, text };
    };

    it('shows every delivery of the agent with outcome, HTTP status, attempts, times, task and target', async () => {
      const r = await get(`/agents/${AGENT}/push-deliveries?limit=100`, creds().adminToken);
      expect(r.status).toBe(200);
      expect(r.body.agentId).toBe(AGENT);
      const mine = (r.body.deliveries as any[]).filter((d) => d.taskId === taskId);
      const final = (configId: string): any =>
        mine.find((d) => d.configId === configId && d.seq === Math.max(...mine.map((x) => x.seq)));
      expect(final('ok')).toMatchObject({
        outcome: 'delivered',
        httpStatus: 200,
        attempts: 1,
        error: null,
        target: {
          url: `https://hook.public.example:${receiver.port}/ok`,
          host: `hook.public.example:${receiver.port}`,
        },
      });
      expect(final('fail')).toMatchObject({ outcome: 'exhausted', httpStatus: 500, attempts: 4 });
      expect(final('bad')).toMatchObject({ outcome: 'rejected', httpStatus: 400, attempts: 1 });
      expect(final('redirect')).toMatchObject({ outcome: 'rejected', httpStatus: 302 });
      expect(final('limited')).toMatchObject({ outcome: 'delivered', httpStatus: 200 });
      expect(final('rebind')).toMatchObject({
        outcome: 'refused',
        httpStatus: null,
        error: 'url must resolve to a public address',
      });
      for (const d of mine) {
        expect(Date.parse(d.startedAt)).toBeGreaterThan(0);
        expect(Date.parse(d.finishedAt)).toBeGreaterThanOrEqual(Date.parse(d.startedAt));
      }
      const started = (r.body.deliveries as any[]).map((d) => Date.parse(d.startedAt));
      expect([...started].sort((a, b) => b - a)).toEqual(started);
    });

    it('never shows a token or a query value: the target query is REDACTED', async () => {
      const r = await get(`/agents/${AGENT}/push-deliveries?limit=100`, creds().adminToken);
      expect((r.body.deliveries as any[]).find((d) => d.configId === 'query').target.url).toBe(
        `https://hook.public.example:${receiver.port}/ok?token=REDACTED`,
      );
      expect(r.text).not.toContain(QUERY_SECRET);
      expect(r.text).not.toContain(TOKEN);
    });

    it('any role may read it; pages by limit and pageToken; a bad limit or token is a JSON 400', async () => {
      const operator = await get(`/agents/${AGENT}/push-deliveries?limit=2`, creds().operatorToken);
      expect(operator.status).toBe(200);
      expect(operator.body.deliveries).toHaveLength(2);
      expect(typeof operator.body.nextPageToken).toBe('string');
      const next = await get(
        `/agents/${AGENT}/push-deliveries?limit=2&pageToken=${encodeURIComponent(operator.body.nextPageToken)}`,
        creds().operatorToken,
      );
      expect(next.status).toBe(200);
      const seen = [...operator.body.deliveries, ...next.body.deliveries].map(
        (d: any) => `${d.taskId}:${d.seq}:${d.configId}`,
      );
      expect(new Set(seen).size).toBe(4);
      for (const bad of ['limit=0', 'limit=101', 'limit=ten', 'pageToken=forged'])
        expect((await get(`/agents/${AGENT}/push-deliveries?${bad}`, creds().adminToken)).body.error.code).toBe(
          'INVALID_PARAMS',
        );
      expect((await get(`/agents/${AGENT}/push-deliveries`, undefined)).status).toBe(401);
    });

    it('is scoped to the subscription: another tenant gets 404 for this agent and sees only its own agents’ log', async () => {
      const other = await createAdminUser(system.tasks.control, {
        email: 'other-tenant@example.com',
        subscriptionId: 'other-tenant',
        role: 'admin',
        initialCredits: 10,
      });
      const denied = await get(`/agents/${AGENT}/push-deliveries`, other.token);
      expect(denied.status).toBe(404);
      expect(denied.body.error.code).toBe('NOT_FOUND');
      expect(denied.text).not.toContain(taskId);
      const created = await fetch(`${system.baseUrl}/api/v1/agents`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${other.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Other agent', type: 'AI Agent' }),
      });
      const otherAgent = ((await created.json()) as { id: string }).id;
      const own = await get(`/agents/${encodeURIComponent(otherAgent)}/push-deliveries`, other.token);
      expect(own.status).toBe(200);
      expect(own.body).toEqual({ agentId: otherAgent, deliveries: [], nextPageToken: null });
      expect((await get(`/agents/${encodeURIComponent(otherAgent)}/push-deliveries`, creds().adminToken)).status).toBe(
        404,
      );
    });
  });

  it('Idempotency: each (task, seq, config) is in the delivery log once', async () => {
    const log = await system.engines.store.collection<DeliveryLogDoc>({ name: 'push_deliveries' });
    const ok = await log.find({ taskId });
    const ids = ok.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(`${taskId}:${docsOf('ok')[0]!.seq}:ok`);
  });

  // Last: it stops the webhooks service (system.close() closes it once more, which waits for this close).
  it('the log route answers a JSON 503 while the webhooks service is unreachable; the rest of the API is unaffected', async () => {
    await system.webhooks.close();
    const token = system.tasks.seed!.credentials!.adminToken;
    const res = await fetch(`${system.baseUrl}/api/v1/agents/${AGENT}/push-deliveries`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAVAILABLE');
    const agent = await fetch(`${system.baseUrl}/api/v1/agents/${AGENT}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(agent.status).toBe(200);
  });
});
