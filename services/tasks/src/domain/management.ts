import {
  cardInputModes,
  cardTraits,
  credentialOrigins,
  checkEgressUrl,
  describeIssues,
  runtimeDefinition,
  intersectMediaTypes,
  validateDefinition,
  type DefinitionEgress,
  type DefinitionIssue,
} from '@a2a-inbound/agent-definitions';
import { createEgressAgent, type EgressAgent, EgressPolicy, egressFetch } from '@a2a-inbound/runtime';
import { AppError, InvalidParamsError, NotFoundError } from '@a2a-inbound/errors';
import type { Versioned } from '@a2a-inbound/ports';
import type { AgentView, ControlPlane } from './control-plane';
import type { SecretInfo, Secrets } from './secrets';
import type { AuditEventDoc, AuditLog } from './audit';
import { readUpstreamCard, UntrustedEndpointError, UpstreamCardError, type UpstreamCard } from './upstream-card';
import type { CardKeyInfo, CardKeys } from './card-keys';
import type {
  AgentDoc,
  AgentType,
  AgentVersionDoc,
  ApiKeyDoc,
  DeploymentAgentDoc,
  DeploymentDoc,
  Role,
  SettingsPatch,
  SkillDoc,
  UserDoc,
} from './control-model';

export type { SettingsPatch };

export interface Actor {
  userId: string;
  role: Role;
  subscriptionId: string;
}

const ROLES: readonly Role[] = ['admin', 'developer', 'operator'];

/** The actor of a request that crossed a service boundary: an unknown role is refused, never defaulted. */
export function actorOf(a: { userId: string; role: string; subscriptionId: string } | undefined): Actor {
  if (!a || !(ROLES as readonly string[]).includes(a.role)) throw new AppError('PERMISSION_DENIED', 'unknown role');
  return { userId: a.userId, role: a.role as Role, subscriptionId: a.subscriptionId };
}

/** The names of `SettingsPatch`, checked against the type by the compiler (for callers that pass names). */
export const SETTING_NAMES: readonly (keyof SettingsPatch)[] = Object.keys({
  versionStrategy: true,
  pinnedVersion: true,
  rateLimitPerMinute: true,
  schedule: true,
  a2aEnabled: true,
  defaultA2aVersion: true,
  a2aVersions: true,
  blockingBudgetMs: true,
  pushNotificationsEnabled: true,
  status: true,
} satisfies Record<keyof SettingsPatch, true>) as (keyof SettingsPatch)[];

export interface NewAgent {
  name: string;
  description: string;
  type: string;
  skills: SkillDoc[];
  /** Undefined = the defaults; given = at least one media type. */
  defaultInputModes?: string[] | undefined;
  defaultOutputModes?: string[] | undefined;
}

export interface NewVersion {
  version: string;
  runtime: string;
  runtimeConfig: Record<string, unknown>;
  /** The card fields of this version; undefined: the agent's own are shown while it is served. */
  description?: string | undefined;
  skills?: SkillDoc[] | undefined;
  defaultInputModes?: string[] | undefined;
  defaultOutputModes?: string[] | undefined;
}

/** A write to a deployment agent: what is stored and how the agent is served now. */
export interface DeploymentAgentResult {
  settings: DeploymentAgentDoc;
  agent: AgentView;
}

const READ: readonly Role[] = ['admin', 'developer', 'operator'];
const WRITE: readonly Role[] = ['admin', 'developer'];
const ADMIN: readonly Role[] = ['admin'];
const OPERATOR: readonly Role[] = ['operator'];

function need(actor: Actor, roles: readonly Role[]): void {
  if (!roles.includes(actor.role))
    throw new AppError('PERMISSION_DENIED', `this operation needs one of the roles ${roles.join(', ')}`);
}

/** A required identifier or name: non-empty, at most 10,000 characters. */
function required(v: string, name: string): string {
  if (v.length > 0 && v.length <= 10_000) return v;
  throw new InvalidParamsError(`${name} must be a non-empty string`);
}

function optionalText(v: string, name: string): string {
  if (v.length <= 10_000) return v;
  throw new InvalidParamsError(`${name} must be a string of at most 10000 characters`);
}

function intIn(v: number, min: number, max: number, message: string): number {
  if (!Number.isInteger(v) || v < min || v > max) throw new InvalidParamsError(message);
  return v;
}

