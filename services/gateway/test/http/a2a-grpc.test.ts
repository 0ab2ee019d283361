import { createHash } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { a2aV1 } from '@a2a-inbound/proto';
import { InFlightLimit, startGrpcServer, type GrpcServerHandle } from '@a2a-inbound/runtime';
import { loadGatewayConfig } from '../../src/config';
import type { GatewayClients, Lookups } from '../../src/clients';
import { a2aGrpcService } from '../../src/grpc/a2a-grpc';
import { agentView, fakeTasks, type FakeHandlers } from '../support/fake-tasks';

const KEY = 'a2a_test_key_0123456789';
const servers: GrpcServerHandle[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The A2A 1.0 gRPC binding over a fake `tasks`, with the gateway's admission settings. */
async function start(
  handlers: FakeHandlers,
  admission: { maxPending: number; acceptTimeoutMs: number },
  limits: { maxReceiveMessageBytes?: number; maxConcurrentStreams?: number } = {},
) {
  const f = fakeTasks(handlers);
  const lookups = {
    key: async (hash: string) => ({
      keyId: 'key-1',
      subscriptionId: 'sub-1',
      keyHash: createHash('sha256').update(KEY).digest('hex') === hash ? hash : '00',
      scopes: ['a2a'],
      revoked: false,
      expiresAtMs: 0,
    }),
    agent: async () => agentView(),
  } as unknown as Lookups;
  const server = await startGrpcServer(
    [
      {
        definition: a2aV1.A2AServiceService,
        implementation: a2aGrpcService({
          admission: {
            pending: new InFlightLimit(admission.maxPending, 'requests waiting for the tasks service'),
            acceptTimeoutMs: admission.acceptTimeoutMs,
          },
          clients: { tasks: f.client } as unknown as GatewayClients,
          lookups,
          limiter: { hit: async () => ({ allowed: true, count: 1, resetAtMs: 0 }) } as never,
          clock: { now: () => Date.now() },
          log: silentLogger(),
        }),
      },
    ],
    { host: '127.0.0.1', port: 0, isServing: () => true, ...limits },
  );
  servers.push(server);
  return { f, address: `127.0.0.1:${server.port}` };
}

function send(address: string, messageId: string, fileBytes = 0): Promise<{ code: number; ms: number }> {
  const client = new a2aV1.A2AServiceClient(address, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${KEY}`);
  md.set('a2a-version', '1.0');
  const request = a2aV1.SendMessageRequest.fromJSON({
    tenant: 'agent-1',
    message: {
      role: 'ROLE_USER',
      messageId,
      parts: [
        { text: 'hi' },
        ...(fileBytes ? [{ raw: Buffer.alloc(fileBytes, 7).toString('base64'), mediaType: 'application/pdf' }] : []),
      ],
    },
  });
  const t0 = Date.now();
  return new Promise((resolve) =>
    client.sendMessage(request, md, (err: grpc.ServiceError | null) => {
      client.close();
      resolve({ code: err ? err.code : 0, ms: Date.now() - t0 });
    }),
  );
}

describe('A2A 1.0 gRPC binding: TASKS_ACCEPT_TIMEOUT_MS', () => {
  it('a send tasks does not accept in time is cancelled and refused with RESOURCE_EXHAUSTED; its slot is back', async () => {
    const { f, address } = await start(
      {
        sendMessage: async (req: { messageJson: string }, accept) => {
          if (JSON.parse(req.messageJson).messageId === 'stuck') return new Promise(() => undefined);
          accept();
          return {
            taskJson: JSON.stringify({ kind: 'task', id: 't-1', contextId: 'c', status: { state: 'completed' } }),
          };
        },
      },
      { maxPending: 1, acceptTimeoutMs: 300 },
    );
    const stuck = await send(address, 'stuck');
    expect(stuck.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(stuck.ms).toBeLessThan(5_000);
    // The refused call gave its one slot back: the next send is admitted and served.
    expect((await send(address, 'next')).code).toBe(0);
    expect(f.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(2);
  });
});

describe('A2A 1.0 gRPC binding: its own message limit (review finding 4)', () => {
  it('the default A2A_GRPC_MAX_MESSAGE_BYTES admits a 20 MB file and refuses a message above 32 MiB before the handler', async () => {
    const config = loadGatewayConfig({});
    expect(config.a2aGrpcMaxMessageBytes).toBeLessThan(config.bodyLimitBytes / 8);
    const task = { id: 't-1', contextId: 'c-1', status: { state: 'completed' } };
    const { f, address } = await start(
      { sendMessage: () => ({ taskJson: JSON.stringify({ kind: 'task', ...task }) }) },
      { maxPending: 10, acceptTimeoutMs: 10_000 },
      {
        maxReceiveMessageBytes: config.a2aGrpcMaxMessageBytes,
        maxConcurrentStreams: config.a2aGrpcMaxConcurrentStreams,
      },
    );
    expect((await send(address, 'm-ok', 20 * 1000 * 1000)).code).toBe(0);
    expect((await send(address, 'm-big', 33 * 1024 * 1024)).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(f.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(1);
  }, 60_000);
});
