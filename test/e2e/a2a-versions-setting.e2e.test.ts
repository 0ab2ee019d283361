import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';
import { a2aV1 } from '@a2a-inbound/proto';
import { manage } from '@a2a-inbound/testing';

/**
 * The per-agent setting `a2aVersions`: which A2A versions an agent's card advertises and which it serves, on
 * every binding (0.3 and 0.2 JSON-RPC; 1.0 JSON-RPC, HTTP+JSON and gRPC). All of them by default.
 */
let system: System;
let key: string;
let sut: { tasksAddress: string; subscriptionId: string };
const agent = 'demo-echo';

const message = (id: string) => ({ role: 'ROLE_USER', messageId: id, parts: [{ text: 'hi' }] });
const message03 = (id: string) => ({
  kind: 'message',
  role: 'user',
  messageId: id,
  parts: [{ kind: 'text', text: 'hi' }],
});

async function rpc(path: string, method: string, params: unknown, version?: string): Promise<Record<string, any>> {
  const res = await fetch(`${system.baseUrl}/agents/${agent}/${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      ...(version ? { 'A2A-Version': version } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Record<string, any>;
}

async function rest(id: string): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${system.baseUrl}/agents/${agent}/a2a/v1/rest/message:send`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/a2a+json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ message: message(id) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function grpcSend(id: string): Promise<{ code: number; details?: string }> {
  const Client = a2aV1.A2AServiceClient;
  const client = new Client(`127.0.0.1:${system.gateway.a2aGrpcPort}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${key}`);
  md.set('a2a-version', '1.0');
  try {
    return await new Promise((resolve) => {
      client.sendMessage(
        a2aV1.SendMessageRequest.fromJSON({ tenant: agent, message: message(id) }),
        md,
        (err: grpc.ServiceError | null) => resolve(err ? { code: err.code, details: err.details } : { code: 0 }),
      );
    });
  } finally {
    client.close();
  }
}

async function interfaces(): Promise<string[]> {
  const card = (await (await fetch(`${system.baseUrl}/agents/${agent}/.well-known/agent-card.json`)).json()) as {
    supportedInterfaces: { protocolBinding: string; protocolVersion: string }[];
  };
  return card.supportedInterfaces.map((i) => `${i.protocolVersion} ${i.protocolBinding}`);
}

const setVersions = (a2aVersions: string[], extra: Record<string, unknown> = {}) =>
  manage(sut, 'admin', 'settings.update', { agentId: agent, settings: { a2aVersions, ...extra } });

beforeAll(async () => {
  system = await startSystem({ env: { PORT: '0', HOST: '127.0.0.1' }, log: silentLogger() });
  key = system.tasks.seed!.credentials!.a2aKey;
  sut = { tasksAddress: system.tasks.grpc.address, subscriptionId: system.tasks.seed!.subscriptionId };
});
afterAll(async () => system?.close());

describe('per-agent A2A versions (setting a2aVersions)', () => {
  it('serves and advertises every version by default', async () => {
    expect(await interfaces()).toEqual(['1.0 JSONRPC', '1.0 HTTP+JSON', '1.0 GRPC', '0.3 JSONRPC']);
    expect((await rpc('a2a/v1', 'SendMessage', { message: message('d-1') }, '1.0')).result).toBeDefined();
    expect((await rpc('a2a/v0.2', 'message/send', { message: message03('d-2') })).result).toBeDefined();
  });

  it('1.0 off: gone from the card and refused on JSON-RPC, HTTP+JSON and gRPC; 0.3 and 0.2 unchanged', async () => {
    await setVersions(['0.3.0', '0.2.6']);
    expect(await interfaces()).toEqual(['0.3 JSONRPC']);
    const j = await rpc('a2a/v1', 'SendMessage', { message: message('off-1') }, '1.0');
    expect(j.error).toMatchObject({ code: -32009 });
    expect(j.error.data[0]).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED' });
    const r = await rest('off-2');
    expect(r.status).toBe(400);
    expect(r.body.error.details[0]).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED' });
    expect(await grpcSend('off-3')).toMatchObject({ code: grpc.status.FAILED_PRECONDITION });
    expect((await rpc('a2a/v0.3', 'message/send', { message: message03('off-4') })).result).toMatchObject({
      kind: 'task',
    });
    expect((await rpc('a2a', 'message/send', { message: message03('off-5') })).result).toBeDefined();
    expect((await rpc('a2a/v0.2', 'message/send', { message: message03('off-6') })).result).toBeDefined();
  });

  it('0.2 off: -32004 on /a2a/v0.2; on again: served at once', async () => {
    await setVersions(['0.3.0', '1.0']);
    expect((await rpc('a2a/v0.2', 'message/send', { message: message03('v02-1') })).error).toMatchObject({
      code: -32004,
    });
    expect(await interfaces()).toEqual(['1.0 JSONRPC', '1.0 HTTP+JSON', '1.0 GRPC', '0.3 JSONRPC']);
    expect(await grpcSend('v02-2')).toEqual({ code: 0 });
    await setVersions(['0.3.0', '0.2.6', '1.0']);
    expect((await rpc('a2a/v0.2', 'message/send', { message: message03('v02-3') })).result).toBeDefined();
  });

  it('0.3 off (default moved to 0.2.6): /a2a/v0.3 is -32004, /a2a serves 0.2, 1.0 keeps serving', async () => {
    await expect(setVersions(['0.2.6', '1.0'])).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await setVersions(['0.2.6', '1.0'], { defaultA2aVersion: '0.2.6' });
    expect((await rpc('a2a/v0.3', 'message/send', { message: message03('v03-1') })).error).toMatchObject({
      code: -32004,
    });
    expect((await rpc('a2a', 'message/send', { message: message03('v03-2') })).result).toBeDefined();
    expect(await interfaces()).toEqual(['1.0 JSONRPC', '1.0 HTTP+JSON', '1.0 GRPC']);
    const r = await rest('v03-3');
    expect(r.status).toBe(200);
    await setVersions(['0.3.0', '0.2.6', '1.0'], { defaultA2aVersion: '0.3.0' });
  });
});
