import { assertAgentReachable, checkPushConfigFields, hitAgentRateLimit } from '@a2a-inbound/a2a-wire';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { Clock, RateLimiter } from '@a2a-inbound/ports';
import type { tasksV1 } from '@a2a-inbound/proto';
import type { GrpcAuthPolicy, GrpcPrincipal, Resolver } from '@a2a-inbound/runtime';
import type { ControlPlane } from '../domain/control-plane';
import { sha256Hex } from '../domain/hashing';
import { checkTeamSend } from './team-send';

/** A caller outside the mesh, by the management user token or API key it presented (same roles as REST). */
export type TeamPrincipal =
  | { kind: 'user'; userId: string; subscriptionId: string; role: string }
  | { kind: 'key'; keyId: string; subscriptionId: string; scopes: readonly string[] };

/** The RPCs that carry a TasksService `caller`: a team calls them with an API key of scope `a2a`. */
const CALLER_RPCS = new Set([
  'SendMessage',
  'SendMessageStream',
  'GetTask',
  'CancelTask',
  'Resubscribe',
  'SetPushConfig',
  'GetPushConfig',
  'ListPushConfigs',
  'DeletePushConfig',
  'ListTasks',
]);

/** Lookups of the control plane that only services make: they answer for any tenant. */
const INTERNAL_RPCS = new Set([
  'AuthenticateKey',
  'AuthenticateUser',
  'ResolveAgent',
  'GetDeploymentCatalog',
  'GetDefaultAgent',
  'GetPushDelivery',
  // Card signing: a team could otherwise have any payload signed with its deployment's key.
  'GetCardSigningKeys',
  'SignAgentCard',
]);

/**
 * Which service identity (client certificate common name) may call which RPC of the tasks server. The gateway
 * acts on behalf of the keys and users it authenticated itself, so it sends any `caller`/`actor`; the webhooks
 * service reads what it pushes and verifies the bearer credentials of its own callers. The runner and the
 * linker call nothing here. Anything not in this table is PERMISSION_DENIED.
 */
export const SERVICE_RPCS: Readonly<Record<string, (rpc: string) => boolean>> = {
  gateway: (rpc) => rpc !== 'GetPushDelivery',
  webhooks: (rpc) => rpc === 'GetPushDelivery' || rpc === 'AuthenticateKey' || rpc === 'AuthenticateUser',
};

const denied = (why: string): AppError => new AppError('PERMISSION_DENIED', why);

/** Not a user (or not a key): try the other. A store outage stays an outage, not a refusal. */
function unknownCredential(err: unknown): undefined {
  if (err instanceof AppError && err.code === 'UNAUTHENTICATED') return undefined;
  throw err;
}

/** A user token or an API key → its principal; unknown, expired or revoked → UNAUTHENTICATED. */
export async function teamOfBearer(control: ControlPlane, token: string, now: () => number): Promise<TeamPrincipal> {
  const hash = sha256Hex(token);
  const user = await control.accounts.authenticateUser(hash).catch(unknownCredential);
  if (user) return { kind: 'user', userId: user.id, subscriptionId: user.doc.subscriptionId, role: user.doc.role };
  const key = await control.accounts.authenticateKey(hash).catch(unknownCredential);
  if (!key) throw new AppError('UNAUTHENTICATED', 'Invalid credential');
  if (key.revoked) throw new AppError('UNAUTHENTICATED', 'The API key was revoked');
  if (key.expiresAtMs > 0 && key.expiresAtMs <= now()) throw new AppError('UNAUTHENTICATED', 'The API key has expired');
  return { kind: 'key', keyId: key.keyId, subscriptionId: key.subscriptionId, scopes: key.scopes };
}

interface CallerFields {
  subscriptionId: string;
  deploymentId: string;
  agentId: string;
  keyId: string;
}

interface ActorFields {
  userId: string;
  role: string;
  subscriptionId: string;
}

/** A present field must equal the credential's; an empty one is filled in from it. */
function verified<T extends object>(given: T | undefined, truth: { [K in keyof T]?: string }, what: string): T {
  const out = { ...(given ?? {}) } as Record<string, unknown>;
  for (const [field, value] of Object.entries(truth) as [string, string][]) {
    const sent = out[field];
    if (sent !== undefined && sent !== '' && sent !== value)
      throw denied(`the ${what}'s ${field} is not the one of the credential`);
    out[field] = value;
  }
  return out as T;
}

/** What the policy needs beyond the control plane: time, the agents' shared rate limiter, DNS of file URIs. */
export interface TasksAuthDeps {
  clock: Clock;
  limiter: RateLimiter;
  resolver: Resolver;
}

/** A team's SetPushConfig meets the push-config rules the gateway applies before it forwards one. */
async function checkTeamPushConfig(req: tasksV1.SetPushConfigRequest, resolver: Resolver): Promise<void> {
  if (!req.config) throw new InvalidParamsError('pushNotificationConfig is required');
  await checkPushConfigFields(req.config, resolver);
}

/**
 * The tasks server's policy: services by the table above; a team's key acts only as itself on the agents of
 * its own subscription, a team's user only as itself in its own subscription with its own role. A team key's
 * call meets the gateway's checks too (agent running and serving A2A, its rate limit, the send and push-config
 * rules): the gateway made them itself before it calls, so its own calls are not checked twice.
 */
export function tasksAuthPolicy(control: ControlPlane, deps: TasksAuthDeps): GrpcAuthPolicy<TeamPrincipal> {
  return {
    bearer: (token) => teamOfBearer(control, token, () => deps.clock.now()),
    authorize: async (rpc, principal: GrpcPrincipal<TeamPrincipal>, request) => {
      if (principal.kind === 'in-process') return;
      if (principal.kind === 'service') {
        if (SERVICE_RPCS[principal.service]?.(rpc)) return;
        throw denied(`the ${principal.service} service may not call ${rpc}`);
      }
      const team = principal.team;
      const req = request as { caller?: CallerFields; actor?: ActorFields };
      if (INTERNAL_RPCS.has(rpc)) throw denied(`${rpc} is internal to the services`);
      if (CALLER_RPCS.has(rpc)) {
        if (team.kind !== 'key' || !team.scopes.includes('a2a'))
          throw denied(`${rpc} needs an API key with the "a2a" scope`);
        const caller = verified(req.caller, { subscriptionId: team.subscriptionId, keyId: team.keyId }, 'caller');
        // The agent must be one of the key's subscription: another tenant's agent is refused like a forged id.
        const agent = caller.agentId
          ? await control.catalog.resolveAgent(caller.agentId).catch(() => undefined)
          : undefined;
        if (!agent || agent.subscriptionId !== team.subscriptionId) throw denied("the caller's agent is not the key's");
        req.caller = verified(caller, { deploymentId: agent.deploymentId }, 'caller');
        assertAgentReachable(agent, true);
        await hitAgentRateLimit(deps.limiter, agent, deps.clock);
        if (rpc === 'SendMessage' || rpc === 'SendMessageStream')
          await checkTeamSend(request as tasksV1.SendMessageRequest, agent, deps.resolver);
        if (rpc === 'SetPushConfig') await checkTeamPushConfig(request as tasksV1.SetPushConfigRequest, deps.resolver);
        return;
      }
      // Every other ControlPlaneService RPC is a management operation with an `actor`: a user token's only.
      if (team.kind !== 'user') throw denied(`${rpc} needs a management user token`);
      req.actor = verified(
        req.actor,
        { userId: team.userId, role: team.role, subscriptionId: team.subscriptionId },
        'actor',
      );
    },
  };
}
