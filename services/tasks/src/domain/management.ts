import { AppError, InvalidParamsError, NotFoundError } from '@a2a-inbound/errors';
import type { ControlPlane } from './control-plane';
import type { Role, SkillDoc } from './control-model';

export interface Actor {
  userId: string;
  role: Role;
  subscriptionId: string;
}

type Params = Record<string, unknown>;

const str = (p: Params, k: string, required = true): string => {
  const v = p[k];
  if (typeof v === 'string' && v.length > 0 && v.length <= 10_000) return v;
  if (!required && (v === undefined || v === null)) return '';
  throw new InvalidParamsError(`${k} must be a non-empty string`);
};

const ROLES_READ: readonly Role[] = ['admin', 'developer', 'operator'];
const ROLES_WRITE: readonly Role[] = ['admin', 'developer'];

function need(actor: Actor, roles: readonly Role[]): void {
  if (!roles.includes(actor.role))
    throw new AppError('PERMISSION_DENIED', `this operation needs one of the roles ${roles.join(', ')}`);
}

/**
 * The management API's operations, by name. The gateway's REST routes map onto these; every operation
 * checks the actor's role here (the tasks service is the authority, not the gateway).
 */
export async function manage(control: ControlPlane, actor: Actor, operation: string, p: Params): Promise<unknown> {
  const sub = actor.subscriptionId;
  switch (operation) {
    case 'keys.create': {
      need(actor, ROLES_WRITE);
      const scopes = Array.isArray(p.scopes) ? (p.scopes as unknown[]).map(String) : [str(p, 'scope')];
      const expiresAt =
        p.expiresAt === undefined || p.expiresAt === null
          ? null
          : typeof p.expiresAt === 'string'
            ? Date.parse(p.expiresAt)
            : Number.NaN;
      if (expiresAt !== null && Number.isNaN(expiresAt)) throw new InvalidParamsError('expiresAt must be an ISO date');
      const k = await control.createKey({
        subscriptionId: sub,
        name: str(p, 'name', false) || 'key',
        scopes,
        expiresAtMs: expiresAt,
      });
      return { id: k.id, key: k.key, ...keyView(k.id, k.doc) };
    }
    case 'keys.list':
      need(actor, ROLES_READ);
      return (await control.listKeys(sub)).map((k) => keyView(k.id, k.doc));
    case 'keys.revoke':
      need(actor, ROLES_WRITE);
      return keyView(str(p, 'keyId'), await control.revokeKey(sub, str(p, 'keyId')));
    case 'agents.create': {
      need(actor, ROLES_WRITE);
      const a = await control.createAgent({
        subscriptionId: sub,
        name: str(p, 'name'),
        description: str(p, 'description', false),
        type: str(p, 'type') as 'AI Agent' | 'Task Agent',
        skills: skillsOf(p.skills),
        ...(stringList(p.defaultInputModes) ? { defaultInputModes: stringList(p.defaultInputModes)! } : {}),
        ...(stringList(p.defaultOutputModes) ? { defaultOutputModes: stringList(p.defaultOutputModes)! } : {}),
      });
      return { id: a.id, ...a.doc };
    }
    case 'agents.list':
      need(actor, ROLES_READ);
      return (await control.listAgents(sub)).map((a) => ({ id: a.id, ...a.doc }));
    case 'agents.get': {
      need(actor, ROLES_READ);
      const a = await control.getAgent(sub, str(p, 'agentId'));
      return { id: a.id, ...a.doc };
    }
    case 'agents.publishVersion':
      need(actor, ROLES_WRITE);
      return control.publishVersion(sub, str(p, 'agentId'), {
        version: str(p, 'version'),
        runtime: str(p, 'runtime'),
        runtimeConfig:
          typeof p.runtimeConfig === 'object' && p.runtimeConfig !== null
            ? (p.runtimeConfig as Record<string, unknown>)
            : {},
      });
    case 'agents.promote':
      need(actor, ROLES_WRITE);
      return control.promoteVersion(sub, str(p, 'agentId'), str(p, 'version'));
    case 'deployments.create': {
      need(actor, ROLES_WRITE);
      const d = await control.createDeployment({ subscriptionId: sub, name: str(p, 'name') });
      return { id: d.id, ...d.doc };
    }
    case 'deployments.list':
      need(actor, ROLES_READ);
      return (await control.listDeployments(sub)).map((d) => ({ id: d.id, ...d.doc }));
    case 'deployments.get': {
      need(actor, ROLES_READ);
      const d = await control.getDeployment(sub, str(p, 'deploymentId'));
      const cat = await control.catalog(d.id);
      return { id: d.id, ...d.doc, agents: cat.agents, a2aEnabledCount: cat.agents.filter((a) => a.a2aEnabled).length };
    }
    case 'deployments.addAgent': {
      need(actor, ROLES_WRITE);
      const settings: { rateLimitPerMinute?: number; blockingBudgetMs?: number; a2aEnabled?: boolean } = {};
      if (p.a2aEnabled !== undefined) {
        if (typeof p.a2aEnabled !== 'boolean') throw new InvalidParamsError('a2aEnabled must be a boolean');
        if (p.a2aEnabled && actor.role !== 'admin')
          throw new AppError('PERMISSION_DENIED', 'Enabling A2A requires the Admin role');
        settings.a2aEnabled = p.a2aEnabled;
      }
      if (p.rateLimitPerMinute !== undefined) {
        if (
          !Number.isInteger(p.rateLimitPerMinute) ||
          (p.rateLimitPerMinute as number) < 1 ||
          (p.rateLimitPerMinute as number) > 1_000_000
        ) {
          throw new InvalidParamsError('rateLimitPerMinute must be an integer from 1 to 1000000');
        }
        settings.rateLimitPerMinute = p.rateLimitPerMinute as number;
      }
      if (p.blockingBudgetMs !== undefined) {
        if (
          !Number.isInteger(p.blockingBudgetMs) ||
          (p.blockingBudgetMs as number) < 0 ||
          (p.blockingBudgetMs as number) > 600_000
        ) {
          throw new InvalidParamsError('blockingBudget must be from 0 to 600 seconds');
        }
        settings.blockingBudgetMs = p.blockingBudgetMs as number;
      }
      return control.addAgentToDeployment(sub, str(p, 'deploymentId'), str(p, 'agentId'), settings);
    }
    case 'deployments.removeAgent':
      need(actor, ROLES_WRITE);
      await control.removeAgentFromDeployment(sub, str(p, 'deploymentId'), str(p, 'agentId'));
      return { removed: true };
    case 'deployments.setDefaultAgent':
      need(actor, ['admin']);
      await control.setDefaultAgent(sub, str(p, 'deploymentId'), p.agentId === null ? null : str(p, 'agentId'));
      return { ok: true };
    case 'settings.update': {
      need(actor, ROLES_READ);
      const patch = (typeof p.settings === 'object' && p.settings !== null ? p.settings : {}) as Record<
        string,
        unknown
      >;
      const allowed = new Set([
        'versionStrategy',
        'pinnedVersion',
        'rateLimitPerMinute',
        'schedule',
        'a2aEnabled',
        'defaultA2aVersion',
        'blockingBudgetMs',
        'pushNotificationsEnabled',
        'status',
      ]);
      for (const k of Object.keys(patch)) if (!allowed.has(k)) throw new InvalidParamsError(`unknown setting ${k}`);
      if (p.deploymentId !== undefined) {
        // The REST path names the deployment: the agent must be placed in it.
        const placed = await control.resolveAgent(str(p, 'agentId')).catch(() => undefined);
        if (
          !placed ||
          placed.deploymentId !== str(p, 'deploymentId') ||
          (actor.role !== 'operator' && placed.subscriptionId !== sub)
        ) {
          throw new NotFoundError('deployment agent');
        }
      }
      if (actor.role === 'developer' || actor.role === 'admin' || actor.role === 'operator') {
        return control.updateAgentSettings({ subscriptionId: sub, role: actor.role }, str(p, 'agentId'), patch);
      }
      throw new AppError('PERMISSION_DENIED', 'not allowed');
    }
    case 'credits.get':
      need(actor, ROLES_READ);
      return {
        credits: (await control.getSubscription(sub)).credits,
        cost: (await control.getSubscription(sub)).creditCostPerInvocation,
      };
    case 'credits.add':
      need(actor, ['operator']);
      return { credits: await control.addCredits(str(p, 'subscriptionId', false) || sub, Number(p.amount)) };
    case 'credits.setCost':
      need(actor, ['operator']);
      await control.setCreditCost(str(p, 'subscriptionId', false) || sub, Number(p.cost));
      return { ok: true };
    case 'users.create': {
      need(actor, ['admin']);
      const role = str(p, 'role');
      // The platform operator is made by the bootstrap, not by a subscription's admin.
      if (role !== 'admin' && role !== 'developer') throw new InvalidParamsError('role must be admin or developer');
      const u = await control.createUser({ subscriptionId: sub, email: str(p, 'email'), role });
      return { id: u.id, token: u.token, email: str(p, 'email').trim().toLowerCase(), role };
    }
    case 'users.list':
      need(actor, ['admin', 'operator']);
      return (await control.listUsers(sub)).map((u) => ({
        id: u.id,
        email: u.doc.email,
        role: u.doc.role,
        createdAt: new Date(u.doc.createdAtMs).toISOString(),
      }));
    default:
      throw new AppError('METHOD_NOT_FOUND', `unknown operation ${operation}`);
  }
}

