import { AppError, DuplicateKeyError, InvalidParamsError, NotFoundError } from '@a2a-inbound/errors';
import type { Cache, Clock, Collection, IdGenerator, Versioned } from '@a2a-inbound/ports';
import { ParsedValues, updateWithRetry } from '@a2a-inbound/ports';
import type {
  AgentDoc,
  AgentType,
  AgentVersionDoc,
  DeploymentAgentDoc,
  DeploymentDoc,
  Role,
  SettingsPatch,
  SkillDoc,
} from './control-model';
import { A2A_VERSIONS, DEFAULT_BLOCKING_BUDGET_MS, DEFAULT_RATE_LIMIT_PER_MINUTE } from './control-model';
import {
  cacheKeys,
  DEFAULT_INPUT_MODES,
  DEFAULT_OUTPUT_MODES,
  latestProduction,
  type AgentView,
  type Collections,
} from './control-common';

/** How long a resolved agent stays in the shared cache unless a change deletes it first. */
export const AGENT_VIEW_TTL_MS = 10_000;

/**
 * The catalog: agents and their versions, deployments and the per-agent settings of an agent in its
 * deployment, and the resolution of an agent as the gateway and the task lifecycle serve it (hot path, cached).
 */
export class Catalog {
  /** Agent views as last parsed from the cache: read-only, shared by the callers (ADR 0040). */
  readonly #views = new ParsedValues<AgentView>((raw) => JSON.parse(raw) as AgentView);

