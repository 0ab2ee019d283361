import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  randomIds,
  systemClock,
} from '@a2a-inbound/ports';
import { controlV1, tasksV1 } from '@a2a-inbound/proto';
import { reflectedMethods, reflectedServices } from '@a2a-inbound/testing';
import { startTasksApp, type TasksApp } from '../../src/app';
import { loadTasksConfig } from '../../src/config';

/** The method names a generated client calls: the last segment of each path. */
const methodNames = (definition: Record<string, { path: string }>): string[] =>
  Object.values(definition)
    .map((m) => m.path.split('/')[2]!)
    .sort();

describe('tasks gRPC server reflection (what `grpcurl -plaintext <addr> list|describe` shows)', () => {
  let app: TasksApp;
  beforeAll(async () => {
    app = await startTasksApp(
      {
        store: new InMemoryDocumentStore(),
        blobs: new InMemoryBlobStore(),
        bus: new InMemoryBus(),
        eventLog: new InMemoryEventLog(),
        cache: new InMemoryCache(),
        clock: systemClock,
        ids: randomIds,
        log: silentLogger(),
      },
      loadTasksConfig({ TASKS_GRPC_PORT: '0', SEED_DEMO: 'false' }),
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it('lists TasksService, ControlPlaneService and health', async () => {
    expect(await reflectedServices(app.grpc.address)).toEqual([
      'a2a_inbound.control.v1.ControlPlaneService',
      'a2a_inbound.tasks.v1.TasksService',
      'grpc.health.v1.Health',
    ]);
  });

  it('describes every method the generated clients call, with request and response types and streaming', async () => {
    const tasks = await reflectedMethods(app.grpc.address, 'a2a_inbound.tasks.v1.TasksService');
    expect(tasks.map((m) => m.name).sort()).toEqual(methodNames(tasksV1.TasksServiceService));
    expect(tasks.find((m) => m.name === 'SendMessageStream')).toEqual({
      name: 'SendMessageStream',
      inputType: '.a2a_inbound.tasks.v1.SendMessageRequest',
      outputType: '.a2a_inbound.tasks.v1.TaskStreamEvent',
      serverStreaming: true,
    });
    const control = await reflectedMethods(app.grpc.address, 'a2a_inbound.control.v1.ControlPlaneService');
    expect(control.map((m) => m.name).sort()).toEqual(methodNames(controlV1.ControlPlaneServiceService));
    expect(control.find((m) => m.name === 'CreateKey')).toMatchObject({ serverStreaming: false });
  });
});
