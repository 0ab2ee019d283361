export type AgentType = 'AI Agent' | 'Task Agent';
export type Role = 'admin' | 'developer' | 'operator';
export type VersionStrategy = 'latest-production' | 'pinned';
export type A2aVersion = '0.3.0' | '0.2.6';
/** Every A2A version an agent can serve (setting `a2aVersions`; all of them unless changed). */
export const A2A_VERSIONS = ['0.3.0', '0.2.6', '1.0'] as const;
export type ServedA2aVersion = (typeof A2A_VERSIONS)[number];

export interface SubscriptionDoc {
  name: string;
  /**
   * Credits not yet moved into the subscription's credit buckets (a subscription is created with them, or
   * was stored before buckets existed); moved out on first use. The balance is the sum of the buckets.
   */
  credits: number;
  creditCostPerInvocation: number;
  /** Legacy ring of charge ids (before the credit_charges ledger); no longer written. */
  recentCharges: string[];
  /** Legacy credits on their way into the buckets: set in the same write that zeroes `credits`. */
  creditsMoving?: { id: string; amount: number } | null;
  createdAtMs: number;
}

/**
 * One of a subscription's credit buckets (`<subscriptionId>:<n>`): the balance is spread over several
 * documents so that concurrent charges do not all compare-and-set one document.
 */
export interface CreditBucketDoc {
  subscriptionId: string;
  credits: number;
  /** Recent debits applied here, oldest first: `<note>:<amount>` entries separated by spaces, each note the
   *  digest of a charge id (ADR 0076; `debit-ring.ts`): what a charge paid, for refunds and resumes. */
  ring?: string;
  /** The ring as written before ADR 0076 (objects with the whole charge id): read, and dropped by the bucket's
   *  next write. */
  debits?: CreditDebit[];
  /** Ids of grants applied here (a ring): a grant resumed after a crash is not applied twice. */
  grants: string[];
}

export interface CreditDebit {
  chargeId: string;
  amount: number;
}

/** The ledger: one record per charge id (`<subscriptionId>:<chargeId>`), inserted before the debit. */
export interface CreditChargeDoc {
  subscriptionId: string;
  chargeId: string;
  amount: number;
  state: 'charged' | 'refunded';
  createdAtMs: number;
}

export interface ApiKeyDoc {
  subscriptionId: string;
  name: string;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  keyHash: string;
  /** First characters, to recognise a key in lists. */
  prefix: string;
  scopes: string[];
  createdAtMs: number;
  expiresAtMs: number | null;
  revokedAtMs: number | null;
}

export interface UserDoc {
  subscriptionId: string;
  email: string;
  role: Role;
  tokenHash: string;
  createdAtMs: number;
}

export interface SkillDoc {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
}

export interface AgentVersionDoc {
  version: string;
  /** draft → published → production (promoted). */
  status: 'draft' | 'published' | 'production';
  runtime: string;
  runtimeConfig: Record<string, unknown>;
  createdAtMs: number;
  promotedAtMs: number | null;
  /** The card fields of this version (shown while it is served); absent: the agent's own. */
  description?: string;
  skills?: SkillDoc[];
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  /**
   * Whether the card claims `capabilities.streaming` while this version is served, when the runtime cannot tell
   * from the configuration alone (`a2a-upstream`: the upstream card's, read when the version was created).
   */
  streaming?: boolean;
}

export interface AgentDoc {
  subscriptionId: string;
  name: string;
  description: string;
  type: AgentType;
  skills: SkillDoc[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  versions: AgentVersionDoc[];
  createdAtMs: number;
  updatedAtMs: number;
}

export interface DeploymentDoc {
  subscriptionId: string;
  name: string;
  defaultAgentId: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** Per-agent inline settings of a deployment (collection `deployment_agents`, id = agent id). */
export interface DeploymentAgentDoc {
  deploymentId: string;
  subscriptionId: string;
  agentId: string;
  status: 'running' | 'stopped';
  versionStrategy: VersionStrategy;
  pinnedVersion: string | null;
  rateLimitPerMinute: number;
  schedule: string | null;
  a2aEnabled: boolean;
  defaultA2aVersion: A2aVersion;
  /** The versions served; absent (documents stored before the setting) = all of them. */
  a2aVersions?: ServedA2aVersion[];
  blockingBudgetMs: number;
  pushNotificationsEnabled: boolean;
  addedAtMs: number;
  updatedAtMs: number;
}

/**
 * The per-agent inline settings a caller may change. This type is the allow-list: the typed contract
 * (`AgentSettingsPatch` in control.proto) carries exactly these fields and nothing else can be named.
 */
export type SettingsPatch = Partial<
  Pick<
    DeploymentAgentDoc,
    | 'versionStrategy'
    | 'pinnedVersion'
    | 'rateLimitPerMinute'
    | 'schedule'
    | 'a2aEnabled'
    | 'defaultA2aVersion'
    | 'a2aVersions'
    | 'blockingBudgetMs'
    | 'pushNotificationsEnabled'
    | 'status'
  >
>;

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_BLOCKING_BUDGET_MS = 120_000;
