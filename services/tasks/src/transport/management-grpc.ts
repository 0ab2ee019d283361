import { InvalidParamsError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { Versioned } from '@a2a-inbound/ports';
import type { controlV1 } from '@a2a-inbound/proto';
import { unary } from '@a2a-inbound/runtime';
import type { CardKeyInfo } from '../domain/card-keys';
import type { AgentView } from '../domain/control-plane';
import type {
  AgentDoc,
  ApiKeyDoc,
  DeploymentAgentDoc,
  DeploymentDoc,
  ServedA2aVersion,
  UserDoc,
} from '../domain/control-model';
import { A2A_VERSIONS } from '../domain/control-model';
import {
  type Actor,
  actorOf,
  type DeploymentAgentResult,
  type Management,
  type SettingsPatch,
} from '../domain/management';

type ManagementRpcs = Pick<
  controlV1.ControlPlaneServiceServer,
  | 'createKey'
  | 'listKeys'
  | 'revokeKey'
  | 'getCredits'
  | 'addCredits'
  | 'setCreditCost'
  | 'createUser'
  | 'listUsers'
  | 'createAgent'
  | 'listAgents'
  | 'getAgent'
  | 'publishVersion'
  | 'promoteVersion'
  | 'createDeployment'
  | 'listDeployments'
  | 'getDeployment'
  | 'addDeploymentAgent'
  | 'removeDeploymentAgent'
  | 'setDefaultAgent'
  | 'updateAgentSettings'
  | 'putSecret'
  | 'listSecrets'
  | 'deleteSecret'
  | 'listAuditEvents'
  | 'listCardSigningKeys'
  | 'rotateCardSigningKey'
>;

const actor = (r: { actor?: controlV1.ManagementActor | undefined }): Actor => actorOf(r.actor);

/** The public part of signing keys only: the sealed private key is not in `CardKeyInfo` at all. */
export function cardKeysOut(keys: CardKeyInfo[]): controlV1.CardSigningKeys {
  return {
    keys: keys.map((k) => ({
      kid: k.kid,
      publicJwk: JSON.stringify(k.publicJwk),
      createdAtMs: k.createdAtMs,
      retiredAtMs: k.retiredAtMs,
      publishedUntilMs: k.publishedUntilMs,
    })),
  };
}
const orUndefined = (v: number | null): number | undefined => (v === null ? undefined : v);

function keyOut(id: string, k: ApiKeyDoc): controlV1.ApiKey {
  return {
    id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAtMs: k.createdAtMs,
    expiresAtMs: orUndefined(k.expiresAtMs),
    revokedAtMs: orUndefined(k.revokedAtMs),
  };
}

function userOut(u: Versioned<UserDoc>): controlV1.User {
  return { id: u.id, email: u.doc.email, role: u.doc.role, createdAtMs: u.doc.createdAtMs };
}

function agentOut(id: string, a: AgentDoc): controlV1.Agent {
  return {
    id,
    subscriptionId: a.subscriptionId,
    name: a.name,
    description: a.description,
    type: a.type,
    skills: a.skills,
    defaultInputModes: a.defaultInputModes,
    defaultOutputModes: a.defaultOutputModes,
    versions: a.versions.map((v) => ({
      version: v.version,
      status: v.status,
      runtime: v.runtime,
      runtimeConfigJson: JSON.stringify(v.runtimeConfig),
      createdAtMs: v.createdAtMs,
      promotedAtMs: orUndefined(v.promotedAtMs),
      description: v.description,
      skills: v.skills ? { values: v.skills } : undefined,
      defaultInputModes: v.defaultInputModes ? { values: v.defaultInputModes } : undefined,
      defaultOutputModes: v.defaultOutputModes ? { values: v.defaultOutputModes } : undefined,
      streaming: v.streaming,
    })),
    createdAtMs: a.createdAtMs,
    updatedAtMs: a.updatedAtMs,
  };
}

function deploymentOut(d: Versioned<DeploymentDoc>): controlV1.Deployment {
  return {
    id: d.id,
    subscriptionId: d.doc.subscriptionId,
    name: d.doc.name,
    defaultAgentId: d.doc.defaultAgentId ?? undefined,
    createdAtMs: d.doc.createdAtMs,
    updatedAtMs: d.doc.updatedAtMs,
  };
}

function settingsOut(s: DeploymentAgentDoc): controlV1.DeploymentAgentSettings {
  return {
    deploymentId: s.deploymentId,
    subscriptionId: s.subscriptionId,
    agentId: s.agentId,
    status: s.status,
    versionStrategy: s.versionStrategy,
    pinnedVersion: s.pinnedVersion ?? undefined,
    rateLimitPerMinute: s.rateLimitPerMinute,
    schedule: s.schedule ?? undefined,
    a2aEnabled: s.a2aEnabled,
    defaultA2aVersion: s.defaultA2aVersion,
    a2aVersions: [...(s.a2aVersions ?? A2A_VERSIONS)],
    blockingBudgetMs: s.blockingBudgetMs,
    pushNotificationsEnabled: s.pushNotificationsEnabled,
    addedAtMs: s.addedAtMs,
    updatedAtMs: s.updatedAtMs,
  };
}

function runtimeConfigOf(json: string): Record<string, unknown> {
  if (!json) return {};
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    throw new InvalidParamsError('runtimeConfig must be a JSON object');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new InvalidParamsError('runtimeConfig must be a JSON object');
  return v as Record<string, unknown>;
}

/** The typed patch → the domain's: a present empty pinned version or schedule clears it. */
export function settingsPatchOf(p: controlV1.AgentSettingsPatch | undefined): SettingsPatch {
  const out: SettingsPatch = {};
  if (!p) return out;
  if (p.versionStrategy !== undefined) out.versionStrategy = p.versionStrategy as DeploymentAgentDoc['versionStrategy'];
  if (p.pinnedVersion !== undefined) out.pinnedVersion = p.pinnedVersion || null;
  if (p.rateLimitPerMinute !== undefined) out.rateLimitPerMinute = p.rateLimitPerMinute;
  if (p.schedule !== undefined) out.schedule = p.schedule || null;
  if (p.a2aEnabled !== undefined) out.a2aEnabled = p.a2aEnabled;
  if (p.defaultA2aVersion !== undefined)
    out.defaultA2aVersion = p.defaultA2aVersion as DeploymentAgentDoc['defaultA2aVersion'];
  if (p.a2aVersions !== undefined) out.a2aVersions = p.a2aVersions.values as ServedA2aVersion[];
  if (p.blockingBudgetMs !== undefined) out.blockingBudgetMs = p.blockingBudgetMs;
  if (p.pushNotificationsEnabled !== undefined) out.pushNotificationsEnabled = p.pushNotificationsEnabled;
  if (p.status !== undefined) out.status = p.status as DeploymentAgentDoc['status'];
  return out;
}

/**
 * The management RPCs of `ControlPlaneService`: each maps its typed request onto one `Management` method
 * (where the role checks and value rules are) and the domain answer onto its typed response.
 */
export function managementRpcs(
  m: Management,
  view: (a: AgentView) => controlV1.AgentView,
  log: Logger,
): ManagementRpcs {
  const written = (r: DeploymentAgentResult): controlV1.DeploymentAgentResponse => ({
    settings: settingsOut(r.settings),
    agent: view(r.agent),
  });
  return {
    createKey: unary(async (r: controlV1.CreateKeyRequest) => {
      const k = await m.createKey(actor(r), { name: r.name, scopes: r.scopes, expiresAtMs: r.expiresAtMs });
      return { key: keyOut(k.id, k.doc), secret: k.key };
    }, log),
    listKeys: unary(
      async (r: controlV1.ListKeysRequest) => ({ keys: (await m.listKeys(actor(r))).map((k) => keyOut(k.id, k.doc)) }),
      log,
    ),
    revokeKey: unary(async (r: controlV1.RevokeKeyRequest) => {
      const k = await m.revokeKey(actor(r), r.keyId);
      return { key: keyOut(k.id, k.doc) };
    }, log),
    getCredits: unary(async (r: controlV1.GetCreditsRequest) => m.credits(actor(r)), log),
    addCredits: unary(
      async (r: controlV1.AddCreditsRequest) => ({
        credits: await m.addCredits(actor(r), { subscriptionId: r.subscriptionId, amount: r.amount }),
      }),
      log,
    ),
    setCreditCost: unary(
      async (r: controlV1.SetCreditCostRequest) => ({
        costPerInvocation: await m.setCreditCost(actor(r), { subscriptionId: r.subscriptionId, cost: r.cost }),
      }),
      log,
    ),
    createUser: unary(async (r: controlV1.CreateUserRequest) => {
      const u = await m.createUser(actor(r), { email: r.email, role: r.role });
      return { user: { id: u.id, email: u.email, role: u.role, createdAtMs: u.createdAtMs }, token: u.token };
    }, log),
    listUsers: unary(
      async (r: controlV1.ListUsersRequest) => ({ users: (await m.listUsers(actor(r))).map(userOut) }),
      log,
    ),
    createAgent: unary(async (r: controlV1.CreateAgentRequest) => {
      const a = await m.createAgent(actor(r), {
        name: r.name,
        description: r.description,
        type: r.type,
        skills: r.skills,
        defaultInputModes: r.defaultInputModes?.values,
        defaultOutputModes: r.defaultOutputModes?.values,
      });
      return agentOut(a.id, a.doc);
    }, log),
    listAgents: unary(
      async (r: controlV1.ListAgentsRequest) => ({
        agents: (await m.listAgents(actor(r))).map((a) => agentOut(a.id, a.doc)),
      }),
      log,
    ),
    getAgent: unary(async (r: controlV1.GetAgentRequest) => {
      const a = await m.getAgent(actor(r), r.agentId);
      return agentOut(a.id, a.doc);
    }, log),
    publishVersion: unary(async (r: controlV1.PublishVersionRequest) => {
      const a = await m.publishVersion(actor(r), r.agentId, {
        version: r.version,
        runtime: r.runtime,
        runtimeConfig: runtimeConfigOf(r.runtimeConfigJson),
        description: r.description,
        skills: r.skills?.values,
        defaultInputModes: r.defaultInputModes?.values,
        defaultOutputModes: r.defaultOutputModes?.values,
      });
      return agentOut(r.agentId, a);
    }, log),
    promoteVersion: unary(
      async (r: controlV1.PromoteVersionRequest) =>
        agentOut(r.agentId, await m.promoteVersion(actor(r), r.agentId, r.version)),
      log,
    ),
    createDeployment: unary(
      async (r: controlV1.CreateDeploymentRequest) => deploymentOut(await m.createDeployment(actor(r), r.name)),
      log,
    ),
    listDeployments: unary(
      async (r: controlV1.ListDeploymentsRequest) => ({
        deployments: (await m.listDeployments(actor(r))).map(deploymentOut),
      }),
      log,
    ),
    getDeployment: unary(async (r: controlV1.GetDeploymentRequest) => {
      const { deployment, agents } = await m.getDeployment(actor(r), r.deploymentId);
      return { deployment: deploymentOut(deployment), agents: agents.map(view) };
    }, log),
    addDeploymentAgent: unary(
      async (r: controlV1.AddDeploymentAgentRequest) =>
        written(
          await m.addAgent(actor(r), {
            deploymentId: r.deploymentId,
            agentId: r.agentId,
            a2aEnabled: r.a2aEnabled,
            rateLimitPerMinute: r.rateLimitPerMinute,
            blockingBudgetMs: r.blockingBudgetMs,
          }),
        ),
      log,
    ),
    removeDeploymentAgent: unary(async (r: controlV1.RemoveDeploymentAgentRequest) => {
      await m.removeAgent(actor(r), r.deploymentId, r.agentId);
      return {};
    }, log),
    setDefaultAgent: unary(async (r: controlV1.SetDefaultAgentRequest) => {
      await m.setDefaultAgent(actor(r), r.deploymentId, r.agentId ?? null);
      return { deploymentId: r.deploymentId, defaultAgentId: r.agentId };
    }, log),
    updateAgentSettings: unary(
      async (r: controlV1.UpdateAgentSettingsRequest) =>
        written(await m.updateSettings(actor(r), r.agentId, settingsPatchOf(r.patch), r.deploymentId)),
      log,
    ),
    putSecret: unary(async (r: controlV1.PutSecretRequest) => m.putSecret(actor(r), r.name, r.value), log),
    listSecrets: unary(async (r: controlV1.ListSecretsRequest) => ({ secrets: await m.listSecrets(actor(r)) }), log),
    deleteSecret: unary(async (r: controlV1.DeleteSecretRequest) => {
      await m.deleteSecret(actor(r), r.name);
      return {};
    }, log),
    listAuditEvents: unary(
      async (r: controlV1.ListAuditEventsRequest) => ({
        events: (await m.listAuditEvents(actor(r), r.limit)).map(({ id, doc }) => ({
          id,
          atMs: doc.atMs,
          userId: doc.userId,
          role: doc.role,
          via: doc.via,
          operation: doc.operation,
          target: doc.target,
        })),
      }),
      log,
    ),
    listCardSigningKeys: unary(
      async (r: controlV1.ListCardSigningKeysRequest) =>
        cardKeysOut(await m.listCardSigningKeys(actor(r), r.deploymentId)),
      log,
    ),
    rotateCardSigningKey: unary(
      async (r: controlV1.RotateCardSigningKeyRequest) =>
        cardKeysOut(await m.rotateCardSigningKey(actor(r), r.deploymentId)),
      log,
    ),
  };
}
