import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { a2aV1, googleRpcErrorDetails, googleRpcStatus } from '@a2a-inbound/proto';
import { manage, rpc, textMessage } from '@a2a-inbound/testing';

/**
 * Load shedding end to end (issue 19, item 5), embedded mode: a gateway holds at most
 * GATEWAY_MAX_PENDING_REQUESTS requests the tasks service has not accepted yet; one more is refused at once
 * with -32056 OVERLOADED and Retry-After, nothing charged; a blocking send stops counting once accepted.
 */
const BODY_LIMIT = 256 * 1024;

describe('overload is shed with OVERLOADED, Retry-After and no charge', () => {
  let system: System;
  let key: string;
  let sut: { tasksAddress: string; subscriptionId: string };
  const url = (agent: string): string => `${system.baseUrl}/agents/${agent}/a2a`;
  const credits = async (): Promise<number> => (await manage(sut, 'admin', 'credits.get', {})).credits as number;
  const send = (id: number | string, message: Record<string, unknown>, blocking = true) => ({
    jsonrpc: '2.0',
    id,
    method: 'message/send',
    params: { message, configuration: { blocking } },
  });

  beforeAll(async () => {
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', GATEWAY_MAX_PENDING_REQUESTS: '2', BODY_LIMIT_BYTES: String(BODY_LIMIT) },
      log: silentLogger(),
    });
    key = system.tasks.seed!.credentials!.a2aKey;
    sut = { tasksAddress: system.tasks.grpc.address, subscriptionId: system.tasks.seed!.subscriptionId };
  });
  afterAll(async () => {
    await system?.close();
  });

  /** A send whose body arrives slowly: headers and half the body now, the rest when `finish()` is called. */
  function slowUpload(body: string): { finish: () => Promise<any> } {
    const bytes = Buffer.from(body);
    let req!: ClientRequest;
    const answer = new Promise<IncomingMessage>((resolve, reject) => {
      req = request(url('demo-echo'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': bytes.length, Authorization: `Bearer ${key}` },
      });
      req.on('response', resolve).on('error', reject);
      req.write(bytes.subarray(0, bytes.length >> 1));
    });
    return {
      finish: async () => {
        req.end(bytes.subarray(bytes.length >> 1));
        const res = await answer;
        let text = '';
        for await (const chunk of res) text += String(chunk);
        return JSON.parse(text);
      },
    };
  }

  it('fills the bound with slow uploads: one more send is refused at once, uncharged, and goes through later', async () => {
    const before = await credits();
    const uploads = [1, 2].map((i) => slowUpload(JSON.stringify(send(i, textMessage(`slow ${i}`)))));
    // A read costs nothing: poll with it until both uploads hold their slots.
    await expect
      .poll(
        async () =>
          (await rpc(url('demo-echo'), { jsonrpc: '2.0', id: 0, method: 'tasks/get', params: { id: 'x' } }, { key }))
            .body?.error?.code,
      )
      .toBe(-32056);

    const refusedMessage = textMessage('refused');
    const t0 = Date.now();
    const refused = await rpc(url('demo-echo'), send(3, refusedMessage), { key });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(refused.status).toBe(200);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.error).toMatchObject({ code: -32056, data: { code: 'OVERLOADED', retryAfterSeconds: 1 } });
    expect(await credits()).toBe(before);

    const done = await Promise.all(uploads.map((u) => u.finish()));
    for (const d of done) expect(d.result.status.state).toBe('completed');
    expect(await credits()).toBe(before - 2);
    // Nothing of the refused message was kept: the same messageId is accepted (and charged) now.
    const retried = await rpc(url('demo-echo'), send(4, refusedMessage), { key });
    expect(retried.body.result.status.state).toBe('completed');
    expect(await credits()).toBe(before - 3);
  });

  /** A2A 1.0 gRPC SendMessage to demo-echo: the answer, or the error's code and google.rpc.Status details. */
  async function grpcSend(text: string): Promise<{ code: number; state?: string; details: string[]; retryS?: number }> {
    const client = new a2aV1.A2AServiceClient(
      `127.0.0.1:${system.gateway.a2aGrpcPort}`,
      grpc.credentials.createInsecure(),
    );
    const md = new grpc.Metadata();
    md.set('authorization', `Bearer ${key}`);
    md.set('a2a-version', '1.0');
    const request = a2aV1.SendMessageRequest.fromJSON({
      tenant: 'demo-echo',
      message: { role: 'ROLE_USER', messageId: `g-${Math.random()}`, parts: [{ text }] },
    });
    try {
      return await new Promise((resolve) =>
        client.sendMessage(request, md, (err: grpc.ServiceError | null, res?: a2aV1.SendMessageResponse) => {
          if (!err) {
            const json = a2aV1.SendMessageResponse.toJSON(res!) as { task?: { status?: { state?: string } } };
            return resolve({ code: 0, state: String(json.task?.status?.state), details: [] });
          }
          const bin = err.metadata?.get('grpc-status-details-bin')[0];
          const status = bin instanceof Buffer ? googleRpcStatus.Status.decode(bin) : undefined;
          const retry = status?.details.find((d) => d.typeUrl.endsWith('google.rpc.RetryInfo'));
          const info = status?.details.find((d) => d.typeUrl.endsWith('google.rpc.ErrorInfo'));
          resolve({
            code: err.code,
            details: info ? [googleRpcErrorDetails.ErrorInfo.decode(info.value).reason] : [],
            ...(retry
              ? { retryS: Number(googleRpcErrorDetails.RetryInfo.decode(retry.value).retryDelay?.seconds) }
              : {}),
          });
        }),
      );
    } finally {
      client.close();
    }
  }

  it('the A2A 1.0 gRPC binding shares the bound: refused with RESOURCE_EXHAUSTED and RetryInfo; messages are size-limited', async () => {
    const uploads = [1, 2].map((i) => slowUpload(JSON.stringify(send(`g${i}`, textMessage(`slow g${i}`)))));
    await expect
      .poll(
        async () =>
          (await rpc(url('demo-echo'), { jsonrpc: '2.0', id: 0, method: 'tasks/get', params: { id: 'x' } }, { key }))
            .body?.error?.code,
      )
      .toBe(-32056);
    expect(await grpcSend('refused')).toEqual({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: ['OVERLOADED'],
      retryS: 1,
    });
    for (const d of await Promise.all(uploads.map((u) => u.finish()))) expect(d.result.status.state).toBe('completed');
    expect(await grpcSend('admitted')).toMatchObject({ code: 0, state: 'TASK_STATE_COMPLETED' });
    // A message over BODY_LIMIT_BYTES is refused by the transport before it is decoded.
    expect((await grpcSend('x'.repeat(BODY_LIMIT + 1))).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('a blocking send waiting for its run does not hold a slot: more sends are accepted meanwhile', async () => {
    const slow = (n: number) =>
      rpc(url('demo-slow'), send(n, textMessage(`slow ${n}`, { parts: [{ kind: 'data', data: { workMs: 3000 } }] })), {
        key,
      });
    const t0 = Date.now();
    const blocking = [slow(1), slow(2), slow(3)];
    const quick: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await rpc(url('demo-echo'), send(10 + i, textMessage(`quick ${i}`)), { key });
      expect(r.body.result?.status.state, JSON.stringify(r.body)).toBe('completed');
      quick.push(Date.now() - t0);
    }
    const answers = await Promise.all(blocking);
    for (const a of answers) expect(a.body.result?.status.state, JSON.stringify(a.body)).toBe('completed');
    // Three blocking sends were in their runs while the quick ones were admitted, each with a bound of two.
    expect(Math.max(...quick)).toBeLessThan(3000);
  });
});
