import { type Request, type Response, Router } from 'express';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { controlV1, webhooksV1 } from '@a2a-inbound/proto';
import { call } from '@a2a-inbound/runtime';
import type { GatewayClients, Lookups } from '../clients';
import { buildCatalog, cardPath, supportedInterfaces, type CardOptions } from '../protocol/cards';
import { bodyUnread, closeIfBodyUnread, jsonBody } from './body';
import { testDiscovery } from './discovery';
import { isObject, restErrors } from './rest';
import { authenticateUser, type UserActor } from './user-auth';

export interface ManagementRouterDeps {
  clients: GatewayClients;
  lookups: Lookups;
  log: Logger;
  /** Public base URL as clients see it (cards, catalog and endpoint URLs in answers). */
  baseUrl(req: Request): string;
  /**
   * The gateway's own public base URL, which Test Discovery fetches through: PUBLIC_BASE_URL, else the
   * listening address. Never the request's Host header (that would let a caller aim our fetch anywhere).
   */
  selfBaseUrl(): string;
  /** Where gRPC clients dial the A2A 1.0 service for this request's host; empty = not served. */
  grpcAddress?(req: Request): string;
  providerOrganization: string;
  providerUrl: string;
  fetchImpl?: typeof fetch;
  discoveryTimeoutMs?: number;
}

export const MANAGEMENT_BODY_LIMIT_BYTES = 1024 * 1024;

type Json = Record<string, unknown>;

const iso = (ms: unknown): string | null => (typeof ms === 'number' && ms > 0 ? new Date(ms).toISOString() : null);

function agentOut(a: controlV1.Agent): Json {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    type: a.type,
    skills: a.skills,
    defaultInputModes: a.defaultInputModes,
    defaultOutputModes: a.defaultOutputModes,
    versions: a.versions.map((v) => ({
      version: v.version,
      status: v.status.toUpperCase(),
      runtime: v.runtime,
      runtimeConfig: v.runtimeConfigJson ? (JSON.parse(v.runtimeConfigJson) as unknown) : {},
      createdAt: iso(v.createdAtMs),
      promotedAt: iso(v.promotedAtMs),
      // The version's own card fields, when it has them.
      ...(v.description !== undefined ? { description: v.description } : {}),
      ...(v.skills ? { skills: v.skills.values } : {}),
      ...(v.defaultInputModes ? { defaultInputModes: v.defaultInputModes.values } : {}),
      ...(v.defaultOutputModes ? { defaultOutputModes: v.defaultOutputModes.values } : {}),
      ...(v.streaming !== undefined ? { streaming: v.streaming } : {}),
    })),
    createdAt: iso(a.createdAtMs),
    updatedAt: iso(a.updatedAtMs),
  };
}

/** The fields of a deployment agent's view (domain or proto AgentView) the API shows. */
interface AgentViewLike {
  agentId: string;
  deploymentId: string;
  name: string;
  type: string;
  status: string;
  versionStrategy: string;
  pinnedVersion: string;
  servedVersion: string;
  rateLimitPerMinute: number;
  schedule: string;
  a2aEnabled: boolean;
  defaultA2aVersion: string;
  a2aVersions: string[];
  blockingBudgetMs: number;
  pushNotificationsEnabled: boolean;
  updatedAtMs: number;
}

