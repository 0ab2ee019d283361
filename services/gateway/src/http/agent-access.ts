import type { Request } from 'express';
import { assertAgentReachable, hitAgentRateLimit } from '@a2a-inbound/a2a-wire';
import { AppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { Clock, RateLimiter } from '@a2a-inbound/ports';
import type { controlV1 } from '@a2a-inbound/proto';
import type { InFlightLimit, Resolver, EgressPolicy } from '@a2a-inbound/runtime';
import type { GatewayClients, Lookups } from '../clients';
import type { KeyAuth } from './auth';
import type { SseWriter } from './sse';
import type { LargeBodyGate } from './spilled-body';

/** Rate limit: requests per minute per agent, shared by every replica (and a team's direct sends). */
export async function enforceRateLimit(
  res: { setHeader(name: string, value: string): unknown },
  limiter: RateLimiter,
  agent: controlV1.AgentView,
  clock: Clock,
): Promise<void> {
  await hitAgentRateLimit(limiter, agent, clock, (d) => {
    res.setHeader('X-RateLimit-Limit', String(d.limit));
    res.setHeader('X-RateLimit-Remaining', String(d.remaining));
    if (d.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(d.retryAfterSeconds));
  });
}

/** Loads the agent for an authenticated caller: unknown or another tenant's → 404; not A2A → 404 A2A_NOT_ENABLED. */
export async function agentForCaller(
  lookups: Lookups,
  agentId: string,
  auth: KeyAuth,
  requireA2a: boolean,
): Promise<controlV1.AgentView> {
  let agent: controlV1.AgentView;
  try {
    agent = await lookups.agent(agentId);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', 'Agent not found');
    throw err;
  }
  if (agent.subscriptionId !== auth.subscriptionId) throw new AppError('NOT_FOUND', 'Agent not found');
  assertAgentReachable(agent, requireA2a);
  return agent;
}

/**
 * Load shedding of the agent endpoints: at most `pending.max` requests per gateway between arrival and the
 * moment the tasks service accepted them (a send stored and charged, a stream's first event, any other
 * answer); one more is refused with OVERLOADED before its body is read. A send tasks has not accepted
 * within `acceptTimeoutMs` is refused the same way. A blocking send's wait for its run is not counted.
 */
export interface GatewayAdmission {
  pending: InFlightLimit;
  acceptTimeoutMs: number;
  /** Large bodies read at once (GATEWAY_MAX_LARGE_BODIES); more wait with their upload unread. */
  largeBodies: LargeBodyGate;
}

/** What the non-JSON-RPC agent routers (legacy REST, invoke) need: the same auth, limits and streams. */
export interface AgentRouterDeps {
  admission: GatewayAdmission;
  clients: GatewayClients;
  lookups: Lookups;
  limiter: RateLimiter;
  clock: Clock;
  log: Logger;
  baseUrl(req: Request): string;
  bodyLimitBytes: number;
  sseHeartbeatMs: number;
  /** Streams to end on shutdown. */
  streams: Set<SseWriter>;
  /** Resolves file-URI hosts for the public-address check (tests inject one). */
  resolver?: Resolver;
  /** Push receivers allowed at registration (PUSH_ALLOW_*); default: public https only. */
  pushPolicy?: EgressPolicy;
}

/** An authenticated caller of an agent endpoint. */
export interface AgentCallContext {
  auth: KeyAuth;
  agent: controlV1.AgentView;
  /** Gives the request's admission slot back: the tasks service accepted it (idempotent). */
  accepted?: () => void;
}
