import { DuplicateKeyError } from '@a2a-inbound/errors';
import type { ControlPlane } from './control-plane';

export const DEMO = {
  subscriptionId: 'demo-subscription',
  deploymentId: 'demo-deployment',
  agents: {
    echo: 'demo-echo',
    slow: 'demo-slow',
    approval: 'demo-approval',
    failing: 'demo-failing',
    taskAgent: 'demo-task-agent',
  },
} as const;

export interface SeedResult {
  created: boolean;
  subscriptionId: string;
  deploymentId: string;
  agentIds: string[];
  /** The `model` agent on the configured provider (OPENAI_BASE_URL), when seeded. */
  modelAgentId?: string;
  /** Only when created: the demo credentials, shown once. */
  credentials?: { a2aKey: string; invokeKey: string; adminToken: string; operatorToken: string };
}

const demoAgents = [
  {
    id: DEMO.agents.echo,
    name: 'Demo Echo Agent',
    description: 'Demo agent: answers the text it received, streamed as several text deltas.',
    runtime: 'demo:echo',
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Repeats your message back.',
        tags: ['demo', 'echo'],
        examples: ['hello world'],
      },
    ],
  },
  {
    id: DEMO.agents.slow,
    name: 'Demo Slow Agent',
    description: 'Demo agent: works for a configurable time before answering.',
    runtime: 'demo:slow',
    runtimeConfig: { workMs: 3_000 },
    skills: [
      {
        id: 'slow',
        name: 'Slow work',
        description: 'Works for a while, then answers. Send {"workMs": n} as a data part to choose the time.',
        tags: ['demo'],
        examples: ['take your time'],
      },
    ],
  },
  {
    id: DEMO.agents.approval,
    name: 'Demo Approval Agent',
    description:
      'Demo agent: stops at an approval checkpoint (input-required) and completes when the reply comes on the same task.',
    runtime: 'demo:approval',
    skills: [
      {
        id: 'approve',
        name: 'Approval',
        description: 'Asks for approval before acting. Reply "approve" or "reject".',
        tags: ['demo', 'approval'],
        examples: ['transfer 10 credits'],
      },
    ],
  },
  {
    id: DEMO.agents.failing,
    name: 'Demo Failing Agent',
    description: 'Demo agent: every run fails with a reason.',
    runtime: 'demo:failing',
    skills: [
      {
        id: 'fail',
        name: 'Fail',
        description: 'Always fails, to show the failed state.',
        tags: ['demo'],
        examples: ['anything'],
      },
    ],
  },
];

/**
 * Seeds a fresh data set: one subscription, one deployment, the demo agents and demo credentials.
 * Safe to run on every start and from several replicas at once: the subscription insert decides who seeds.
 */
export async function seedDemo(
  control: ControlPlane,
  options: { rateLimitPerMinute?: number } = {},
): Promise<SeedResult> {
  const agentIds = [...demoAgents.map((a) => a.id), DEMO.agents.taskAgent];
  try {
    await control.accounts.createSubscription(DEMO.subscriptionId, 'Demo subscription', 1_000_000);
  } catch (err) {
    if (err instanceof DuplicateKeyError)
      return { created: false, subscriptionId: DEMO.subscriptionId, deploymentId: DEMO.deploymentId, agentIds };
    throw err;
  }
  const sub = DEMO.subscriptionId;
  await control.catalog.createDeployment({ id: DEMO.deploymentId, subscriptionId: sub, name: 'Demo deployment' });
  for (const a of demoAgents) {
    await control.catalog.createAgent({
      id: a.id,
      subscriptionId: sub,
      name: a.name,
      description: a.description,
      type: 'AI Agent',
      skills: a.skills,
    });
    await control.catalog.publishVersion(sub, a.id, {
      version: '1.0.0',
      runtime: a.runtime,
      runtimeConfig: a.runtimeConfig ?? {},
    });
    await control.catalog.promoteVersion(sub, a.id, '1.0.0');
    await control.catalog.addAgentToDeployment(sub, DEMO.deploymentId, a.id, {
      a2aEnabled: true,
      ...(options.rateLimitPerMinute ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
    });
  }
  await control.catalog.createAgent({
    id: DEMO.agents.taskAgent,
    subscriptionId: sub,
    name: 'Demo Task Agent',
    description: 'Demo Task Agent: runs a small graph asynchronously; A2A is not available for Task Agents.',
    type: 'Task Agent',
    skills: [],
  });
  await control.catalog.publishVersion(sub, DEMO.agents.taskAgent, { version: '1.0.0', runtime: 'demo:task-graph' });
  await control.catalog.promoteVersion(sub, DEMO.agents.taskAgent, '1.0.0');
  await control.catalog.addAgentToDeployment(sub, DEMO.deploymentId, DEMO.agents.taskAgent);
  await control.catalog.setDefaultAgent(sub, DEMO.deploymentId, DEMO.agents.echo);

  const a2a = await control.accounts.createKey({ subscriptionId: sub, name: 'demo a2a key', scopes: ['a2a'] });
  const invoke = await control.accounts.createKey({ subscriptionId: sub, name: 'demo invoke key', scopes: ['invoke'] });
  const admin = await control.accounts.createUser({ subscriptionId: sub, email: 'admin@demo.local', role: 'admin' });
  const operator = await control.accounts.createUser({
    subscriptionId: sub,
    email: 'operator@demo.local',
    role: 'operator',
  });
  return {
    created: true,
    subscriptionId: sub,
    deploymentId: DEMO.deploymentId,
    agentIds,
    credentials: { a2aKey: a2a.key, invokeKey: invoke.key, adminToken: admin.token, operatorToken: operator.token },
  };
}
