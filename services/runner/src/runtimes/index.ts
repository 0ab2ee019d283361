import { silentLogger, type Logger } from '@a2a-inbound/logger';
import type { CommitBarrier } from '@a2a-inbound/ports';
import { egressFetch, type EgressAgent } from '@a2a-inbound/runtime';
import { a2aMeter } from '@a2a-inbound/telemetry';
import { SecretUnavailableError, agentText, type AgentRuntime } from '../domain/agent-runtime';
import { createA2aUpstreamRuntime } from './a2a-upstream';
import { createGraphRuntime } from './graph-runtime';
import { createHttpAgentRuntime } from './http';
import { createModelRuntime, type ModelUsageRecord } from './model-runtime';

export { validateA2aUpstreamConfig, type A2aUpstreamConfig } from './a2a-upstream';
export { validateHttpAgentConfig, type HttpAgentConfig } from './http';
export type { ConfigProblem } from './common';

/**
 * `tokenSecret` names a secret of the subscription (ADR 0020): the runtime gets its value, opened now; a
 * secret that cannot be opened fails the run with that reason.
 */
function withResolvedToken(runtime: AgentRuntime): AgentRuntime {
  return async (ctx) => {
    const ref = ctx.config.tokenSecret;
    if (typeof ref !== 'string') return runtime(ctx);
    let token: string;
    try {
      token = ctx.secret(ref);
    } catch (err) {
      if (!(err instanceof SecretUnavailableError)) throw err;
      await ctx.status('failed', agentText(ctx, `${err.message}; the agent version needs it.`, 'failure'));
      return;
    }
    await runtime({ ...ctx, config: { ...ctx.config, tokenSecret: token } });
  };
}

/**
 * The runtimes that call out, by runtime name: every call through the guarded egress agent, and (given the
 * engines' commit barrier, ADR 0069) only once what was written before it is durable: an upstream agent, a
 * model or a tool never acts on a run whose task a crash could still undo.
 */
export function egressRuntimes(
  agent: EgressAgent,
  log: Logger = silentLogger(),
  commits?: CommitBarrier,
): Record<string, AgentRuntime> {
  const guarded = egressFetch(agent);
  const fetch: typeof guarded = commits
    ? (input, init) => {
        const pending = commits.committed();
        return pending ? pending.then(() => guarded(input, init)) : guarded(input, init);
      }
    : guarded;
  const deps = { fetch, policy: agent.policy };
  const tokens = a2aMeter().createCounter('a2a_model_tokens_total', {
    description: 'Model tokens used by agent runs, by kind (prompt, completion) and run outcome',
  });
  const onUsage = (u: ModelUsageRecord): void => {
    tokens.add(u.promptTokens, { kind: 'prompt', outcome: u.outcome });
    tokens.add(u.completionTokens, { kind: 'completion', outcome: u.outcome });
    log.info(
      {
        taskId: u.taskId,
        model: u.model,
        promptTokens: u.promptTokens,
        completionTokens: u.completionTokens,
        totalTokens: u.totalTokens,
        outcome: u.outcome,
      },
      'model usage',
    );
  };
  const model = createModelRuntime({ fetch, log, onUsage });
  return {
    'a2a-upstream': withResolvedToken(createA2aUpstreamRuntime(deps)),
    http: withResolvedToken(createHttpAgentRuntime(deps)),
    model,
    graph: createGraphRuntime({ fetch, onUsage }),
  };
}