const rateLimit = (v: number): number =>
  intIn(v, 1, 1_000_000, 'rateLimitPerMinute must be an integer from 1 to 1000000');
const blockingBudget = (v: number): number => intIn(v, 0, 600_000, 'blockingBudget must be from 0 to 600 seconds');

/**
 * The management operations of the console and the management API, one typed method each (the control
 * plane's RPCs map onto them one to one). Every method checks the actor's role here: the tasks service is
 * the authority, not the gateway.
 */
export class Management {
  constructor(
    private readonly control: ControlPlane,
    /** What version definitions are checked against: the subscription's secrets and the egress policy. */
    private readonly definitions: {
      secrets?: Secrets | undefined;
      egress: DefinitionEgress;
      /** The fetch that reads upstream agent cards (default: the guarded egress of `egress`). */
      fetch?: typeof fetch;
    } = {
      egress: { policy: new EgressPolicy() },
    },
    /** The audit log of management changes (issue 24); its writes are made by the transport. */
    private readonly audit?: AuditLog,
    /** The deployments' agent-card signing keys (ADR 0034). */
    private readonly cardKeys?: CardKeys,
  ) {}

  // ---- audit --------------------------------------------------------------------------------------

  /** The subscription's management changes, newest first: the Admin's only. */
  async listAuditEvents(actor: Actor, limit: number): Promise<Versioned<AuditEventDoc>[]> {
    need(actor, ADMIN);
    const n = limit === 0 ? 100 : intIn(limit, 1, 500, 'limit must be an integer from 1 to 500');
    return this.audit ? this.audit.list(actor.subscriptionId, n) : [];
  }

  // ---- keys -------------------------------------------------------------------------------------

  async createKey(
    actor: Actor,
    input: { name: string; scopes: string[]; expiresAtMs?: number | undefined },
  ): Promise<{ id: string; key: string; doc: ApiKeyDoc }> {
    need(actor, WRITE);
    if (input.expiresAtMs !== undefined && !Number.isSafeInteger(input.expiresAtMs))
      throw new InvalidParamsError('expiresAt must be an ISO date');
    return this.control.accounts.createKey({
      subscriptionId: actor.subscriptionId,
      name: optionalText(input.name, 'name') || 'key',
      scopes: input.scopes,
      expiresAtMs: input.expiresAtMs ?? null,
    });
  }

  async listKeys(actor: Actor): Promise<Versioned<ApiKeyDoc>[]> {
    need(actor, READ);
    return this.control.accounts.listKeys(actor.subscriptionId);
  }

  async revokeKey(actor: Actor, keyId: string): Promise<{ id: string; doc: ApiKeyDoc }> {
    need(actor, WRITE);
    return { id: keyId, doc: await this.control.accounts.revokeKey(actor.subscriptionId, required(keyId, 'keyId')) };
  }

  // ---- credits ----------------------------------------------------------------------------------

  async credits(actor: Actor): Promise<{ credits: number; costPerInvocation: number }> {
    need(actor, READ);
    const s = await this.control.accounts.getSubscription(actor.subscriptionId);
    return { credits: s.credits, costPerInvocation: s.creditCostPerInvocation };
  }

  /** The platform operator credits any subscription (`subscriptionId` empty = the actor's). */
  async addCredits(actor: Actor, input: { subscriptionId: string; amount: number }): Promise<number> {
    need(actor, OPERATOR);
    return this.control.accounts.addCredits(input.subscriptionId || actor.subscriptionId, input.amount);
  }

  async setCreditCost(actor: Actor, input: { subscriptionId: string; cost: number }): Promise<number> {
    need(actor, OPERATOR);
    await this.control.accounts.setCreditCost(input.subscriptionId || actor.subscriptionId, input.cost);
    return input.cost;
  }

  // ---- users ------------------------------------------------------------------------------------

  async createUser(
    actor: Actor,
    input: { email: string; role: string },
  ): Promise<{ id: string; token: string; email: string; role: Role; createdAtMs: number }> {
    need(actor, ADMIN);
    const role = required(input.role, 'role');
    // The platform operator is made by the bootstrap, not by a subscription's admin.
    if (role !== 'admin' && role !== 'developer') throw new InvalidParamsError('role must be admin or developer');
    const email = required(input.email, 'email');
    const u = await this.control.accounts.createUser({ subscriptionId: actor.subscriptionId, email, role });
    return { id: u.id, token: u.token, email: email.trim().toLowerCase(), role, createdAtMs: u.createdAtMs };
  }

