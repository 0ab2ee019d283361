import type { Request } from 'express';
import { AppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { Clock, RateLimiter } from '@a2a-inbound/ports';
import type { controlV1 } from '@a2a-inbound/proto';
import type { InFlightLimit, Resolver } from '@a2a-inbound/runtime';
import type { GatewayClients, Lookups } from '../clients';
import { AGENT_DEFAULTS } from '../protocol/operations';
import type { KeyAuth } from './auth';
import type { SseWriter } from './sse';
import type { LargeBodyGate } from './spilled-body';

const MINUTE_MS = 60_000;

/** Rate limit: requests per minute per agent, shared by every replica. */
export async function enforceRateLimit(
  res: { setHeader(name: string, value: string): unknown },
  limiter: RateLimiter,
  agent: controlV1.AgentView,
  clock: Clock,
): Promise<void> {
  const limit = agent.rateLimitPerMinute > 0 ? agent.rateLimitPerMinute : AGENT_DEFAULTS.rateLimitPerMinute;
  const d = await limiter.hit(`agent:${agent.agentId}`, limit, MINUTE_MS);
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - d.count)));
  if (!d.allowed) {
    const retryAfter = Math.max(1, Math.ceil((d.resetAtMs - clock.now()) / 1000));
    res.setHeader('Retry-After', String(retryAfter));
    throw new AppError('RATE_LIMITED', `Rate limit of ${limit} requests per minute exceeded for this agent`, {
      details: { retryAfterSeconds: retryAfter },
    });
  }
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
  if (agent.status !== 'running') throw new AppError('NOT_FOUND', 'Agent not found');
  if (requireA2a && (!agent.a2aEnabled || agent.type !== 'AI Agent'))
    throw new AppError('A2A_NOT_ENABLED', 'A2A is not enabled for this agent');
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
}

/** An authenticated caller of an agent endpoint. */
export interface AgentCallContext {
  auth: KeyAuth;
  agent: controlV1.AgentView;
  /** Gives the request's admission slot back: the tasks service accepted it (idempotent). */
  accepted?: () => void;
}
