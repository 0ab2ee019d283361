import type * as grpc from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { FILE_DESCRIPTOR_SET_BASE64 } from '@a2a-inbound/proto';

/**
 * Building a ReflectionService indexes every descriptor it is given: from proto-loader's package definition
 * (each of its 2,430 types carries its file and every dependency, decoded again for each) that took ~0.8 s of
 * CPU per set of services, and each process starts several servers; from the descriptor set's 20 files, each
 * once, ~35 ms. Built on a server's first reflection call, once per set of services per process.
 */
const reflectionHandlers = new Map<string, Map<string, grpc.UntypedHandleCall>>();
/** The grpc.reflection.v1 and v1alpha ServerReflection definitions (each read from its .proto): once per process. */
let reflectionDefinitions: grpc.ServiceDefinition[] | undefined;

/**
 * Every proto of `proto/` as ReflectionService reads a package: one entry whose `fileDescriptorProtos` are the
 * generated FileDescriptorSet's files (its field 1, length-delimited, the only field of the message), each once.
 */
function contractFiles(): PackageDefinition {
  const set = Buffer.from(FILE_DESCRIPTOR_SET_BASE64, 'base64');
  const files: Buffer[] = [];
  let at = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = set[at++];
      if (byte === undefined || shift > 28) throw new Error('FILE_DESCRIPTOR_SET_BASE64 is not a FileDescriptorSet');
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < set.length) {
    if (varint() !== 0x0a) throw new Error('FILE_DESCRIPTOR_SET_BASE64 is not a FileDescriptorSet');
    const length = varint();
    files.push(set.subarray(at, at + length));
    at += length;
  }
  return {
    contracts: { format: 'FileDescriptorSet', fileDescriptorProtos: files },
  } as unknown as PackageDefinition;
}

/** The definitions and handlers a ReflectionService registers, by method path, without a server. */
function captured(service: ReflectionService): {
  definitions: grpc.ServiceDefinition[];
  handlers: Map<string, grpc.UntypedHandleCall>;
} {
  const definitions: grpc.ServiceDefinition[] = [];
  const handlers = new Map<string, grpc.UntypedHandleCall>();
  service.addToServer({
    addService(definition: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation) {
      definitions.push(definition);
      for (const [name, method] of Object.entries(definition)) {
        const handler = implementation[name];
        if (handler) handlers.set(method.path, handler);
      }
    },
  });
  return { definitions, handlers };
}

/** The sets of services whose reflection index this process has built (comma-joined names): for tests. */
export function builtReflectionIndexes(): string[] {
  return [...reflectionHandlers.keys()];
}

/** `a2a_inbound.tasks.v1.TasksService` from a definition's method paths (`/pkg.Service/Method`); undefined when empty. */
export function grpcServiceName(definition: grpc.ServiceDefinition): string | undefined {
  for (const method of Object.values(definition)) {
    const match = /^\/([^/]+)\/[^/]+$/.exec(method.path);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * Adds gRPC server reflection (grpc.reflection.v1 and v1alpha, what grpcurl and grpcui ask) to `server`.
 * `list` answers exactly the services of `definitions` that the contracts in proto/ declare; `describe`
 * resolves any symbol of those contracts (they are public in the repository anyway). Reflection serves the
 * schema only, never data, and takes no credential (the linker's bearer token guards LinkerService's
 * methods, not their description). The descriptor index is built on the first reflection call (see above).
 */
export function addReflection(
  server: Pick<grpc.Server, 'addService'>,
  definitions: grpc.ServiceDefinition[],
): string[] {
  const names = [...new Set(definitions.map(grpcServiceName).filter((n): n is string => n !== undefined))].sort();
  const key = names.join(',');
  // An empty package indexes nothing: only the ServerReflection definitions are wanted from it.
  reflectionDefinitions ??= captured(new ReflectionService({})).definitions;
  const handlerFor = (path: string): grpc.UntypedHandleCall | undefined => {
    let handlers = reflectionHandlers.get(key);
    if (!handlers) {
      handlers = captured(new ReflectionService(contractFiles(), { services: names })).handlers;
      reflectionHandlers.set(key, handlers);
    }
    return handlers.get(path);
  };
  for (const definition of reflectionDefinitions) {
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [name, method] of Object.entries(definition)) {
      // ServerReflectionInfo is a bidi stream: the real handler attaches its listeners in this same tick.
      implementation[name] = ((call: grpc.ServerDuplexStream<unknown, unknown>) => {
        const handler = handlerFor(method.path) as grpc.handleBidiStreamingCall<unknown, unknown> | undefined;
        if (handler) handler(call);
        else call.end();
      }) as grpc.UntypedHandleCall;
    }
    server.addService(definition, implementation);
  }
  return names;
}