/** Skills as the card shows them: every field present, so the card stays valid. */
function skillsOf(v: unknown): SkillDoc[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > 100)
    throw new InvalidParamsError('skills must be an array of at most 100 skills');
  const text = (x: unknown, what: string): string => {
    if (typeof x !== 'string' || x.length === 0 || x.length > 2000)
      throw new InvalidParamsError(`skills[].${what} must be a non-empty string`);
    return x;
  };
  const texts = (x: unknown, what: string): string[] => {
    if (x === undefined) return [];
    if (!Array.isArray(x) || x.length > 100)
      throw new InvalidParamsError(`skills[].${what} must be an array of strings`);
    return x.map((t) => text(t, what));
  };
  return v.map((raw: unknown) => {
    if (typeof raw !== 'object' || raw === null) throw new InvalidParamsError('each skill must be an object');
    const r = raw as Record<string, unknown>;
    return {
      id: text(r.id, 'id'),
      name: text(r.name, 'name'),
      description: text(r.description, 'description'),
      tags: texts(r.tags, 'tags'),
      examples: texts(r.examples, 'examples'),
    };
  });
}

function stringList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (
    !Array.isArray(v) ||
    v.length === 0 ||
    v.length > 50 ||
    v.some((x) => typeof x !== 'string' || x.length === 0 || x.length > 200)
  ) {
    throw new InvalidParamsError('media type lists must be non-empty arrays of strings');
  }
  return v as string[];
}

function keyView(
  id: string,
  k: {
    name: string;
    prefix: string;
    scopes: string[];
    createdAtMs: number;
    expiresAtMs: number | null;
    revokedAtMs: number | null;
  },
): Record<string, unknown> {
  return {
    id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: new Date(k.createdAtMs).toISOString(),
    expiresAt: k.expiresAtMs === null ? null : new Date(k.expiresAtMs).toISOString(),
    revokedAt: k.revokedAtMs === null ? null : new Date(k.revokedAtMs).toISOString(),
  };
}
