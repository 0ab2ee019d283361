import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { tasksV1 } from '@a2a-inbound/proto';
import {
  callPrincipal,
  checkHealth,
  grpc,
  grpcClientOptions,
  startGrpcServer,
  unary,
  withInProcessGrpc,
  type GrpcAuthPolicy,
  type GrpcServerHandle,
} from '../src/index';
// @ts-expect-error -- a plain .mjs script (repository tooling)
import { issue, makeCa, makeDevPki, tlsEnv } from '../../../scripts/dev-ca.mjs';

// The transport-level authentication of ADR 0032 on a real TLS server: who gets in, as what, and what stays open.

const dir = mkdtempSync(join(tmpdir(), 'grpc-auth-'));
const pem = (f: string): Buffer => readFileSync(join(dir, f));
const files = () => {
  const e = (tlsEnv as (d: string, s: string, ms: number) => Record<string, string>)(dir, 'tasks', 100);
  return { caFile: e.GRPC_TLS_CA_FILE!, certFile: e.GRPC_TLS_CERT_FILE!, keyFile: e.GRPC_TLS_KEY_FILE!, reloadMs: 100 };
};

const policy: GrpcAuthPolicy<{ subscriptionId: string }> = {
  bearer: async (token) => {
    if (token !== 'team-a-token') throw new AppError('UNAUTHENTICATED', 'Invalid credential');
    return { subscriptionId: 'sub-a' };
  },
  authorize: (_rpc, principal, request) => {
    const caller = (request as tasksV1.GetTaskRequest).caller;
    if (principal.kind === 'service' && principal.service !== 'gateway')
      throw new AppError('PERMISSION_DENIED', 'not this service');
    if (principal.kind === 'team' && caller?.subscriptionId !== principal.team.subscriptionId)
      throw new AppError('PERMISSION_DENIED', 'another subscription');
  },
};

const implementation: Partial<tasksV1.TasksServiceServer> = {
  getTask: unary(async (_r: tasksV1.GetTaskRequest, call) => ({ taskJson: JSON.stringify(callPrincipal(call)) })),
};

let server: GrpcServerHandle;
beforeAll(async () => {
  (makeDevPki as (d: string, s: string[]) => void)(dir, ['tasks', 'gateway', 'runner']);
  // A certificate named `gateway` from a CA the server does not trust.
  (makeCa as (d: string, n: string) => void)(join(dir, 'other'), 'other CA');
  (issue as (ca: string, s: string, out: string, f: string) => void)(join(dir, 'other'), 'gateway', dir, 'forged');
  server = await startGrpcServer(
    [
      {
        definition: tasksV1.TasksServiceService,
        implementation: implementation as grpc.UntypedServiceImplementation,
        auth: policy,
      },
    ],
    { host: '127.0.0.1', port: 0, isServing: () => true, tls: files() },
  );
}, 30_000);
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function getTask(
  creds: grpc.ChannelCredentials,
  token?: string,
  subscriptionId = 'sub-a',
): Promise<{ code: number; principal?: unknown }> {
  const client = new tasksV1.TasksServiceClient(server.address, creds);
  const md = new grpc.Metadata();
  if (token) md.set('authorization', `Bearer ${token}`);
  try {
    return await new Promise((resolve) =>
      client.getTask(
        tasksV1.GetTaskRequest.fromPartial({ caller: { subscriptionId, agentId: 'a' }, taskId: 't' }),
        md,
        { deadline: new Date(Date.now() + 5_000) },
        (err, res) => resolve(err ? { code: err.code } : { code: 0, principal: JSON.parse(res.taskJson) }),
      ),
    );
  } finally {
    client.close();
  }
}

const asTeam = () => grpc.credentials.createSsl(pem('ca.pem'));
const asService = (name: string) =>
  grpc.credentials.createSsl(pem('ca.pem'), pem(`${name}-key.pem`), pem(`${name}.pem`));

describe('authenticated gRPC server (mutual TLS, bearer credentials)', () => {
  it('refuses a call without a credential or with an unknown one: UNAUTHENTICATED', async () => {
    expect((await getTask(asTeam())).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await getTask(asTeam(), 'nope')).code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('knows a team by its bearer credential and a service by its certificate; the policy decides', async () => {
    expect(await getTask(asTeam(), 'team-a-token')).toEqual({
      code: 0,
      principal: { kind: 'team', team: { subscriptionId: 'sub-a' } },
    });
    expect((await getTask(asTeam(), 'team-a-token', 'sub-b')).code).toBe(grpc.status.PERMISSION_DENIED);
    expect(await getTask(asService('gateway'))).toEqual({
      code: 0,
      principal: { kind: 'service', service: 'gateway' },
    });
    expect((await getTask(asService('runner'))).code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it('does not take a certificate of another CA, nor plaintext; health stays open', async () => {
    // The handshake goes through (client certificates are optional) but an unverified one names nobody.
    expect((await getTask(asService('forged'))).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await getTask(grpc.credentials.createInsecure(), 'team-a-token')).code).toBe(grpc.status.UNAVAILABLE);
    expect(await checkHealth(server.address, { credentials: asTeam() })).toBe('SERVING');
  });

  it('trusts a call of this process through the in-process channel (ADR 0019)', async () => {
    const local = await withInProcessGrpc(() =>
      startGrpcServer(
        [
          {
            definition: tasksV1.TasksServiceService,
            implementation: implementation as grpc.UntypedServiceImplementation,
            auth: policy,
          },
        ],
        { host: '127.0.0.1', port: 0, isServing: () => true, tls: files() },
      ),
    );
    const client = new tasksV1.TasksServiceClient(local.address, asTeam(), grpcClientOptions(local.address));
    try {
      const r = await withInProcessGrpc(
        () =>
          new Promise<unknown>((resolve, reject) =>
            client.getTask(
              tasksV1.GetTaskRequest.fromPartial({ caller: { subscriptionId: 'any' }, taskId: 't' }),
              (err, res) => (err ? reject(err) : resolve(JSON.parse(res.taskJson))),
            ),
          ),
      );
      expect(r).toEqual({ kind: 'in-process' });
    } finally {
      client.close();
      await local.close();
    }
  });
});