/** A deployment agent with its inline settings; `a2a` shows protocol version, endpoint and card URLs when enabled. */
export function deploymentAgentOut(a: AgentViewLike, base: string, grpcUrl = ''): Json {
  const id = encodeURIComponent(a.agentId);
  return {
    agentId: a.agentId,
    deploymentId: a.deploymentId,
    name: a.name,
    type: a.type,
    status: a.status,
    servedVersion: a.servedVersion || null,
    settings: {
      versionStrategy: a.versionStrategy,
      pinnedVersion: a.pinnedVersion || null,
      rateLimitPerMinute: a.rateLimitPerMinute,
      schedule: a.schedule || null,
      a2aEnabled: a.a2aEnabled,
      defaultA2aVersion: a.defaultA2aVersion,
      a2aVersions: a.a2aVersions.length > 0 ? [...a.a2aVersions] : ['0.3.0', '0.2.6', '1.0'],
      blockingBudgetSeconds: Number(a.blockingBudgetMs) / 1000,
      pushNotificationsEnabled: a.pushNotificationsEnabled,
    },
    a2a: a.a2aEnabled
      ? {
          protocolVersion: a.defaultA2aVersion,
          endpointUrl: `${base}/agents/${id}/a2a`,
          cardUrls: {
            '0.3.0': `${base}${cardPath(a.agentId, '0.3.0')}`,
            '0.2.6': `${base}${cardPath(a.agentId, '0.2.6')}`,
          },
          // Every endpoint the agent serves (A2A 1.0 on three bindings, 0.3), as its card declares them.
          interfaces: supportedInterfaces(a, { baseUrl: base, grpcUrl }),
        }
      : null,
    updatedAt: iso(Number(a.updatedAtMs)),
  };
}

const STRATEGIES: Readonly<Record<string, string>> = {
  'latest-production': 'latest-production',
  'Latest production': 'latest-production',
  pinned: 'pinned',
  Pinned: 'pinned',
};

/** A JSON number as an int64 field: fractions refused, magnitudes clamped (tasks checks the range). */
function int64Of(v: unknown, message: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new InvalidParamsError(message);
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, v));
}

function secondsToMs(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new InvalidParamsError('blockingBudgetSeconds must be a number of seconds');
  return int64Of(Math.round(v * 1000), 'blockingBudgetSeconds must be a number of seconds');
}

const text = (k: string, v: unknown): string => {
  if (typeof v !== 'string') throw new InvalidParamsError(`${k} must be a string`);
  return v;
};
const flag = (k: string, v: unknown): boolean => {
  if (typeof v !== 'boolean') throw new InvalidParamsError(`${k} must be a boolean`);
  return v;
};
/** null or a non-empty string; the typed patch says "clear" with a present empty string. */
const clearable = (k: string, v: unknown): string => {
  if (v === null) return '';
  if (typeof v !== 'string' || v.length === 0) throw new InvalidParamsError(`${k} must be a non-empty string or null`);
  return v;
};

/**
 * The PATCH body's settings, by their REST names, onto the typed `AgentSettingsPatch` (whose fields are the
 * allow-list). Only the REST spellings are handled here (seconds, strategy labels, null); every value rule
 * and role rule is the tasks service's.
 */
const SETTINGS: Readonly<Record<string, (v: unknown) => controlV1.AgentSettingsPatch>> = {
  versionStrategy: (v) => {
    if (typeof v !== 'string' || !STRATEGIES[v])
      throw new InvalidParamsError('versionStrategy must be "latest-production" or "pinned"');
    return { versionStrategy: STRATEGIES[v] };
  },
  pinnedVersion: (v) => ({ pinnedVersion: clearable('pinnedVersion', v) }),
  rateLimitPerMinute: (v) => ({ rateLimitPerMinute: int64Of(v, 'rateLimitPerMinute must be an integer') }),
  schedule: (v) => ({ schedule: clearable('schedule', v) }),
  a2aEnabled: (v) => ({ a2aEnabled: flag('a2aEnabled', v) }),
  defaultA2aVersion: (v) => ({ defaultA2aVersion: text('defaultA2aVersion', v) }),
  a2aVersions: (v) => {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
      throw new InvalidParamsError('a2aVersions must be a list of versions ("0.3.0", "0.2.6", "1.0")');
    return { a2aVersions: { values: v as string[] } };
  },
  blockingBudgetSeconds: (v) => ({ blockingBudgetMs: secondsToMs(v) }),
  pushNotificationsEnabled: (v) => ({ pushNotificationsEnabled: flag('pushNotificationsEnabled', v) }),
  status: (v) => ({ status: text('status', v) }),
};

