import { AppError, DuplicateKeyError, InvalidParamsError, NotFoundError } from '@a2a-inbound/errors';
import type { Cache, Clock, Collection, DocumentStore, IdGenerator, Versioned } from '@a2a-inbound/ports';
import { updateWithRetry } from '@a2a-inbound/ports';
import type {
  A2aVersion,
  AgentDoc,
  AgentType,
  AgentVersionDoc,
  ApiKeyDoc,
  CreditBucketDoc,
  CreditChargeDoc,
  DeploymentAgentDoc,
  DeploymentDoc,
  Role,
  SettingsPatch,
  SkillDoc,
  SubscriptionDoc,
  UserDoc,
  VersionStrategy,
} from './control-model';
import { DEFAULT_BLOCKING_BUDGET_MS, DEFAULT_RATE_LIMIT_PER_MINUTE } from './control-model';
import { Credits } from './credits';
import { newSecret, sha256Hex } from './hashing';

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
  key: (keyHash: string): string => `key:${keyHash}`,
  catalog: (deploymentId: string): string => `catalog:${deploymentId}`,
};

const DEFAULT_INPUT_MODES = ['text/plain', 'application/json'];
const DEFAULT_OUTPUT_MODES = ['text/plain', 'text/markdown', 'application/json'];

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

export class ControlPlane {
  readonly #credits: Credits;

  constructor(
    private readonly c: Collections,
    private readonly cache: Cache,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.#credits = new Credits(c, clock, ids);
  }

  // ---- keys -------------------------------------------------------------------------------------

  async authenticateKey(keyHash: string): Promise<KeyPrincipal> {
    const found = await this.c.apiKeys.findOne({ keyHash });
    if (!found) throw new AppError('UNAUTHENTICATED', 'Invalid API key');
    const k = found.doc;
    return {
      keyId: found.id,
      subscriptionId: k.subscriptionId,
      scopes: k.scopes,
      keyHash: k.keyHash,
      expiresAtMs: k.expiresAtMs ?? 0,
      revoked: k.revokedAtMs !== null,
    };
  }

  /** Creates a key; the value is returned here once and never stored. */
  async createKey(input: {
    subscriptionId: string;
    name: string;
    scopes: string[];
    expiresAtMs?: number | null;
  }): Promise<{
    id: string;
    key: string;
    doc: ApiKeyDoc;
  }> {
    if (input.scopes.length === 0 || input.scopes.some((s) => !(KEY_SCOPES as readonly string[]).includes(s))) {
      throw new InvalidParamsError(`scopes must be a non-empty subset of ${KEY_SCOPES.join(', ')}`);
    }
    const now = this.clock.now();
    if (input.expiresAtMs != null && input.expiresAtMs <= now)
      throw new InvalidParamsError('expiresAt must be in the future');
    const scopePrefix = input.scopes.includes('a2a') ? 'a2a' : 'inv';
    const key = newSecret(scopePrefix);
    const doc: ApiKeyDoc = {
      subscriptionId: input.subscriptionId,
      name: input.name.slice(0, 200),
      keyHash: sha256Hex(key),
      prefix: key.slice(0, 8),
      scopes: [...new Set(input.scopes)].sort(),
      createdAtMs: now,
      expiresAtMs: input.expiresAtMs ?? null,
      revokedAtMs: null,
    };
    const id = this.ids.next();
    await this.c.apiKeys.insert(id, doc);
    return { id, key, doc };
  }

