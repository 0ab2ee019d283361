import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import descriptor from 'protobufjs/ext/descriptor';
import { grpc } from '@a2a-inbound/runtime';

/** One method of a service, as reflection describes it. */
export interface ReflectedMethod {
  name: string;
  inputType: string;
  outputType: string;
  serverStreaming: boolean;
}

interface ReflectionResponse {
  listServicesResponse?: { service: { name: string }[] };
  fileDescriptorResponse?: { fileDescriptorProto: Buffer[] };
  errorResponse?: { errorCode: number; errorMessage: string };
}
type ReflectionStream = grpc.ClientDuplexStream<Record<string, unknown>, ReflectionResponse>;
type ReflectionClient = grpc.Client & { serverReflectionInfo(options?: grpc.CallOptions): ReflectionStream };

let reflectionCtor: (new (address: string, creds: grpc.ChannelCredentials) => ReflectionClient) | undefined;

/** The grpc.reflection.v1 client, from the proto that @grpc/reflection ships. */
function reflectionClient(address: string): ReflectionClient {
  if (!reflectionCtor) {
    const require = createRequire(__filename);
    const dir = dirname(require.resolve('@grpc/reflection/package.json'));
    const def = protoLoader.loadSync(join(dir, 'build/proto/grpc/reflection/v1/reflection.proto'), {
      longs: Number,
      defaults: true,
    });
    const pkg = grpc.loadPackageDefinition(def) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: NonNullable<typeof reflectionCtor> } } };
    };
    reflectionCtor = pkg.grpc.reflection.v1.ServerReflection;
  }
  return new reflectionCtor(address, grpc.credentials.createInsecure());
}

/** One request on a fresh ServerReflectionInfo stream, as grpcurl sends it; rejects on an error response. */
async function ask(address: string, request: Record<string, unknown>, timeoutMs: number): Promise<ReflectionResponse> {
  const client = reflectionClient(address);
  try {
    return await new Promise<ReflectionResponse>((resolve, reject) => {
      const stream = client.serverReflectionInfo({ deadline: new Date(Date.now() + timeoutMs) });
      stream.once('data', (res: ReflectionResponse) => {
        stream.end();
        if (res.errorResponse) reject(new Error(`reflection: ${res.errorResponse.errorMessage}`));
        else resolve(res);
      });
      stream.once('error', reject);
      stream.write(request);
    });
  } finally {
    client.close();
  }
}

/** What `grpcurl -plaintext <address> list` prints: the services the server describes, sorted. */
export async function reflectedServices(address: string, timeoutMs = 5_000): Promise<string[]> {
  const res = await ask(address, { listServices: '*' }, timeoutMs);
  return (res.listServicesResponse?.service ?? []).map((s) => s.name).sort();
}

/** What `grpcurl -plaintext <address> describe <service>` reads: the service's methods from its file descriptor. */
export async function reflectedMethods(
  address: string,
  service: string,
  timeoutMs = 5_000,
): Promise<ReflectedMethod[]> {
  const res = await ask(address, { fileContainingSymbol: service }, timeoutMs);
  const dot = service.lastIndexOf('.');
  const [pkg, name] = [service.slice(0, dot), service.slice(dot + 1)];
  for (const bytes of res.fileDescriptorResponse?.fileDescriptorProto ?? []) {
    const file = descriptor.FileDescriptorProto.toObject(descriptor.FileDescriptorProto.decode(bytes), {
      defaults: true,
    }) as descriptor.IFileDescriptorProto;
    if (file.package !== pkg) continue;
    const svc = file.service?.find((s) => s.name === name);
    if (!svc) continue;
    return (svc.method ?? []).map((m) => ({
      name: m.name ?? '',
      inputType: m.inputType ?? '',
      outputType: m.outputType ?? '',
      serverStreaming: m.serverStreaming ?? false,
    }));
  }
  throw new Error(`reflection: no descriptor of ${service} in the answer`);
}
