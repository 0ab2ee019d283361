import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import * as grpc from '@grpc/grpc-js';
import { AppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { toGrpcError } from './grpc';
import { isInProcessCall } from './in-process';

/**
 * Mutual TLS between the services (ADR 0032): the CA that signs every service certificate and this process's
 * own certificate and key, as PEM files. The files are re-read every `reloadMs`: a rotated certificate (a
 * cert-manager renewal rewrites the mounted Secret) is served to new connections without a restart.
 */
export interface GrpcTlsFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
  reloadMs: number;
}

/** Who made a call, as the server established it. */
export type GrpcPrincipal<T> =
  /** This process, through the in-process channel (embedded mode): trusted by construction (ADR 0019). */
  | { kind: 'in-process' }
  /** Another service of this system: the common name of the client certificate the CA signed. */
  | { kind: 'service'; service: string }
  /** A caller outside the mesh, by the `authorization: Bearer` credential the server verified. */
  | { kind: 'team'; team: T };

export interface GrpcAuthPolicy<T> {
  /** The principal a bearer credential stands for; throws UNAUTHENTICATED when it is unknown, expired or revoked. */
  bearer?: (token: string) => Promise<T>;
  /**
   * Decides one call of `method` (the RPC's name, e.g. `GetTask`) by `principal` on `request`: throws
   * PERMISSION_DENIED when the principal may not make it or the identity in the request disagrees with it.
   */
  authorize: (method: string, principal: GrpcPrincipal<T>, request: unknown) => Promise<void> | void;
}

const MAX_BEARER_CHARS = 512;

/** The principal each authenticated call was made by, for what runs after the check (the audit log). */
const principals = new WeakMap<object, GrpcPrincipal<unknown>>();

/** The principal `authenticated` established for this server call; undefined on a server without a policy. */
export function callPrincipal(call: object): GrpcPrincipal<unknown> | undefined {
  return principals.get(call);
}

/**
 * The server's credentials: mutual TLS with the files (client certificates optional: teams present a bearer),
 * or plaintext. Resolves once the files were read, so that the first connection already has a certificate;
 * unreadable files refuse the start.
 */
export async function grpcServerCredentials(tls: GrpcTlsFiles | undefined): Promise<grpc.ServerCredentials> {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  for (const file of [tls.caFile, tls.certFile, tls.keyFile])
    await access(file, constants.R_OK).catch((err: unknown) => {
      throw new AppError('INTERNAL', `cannot read the gRPC TLS file ${file}`, { cause: err });
    });
  const provider = new grpc.experimental.FileWatcherCertificateProvider({
    caCertificateFile: tls.caFile,
    certificateFile: tls.certFile,
    privateKeyFile: tls.keyFile,
    refreshIntervalMs: tls.reloadMs,
  });
  await new Promise<void>((resolve, reject) => {
    const first = (update: grpc.experimental.IdentityCertificateUpdate | null): void => {
      // The server's own listener (added at bind) keeps the provider watching the files after this one goes.
      setImmediate(() => provider.removeIdentityCertificateListener(first));
      if (update) resolve();
      else reject(new AppError('INTERNAL', `cannot read the gRPC certificate ${tls.certFile} or key ${tls.keyFile}`));
    };
    provider.addIdentityCertificateListener(first);
  });
  return grpc.experimental.createCertificateProviderServerCredentials(provider, provider, false);
}

/** A client's credentials towards another service: its own certificate, the CA to verify the server, or plaintext. */
export function grpcChannelCredentials(tls: GrpcTlsFiles | undefined): grpc.ChannelCredentials {
  if (!tls) return grpc.credentials.createInsecure();
  const provider = new grpc.experimental.FileWatcherCertificateProvider({
    caCertificateFile: tls.caFile,
    certificateFile: tls.certFile,
    privateKeyFile: tls.keyFile,
    refreshIntervalMs: tls.reloadMs,
  });
  return grpc.experimental.createCertificateProviderChannelCredentials(provider, provider);
}

function bearerOf(metadata: grpc.Metadata): string | undefined {
  const values = metadata.get('authorization');
  if (values.length !== 1 || typeof values[0] !== 'string') return undefined;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(values[0]);
  return m?.[1];
}

/** The principal of a server call: in-process, the verified client certificate, or the bearer credential. */
export async function principalOf<T>(
  call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
  policy: GrpcAuthPolicy<T>,
): Promise<GrpcPrincipal<T>> {
  if (isInProcessCall(call)) return { kind: 'in-process' };
  // grpc-js gives the peer certificate only when the TLS handshake verified it against the CA.
  const cn = call.getAuthContext().sslPeerCertificate?.subject.CN;
  if (typeof cn === 'string' && cn !== '') return { kind: 'service', service: cn };
  const token = bearerOf(call.metadata);
  if (token === undefined || !policy.bearer)
    throw new AppError(
      'UNAUTHENTICATED',
      'Missing credential: present a service certificate or metadata authorization: Bearer <token>',
    );
  if (token.length > MAX_BEARER_CHARS) throw new AppError('UNAUTHENTICATED', 'Invalid credential');
  return { kind: 'team', team: await policy.bearer(token) };
}

/**
 * Wraps every unary and server-streaming handler of a service so that it runs only for an authenticated and
 * authorised caller: UNAUTHENTICATED without a valid credential, PERMISSION_DENIED when the policy refuses.
 */
export function authenticated<T>(
  definition: grpc.ServiceDefinition,
  implementation: grpc.UntypedServiceImplementation,
  policy: GrpcAuthPolicy<T>,
  log?: Logger,
): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = { ...implementation };
  for (const [name, method] of Object.entries(definition)) {
    const handler = implementation[name];
    if (!handler || method.requestStream) continue;
    const rpc = method.path.slice(method.path.lastIndexOf('/') + 1);
    const check = async (
      call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>,
    ): Promise<void> => {
      const principal = await principalOf(call, policy);
      await policy.authorize(rpc, principal, call.request);
      principals.set(call, principal);
    };
    if (method.responseStream) {
      const streaming = handler as grpc.handleServerStreamingCall<unknown, unknown>;
      out[name] = ((call: grpc.ServerWritableStream<unknown, unknown>) => {
        check(call).then(
          () => {
            if (!call.cancelled) streaming(call); // the caller left during the check
          },
          (err: unknown) => call.emit('error', toGrpcError(err, log)),
        );
      }) as grpc.UntypedHandleCall;
    } else {
      const unaryHandler = handler as grpc.handleUnaryCall<unknown, unknown>;
      out[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        check(call).then(
          () => unaryHandler(call, callback),
          (err: unknown) => callback(toGrpcError(err, log)),
        );
      }) as grpc.UntypedHandleCall;
    }
  }
  return out;
}