  async listUsers(actor: Actor): Promise<Versioned<UserDoc>[]> {
    need(actor, ['admin', 'operator']);
    return this.control.accounts.listUsers(actor.subscriptionId);
  }

  // ---- agents and versions ----------------------------------------------------------------------

  async createAgent(actor: Actor, input: NewAgent): Promise<Versioned<AgentDoc>> {
    need(actor, WRITE);
    const inModes = input.defaultInputModes === undefined ? undefined : mediaTypes(input.defaultInputModes);
    const outModes = input.defaultOutputModes === undefined ? undefined : mediaTypes(input.defaultOutputModes);
    return this.control.catalog.createAgent({
      subscriptionId: actor.subscriptionId,
      name: required(input.name, 'name'),
      description: optionalText(input.description, 'description'),
      type: required(input.type, 'type') as AgentType,
      skills: skills(input.skills),
      ...(inModes ? { defaultInputModes: inModes } : {}),
      ...(outModes ? { defaultOutputModes: outModes } : {}),
    });
  }

  async listAgents(actor: Actor): Promise<Versioned<AgentDoc>[]> {
    need(actor, READ);
    return this.control.catalog.listAgents(actor.subscriptionId);
  }

  async getAgent(actor: Actor, agentId: string): Promise<Versioned<AgentDoc>> {
    need(actor, READ);
    return this.control.catalog.getAgent(actor.subscriptionId, required(agentId, 'agentId'));
  }

  /**
   * Publishes a version whose definition is valid: a known runtime, a configuration its validator accepts,
   * secrets that exist, destinations the egress policy allows. A refusal names every field path and reason;
   * nothing is written, so what is deployed does not change. Published versions are immutable. A version may
   * carry its own card fields (description, skills, input and output modes): the card shows them while it is
   * served.
   */
  async publishVersion(actor: Actor, agentId: string, input: NewVersion): Promise<AgentDoc> {
    need(actor, WRITE);
    const runtime = required(input.runtime, 'runtime');
    const card = {
      ...(input.description !== undefined ? { description: optionalText(input.description, 'description') } : {}),
      ...(input.skills !== undefined ? { skills: skills(input.skills) } : {}),
      ...(input.defaultInputModes !== undefined ? { defaultInputModes: mediaTypes(input.defaultInputModes) } : {}),
      ...(input.defaultOutputModes !== undefined ? { defaultOutputModes: mediaTypes(input.defaultOutputModes) } : {}),
    };
    const { secrets, egress } = this.definitions;
    const issues = await validateDefinition(runtime, input.runtimeConfig, {
      secretExists: async (name) => (secrets ? secrets.exists(actor.subscriptionId, name) : false),
      checkEgressUrl: (url) => checkEgressUrl(url, egress),
    });
    // What the version's card claims: for an existing A2A agent, what its own card says (read now, stored).
    let claims: Pick<
      AgentVersionDoc,
      'description' | 'streaming' | 'skills' | 'defaultInputModes' | 'defaultOutputModes'
    > = {};
    if (issues.length === 0) {
      const agent = (await this.control.catalog.getAgent(actor.subscriptionId, required(agentId, 'agentId'))).doc;
      const declared = card.defaultInputModes ?? agent.defaultInputModes;
      if (runtime === 'a2a-upstream') {
        const upstream = await this.#upstreamCard(actor, input.runtimeConfig, issues);
        if (upstream) claims = upstreamClaims(card, agent, upstream, issues);
      } else if (cardInputModes(declared, cardTraits(runtime, input.runtimeConfig)).length === 0) {
        // The card lists the input modes the runtime accepts: at least one must remain.
        issues.push({
          path: 'defaultInputModes',
          reason: `none of ${declared.join(', ')} is an input the ${runtime} runtime accepts (text/plain always is)`,
        });
      }
    }
    if (issues.length > 0)
      throw new InvalidParamsError(`invalid version definition: ${describeIssues(issues)}`, { problems: issues });
    return this.control.catalog.publishVersion(actor.subscriptionId, required(agentId, 'agentId'), {
      version: required(input.version, 'version'),
      runtime,
      runtimeConfig: input.runtimeConfig,
      ...card,
      ...claims,
    });
  }