/** PATCH body → the typed settings patch (exported for its unit test). */
export function settingsPatch(body: Json): controlV1.AgentSettingsPatch {
  let out: controlV1.AgentSettingsPatch = {};
  for (const [k, v] of Object.entries(body)) {
    const map = Object.hasOwn(SETTINGS, k) ? SETTINGS[k] : undefined;
    if (!map) throw new InvalidParamsError(`unknown setting ${k}`, { allowed: Object.keys(SETTINGS) });
    out = { ...out, ...map(v) };
  }
  if (Object.keys(out).length === 0) throw new InvalidParamsError('no settings given');
  return out;
}

/** One push delivery of the log, as the API shows it (times as ISO 8601, absent values as null). */
export function pushDeliveryOut(d: webhooksV1.PushDeliveryRecord): Json {
  return {
    taskId: d.taskId,
    seq: d.seq,
    configId: d.configId,
    outcome: d.outcome,
    httpStatus: d.httpStatus ?? null,
    attempts: d.attempts,
    error: d.error || null,
    target: { url: d.targetUrl, host: d.targetHost },
    startedAt: iso(d.startedAtMs),
    lastAttemptAt: iso(d.lastAttemptAtMs),
    finishedAt: iso(d.finishedAtMs),
  };
}

/** `?limit=` of a list: absent = the server's default (0), else an integer 1 to 100. */
export function limitOf(v: unknown): number {
  if (v === undefined) return 0;
  const n = typeof v === 'string' && /^\d{1,3}$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidParamsError('limit must be an integer from 1 to 100');
  return n;
}

export function keyOut(k: controlV1.ApiKey | undefined): Json {
  if (!k) throw new AppError('INTERNAL', 'the control plane answered without a key');
  const expiresAt = iso(k.expiresAtMs);
  const revokedAt = iso(k.revokedAtMs);
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scope: k.scopes.length === 1 ? k.scopes[0] : k.scopes,
    scopes: k.scopes,
    createdAt: iso(k.createdAtMs),
    expiresAt,
    revokedAt,
    status: revokedAt ? 'revoked' : k.expiresAtMs !== undefined && k.expiresAtMs <= Date.now() ? 'expired' : 'active',
  };
}

/** A JSON value that must be a string (emptiness and length are checked by the tasks service). */
function stringOf(b: Json, k: string, optional = false): string {
  const v = b[k];
  if (optional && (v === undefined || v === null)) return '';
  if (typeof v !== 'string') throw new InvalidParamsError(`${k} must be a non-empty string`);
  return v;
}

function stringsOf(v: unknown, message: string): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new InvalidParamsError(message);
  return v as string[];
}

/** POST /agents body → the typed request (shapes here; counts, lengths and emptiness in tasks). */
/** A media type list of a body (absent or null: undefined). */
function modesOf(b: Json, k: string): controlV1.MediaTypes | undefined {
  return b[k] === undefined || b[k] === null
    ? undefined
    : { values: stringsOf(b[k], 'media type lists must be non-empty arrays of strings') };
}

/** The skills of a body (tasks checks their lengths). */
function skillsOf(skills: unknown): controlV1.AgentSkill[] {
  if (!Array.isArray(skills)) throw new InvalidParamsError('skills must be an array of at most 100 skills');
  return skills.map((raw: unknown) => {
    if (!isObject(raw)) throw new InvalidParamsError('each skill must be an object');
    const field = (k: string): string => {
      if (typeof raw[k] !== 'string') throw new InvalidParamsError(`skills[].${k} must be a non-empty string`);
      return raw[k];
    };
    const list = (k: string): string[] =>
      raw[k] === undefined ? [] : stringsOf(raw[k], `skills[].${k} must be an array of strings`);
    return {
      id: field('id'),
      name: field('name'),
      description: field('description'),
      tags: list('tags'),
      examples: list('examples'),
    };
  });
}

export function newAgent(b: Json): Omit<controlV1.CreateAgentRequest, 'actor'> {
  return {
    name: stringOf(b, 'name'),
    description: stringOf(b, 'description', true),
    type: stringOf(b, 'type'),
    skills: b.skills === undefined || b.skills === null ? [] : skillsOf(b.skills),
    defaultInputModes: modesOf(b, 'defaultInputModes'),
    defaultOutputModes: modesOf(b, 'defaultOutputModes'),
  };
}

