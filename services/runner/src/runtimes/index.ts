import { egressFetch, type EgressAgent } from '@a2a-inbound/runtime';
import type { AgentRuntime } from '../domain/agent-runtime';
import { createA2aUpstreamRuntime } from './a2a-upstream';
import { createHttpAgentRuntime } from './http';

export { validateA2aUpstreamConfig, type A2aUpstreamConfig } from './a2a-upstream';
export { validateHttpAgentConfig, type HttpAgentConfig } from './http';
export type { ConfigProblem } from './common';

/** The runtimes that call agents elsewhere, by runtime name: every call through the guarded egress agent. */
export function egressRuntimes(agent: EgressAgent): Record<string, AgentRuntime> {
  const deps = { fetch: egressFetch(agent), policy: agent.policy };
  return { 'a2a-upstream': createA2aUpstreamRuntime(deps), http: createHttpAgentRuntime(deps) };
}