  /**
   * The upstream's agent card, read through the guarded egress (the operator allow-list applies) with a timeout
   * and a size cap, with the version's token when it names one. Undefined (and a problem on
   * `runtimeConfig.url`) when it cannot be read or is no agent card.
   */
  async #upstreamCard(
    actor: Actor,
    config: Readonly<Record<string, unknown>>,
    issues: DefinitionIssue[],
  ): Promise<UpstreamCard | undefined> {
    const url = config.url as string;
    const headers: Record<string, string> = {};
    if (typeof config.tokenSecret === 'string' && this.definitions.secrets) {
      const token = await this.definitions.secrets
        .open(actor.subscriptionId, config.tokenSecret)
        .catch(() => undefined);
      const header = typeof config.authHeader === 'string' ? config.authHeader : 'Authorization';
      if (token !== undefined) headers[header] = header.toLowerCase() === 'authorization' ? `Bearer ${token}` : token;
    }
    // A version with a token: the card may name endpoints only where the token may go (the runner checks again).
    const trustedOrigins = typeof config.tokenSecret === 'string' ? credentialOrigins(config) : undefined;
    try {
      return await readUpstreamCard(url, this.#egressFetch(), {
        headers,
        ...(trustedOrigins ? { trustedOrigins } : {}),
      });
    } catch (err) {
      if (err instanceof UntrustedEndpointError) {
        issues.push({ path: 'runtimeConfig.allowedOrigins', reason: err.message });
        return undefined;
      }
      const reason = err instanceof UpstreamCardError ? err.message : 'unexpected error';
      issues.push({ path: 'runtimeConfig.url', reason: `the upstream agent card could not be read: ${reason}` });
      return undefined;
    }
  }

  #fetch: typeof fetch | undefined;
  #agent: EgressAgent | undefined;

  /** The egress of the definitions' checks: the policy at connect time, every redirect checked (ADR 0021). */
  #egressFetch(): typeof fetch {
    const { egress } = this.definitions;
    if (this.#fetch) return this.#fetch;
    if (this.definitions.fetch) return (this.#fetch = this.definitions.fetch);
    this.#agent = createEgressAgent({ policy: egress.policy, ...(egress.resolve ? { resolve: egress.resolve } : {}) });
    return (this.#fetch = egressFetch(this.#agent));
  }

  /** Closes the connections the definitions' checks opened (upstream cards); a later check opens new ones. */
  async close(): Promise<void> {
    const agent = this.#agent;
    this.#agent = undefined;
    this.#fetch = undefined;
    await agent?.close();
  }

  // ---- secrets (values go in, never out) ---------------------------------------------------------

  #secrets(): Secrets {
    if (!this.definitions.secrets) throw new AppError('FAILED_PRECONDITION', 'secrets are not available here');
    return this.definitions.secrets;
  }

  async putSecret(actor: Actor, name: string, value: string): Promise<SecretInfo> {
    need(actor, WRITE);
    return this.#secrets().put(actor.subscriptionId, required(name, 'name'), value);
  }

  async listSecrets(actor: Actor): Promise<SecretInfo[]> {
    need(actor, READ);
    return this.#secrets().list(actor.subscriptionId);
  }

  /** Deletes a secret no served version references (a deployed agent would lose it at its next run). */
  async deleteSecret(actor: Actor, name: string): Promise<void> {
    need(actor, WRITE);
    required(name, 'name');
    for (const a of await this.control.catalog.listAgents(actor.subscriptionId)) {
      const served = await this.control.catalog.resolveAgent(a.id).catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined; // not in a deployment
        throw err;
      });
      if (!served?.runtime) continue;
      const refs = runtimeDefinition(served.runtime)?.secretRefs(served.runtimeConfig) ?? [];
      if (refs.some((r) => r.name === name))
        throw new AppError(
          'CONFLICT',
          `secret ${name} is used by agent ${a.id} (version ${served.servedVersion}, served now); serve a version without it first`,
        );
    }
    await this.#secrets().delete(actor.subscriptionId, name);
  }

  async promoteVersion(actor: Actor, agentId: string, version: string): Promise<AgentDoc> {
    need(actor, WRITE);
    return this.control.catalog.promoteVersion(
      actor.subscriptionId,
      required(agentId, 'agentId'),
      required(version, 'version'),
    );
  }

  // ---- agent-card signing keys (ADR 0034) -------------------------------------------------------

  #cardKeys(): CardKeys {
    if (!this.cardKeys) throw new AppError('FAILED_PRECONDITION', 'agent-card signing is not configured here');
    return this.cardKeys;
  }

  /** The public keys of a deployment of the actor's subscription (the signing key first). */
  async listCardSigningKeys(actor: Actor, deploymentId: string): Promise<CardKeyInfo[]> {
    need(actor, READ);
    const d = await this.control.catalog.getDeployment(actor.subscriptionId, required(deploymentId, 'deploymentId'));
    return this.#cardKeys().published(d.id);
  }

  /** A new key signs the deployment's cards from now on; the old public key stays published (the Admin's only). */
  async rotateCardSigningKey(actor: Actor, deploymentId: string): Promise<CardKeyInfo[]> {
    need(actor, ADMIN);
    const d = await this.control.catalog.getDeployment(actor.subscriptionId, required(deploymentId, 'deploymentId'));
    return this.#cardKeys().rotate(d.id);
  }

  // ---- deployments and inline settings ----------------------------------------------------------

  async createDeployment(actor: Actor, name: string): Promise<Versioned<DeploymentDoc>> {
    need(actor, WRITE);
    return this.control.catalog.createDeployment({
      subscriptionId: actor.subscriptionId,
      name: required(name, 'name'),
    });
  }

  async listDeployments(actor: Actor): Promise<Versioned<DeploymentDoc>[]> {
    need(actor, READ);
    return this.control.catalog.listDeployments(actor.subscriptionId);
  }

  /** The deployment (of the actor's subscription) with its agents as they are served. */
  async getDeployment(
    actor: Actor,
    deploymentId: string,
  ): Promise<{ deployment: Versioned<DeploymentDoc>; agents: AgentView[] }> {
    need(actor, READ);
    const d = await this.control.catalog.getDeployment(actor.subscriptionId, required(deploymentId, 'deploymentId'));
    const { agents } = await this.control.catalog.ofDeployment(d.id);
    return { deployment: d, agents };
  }

  /** Places an agent; only A2A, the rate limit and the blocking budget may be given when adding. */
  async addAgent(
    actor: Actor,
    input: {
      deploymentId: string;
      agentId: string;
      a2aEnabled?: boolean | undefined;
      rateLimitPerMinute?: number | undefined;
      blockingBudgetMs?: number | undefined;
    },
  ): Promise<DeploymentAgentResult> {
    need(actor, WRITE);
    const settings: { rateLimitPerMinute?: number; blockingBudgetMs?: number; a2aEnabled?: boolean } = {};
    if (input.a2aEnabled !== undefined) {
      if (input.a2aEnabled && actor.role !== 'admin')
        throw new AppError('PERMISSION_DENIED', 'Enabling A2A requires the Admin role');
      settings.a2aEnabled = input.a2aEnabled;
    }
    if (input.rateLimitPerMinute !== undefined) settings.rateLimitPerMinute = rateLimit(input.rateLimitPerMinute);
    if (input.blockingBudgetMs !== undefined) settings.blockingBudgetMs = blockingBudget(input.blockingBudgetMs);
    const agentId = required(input.agentId, 'agentId');
    const doc = await this.control.catalog.addAgentToDeployment(
      actor.subscriptionId,
      required(input.deploymentId, 'deploymentId'),
      agentId,
      settings,
    );
    return { settings: doc, agent: await this.control.catalog.resolveAgent(agentId) };
  }

  async removeAgent(actor: Actor, deploymentId: string, agentId: string): Promise<void> {
    need(actor, WRITE);
    await this.control.catalog.removeAgentFromDeployment(
      actor.subscriptionId,
      required(deploymentId, 'deploymentId'),
      required(agentId, 'agentId'),
    );
  }

  /** `agentId` null = the deployment has no default agent. */
  async setDefaultAgent(actor: Actor, deploymentId: string, agentId: string | null): Promise<void> {
    need(actor, ADMIN);
    await this.control.catalog.setDefaultAgent(
      actor.subscriptionId,
      required(deploymentId, 'deploymentId'),
      agentId === null ? null : required(agentId, 'agentId'),
    );
  }

  /**
   * Changes an agent's inline settings. Every role may call it; which setting a role may change (A2A:
   * admin; push notifications: operator) and every range is checked by the control plane. When
   * `deploymentId` is given (the REST path names it) the agent must be placed in that deployment.
   */
  async updateSettings(
    actor: Actor,
    agentId: string,
    patch: SettingsPatch,
    deploymentId?: string,
  ): Promise<DeploymentAgentResult> {
    need(actor, READ);
    required(agentId, 'agentId');
    if (patch.status !== undefined && patch.status !== 'running' && patch.status !== 'stopped')
      throw new InvalidParamsError('status must be "running" or "stopped"');
    for (const k of ['pinnedVersion', 'schedule'] as const) {
      const v = patch[k];
      if (v !== undefined && v !== null && (v.length === 0 || v.length > 200))
        throw new InvalidParamsError(`${k} must be a non-empty string or null`);
    }
    if (deploymentId !== undefined) {
      const placed = await this.control.catalog.resolveAgent(agentId).catch(() => undefined);
      if (
        !placed ||
        placed.deploymentId !== deploymentId ||
        (actor.role !== 'operator' && placed.subscriptionId !== actor.subscriptionId)
      ) {
        throw new NotFoundError('deployment agent');
      }
    }
    const doc = await this.control.catalog.updateAgentSettings(
      { subscriptionId: actor.subscriptionId, role: actor.role },
      agentId,
      patch,
    );
    return { settings: doc, agent: await this.control.catalog.resolveAgent(agentId) };
  }
}