/** A version's own card fields (each absent or null: the agent's own are shown while it is served). */
export function versionCard(
  b: Json,
): Pick<controlV1.PublishVersionRequest, 'description' | 'skills' | 'defaultInputModes' | 'defaultOutputModes'> {
  const has = (k: string): boolean => b[k] !== undefined && b[k] !== null;
  return {
    description: has('description') ? stringOf(b, 'description', true) : undefined,
    skills: has('skills') ? { values: skillsOf(b.skills) } : undefined,
    defaultInputModes: modesOf(b, 'defaultInputModes'),
    defaultOutputModes: modesOf(b, 'defaultOutputModes'),
  };
}

/**
 * The management REST API under /api/v1 (docs/openapi/management.yaml). Users authenticate with
 * `Authorization: Bearer <USER_TOKEN>`; every operation's role rule is enforced by the tasks service.
 */
export function createManagementRouter(deps: ManagementRouterDeps): Router {
  const { clients, log } = deps;
  const control = clients.control;
  const fetchImpl = deps.fetchImpl ?? fetch;
  const router = Router();
  const opts = (req: Request): CardOptions => ({
    baseUrl: deps.baseUrl(req),
    providerOrganization: deps.providerOrganization,
    providerUrl: deps.providerUrl,
    grpcUrl: deps.grpcAddress?.(req) ?? '',
  });

  // The user token is checked before a byte of the body is read (an unauthenticated upload is answered 401
  // and its connection closed), then the Content-Type, then the body (size, UTF-8, JSON, nesting).
  router.use('/api/v1', (req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    authenticateUser(req, control).then(
      (actor) => {
        res.locals.actor = actor;
        next();
      },
      (err: unknown) => {
        closeIfBodyUnread(req, res);
        next(err);
      },
    );
  });
  router.use('/api/v1', (req, res, next) => {
    const ct = req.headers['content-type'];
    if (bodyUnread(req) && typeof ct === 'string' && !/^application\/([\w.+-]+\+)?json\b/i.test(ct)) {
      closeIfBodyUnread(req, res);
      next(new AppError('CONTENT_TYPE_NOT_SUPPORTED', 'Send JSON: Content-Type: application/json'));
      return;
    }
    next();
  });
  router.use('/api/v1', ...jsonBody(MANAGEMENT_BODY_LIMIT_BYTES));

  const actorOf = (res: Response): UserActor => res.locals.actor as UserActor;
  const bodyOf = (req: Request): Json => {
    const b: unknown = req.body;
    if (b === undefined) return {};
    if (!isObject(b)) throw new InvalidParamsError('the body must be a JSON object');
    return b;
  };
  /** The authenticated user as the typed requests carry it; the tasks service checks the role. */
  const actor = (res: Response): controlV1.ManagementActor => {
    const a = actorOf(res);
    return { userId: a.userId, role: a.role, subscriptionId: a.subscriptionId };
  };
  const DEADLINE = { deadlineMs: 30_000 };
  const p = (req: Request, name: string): string => String(req.params[name]);
  const placedOut = (r: controlV1.DeploymentAgentResponse, req: Request): Json => {
    if (!r.agent) throw new AppError('INTERNAL', 'the control plane answered without the agent');
    return deploymentAgentOut(r.agent, deps.baseUrl(req), deps.grpcAddress?.(req));
  };

  // ---- who am I -----------------------------------------------------------------------------------
  router.get('/api/v1/me', (_req, res) => {
    const a = actorOf(res);
    res.json({ userId: a.userId, email: a.email, role: a.role, subscriptionId: a.subscriptionId });
  });

  // ---- agents and versions ------------------------------------------------------------------------
  router.get('/api/v1/agents', async (_req, res) => {
    const r = await call(control.listAgents.bind(control), { actor: actor(res) }, DEADLINE);
    res.json({ agents: r.agents.map(agentOut) });
  });
  router.post('/api/v1/agents', async (req, res) => {
    const a = await call(control.createAgent.bind(control), { ...newAgent(bodyOf(req)), actor: actor(res) }, DEADLINE);
    res
      .status(201)
      .location(`/api/v1/agents/${encodeURIComponent(a.id)}`)
      .json(agentOut(a));
  });
  router.get('/api/v1/agents/:agentId', async (req, res) => {
    const a = await call(control.getAgent.bind(control), { actor: actor(res), agentId: p(req, 'agentId') }, DEADLINE);
    res.json(agentOut(a));
  });
  router.post('/api/v1/agents/:agentId/versions', async (req, res) => {
    const b = bodyOf(req);
    const config = b.runtimeConfig;
    const a = await call(
      control.publishVersion.bind(control),
      {
        actor: actor(res),
        agentId: p(req, 'agentId'),
        version: stringOf(b, 'version'),
        runtime: stringOf(b, 'runtime'),
        // An open object (ADR 0001); anything else means "none", as before the typed contract.
        runtimeConfigJson: isObject(config) ? JSON.stringify(config) : '',
        ...versionCard(b),
      },
      DEADLINE,
    );
    res.status(201).json(agentOut(a));
  });
  router.post('/api/v1/agents/:agentId/versions/:version/promote', async (req, res) => {
    const a = await call(
      control.promoteVersion.bind(control),
      { actor: actor(res), agentId: p(req, 'agentId'), version: p(req, 'version') },
      DEADLINE,
    );
    res.json(agentOut(a));
  });

  // The push delivery log of one agent (the webhooks service's). GetAgent first: the role check of every read,
  // and another subscription's agent is a 404 like a missing one; the log is then read for this subscription.
  router.get('/api/v1/agents/:agentId/push-deliveries', async (req, res) => {
    const limit = limitOf(req.query.limit);
    const pageToken = req.query.pageToken;
    if (pageToken !== undefined && (typeof pageToken !== 'string' || pageToken.length > 200))
      throw new InvalidParamsError('pageToken must be a token from a previous answer');
    const a = await call(control.getAgent.bind(control), { actor: actor(res), agentId: p(req, 'agentId') }, DEADLINE);
    const webhooks = clients.webhooks;
    const r = await call(
      webhooks.listPushDeliveries.bind(webhooks),
      { subscriptionId: actorOf(res).subscriptionId, agentId: a.id, limit, pageToken: pageToken ?? '' },
      DEADLINE,
    );
    res.json({ agentId: a.id, deliveries: r.deliveries.map(pushDeliveryOut), nextPageToken: r.nextPageToken || null });
  });

  // ---- deployments and per-agent settings ----------------------------------------------------------
  const deploymentOut = (
    d: controlV1.Deployment | undefined,
    base: string,
    agents?: AgentViewLike[],
    grpcUrl = '',
  ): Json => {
    if (!d) throw new AppError('INTERNAL', 'the control plane answered without the deployment');
    return {
      id: d.id,
      name: d.name,
      defaultAgentId: d.defaultAgentId ?? null,
      createdAt: iso(d.createdAtMs),
      updatedAt: iso(d.updatedAtMs),
      ...(agents
        ? {
            agents: agents.map((a) => deploymentAgentOut(a, base, grpcUrl)),
            a2aEnabledCount: agents.filter((a) => a.a2aEnabled && a.type === 'AI Agent' && a.status === 'running')
              .length,
            catalogUrl: `${base}/deployments/${encodeURIComponent(d.id)}/.well-known/agent-catalog.json`,
          }
        : {}),
    };
  };
  const getDeployment = (res: Response, deploymentId: string) =>
    call(control.getDeployment.bind(control), { actor: actor(res), deploymentId }, DEADLINE);
  router.get('/api/v1/deployments', async (req, res) => {
    const r = await call(control.listDeployments.bind(control), { actor: actor(res) }, DEADLINE);
    res.json({ deployments: r.deployments.map((d) => deploymentOut(d, deps.baseUrl(req))) });
  });
  router.post('/api/v1/deployments', async (req, res) => {
    const d = await call(
      control.createDeployment.bind(control),
      { actor: actor(res), name: stringOf(bodyOf(req), 'name') },
      DEADLINE,
    );
    res
      .status(201)
      .location(`/api/v1/deployments/${encodeURIComponent(d.id)}`)
      .json(deploymentOut(d, deps.baseUrl(req), []));
  });
  router.get('/api/v1/deployments/:deploymentId', async (req, res) => {
    const r = await getDeployment(res, p(req, 'deploymentId'));
    res.json(deploymentOut(r.deployment, deps.baseUrl(req), r.agents, deps.grpcAddress?.(req)));
  });
  router.post('/api/v1/deployments/:deploymentId/agents', async (req, res) => {
    const b = bodyOf(req);
    const settings = isObject(b.settings) ? b.settings : {};
    const add: controlV1.AddDeploymentAgentRequest = {
      actor: actor(res),
      deploymentId: p(req, 'deploymentId'),
      agentId: stringOf(b, 'agentId'),
    };
    for (const [k, v] of Object.entries(settings)) {
      if (k === 'a2aEnabled') add.a2aEnabled = flag(k, v);
      else if (k === 'rateLimitPerMinute') add.rateLimitPerMinute = int64Of(v, 'rateLimitPerMinute must be an integer');
      else if (k === 'blockingBudgetSeconds') add.blockingBudgetMs = secondsToMs(v);
      else throw new InvalidParamsError(`setting ${k} cannot be given when adding; PATCH the settings after`);
    }
    const placed = await call(control.addDeploymentAgent.bind(control), add, DEADLINE);
    res
      .status(201)
      .location(
        `/api/v1/deployments/${encodeURIComponent(p(req, 'deploymentId'))}/agents/${encodeURIComponent(add.agentId)}`,
      )
      .json(placedOut(placed, req));
  });
  router.delete('/api/v1/deployments/:deploymentId/agents/:agentId', async (req, res) => {
    await call(
      control.removeDeploymentAgent.bind(control),
      { actor: actor(res), deploymentId: p(req, 'deploymentId'), agentId: p(req, 'agentId') },
      DEADLINE,
    );
    res.status(204).end();
  });
  router.patch('/api/v1/deployments/:deploymentId/agents/:agentId/settings', async (req, res) => {
    const patch = settingsPatch(bodyOf(req));
    const r = await call(
      control.updateAgentSettings.bind(control),
      { actor: actor(res), deploymentId: p(req, 'deploymentId'), agentId: p(req, 'agentId'), patch },
      DEADLINE,
    );
    res.json(placedOut(r, req));
  });
  router.put('/api/v1/deployments/:deploymentId/default-agent', async (req, res) => {
    const b = bodyOf(req);
    if (b.agentId !== null && typeof b.agentId !== 'string')
      throw new InvalidParamsError('agentId must be an agent id or null');
    const r = await call(
      control.setDefaultAgent.bind(control),
      {
        actor: actor(res),
        deploymentId: p(req, 'deploymentId'),
        ...(b.agentId === null ? {} : { agentId: b.agentId }),
      },
      DEADLINE,
    );
    res.json({ deploymentId: r.deploymentId, defaultAgentId: r.defaultAgentId ?? null });
  });

  // ---- A2A Discovery banner and Test Discovery -----------------------------------------------------
  const catalogPath = (deploymentId: string): string =>
    `/deployments/${encodeURIComponent(deploymentId)}/.well-known/agent-catalog.json`;
  /** The banner, from the same catalog document clients get (so its count equals the catalog's entries). */
  const banner = async (req: Request, res: Response): Promise<Json> => {
    const id = p(req, 'deploymentId');
    await getDeployment(res, id); // tenant and role check
    const o = opts(req);
    const catalog = buildCatalog(await deps.lookups.catalog(id), o);
    const entries = catalog.entries as Json[];
    return {
      deploymentId: id,
      catalogUrl: `${o.baseUrl}${catalogPath(id)}`,
      a2aEnabledCount: entries.length,
      agents: entries.map((e) => {
        const meta = e.metadata as Json;
        const agentId = String(meta['dev.a2a-inbound.agentId']);
        return {
          id: agentId,
          name: e.displayName,
          version: e.version,
          protocolVersion: meta['dev.a2a-inbound.defaultA2aVersion'],
          endpointUrl: meta['dev.a2a-inbound.endpoint'],
          cardUrls: { '0.3.0': meta['dev.a2a-inbound.cardUrl.v0_3'], '0.2.6': meta['dev.a2a-inbound.cardUrl.v0_2'] },
        };
      }),
    };
  };
  router.get('/api/v1/deployments/:deploymentId/discovery', async (req, res) => {
    res.json(await banner(req, res));
  });
  router.post('/api/v1/deployments/:deploymentId/discovery/test', async (req, res) => {
    const b = await banner(req, res);
    const url = `${deps.selfBaseUrl()}${catalogPath(p(req, 'deploymentId'))}`;
    res.json(await testDiscovery(fetchImpl, url, Number(b.a2aEnabledCount), deps.discoveryTimeoutMs ?? 10_000));
  });

  // ---- API keys ----------------------------------------------------------------------------------
  router.get('/api/v1/keys', async (_req, res) => {
    const r = await call(control.listKeys.bind(control), { actor: actor(res) }, DEADLINE);
    res.json({ keys: r.keys.map(keyOut) });
  });
  router.post('/api/v1/keys', async (req, res) => {
    const b = bodyOf(req);
    if (b.scope !== 'a2a' && b.scope !== 'invoke') throw new InvalidParamsError('scope must be "a2a" or "invoke"');
    if (b.name !== undefined && (typeof b.name !== 'string' || b.name.length > 200))
      throw new InvalidParamsError('name must be a string of at most 200 characters');
    if (
      b.expiresAt !== undefined &&
      b.expiresAt !== null &&
      (typeof b.expiresAt !== 'string' || Number.isNaN(Date.parse(b.expiresAt)))
    ) {
      throw new InvalidParamsError('expiresAt must be an ISO 8601 date-time');
    }
    const k = await call(
      control.createKey.bind(control),
      {
        actor: actor(res),
        name: typeof b.name === 'string' ? b.name : 'key',
        scopes: [b.scope],
        ...(typeof b.expiresAt === 'string' ? { expiresAtMs: Date.parse(b.expiresAt) } : {}),
      },
      DEADLINE,
    );
    const out = keyOut(k.key);
    // The value is in this answer only: it is stored as a hash.
    res
      .status(201)
      .location(`/api/v1/keys/${encodeURIComponent(String(out.id))}`)
      .json({ ...out, key: k.secret });
  });
  router.delete('/api/v1/keys/:keyId', async (req, res) => {
    const r = await call(control.revokeKey.bind(control), { actor: actor(res), keyId: p(req, 'keyId') }, DEADLINE);
    res.json(keyOut(r.key));
  });

  // ---- secrets (referenced by name from version definitions; the value is never answered) ----------
  const secretOut = (x: controlV1.Secret | undefined): Json => ({
    name: x?.name ?? '',
    createdAt: iso(x?.createdAtMs),
    updatedAt: iso(x?.updatedAtMs),
  });
  // The subscription's audit log of management changes (issue 24): admin only, newest first.
  router.get('/api/v1/audit-events', async (req, res) => {
    const r = await call(
      control.listAuditEvents.bind(control),
      { actor: actor(res), limit: limitOf(req.query.limit) },
      DEADLINE,
    );
    res.json({
      events: r.events.map((e) => ({
        id: e.id,
        at: new Date(e.atMs).toISOString(),
        userId: e.userId || null,
        role: e.role || null,
        via: e.via,
        operation: e.operation,
        target: e.target,
      })),
    });
  });
  // ---- agent-card signing keys (ADR 0034): public parts only ------------------------------------
  const cardKeysOut = (r: controlV1.CardSigningKeys): Json => ({
    keys: r.keys.map((k) => ({
      kid: k.kid,
      status: k.retiredAtMs === 0 ? 'signing' : 'retired',
      publicJwk: JSON.parse(k.publicJwk) as Json,
      createdAt: iso(k.createdAtMs),
      retiredAt: k.retiredAtMs === 0 ? null : iso(k.retiredAtMs),
      publishedUntil: k.publishedUntilMs === 0 ? null : iso(k.publishedUntilMs),
    })),
  });
  router.get('/api/v1/deployments/:deploymentId/card-signing-keys', async (req, res) => {
    const r = await call(
      control.listCardSigningKeys.bind(control),
      { actor: actor(res), deploymentId: p(req, 'deploymentId') },
      DEADLINE,
    );
    res.json(cardKeysOut(r));
  });
  router.post('/api/v1/deployments/:deploymentId/card-signing-keys/rotate', async (req, res) => {
    const r = await call(
      control.rotateCardSigningKey.bind(control),
      { actor: actor(res), deploymentId: p(req, 'deploymentId') },
      DEADLINE,
    );
    res.json(cardKeysOut(r));
  });

  router.get('/api/v1/secrets', async (_req, res) => {
    const r = await call(control.listSecrets.bind(control), { actor: actor(res) }, DEADLINE);
    res.json({ secrets: r.secrets.map(secretOut) });
  });
  router.put('/api/v1/secrets/:name', async (req, res) => {
    const b = bodyOf(req);
    if (typeof b.value !== 'string' || b.value.length === 0)
      throw new InvalidParamsError('value must be a non-empty string');
    const x = await call(
      control.putSecret.bind(control),
      { actor: actor(res), name: p(req, 'name'), value: b.value },
      DEADLINE,
    );
    res.json(secretOut(x));
  });
  router.delete('/api/v1/secrets/:name', async (req, res) => {
    await call(control.deleteSecret.bind(control), { actor: actor(res), name: p(req, 'name') }, DEADLINE);
    res.status(204).end();
  });

  // ---- credits -----------------------------------------------------------------------------------
  router.get('/api/v1/credits', async (_req, res) => {
    const c = await call(control.getCredits.bind(control), { actor: actor(res) }, DEADLINE);
    res.json({ credits: c.credits, costPerInvocation: c.costPerInvocation });
  });
  router.post('/api/v1/credits/add', async (req, res) => {
    const b = bodyOf(req);
    if (typeof b.amount !== 'number' || !Number.isSafeInteger(b.amount))
      throw new InvalidParamsError('amount must be an integer');
    const c = await call(
      control.addCredits.bind(control),
      {
        actor: actor(res),
        amount: b.amount,
        subscriptionId: typeof b.subscriptionId === 'string' ? b.subscriptionId : '',
      },
      DEADLINE,
    );
    res.json({ credits: c.credits });
  });
  router.put('/api/v1/credits/cost', async (req, res) => {
    const b = bodyOf(req);
    if (typeof b.cost !== 'number' || !Number.isSafeInteger(b.cost) || b.cost < 0)
      throw new InvalidParamsError('cost must be a non-negative integer');
    const c = await call(
      control.setCreditCost.bind(control),
      { actor: actor(res), cost: b.cost, subscriptionId: typeof b.subscriptionId === 'string' ? b.subscriptionId : '' },
      DEADLINE,
    );
    res.json({ costPerInvocation: c.costPerInvocation });
  });

  // ---- users -------------------------------------------------------------------------------------
  router.get('/api/v1/users', async (_req, res) => {
    const r = await call(control.listUsers.bind(control), { actor: actor(res) }, DEADLINE);
    res.json({
      users: r.users.map((u) => ({ id: u.id, email: u.email, role: u.role, createdAt: iso(u.createdAtMs) })),
    });
  });
  router.post('/api/v1/users', async (req, res) => {
    const b = bodyOf(req);
    const r = await call(
      control.createUser.bind(control),
      { actor: actor(res), email: stringOf(b, 'email'), role: stringOf(b, 'role') },
      DEADLINE,
    );
    if (!r.user) throw new AppError('INTERNAL', 'the control plane answered without the user');
    // The token is in this answer only.
    res.status(201).json({ id: r.user.id, email: r.user.email, role: r.user.role, token: r.token });
  });

  router.use('/api/v1', (_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'Not found' } });
  });
  router.use('/api/v1', restErrors(log, 'management'));
  return router;
}
