import type { Logger } from '@a2a-inbound/logger';
import { callPrincipal, isInProcessCall, type grpc } from '@a2a-inbound/runtime';
import type { AuditLog } from '../domain/audit';

/** The ControlPlaneService RPCs that change something: each success is recorded (issue 24, item 3). */
export const AUDITED_RPCS: ReadonlySet<string> = new Set([
  'CreateKey',
  'RevokeKey',
  'AddCredits',
  'SetCreditCost',
  'CreateUser',
  'CreateAgent',
  'PublishVersion',
  'PromoteVersion',
  'CreateDeployment',
  'AddDeploymentAgent',
  'RemoveDeploymentAgent',
  'SetDefaultAgent',
  'UpdateAgentSettings',
  'PutSecret',
  'DeleteSecret',
  'RotateCardSigningKey',
]);

/** Request fields that name what was changed. Never `value` (a secret) or anything else a request carries. */
const TARGET_FIELDS = ['keyId', 'agentId', 'deploymentId', 'version', 'name', 'email', 'role', 'subscriptionId'];

function targetOf(request: Record<string, unknown>, response: Record<string, unknown> | undefined): string {
  const pairs: string[] = [];
  const made =
    (response?.key as { id?: unknown } | undefined)?.id ??
    (response?.user as { id?: unknown } | undefined)?.id ??
    response?.id;
  if (typeof made === 'string' && made) pairs.push(`id=${made}`);
  for (const f of TARGET_FIELDS) {
    const v = request[f];
    if ((typeof v === 'string' && v !== '') || (typeof v === 'number' && v !== 0)) pairs.push(`${f}=${String(v)}`);
  }
  return pairs.join(' ').slice(0, 2_000);
}

/**
 * Records every successful management change of the service with who (the verified actor), what (the RPC and
 * the ids it named), when, and how the caller was authenticated. The answer waits for the record, so a change
 * the caller saw succeed is in the log; a failed record is logged, not turned into a failed change (it is made).
 */
export function audited(
  definition: grpc.ServiceDefinition,
  implementation: grpc.UntypedServiceImplementation,
  audit: AuditLog,
  log: Logger,
): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = { ...implementation };
  for (const [name, method] of Object.entries(definition)) {
    const rpc = method.path.slice(method.path.lastIndexOf('/') + 1);
    const handler = implementation[name];
    if (!handler || !AUDITED_RPCS.has(rpc) || method.responseStream || method.requestStream) continue;
    const unaryHandler = handler as grpc.handleUnaryCall<unknown, unknown>;
    out[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      unaryHandler(call, (err, response, ...rest) => {
        if (err) return callback(err, response, ...rest);
        const request = call.request as { actor?: { userId: string; role: string; subscriptionId: string } } & Record<
          string,
          unknown
        >;
        const principal = callPrincipal(call);
        const via =
          principal === undefined
            ? isInProcessCall(call)
              ? 'in-process'
              : 'unverified'
            : principal.kind === 'service'
              ? principal.service
              : principal.kind;
        audit
          .record({
            subscriptionId: request.actor?.subscriptionId ?? '',
            userId: request.actor?.userId ?? '',
            role: request.actor?.role ?? '',
            via,
            operation: rpc,
            target: targetOf(request, response as Record<string, unknown> | undefined),
          })
          .catch((e: unknown) => log.error({ err: e, operation: rpc }, 'audit record failed'))
          .finally(() => callback(null, response, ...rest));
      });
    }) as grpc.UntypedHandleCall;
  }
  return out;
}
