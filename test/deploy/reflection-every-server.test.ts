// Issue 13, done when: a grpcurl-style listing through reflection shows every service. The five services in
// one process (the embedded layout, in-memory engines, so this runs without Kafka, Redis or MongoDB): each of
// the four gRPC servers lists, through the reflection client grpcurl uses, exactly the services it serves,
// and describes every method of each. test/deploy/bundle-in-empty-dir.test.ts asks the same of the packed
// services on the real engines.
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import { createLogger } from '@a2a-inbound/logger';
import { controlV1, healthV1, linkerV1, tasksV1, webhooksV1 } from '@a2a-inbound/proto';
import { reflectedMethods, reflectedServices } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const methodsOf = (definition: Record<string, { path: string }>): string[] =>
  Object.values(definition)
    .map((m) => m.path.split('/')[2]!)
    .sort();

describe('gRPC server reflection on every server', () => {
  let system: System;
  beforeAll(async () => {
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1' },
      engines: inMemoryEngines(),
      log: createLogger({ service: 'test', level: 'silent' }),
      inProcessGrpc: false,
    });
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('lists and describes each server’s services, as grpcurl list and describe do', async () => {
    const servers: [string, string, Record<string, Record<string, { path: string }>>][] = [
      [
        'tasks',
        system.tasks.grpc.address,
        {
          'a2a_inbound.tasks.v1.TasksService': tasksV1.TasksServiceService,
          'a2a_inbound.control.v1.ControlPlaneService': controlV1.ControlPlaneServiceService,
        },
      ],
      ['runner', system.runners[0]!.grpc.address, {}],
      [
        'webhooks',
        system.webhooks.grpc.address,
        { 'a2a_inbound.webhooks.v1.WebhooksService': webhooksV1.WebhooksServiceService },
      ],
      ['linker', system.linker.grpc.address, { 'a2a_inbound.linker.v1.LinkerService': linkerV1.LinkerServiceService }],
    ];
    for (const [name, address, services] of servers) {
      const all = { ...services, 'grpc.health.v1.Health': healthV1.HealthService };
      expect(await reflectedServices(address), name).toEqual(Object.keys(all).sort());
      for (const [service, definition] of Object.entries(all))
        expect((await reflectedMethods(address, service)).map((m) => m.name).sort(), `${name} ${service}`).toEqual(
          methodsOf(definition),
        );
    }
  });
});
