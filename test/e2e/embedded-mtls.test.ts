// Issue 24 in the embedded layout: with GRPC_TLS_* every gRPC port of the process speaks mutual TLS and its
// servers authenticate callers from other processes, the webhooks service included (it had no policy there);
// the process's own calls stay in-process and trusted (ADR 0019, 0032).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { webhooksV1 } from '@a2a-inbound/proto';
import { checkHealth, grpc } from '@a2a-inbound/runtime';
import { rpc, textMessage } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script (repository tooling)
import { makeDevPki, tlsEnv } from '../../scripts/dev-ca.mjs';

describe('embedded mode on mutual TLS', () => {
  let system: System;
  let pki = '';
  const pem = (f: string): Buffer => readFileSync(join(pki, f));
  beforeAll(async () => {
    pki = makeDevPki(mkdtempSync(join(tmpdir(), 'embedded-pki-')), ['gateway', 'runner']) as string;
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', ...(tlsEnv(pki, 'gateway') as Record<string, string>) },
      engines: inMemoryEngines(),
      log: createLogger({ service: 'test', level: 'silent' }),
    });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
    rmSync(pki, { recursive: true, force: true });
  });

  const listDeliveries = (creds: grpc.ChannelCredentials, token?: string) => {
    const client = new webhooksV1.WebhooksServiceClient(system.webhooks.grpc.address, creds);
    const metadata = new grpc.Metadata();
    if (token) metadata.set('authorization', `Bearer ${token}`);
    return new Promise<{ code: number; deliveries?: number }>((resolve) =>
      client.listPushDeliveries(
        webhooksV1.ListPushDeliveriesRequest.fromPartial({ agentId: 'demo-echo', subscriptionId: '' }),
        metadata,
        { deadline: new Date(Date.now() + 5_000) },
        (err, res) => {
          client.close();
          resolve(err ? { code: err.code } : { code: 0, deliveries: res.deliveries.length });
        },
      ),
    );
  };

  it("the webhooks port authenticates callers from outside the process: none, another service's certificate, a team token", async () => {
    const caOnly = grpc.credentials.createSsl(pem('ca.pem'));
    expect((await listDeliveries(caOnly)).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await listDeliveries(caOnly, 'usr_not-a-real-token')).code).toBe(grpc.status.UNAUTHENTICATED);
    const asRunner = grpc.credentials.createSsl(pem('ca.pem'), pem('runner-key.pem'), pem('runner.pem'));
    expect((await listDeliveries(asRunner)).code).toBe(grpc.status.PERMISSION_DENIED);
    const admin = system.tasks.seed!.credentials!.adminToken;
    expect(await listDeliveries(caOnly, admin)).toEqual({ code: 0, deliveries: 0 });
    // Plaintext is not spoken on any port; health answers over TLS.
    await expect(checkHealth(system.webhooks.grpc.address, { timeoutMs: 1_000 })).rejects.toThrow();
    for (const address of [system.tasks.grpc.address, system.runners[0]!.grpc.address, system.webhooks.grpc.address])
      expect(await checkHealth(address, { credentials: caOnly })).toBe('SERVING');
  });

  it('the process itself still works end to end: a send through the gateway', async () => {
    const key = system.tasks.seed!.credentials!.a2aKey;
    const res = await rpc(
      `${system.baseUrl}/agents/demo-echo/a2a`,
      { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage('hello over mTLS') } },
      { key },
    );
    expect(res.status).toBe(200);
    expect(res.body.result.status.state).toBe('completed');
  });
});
