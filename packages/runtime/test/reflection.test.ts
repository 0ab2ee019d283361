import { afterEach, describe, expect, it } from 'vitest';
import { a2aV1, healthV1, linkerV1, tasksV1 } from '@a2a-inbound/proto';
import { reflectedMethods, reflectedServices } from '@a2a-inbound/testing';
import { builtReflectionIndexes, grpc, grpcServiceName, startGrpcServer, type GrpcServerHandle } from '../src/index';

const HEALTH = 'grpc.health.v1.Health';

/** A definition no proto in proto/ declares (a test double a service might register). */
const undeclared: grpc.ServiceDefinition = {
  Ping: {
    path: '/example.v1.Undeclared/Ping',
    requestStream: false,
    responseStream: false,
    requestSerialize: (v: Buffer) => v,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (v: Buffer) => v,
    responseDeserialize: (b: Buffer) => b,
  },
};

describe('grpcServiceName', () => {
  it('reads the fully-qualified service name from the method paths, undefined for a service without methods', () => {
    expect(grpcServiceName(tasksV1.TasksServiceService)).toBe('a2a_inbound.tasks.v1.TasksService');
    expect(grpcServiceName(healthV1.HealthService)).toBe(HEALTH);
    expect(grpcServiceName({})).toBeUndefined();
  });
});

describe('gRPC server reflection on startGrpcServer', () => {
  let server: GrpcServerHandle | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a server without services of its own (runner, webhooks) lists health only', async () => {
    server = await startGrpcServer([], { host: '127.0.0.1', port: 0, isServing: () => true });
    expect(await reflectedServices(server.address)).toEqual([HEALTH]);
    expect((await reflectedMethods(server.address, HEALTH)).map((m) => m.name).sort()).toEqual(['Check', 'Watch']);
  });

  it('lists exactly the services the server hosts, describes their methods, and leaves out a service the contracts do not declare', async () => {
    server = await startGrpcServer(
      [
        { definition: linkerV1.LinkerServiceService, implementation: {} },
        { definition: undeclared, implementation: { Ping: () => undefined } },
      ],
      { host: '127.0.0.1', port: 0, isServing: () => true },
    );
    expect(await reflectedServices(server.address)).toEqual(['a2a_inbound.linker.v1.LinkerService', HEALTH]);
    const methods = await reflectedMethods(server.address, 'a2a_inbound.linker.v1.LinkerService');
    // The described methods are the ones the generated client calls (its paths end in the method name).
    expect(methods.map((m) => m.name).sort()).toEqual(
      Object.values(linkerV1.LinkerServiceService)
        .map((m) => m.path.split('/')[2])
        .sort(),
    );
    expect(methods.find((m) => m.name === 'CreateApplication')).toMatchObject({
      inputType: '.a2a_inbound.linker.v1.CreateApplicationRequest',
      outputType: '.a2a_inbound.linker.v1.Application',
    });
    await expect(reflectedMethods(server.address, 'example.v1.Undeclared')).rejects.toThrow(/reflection/);
  });

  it('builds the descriptor index on the first reflection call, not at start, once per set of services', async () => {
    const A2A = 'lf.a2a.v1.A2AService';
    const key = [HEALTH, A2A].join(',');
    const a2a = { definition: a2aV1.A2AServiceService, implementation: {} };
    server = await startGrpcServer([a2a], { host: '127.0.0.1', port: 0, isServing: () => true });
    expect(builtReflectionIndexes()).not.toContain(key);
    expect(await reflectedServices(server.address)).toEqual([HEALTH, A2A]);
    expect(builtReflectionIndexes()).toContain(key);
    // A second server with the same services reuses the index; `describe` reads the 1.0 contract (a2a.proto,
    // which imports google/api annotations: every file of the descriptor set is indexed).
    const second = await startGrpcServer([a2a], { host: '127.0.0.1', port: 0, isServing: () => true });
    try {
      expect((await reflectedMethods(second.address, A2A)).find((m) => m.name === 'SendMessage')).toMatchObject({
        inputType: '.lf.a2a.v1.SendMessageRequest',
        outputType: '.lf.a2a.v1.SendMessageResponse',
      });
      expect(builtReflectionIndexes().filter((k) => k === key)).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
