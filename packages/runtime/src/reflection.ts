import type * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { FILE_DESCRIPTOR_SET_BASE64 } from '@a2a-inbound/proto';

let contracts: protoLoader.PackageDefinition | undefined;
/** Building a ReflectionService indexes every descriptor (tens of ms): once per set of services per process. */
const reflectionServices = new Map<string, ReflectionService>();

/** Every proto of `proto/`, decoded once per process from the generated descriptor set (no .proto file read). */
function contractDefinitions(): protoLoader.PackageDefinition {
  contracts ??= protoLoader.loadFileDescriptorSetFromBuffer(Buffer.from(FILE_DESCRIPTOR_SET_BASE64, 'base64'));
  return contracts;
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
 * methods, not their description).
 */
export function addReflection(
  server: Pick<grpc.Server, 'addService'>,
  definitions: grpc.ServiceDefinition[],
): string[] {
  const names = [...new Set(definitions.map(grpcServiceName).filter((n): n is string => n !== undefined))].sort();
  const key = names.join(',');
  let service = reflectionServices.get(key);
  if (!service) {
    service = new ReflectionService(contractDefinitions(), { services: names });
    reflectionServices.set(key, service);
  }
  service.addToServer(server);
  return names;
}