  async listKeys(subscriptionId: string): Promise<Versioned<ApiKeyDoc>[]> {
    return this.c.apiKeys.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 } });
  }

  async revokeKey(subscriptionId: string, keyId: string): Promise<ApiKeyDoc> {
    const updated = await updateWithRetry(this.c.apiKeys, keyId, (cur) => {
      if (cur.doc.subscriptionId !== subscriptionId) throw new NotFoundError('API key');
      if (cur.doc.revokedAtMs !== null) return undefined;
      return { ...cur.doc, revokedAtMs: this.clock.now() };
    });
    if (!updated) throw new NotFoundError('API key');
    await this.cache.delete(cacheKeys.key(updated.doc.keyHash));
    return updated.doc;
  }

  // ---- credits ----------------------------------------------------------------------------------

  /**
   * Consumes `amount` credits (default: the cost per invocation) unless `chargeId` is already charged;
   * INSUFFICIENT_CREDITS when short. Concurrent charges of one subscription spread over its credit buckets
   * (ADR 0015): they do not serialise on one document, and the balance never goes below zero.
   */
  async charge(subscriptionId: string, chargeId: string, amount?: number): Promise<void> {
    await this.#credits.charge(subscriptionId, chargeId, amount);
  }

  /** Gives back a charge (the request was refused after charging, e.g. the bus was down). */
  async refund(subscriptionId: string, chargeId: string): Promise<void> {
    await this.#credits.refund(subscriptionId, chargeId);
  }

  async addCredits(subscriptionId: string, amount: number): Promise<number> {
    if (!Number.isSafeInteger(amount)) throw new InvalidParamsError('amount must be an integer');
    return this.#credits.add(subscriptionId, amount);
  }

  /** Deletes credit ledger records past their retention (the retention sweep). */
  async sweepExpiredCharges(): Promise<number> {
    return this.#credits.sweepExpired(this.clock.now());
  }

  async setCreditCost(subscriptionId: string, cost: number): Promise<void> {
    if (!Number.isSafeInteger(cost) || cost < 0) throw new InvalidParamsError('cost must be a non-negative integer');
    const updated = await updateWithRetry(this.c.subscriptions, subscriptionId, (cur) => ({
      ...cur.doc,
      creditCostPerInvocation: cost,
    }));
    if (!updated) throw new NotFoundError('subscription');
  }

  /** The subscription with `credits` = its balance (the sum of its credit buckets). */
  async getSubscription(subscriptionId: string): Promise<SubscriptionDoc> {
    const doc = await this.#credits.settled(subscriptionId);
    return { ...doc, credits: await this.#credits.balance(subscriptionId) };
  }

  async createSubscription(id: string, name: string, credits: number): Promise<void> {
    // Created with its credits on the document (one atomic insert), then moved into the buckets.
    await this.c.subscriptions.insert(id, {
      name,
      credits,
      creditCostPerInvocation: 1,
      recentCharges: [],
      createdAtMs: this.clock.now(),
    });
    await this.#credits.settled(id);
  }

  // ---- users ------------------------------------------------------------------------------------

  /**
   * Creates a user and returns its bearer token once (only the hash is stored). `token` lets the
   * bootstrap use a token chosen in configuration; otherwise a fresh `usr_…` secret is made.
   */
  async createUser(input: {
    subscriptionId: string;
    email: string;
    role: Role;
    token?: string;
    id?: string;
  }): Promise<{ id: string; token: string; createdAtMs: number }> {
    if (!['admin', 'developer', 'operator'].includes(input.role))
      throw new InvalidParamsError('role must be admin, developer or operator');
    const email = input.email.trim().toLowerCase();
    if (!/^[^\s@]{1,200}@[^\s@]{1,200}$/.test(email)) throw new InvalidParamsError('email must be an email address');
    if (input.token !== undefined && input.token.length < 32)
      throw new InvalidParamsError('a user token must have at least 32 characters');
    const token = input.token ?? newSecret('usr');
    const id = input.id ?? this.ids.next();
    const createdAtMs = this.clock.now();
    try {
      await this.c.users.insert(id, {
        subscriptionId: input.subscriptionId,
        email,
        role: input.role,
        tokenHash: sha256Hex(token),
        createdAtMs,
      });
    } catch (err) {
      if (err instanceof DuplicateKeyError)
        throw new AppError('CONFLICT', 'a user with this email exists in this subscription');
      throw err;
    }
    return { id, token, createdAtMs };
  }

  async listUsers(subscriptionId: string): Promise<Versioned<UserDoc>[]> {
    return this.c.users.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 }, limit: 1000 });
  }

  async findUserByEmail(subscriptionId: string, email: string): Promise<Versioned<UserDoc> | undefined> {
    return this.c.users.findOne({ subscriptionId, email: email.trim().toLowerCase() });
  }

  async subscriptionExists(subscriptionId: string): Promise<boolean> {
    return (await this.c.subscriptions.get(subscriptionId)) !== undefined;
  }

  async authenticateUser(tokenHash: string): Promise<Versioned<UserDoc>> {
    const found = await this.c.users.findOne({ tokenHash });
    if (!found) throw new AppError('UNAUTHENTICATED', 'Invalid user token');
    return found;
  }

  // ---- agents and versions ----------------------------------------------------------------------

  async createAgent(input: {
    id?: string;
    subscriptionId: string;
    name: string;
    description: string;
    type: AgentType;
    skills?: SkillDoc[];
    defaultInputModes?: string[];
    defaultOutputModes?: string[];
  }): Promise<Versioned<AgentDoc>> {
    if (input.type !== 'AI Agent' && input.type !== 'Task Agent')
      throw new InvalidParamsError('type must be "AI Agent" or "Task Agent"');
    if (!input.name.trim()) throw new InvalidParamsError('name is required');
    const now = this.clock.now();
    return this.c.agents.insert(input.id ?? this.ids.next(), {
      subscriptionId: input.subscriptionId,
      name: input.name,
      description: input.description,
      type: input.type,
      skills: input.skills ?? [],
      defaultInputModes: input.defaultInputModes ?? DEFAULT_INPUT_MODES,
      defaultOutputModes: input.defaultOutputModes ?? DEFAULT_OUTPUT_MODES,
      versions: [],
      createdAtMs: now,
      updatedAtMs: now,
    });
  }

  async getAgent(subscriptionId: string, agentId: string): Promise<Versioned<AgentDoc>> {
    const a = await this.c.agents.get(agentId);
    if (!a || a.doc.subscriptionId !== subscriptionId) throw new NotFoundError('agent');
    return a;
  }

  async listAgents(subscriptionId: string): Promise<Versioned<AgentDoc>[]> {
    return this.c.agents.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 } });
  }

  /** Publishes a new version (status `published`). */
  async publishVersion(
    subscriptionId: string,
    agentId: string,
    input: { version: string; runtime: string; runtimeConfig?: Record<string, unknown> },
  ): Promise<AgentDoc> {
    if (!/^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/.test(input.version))
      throw new InvalidParamsError('version must be a short version string');
    const updated = await updateWithRetry(this.c.agents, agentId, (cur) => {
      if (cur.doc.subscriptionId !== subscriptionId) throw new NotFoundError('agent');
      if (cur.doc.versions.some((v) => v.version === input.version))
        throw new AppError('CONFLICT', `version ${input.version} exists`);
      const now = this.clock.now();
      return {
        ...cur.doc,
        versions: [
          ...cur.doc.versions,
          {
            version: input.version,
            status: 'published' as const,
            runtime: input.runtime,
            runtimeConfig: input.runtimeConfig ?? {},
            createdAtMs: now,
            promotedAtMs: null,
          },
        ],
        updatedAtMs: now,
      };
    });
    if (!updated) throw new NotFoundError('agent');
    await this.cache.delete(cacheKeys.agent(agentId));
    return updated.doc;
  }

  /** Promotes a published version to PRODUCTION: latest-production agents switch to it at once. */
  async promoteVersion(subscriptionId: string, agentId: string, version: string): Promise<AgentDoc> {
    const updated = await updateWithRetry(this.c.agents, agentId, (cur) => {
      if (cur.doc.subscriptionId !== subscriptionId) throw new NotFoundError('agent');
      const v = cur.doc.versions.find((x) => x.version === version);
      if (!v) throw new NotFoundError(`version ${version}`);
      const now = this.clock.now();
      // Ties in the same millisecond: order by position so the latest promotion wins.
      const promotedAt = Math.max(now, ...cur.doc.versions.map((x) => (x.promotedAtMs ?? 0) + 1));
      return {
        ...cur.doc,
        versions: cur.doc.versions.map((x) =>
          x.version === version ? { ...x, status: 'production' as const, promotedAtMs: promotedAt } : x,
        ),
        updatedAtMs: now,
      };
    });
    if (!updated) throw new NotFoundError('agent');
    await this.invalidateAgent(agentId);
    return updated.doc;
  }

  // ---- deployments ------------------------------------------------------------------------------

  async createDeployment(input: {
    id?: string;
    subscriptionId: string;
    name: string;
  }): Promise<Versioned<DeploymentDoc>> {
    const now = this.clock.now();
    return this.c.deployments.insert(input.id ?? this.ids.next(), {
      subscriptionId: input.subscriptionId,
      name: input.name,
      defaultAgentId: null,
      createdAtMs: now,
      updatedAtMs: now,
    });
  }

  async getDeployment(subscriptionId: string, deploymentId: string): Promise<Versioned<DeploymentDoc>> {
    const d = await this.c.deployments.get(deploymentId);
    if (!d || d.doc.subscriptionId !== subscriptionId) throw new NotFoundError('deployment');
    return d;
  }

  async listDeployments(subscriptionId: string): Promise<Versioned<DeploymentDoc>[]> {
    return this.c.deployments.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 } });
  }

  /** Only an agent with a PRODUCTION version can be added. */
  async addAgentToDeployment(
    subscriptionId: string,
    deploymentId: string,
    agentId: string,
    settings: Partial<Pick<DeploymentAgentDoc, 'rateLimitPerMinute' | 'blockingBudgetMs' | 'a2aEnabled'>> = {},
  ): Promise<DeploymentAgentDoc> {
    await this.getDeployment(subscriptionId, deploymentId);
    const agent = await this.getAgent(subscriptionId, agentId);
    if (!latestProduction(agent.doc)) {
      throw new AppError('FAILED_PRECONDITION', 'Only an agent with a PRODUCTION version can be added to a deployment');
    }
    if (settings.a2aEnabled && agent.doc.type !== 'AI Agent')
      throw new AppError('FAILED_PRECONDITION', 'A2A is available only for AI Agents');
    const now = this.clock.now();
    const doc: DeploymentAgentDoc = {
      deploymentId,
      subscriptionId,
      agentId,
      status: 'running',
      versionStrategy: 'latest-production',
      pinnedVersion: null,
      rateLimitPerMinute: settings.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
      schedule: null,
      a2aEnabled: settings.a2aEnabled ?? false,
      defaultA2aVersion: '0.3.0',
      blockingBudgetMs: settings.blockingBudgetMs ?? DEFAULT_BLOCKING_BUDGET_MS,
      pushNotificationsEnabled: false,
      addedAtMs: now,
      updatedAtMs: now,
    };
    try {
      await this.c.deploymentAgents.insert(agentId, doc);
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw new AppError('CONFLICT', 'the agent is already in a deployment');
      throw err;
    }
    await this.invalidateAgent(agentId, deploymentId);
    return doc;
  }

  /** Removes the agent: it stops serving at once; the rest of the deployment keeps running. */
  async removeAgentFromDeployment(subscriptionId: string, deploymentId: string, agentId: string): Promise<void> {
    const cur = await this.c.deploymentAgents.get(agentId);
    if (!cur || cur.doc.subscriptionId !== subscriptionId || cur.doc.deploymentId !== deploymentId)
      throw new NotFoundError('deployment agent');
    await this.c.deploymentAgents.delete(agentId);
    await updateWithRetry(this.c.deployments, deploymentId, (d) =>
      d.doc.defaultAgentId === agentId ? { ...d.doc, defaultAgentId: null, updatedAtMs: this.clock.now() } : undefined,
    );
    await this.invalidateAgent(agentId, deploymentId);
  }

  async setDefaultAgent(subscriptionId: string, deploymentId: string, agentId: string | null): Promise<void> {
    if (agentId !== null) {
      const da = await this.c.deploymentAgents.get(agentId);
      if (!da || da.doc.deploymentId !== deploymentId)
        throw new InvalidParamsError('the default agent must be in the deployment');
    }
    const updated = await updateWithRetry(this.c.deployments, deploymentId, (d) => {
      if (d.doc.subscriptionId !== subscriptionId) throw new NotFoundError('deployment');
      return { ...d.doc, defaultAgentId: agentId, updatedAtMs: this.clock.now() };
    });
    if (!updated) throw new NotFoundError('deployment');
    await this.cache.delete(cacheKeys.catalog(deploymentId));
    await this.cache.delete('default-agent');
  }

  /**
   * Updates per-agent inline settings. `role` enforces: A2A on/off needs admin (and an AI Agent);
   * pushNotifications enablement is operator-only.
   */
  async updateAgentSettings(
    actor: { subscriptionId: string; role: Role },
    agentId: string,
    patch: SettingsPatch,
  ): Promise<DeploymentAgentDoc> {
    const cur = await this.c.deploymentAgents.get(agentId);
    if (!cur || (actor.role !== 'operator' && cur.doc.subscriptionId !== actor.subscriptionId))
      throw new NotFoundError('deployment agent');
    const agent = (await this.c.agents.get(agentId))?.doc;
    if (!agent) throw new NotFoundError('agent');
    if (patch.a2aEnabled !== undefined) {
      if (actor.role !== 'admin') throw new AppError('PERMISSION_DENIED', 'Enabling A2A requires the Admin role');
      if (patch.a2aEnabled && agent.type !== 'AI Agent')
        throw new AppError('FAILED_PRECONDITION', 'A2A is available only for AI Agents');
    }
    if (patch.pushNotificationsEnabled !== undefined && actor.role !== 'operator') {
      throw new AppError('PERMISSION_DENIED', 'pushNotifications enablement is controlled by the platform operator');
    }
    if (patch.versionStrategy !== undefined && !['latest-production', 'pinned'].includes(patch.versionStrategy)) {
      throw new InvalidParamsError('versionStrategy must be latest-production or pinned');
    }
    if (
      patch.rateLimitPerMinute !== undefined &&
      (!Number.isInteger(patch.rateLimitPerMinute) ||
        patch.rateLimitPerMinute < 1 ||
        patch.rateLimitPerMinute > 1_000_000)
    ) {
      throw new InvalidParamsError('rateLimitPerMinute must be an integer from 1 to 1000000');
    }
    if (
      patch.blockingBudgetMs !== undefined &&
      (!Number.isInteger(patch.blockingBudgetMs) || patch.blockingBudgetMs < 0 || patch.blockingBudgetMs > 600_000)
    ) {
      throw new InvalidParamsError('blockingBudget must be from 0 to 600 seconds');
    }
    if (patch.defaultA2aVersion !== undefined && !['0.3.0', '0.2.6'].includes(patch.defaultA2aVersion)) {
      throw new InvalidParamsError('defaultA2aVersion must be 0.3.0 or 0.2.6');
    }
    const updated = await updateWithRetry(this.c.deploymentAgents, agentId, (d) => {
      const next: DeploymentAgentDoc = { ...d.doc };
      for (const [k, v] of Object.entries(patch))
        if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
      if (next.versionStrategy === 'pinned') {
        if (!next.pinnedVersion) throw new InvalidParamsError('a pinned version is required for the Pinned strategy');
        const v = agent.versions.find((x) => x.version === next.pinnedVersion);
        if (!v || v.status === 'draft') throw new InvalidParamsError(`version ${next.pinnedVersion} is not published`);
      }
      next.updatedAtMs = this.clock.now();
      return next;
    });
    if (!updated) throw new NotFoundError('deployment agent');
    await this.invalidateAgent(agentId, updated.doc.deploymentId);
    return updated.doc;
  }

  // ---- resolution (hot path: gateway card/endpoint, tasks send) ---------------------------------

  async resolveAgent(agentId: string): Promise<AgentView> {
    const placement = await this.c.deploymentAgents.get(agentId);
    if (!placement) throw new NotFoundError('agent');
    const agent = await this.c.agents.get(agentId);
    if (!agent) throw new NotFoundError('agent');
    return this.view(agent.doc, agentId, placement.doc);
  }

  view(agent: AgentDoc, agentId: string, s: DeploymentAgentDoc): AgentView {
    const served =
      s.versionStrategy === 'pinned' && s.pinnedVersion
        ? agent.versions.find((v) => v.version === s.pinnedVersion)
        : latestProduction(agent);
    return {
      agentId,
      deploymentId: s.deploymentId,
      subscriptionId: s.subscriptionId,
      name: agent.name,
      description: agent.description,
      type: agent.type,
      status: s.status,
      a2aEnabled: s.a2aEnabled && agent.type === 'AI Agent',
      defaultA2aVersion: s.defaultA2aVersion,
      blockingBudgetMs: s.blockingBudgetMs,
      rateLimitPerMinute: s.rateLimitPerMinute,
      pushNotificationsEnabled: s.pushNotificationsEnabled,
      servedVersion: served?.version ?? '',
      versionStrategy: s.versionStrategy,
      pinnedVersion: s.pinnedVersion ?? '',
      skills: agent.skills,
      defaultInputModes: agent.defaultInputModes,
      defaultOutputModes: agent.defaultOutputModes,
      runtime: served?.runtime ?? '',
      runtimeConfig: served?.runtimeConfig ?? {},
      schedule: s.schedule ?? '',
      updatedAtMs: Math.max(agent.updatedAtMs, s.updatedAtMs),
    };
  }

  async catalog(deploymentId: string): Promise<{ deployment: Versioned<DeploymentDoc>; agents: AgentView[] }> {
    const deployment = await this.c.deployments.get(deploymentId);
    if (!deployment) throw new NotFoundError('deployment');
    const placements = await this.c.deploymentAgents.find({ deploymentId }, { limit: 1000 });
    const agents: AgentView[] = [];
    for (const p of placements) {
      const a = await this.c.agents.get(p.id);
      if (a) agents.push(this.view(a.doc, p.id, p.doc));
    }
    return { deployment, agents };
  }

  async defaultAgentId(): Promise<string> {
    const ds = await this.c.deployments.find({}, { limit: 1000 });
    return ds.find((d) => d.doc.defaultAgentId)?.doc.defaultAgentId ?? '';
  }

  async invalidateAgent(agentId: string, deploymentId?: string): Promise<void> {
    await this.cache.delete(cacheKeys.agent(agentId));
    const dep = deploymentId ?? (await this.c.deploymentAgents.get(agentId))?.doc.deploymentId;
    if (dep) await this.cache.delete(cacheKeys.catalog(dep));
  }
}
