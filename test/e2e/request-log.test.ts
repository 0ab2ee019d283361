import { Writable } from 'node:stream';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { a2aV1 } from '@a2a-inbound/proto';
import { manage, rpc, textMessage } from '@a2a-inbound/testing';

/** Logs an operator can read: one line per request with method, path, status and ms; never a key or a token. */
describe('request log', () => {
  let system: System;
  let text = '';
  let a2aKey: string;
  const lines = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        text += chunk.toString('utf8');
        cb();
      },
    });
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1' },
      log: createLogger({ service: 'embedded', level: 'debug', destination }),
      resolver: async () => ['93.184.216.34'],
    });
    a2aKey = system.tasks.seed!.credentials!.a2aKey;
    const sut = { tasksAddress: system.tasks.grpc.address, subscriptionId: system.tasks.seed!.subscriptionId };
    await manage(sut, 'operator', 'settings.update', {
      agentId: 'demo-echo',
      settings: { pushNotificationsEnabled: true },
    });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('has method, path, status and ms, and never the Authorization header, key values or push-config tokens', async () => {
    const url = `${system.baseUrl}/agents/demo-echo/a2a`;
    const sent = await rpc(
      url,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('log me') } },
      { key: a2aKey },
    );
    expect(sent.status).toBe(200);
    const taskId = sent.body.result.id as string;
    const pushToken = 'push-token-that-must-not-be-logged-0123456789';
    const set = await rpc(
      url,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tasks/pushNotificationConfig/set',
        params: { taskId, pushNotificationConfig: { url: 'https://hooks.example.com/a2a', token: pushToken } },
      },
      { key: a2aKey },
    );
    expect(set.body.error).toBeUndefined();
    const wrongKey = 'sk-a2a-wrong-key-that-must-not-be-logged';
    expect(
      (await rpc(url, { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: taskId } }, { key: wrongKey }))
        .status,
    ).toBe(401);
    // The request line is written on the response's 'finish', which can come after the client has the body.
    for (
      let i = 0;
      i < 100 && lines().filter((l) => l.msg === 'request' && l.path === '/agents/demo-echo/a2a').length < 3;
      i++
    )
      await new Promise((r) => setTimeout(r, 10));

    const requests = lines().filter((l) => l.msg === 'request' && l.path === '/agents/demo-echo/a2a');
    expect(requests.map((l) => l.status)).toEqual([200, 200, 401]);
    for (const l of requests) {
      expect(l).toMatchObject({ level: 'info', method: 'POST', path: '/agents/demo-echo/a2a' });
      expect(typeof l.ms).toBe('number');
      expect(l.ms as number).toBeGreaterThanOrEqual(0);
    }
    expect(text).not.toContain(a2aKey);
    expect(text).not.toContain(wrongKey);
    expect(text).not.toContain(pushToken);
    expect(text).not.toMatch(/Bearer /);
    expect(text.toLowerCase()).not.toContain('"authorization"');
  });

  it('a gRPC call has its line too: operation, agent once authenticated, gRPC status and ms; never the key', async () => {
    const client = new a2aV1.A2AServiceClient(
      `127.0.0.1:${system.gateway.a2aGrpcPort}`,
      grpc.credentials.createInsecure(),
    );
    const wrongKey = 'sk-a2a-grpc-wrong-key-that-must-not-be-logged';
    const getTask = (key: string): Promise<number> =>
      new Promise((resolve) => {
        const md = new grpc.Metadata();
        md.set('authorization', `Bearer ${key}`);
        md.set('a2a-version', '1.0');
        client.getTask({ tenant: 'demo-echo', id: 'no-such-task' }, md, (err) => resolve(err?.code ?? 0));
      });
    try {
      expect(await getTask(a2aKey)).toBe(grpc.status.NOT_FOUND);
      expect(await getTask(wrongKey)).toBe(grpc.status.UNAUTHENTICATED);
    } finally {
      client.close();
    }
    const grpcLines = (): Record<string, unknown>[] =>
      lines().filter((l) => l.msg === 'request' && l.rpc === 'GetTask');
    for (let i = 0; i < 100 && grpcLines().length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const [found, refused] = grpcLines();
    expect(found).toMatchObject({ level: 'info', agent: 'demo-echo', status: grpc.status.NOT_FOUND });
    expect(refused).toMatchObject({ level: 'info', status: grpc.status.UNAUTHENTICATED });
    expect(refused!.agent).toBeUndefined();
    for (const l of [found!, refused!]) expect(l.ms as number).toBeGreaterThanOrEqual(0);
    expect(text).not.toContain(a2aKey);
    expect(text).not.toContain(wrongKey);
  });

  it('a failed run is logged at warn with its task id and the reason', async () => {
    const sent = await rpc(
      `${system.baseUrl}/agents/demo-failing/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('fail please') } },
      { key: a2aKey },
    );
    const task = sent.body.result as { id: string; status: { state: string; message: { parts: { text: string }[] } } };
    expect(task.status.state).toBe('failed');
    const failed = lines().filter((l) => l.msg === 'run failed' && l.taskId === task.id);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 'warn', agentId: 'demo-failing', service: 'tasks' });
    expect(failed[0]!.reason).toBe(task.status.message.parts[0]!.text);
  });
});
