import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, systemClock } from '@a2a-inbound/ports';
import { call, grpc, type GrpcServerHandle } from '@a2a-inbound/runtime';
import { reflectedMethods, reflectedServices } from '@a2a-inbound/testing';
import { type LinkerApp, startLinkerApp } from '../../src/app';
import { linkerV1 } from '../../src/transport/proto';

describe('linker gRPC server reflection', () => {
  let app: LinkerApp;
  let server: GrpcServerHandle;
  beforeAll(async () => {
    app = await startLinkerApp(
      { store: new InMemoryDocumentStore(), clock: systemClock, log: silentLogger() },
      { serviceToken: 'r'.repeat(32) },
    );
    server = await app.start();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists LinkerService and health and describes its methods without the service token, while the methods still refuse a call without it', async () => {
    expect(await reflectedServices(server.address)).toEqual([
      'a2a_inbound.linker.v1.LinkerService',
      'grpc.health.v1.Health',
    ]);
    const methods = await reflectedMethods(server.address, 'a2a_inbound.linker.v1.LinkerService');
    expect(methods.map((m) => m.name).sort()).toEqual(
      Object.values(linkerV1.LinkerServiceService)
        .map((m) => m.path.split('/')[2])
        .sort(),
    );
    // Reflection describes the schema; the data behind it stays behind the bearer token.
    const client = new linkerV1.LinkerServiceClient(server.address, grpc.credentials.createInsecure());
    try {
      await expect(
        call(client.listApplications.bind(client), {
          caller: { subscriptionId: 'sub-a', role: 'admin', userId: 'u-a' },
        }),
      ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    } finally {
      client.close();
    }
  });
});
