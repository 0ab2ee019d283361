import { AppError } from '@a2a-inbound/errors';
import type { Clock, RateLimiter } from '@a2a-inbound/ports';

/**
 * Who may reach an agent and how often, the same for every door: the gateway's public endpoints and a team's
 * direct TasksService call (ADR 0032). Both answer with these codes and messages.
 */

/** The default of an agent's rate limit when its settings carry none (0); the control plane's default too. */
export const DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE = 600;

const MINUTE_MS = 60_000;

/** The settings of an agent the access rules read. */
export interface AgentAccessView {
  agentId: string;
  status: string;
  a2aEnabled: boolean;
  type: string;
  rateLimitPerMinute: number;
}

/** A stopped agent is not found; one that does not serve A2A (switched off, or not an AI Agent) is A2A_NOT_ENABLED. */
export function assertAgentReachable(
  agent: Omit<AgentAccessView, 'agentId' | 'rateLimitPerMinute'>,
  a2a: boolean,
): void {
  if (agent.status !== 'running') throw new AppError('NOT_FOUND', 'Agent not found');
  if (a2a && (!agent.a2aEnabled || agent.type !== 'AI Agent'))
    throw new AppError('A2A_NOT_ENABLED', 'A2A is not enabled for this agent');
}

/** One request's hit on the agent's per-minute budget, shared by every replica and every door. */
export interface AgentRateDecision {
  limit: number;
  remaining: number;
}

/** Counts one request against the agent's limit; over it: RATE_LIMITED with the seconds to wait. */
export async function hitAgentRateLimit(
  limiter: RateLimiter,
  agent: Pick<AgentAccessView, 'agentId' | 'rateLimitPerMinute'>,
  clock: Clock,
  onDecision?: (d: AgentRateDecision & { retryAfterSeconds?: number }) => void,
): Promise<AgentRateDecision> {
  const limit = agent.rateLimitPerMinute > 0 ? agent.rateLimitPerMinute : DEFAULT_AGENT_RATE_LIMIT_PER_MINUTE;
  const d = await limiter.hit(`agent:${agent.agentId}`, limit, MINUTE_MS);
  const remaining = Math.max(0, limit - d.count);
  if (d.allowed) {
    onDecision?.({ limit, remaining });
    return { limit, remaining };
  }
  const retryAfterSeconds = Math.max(1, Math.ceil((d.resetAtMs - clock.now()) / 1000));
  onDecision?.({ limit, remaining, retryAfterSeconds });
  throw new AppError('RATE_LIMITED', `Rate limit of ${limit} requests per minute exceeded for this agent`, {
    details: { retryAfterSeconds },
  });
}
