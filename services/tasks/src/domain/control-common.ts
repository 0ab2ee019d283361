/** What the control plane's concerns share: collections, views, cache keys and defaults. */
import type { Collection, DocumentStore } from '@a2a-inbound/ports';
import type {
  A2aVersion,
  ServedA2aVersion,
  AgentDoc,
  AgentType,
  AgentVersionDoc,
  ApiKeyDoc,
  CreditBucketDoc,
  CreditChargeDoc,
  DeploymentAgentDoc,
  DeploymentDoc,
  SkillDoc,
  SubscriptionDoc,
  UserDoc,
  VersionStrategy,
} from './control-model';

/** What the gateway and the tasks service need to serve an agent. */
export interface AgentView {
  agentId: string;
  deploymentId: string;
  subscriptionId: string;
  name: string;
  description: string;
  type: AgentType;
  status: string;
  a2aEnabled: boolean;
  defaultA2aVersion: A2aVersion;
  a2aVersions: ServedA2aVersion[];
  blockingBudgetMs: number;
  rateLimitPerMinute: number;
  pushNotificationsEnabled: boolean;
  servedVersion: string;
  versionStrategy: VersionStrategy;
  pinnedVersion: string;
  skills: SkillDoc[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  runtime: string;
  runtimeConfig: Record<string, unknown>;
  /** The served version's stored streaming claim (`a2a-upstream`); absent: the runtime's trait decides. */
  streaming?: boolean;
  schedule: string;
  updatedAtMs: number;
}

export interface KeyPrincipal {
  keyId: string;
  subscriptionId: string;
  scopes: string[];
  keyHash: string;
  expiresAtMs: number;
  revoked: boolean;
}

export const KEY_SCOPES = ['a2a', 'invoke'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** Cache keys shared with the gateway: the tasks service deletes them on every change (invalidation). */
export const cacheKeys = {
  agent: (agentId: string): string => `agent:${agentId}`,
  /** The tasks service's own resolution of an agent (its AgentView, not the gateway's proto view). */
  agentView: (agentId: string): string => `agent-view:${agentId}`,
  key: (keyHash: string): string => `key:${keyHash}`,
  catalog: (deploymentId: string): string => `catalog:${deploymentId}`,
  /** A settled subscription's cost per invocation (what a send charges). */
  creditCost: (subscriptionId: string): string => `credit-cost:${subscriptionId}`,
};

export const DEFAULT_INPUT_MODES = ['text/plain', 'application/json'];
export const DEFAULT_OUTPUT_MODES = ['text/plain', 'text/markdown', 'application/json'];

export interface Collections {
  subscriptions: Collection<SubscriptionDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  users: Collection<UserDoc>;
  agents: Collection<AgentDoc>;
  deployments: Collection<DeploymentDoc>;
  deploymentAgents: Collection<DeploymentAgentDoc>;
  creditBuckets: Collection<CreditBucketDoc>;
  creditCharges: Collection<CreditChargeDoc>;
}

export async function openControlCollections(store: DocumentStore): Promise<Collections> {
  return {
    subscriptions: await store.collection<SubscriptionDoc>({ name: 'subscriptions' }),
    apiKeys: await store.collection<ApiKeyDoc>({
      name: 'api_keys',
      indexes: [{ fields: ['keyHash'], unique: true }, { fields: ['subscriptionId'] }],
    }),
    users: await store.collection<UserDoc>({
      name: 'users',
      // An email is unique within its subscription only: a tenant creating a user must not learn that
      // another tenant has that address (conformance notes). Users authenticate by token, never by email.
      indexes: [
        { fields: ['tokenHash'], unique: true },
        { fields: ['subscriptionId', 'email'], unique: true },
      ],
    }),
    agents: await store.collection<AgentDoc>({ name: 'agents', indexes: [{ fields: ['subscriptionId'] }] }),
    deployments: await store.collection<DeploymentDoc>({
      name: 'deployments',
      indexes: [{ fields: ['subscriptionId'] }],
    }),
    deploymentAgents: await store.collection<DeploymentAgentDoc>({
      name: 'deployment_agents',
      indexes: [{ fields: ['deploymentId'] }, { fields: ['subscriptionId'] }],
    }),
    // Read and written by id only (`<subscriptionId>:<n>`, `<subscriptionId>:<chargeId>`): no query indexes.
    creditBuckets: await store.collection<CreditBucketDoc>({ name: 'credit_buckets' }),
    creditCharges: await store.collection<CreditChargeDoc>({ name: 'credit_charges' }),
  };
}

/** The newest version promoted to production, or undefined. */
export function latestProduction(agent: AgentDoc): AgentVersionDoc | undefined {
  return agent.versions
    .filter((v) => v.status === 'production')
    .sort((a, b) => (b.promotedAtMs ?? 0) - (a.promotedAtMs ?? 0))[0];
}