/** Skills as the card shows them: every field present, so the card stays valid. */
function skills(list: SkillDoc[]): SkillDoc[] {
  if (list.length > 100) throw new InvalidParamsError('skills must be an array of at most 100 skills');
  const text = (x: string, what: string): string => {
    if (x.length === 0 || x.length > 2000) throw new InvalidParamsError(`skills[].${what} must be a non-empty string`);
    return x;
  };
  const texts = (x: string[], what: string): string[] => {
    if (x.length > 100) throw new InvalidParamsError(`skills[].${what} must be an array of strings`);
    return x.map((t) => text(t, what));
  };
  return list.map((s) => ({
    id: text(s.id, 'id'),
    name: text(s.name, 'name'),
    description: text(s.description, 'description'),
    tags: texts(s.tags, 'tags'),
    examples: texts(s.examples, 'examples'),
  }));
}

function mediaTypes(v: string[]): string[] {
  if (v.length === 0 || v.length > 50 || v.some((x) => x.length === 0 || x.length > 200))
    throw new InvalidParamsError('media type lists must be non-empty arrays of strings');
  return v;
}

/**
 * The card claims of an `a2a-upstream` version (ADR 0021): input modes are the declared ones (the version's, else
 * the agent's) that the upstream accepts (we forward every part kind, so the upstream is the limit), output modes
 * the upstream's (within the version's, when it declares some), streaming as the upstream streams, and the
 * upstream's skills when the version gives none. An empty intersection is a problem of the definition.
 */