  constructor(
    private readonly c: Collections,
    private readonly cache: Cache,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

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
    return this.#insertNew(this.c.agents, input.id, {
      subscriptionId: input.subscriptionId,
      name: input.name,
      description: input.description,
      type: input.type,
      skills: input.skills ?? [],
      defaultInputModes: input.defaultInputModes ?? DEFAULT_INPUT_MODES,
      defaultOutputModes: input.defaultOutputModes ?? DEFAULT_OUTPUT_MODES,
      versions: [],
    });
  }

  async getAgent(subscriptionId: string, agentId: string): Promise<Versioned<AgentDoc>> {
    return ownedBy(this.c.agents, subscriptionId, agentId, 'agent');
  }

  async listAgents(subscriptionId: string): Promise<Versioned<AgentDoc>[]> {
    return oldestFirst(this.c.agents, subscriptionId);
  }

  /** Publishes a new version (status `published`). */
  async publishVersion(
    subscriptionId: string,
    agentId: string,
    input: {
      version: string;
      runtime: string;
      runtimeConfig?: Record<string, unknown>;
    } & Pick<AgentVersionDoc, 'description' | 'skills' | 'defaultInputModes' | 'defaultOutputModes' | 'streaming'>,
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
            ...(input.description !== undefined ? { description: input.description } : {}),
            ...(input.skills !== undefined ? { skills: input.skills } : {}),
            ...(input.defaultInputModes !== undefined ? { defaultInputModes: input.defaultInputModes } : {}),
            ...(input.defaultOutputModes !== undefined ? { defaultOutputModes: input.defaultOutputModes } : {}),
            ...(input.streaming !== undefined ? { streaming: input.streaming } : {}),
          },
        ],
        updatedAtMs: now,
      };
    });
    if (!updated) throw new NotFoundError('agent');
    await this.#forgetAgent(agentId);
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

  /** Inserts a new document (a fresh id unless given), created and updated now. */
  async #insertNew<T extends { createdAtMs: number; updatedAtMs: number }>(
    collection: Collection<T>,
    id: string | undefined,
    fields: Omit<T, 'createdAtMs' | 'updatedAtMs'>,
  ): Promise<Versioned<T>> {
    const now = this.clock.now();
    return collection.insert(id ?? this.ids.next(), { ...fields, createdAtMs: now, updatedAtMs: now } as T);
  }

  // ---- deployments ------------------------------------------------------------------------------

  async createDeployment(input: {
    id?: string;
    subscriptionId: string;
    name: string;
  }): Promise<Versioned<DeploymentDoc>> {
    return this.#insertNew(this.c.deployments, input.id, {
      subscriptionId: input.subscriptionId,
      name: input.name,
      defaultAgentId: null,
    });
  }

  async getDeployment(subscriptionId: string, deploymentId: string): Promise<Versioned<DeploymentDoc>> {
    return ownedBy(this.c.deployments, subscriptionId, deploymentId, 'deployment');
  }

  async listDeployments(subscriptionId: string): Promise<Versioned<DeploymentDoc>[]> {
    return oldestFirst(this.c.deployments, subscriptionId);
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
    if (patch.a2aVersions !== undefined) {
      const given = patch.a2aVersions;
      if (given.length === 0 || given.some((v) => !(A2A_VERSIONS as readonly string[]).includes(v)))
        throw new InvalidParamsError(`a2aVersions must be a non-empty list of ${A2A_VERSIONS.join(', ')}`);
      // Stored in one order whatever the caller's, without repeats.
      patch = { ...patch, a2aVersions: A2A_VERSIONS.filter((v) => given.includes(v)) };
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
      // `/a2a` serves the default version: it cannot be one the agent no longer serves.
      if (!(next.a2aVersions ?? A2A_VERSIONS).includes(next.defaultA2aVersion))
        throw new InvalidParamsError(
          `the default A2A version ${next.defaultA2aVersion} must be one of a2aVersions; change defaultA2aVersion too`,
        );
      next.updatedAtMs = this.clock.now();
      return next;
    });
    if (!updated) throw new NotFoundError('deployment agent');
    await this.invalidateAgent(agentId, updated.doc.deploymentId);
    return updated.doc;
  }

  // ---- resolution (hot path: gateway card/endpoint, tasks send) ---------------------------------

  /**
   * The agent as it is served now (read-only: a cached view is shared). Cached in the shared cache for `AGENT_VIEW_TTL_MS` (a send resolves it up
   * to four times: the send, the blocking wait, each push-delivery read, a republish): every change of the
   * agent, its versions or its settings deletes the entry (`invalidateAgent`), as for the gateway's cache.
   */
  async resolveAgent(agentId: string): Promise<AgentView> {
    const key = cacheKeys.agentView(agentId);
    const hit = await this.cache.get(key).catch(() => undefined); // a cache outage degrades to the store
    if (hit) return this.#views.get(key, hit);
    const placement = await this.c.deploymentAgents.get(agentId);
    if (!placement) throw new NotFoundError('agent');
    const agent = await this.c.agents.get(agentId);
    if (!agent) throw new NotFoundError('agent');
    const view = this.view(agent.doc, agentId, placement.doc);
    await this.cache.set(key, JSON.stringify(view), AGENT_VIEW_TTL_MS).catch(() => undefined);
    // Cache-aside race (review 23 #8): a change stored after the reads above may have deleted the entry before
    // the set, which would then keep the old view (push off after push was turned on) for the TTL. Every
    // change is stored before its delete, so reading both documents again after the set sees it: the entry
    // goes. A read that fails cannot tell: the entry goes too. Two reads per miss (one per TTL per replica).
    const [p, a] = await Promise.all([this.c.deploymentAgents.get(agentId), this.c.agents.get(agentId)]).catch(
      () => [undefined, undefined] as const,
    );
    if (p?.version !== placement.version || a?.version !== agent.version)
      await this.cache.delete(key).catch(() => undefined);
    return view;
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
      // The card derives from the served version: its own description, skills and modes when it has them.
      description: served?.description ?? agent.description,
      type: agent.type,
      status: s.status,
      a2aEnabled: s.a2aEnabled && agent.type === 'AI Agent',
      defaultA2aVersion: s.defaultA2aVersion,
      a2aVersions: [...(s.a2aVersions ?? A2A_VERSIONS)],
      blockingBudgetMs: s.blockingBudgetMs,
      rateLimitPerMinute: s.rateLimitPerMinute,
      pushNotificationsEnabled: s.pushNotificationsEnabled,
      servedVersion: served?.version ?? '',
      versionStrategy: s.versionStrategy,
      pinnedVersion: s.pinnedVersion ?? '',
      skills: served?.skills ?? agent.skills,
      defaultInputModes: served?.defaultInputModes ?? agent.defaultInputModes,
      defaultOutputModes: served?.defaultOutputModes ?? agent.defaultOutputModes,
      runtime: served?.runtime ?? '',
      runtimeConfig: served?.runtimeConfig ?? {},
      ...(served?.streaming !== undefined ? { streaming: served.streaming } : {}),
      schedule: s.schedule ?? '',
      updatedAtMs: Math.max(agent.updatedAtMs, s.updatedAtMs),
    };
  }

  async ofDeployment(deploymentId: string): Promise<{ deployment: Versioned<DeploymentDoc>; agents: AgentView[] }> {
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
    await this.#forgetAgent(agentId);
    const dep = deploymentId ?? (await this.c.deploymentAgents.get(agentId))?.doc.deploymentId;
    if (dep) await this.cache.delete(cacheKeys.catalog(dep));
  }

  async #forgetAgent(agentId: string): Promise<void> {
    await this.cache.delete(cacheKeys.agent(agentId));
    await this.cache.delete(cacheKeys.agentView(agentId));
  }
}

type Owned = { subscriptionId: string; createdAtMs: number };

/** The subscription's document; another subscription's is NOT_FOUND, like a missing one. */
async function ownedBy<T extends Owned>(
  collection: Collection<T>,
  subscriptionId: string,
  id: string,
  what: string,
): Promise<Versioned<T>> {
  const found = await collection.get(id);
  if (!found || found.doc.subscriptionId !== subscriptionId) throw new NotFoundError(what);
  return found;
}

/** The subscription's documents, oldest first. */
async function oldestFirst<T extends Owned>(
  collection: Collection<T>,
  subscriptionId: string,
): Promise<Versioned<T>[]> {
  return collection.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 } });
}