function upstreamClaims(
  card: Pick<AgentVersionDoc, 'description' | 'skills' | 'defaultInputModes' | 'defaultOutputModes'>,
  agent: AgentDoc,
  upstream: UpstreamCard,
  issues: DefinitionIssue[],
): Pick<AgentVersionDoc, 'description' | 'streaming' | 'skills' | 'defaultInputModes' | 'defaultOutputModes'> {
  const declaredIn = card.defaultInputModes ?? agent.defaultInputModes;
  const inputModes = intersectMediaTypes(declaredIn, upstream.defaultInputModes);
  if (inputModes.length === 0)
    issues.push({
      path: 'defaultInputModes',
      reason: `none of ${declaredIn.join(', ')} is accepted by the upstream agent (its card: ${upstream.defaultInputModes.join(', ')})`,
    });
  const outputModes = card.defaultOutputModes
    ? intersectMediaTypes(card.defaultOutputModes, upstream.defaultOutputModes)
    : upstream.defaultOutputModes;
  if (outputModes.length === 0)
    issues.push({
      path: 'defaultOutputModes',
      reason: `none of ${card.defaultOutputModes!.join(', ')} is produced by the upstream agent (its card: ${upstream.defaultOutputModes.join(', ')})`,
    });
  return {
    streaming: upstream.streaming,
    defaultInputModes: inputModes,
    defaultOutputModes: outputModes,
    ...(card.skills === undefined && upstream.skills.length > 0 ? { skills: upstream.skills } : {}),
    // The upstream's description, unless the version names its own (as with skills).
    ...(card.description === undefined && upstream.description ? { description: upstream.description } : {}),
  };
}
