import { type Request, type Response, Router } from 'express';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { call } from '@a2a-inbound/runtime';
import type { GatewayClients, Lookups } from '../clients';
import { buildCatalog, cardPath, type CardOptions } from '../protocol/cards';
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
  providerOrganization: string;
  providerUrl: string;
  fetchImpl?: typeof fetch;
  discoveryTimeoutMs?: number;
}

export const MANAGEMENT_BODY_LIMIT_BYTES = 1024 * 1024;

type Json = Record<string, unknown>;

const iso = (ms: unknown): string | null => (typeof ms === 'number' && ms > 0 ? new Date(ms).toISOString() : null);

function agentOut(id: string, a: Json): Json {
  const versions = Array.isArray(a.versions) ? (a.versions as Json[]) : [];
  return {
    id,
    name: a.name,
    description: a.description,
    type: a.type,
    skills: a.skills,
    defaultInputModes: a.defaultInputModes,
    defaultOutputModes: a.defaultOutputModes,
    versions: versions.map((v) => ({
      version: v.version,
      status: v.status === 'production' ? 'PRODUCTION' : String(v.status).toUpperCase(),
      runtime: v.runtime,
      runtimeConfig: v.runtimeConfig,
      createdAt: iso(v.createdAtMs),
      promotedAt: iso(v.promotedAtMs),
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
  blockingBudgetMs: number;
  pushNotificationsEnabled: boolean;
  updatedAtMs: number;
}

/** A deployment agent with its inline settings; `a2a` shows protocol version, endpoint and card URLs when enabled. */
export function deploymentAgentOut(a: AgentViewLike, base: string): Json {
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
        }
      : null,
    updatedAt: iso(Number(a.updatedAtMs)),
  };
}

const SETTINGS_KEYS = new Set([
  'versionStrategy',
  'pinnedVersion',
  'rateLimitPerMinute',
  'schedule',
  'a2aEnabled',
  'defaultA2aVersion',
  'blockingBudgetSeconds',
  'pushNotificationsEnabled',
  'status',
]);
const STRATEGIES: Readonly<Record<string, string>> = {
  'latest-production': 'latest-production',
  'Latest production': 'latest-production',
  pinned: 'pinned',
  Pinned: 'pinned',
};

/** PATCH body → the control plane's settings patch (types checked here, ranges and roles in tasks). */
function settingsPatch(body: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(body)) {
    if (!SETTINGS_KEYS.has(k)) throw new InvalidParamsError(`unknown setting ${k}`, { allowed: [...SETTINGS_KEYS] });
    switch (k) {
      case 'versionStrategy':
        if (typeof v !== 'string' || !STRATEGIES[v])
          throw new InvalidParamsError('versionStrategy must be "latest-production" or "pinned"');
        out.versionStrategy = STRATEGIES[v];
        break;
      case 'pinnedVersion':
      case 'schedule':
        if (v !== null && (typeof v !== 'string' || v.length === 0 || v.length > 200))
          throw new InvalidParamsError(`${k} must be a non-empty string or null`);
        out[k] = v;
        break;
      case 'a2aEnabled':
      case 'pushNotificationsEnabled':
        if (typeof v !== 'boolean') throw new InvalidParamsError(`${k} must be a boolean`);
        out[k] = v;
        break;
      case 'rateLimitPerMinute':
        if (typeof v !== 'number') throw new InvalidParamsError('rateLimitPerMinute must be an integer');
        out[k] = v;
        break;
      case 'defaultA2aVersion':
        if (v !== '0.3.0' && v !== '0.2.6')
          throw new InvalidParamsError('defaultA2aVersion must be "0.3.0" or "0.2.6"');
        out[k] = v;
        break;
      case 'blockingBudgetSeconds':
        if (typeof v !== 'number' || !Number.isFinite(v))
          throw new InvalidParamsError('blockingBudgetSeconds must be a number of seconds');
        out.blockingBudgetMs = Math.round(v * 1000);
        break;
      case 'status':
        if (v !== 'running' && v !== 'stopped') throw new InvalidParamsError('status must be "running" or "stopped"');
        out[k] = v;
        break;
    }
  }
  if (Object.keys(out).length === 0) throw new InvalidParamsError('no settings given');
  return out;
}

function keyOut(k: Json): Json {
  const { id, name, prefix, scopes, createdAt, expiresAt, revokedAt } = k;
  const scopeList = Array.isArray(scopes) ? (scopes as string[]) : [];
  return {
    id,
    name,
    prefix,
    scope: scopeList.length === 1 ? scopeList[0] : scopeList,
    scopes: scopeList,
    createdAt,
    expiresAt,
    revokedAt,
    status: revokedAt
      ? 'revoked'
      : typeof expiresAt === 'string' && Date.parse(expiresAt) <= Date.now()
        ? 'expired'
        : 'active',
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
  const op = async (res: Response, operation: string, params: Json): Promise<unknown> => {
    const a = actorOf(res);
    const r = await call(
      control.manage.bind(control),
      {
        userId: a.userId,
        role: a.role,
        subscriptionId: a.subscriptionId,
        operation,
        paramsJson: JSON.stringify(params),
      },
      { deadlineMs: 30_000 },
    );
    return JSON.parse(r.resultJson) as unknown;
  };
  const p = (req: Request, name: string): string => String(req.params[name]);
  const freshView = async (agentId: string) =>
    call(control.resolveAgent.bind(control), { agentId }, { deadlineMs: 10_000 });

  // ---- who am I -----------------------------------------------------------------------------------
  router.get('/api/v1/me', (_req, res) => {
    const a = actorOf(res);
    res.json({ userId: a.userId, email: a.email, role: a.role, subscriptionId: a.subscriptionId });
  });

  // ---- agents and versions ------------------------------------------------------------------------
  router.get('/api/v1/agents', async (_req, res) => {
    const list = (await op(res, 'agents.list', {})) as Json[];
    res.json({ agents: list.map((a) => agentOut(String(a.id), a)) });
  });
  router.post('/api/v1/agents', async (req, res) => {
    const b = bodyOf(req);
    const a = (await op(res, 'agents.create', b)) as Json;
    res
      .status(201)
      .location(`/api/v1/agents/${encodeURIComponent(String(a.id))}`)
      .json(agentOut(String(a.id), a));
  });
  router.get('/api/v1/agents/:agentId', async (req, res) => {
    const a = (await op(res, 'agents.get', { agentId: p(req, 'agentId') })) as Json;
    res.json(agentOut(String(a.id), a));
  });
  router.post('/api/v1/agents/:agentId/versions', async (req, res) => {
    const b = bodyOf(req);
    const a = (await op(res, 'agents.publishVersion', { ...b, agentId: p(req, 'agentId') })) as Json;
    res.status(201).json(agentOut(p(req, 'agentId'), a));
  });
  router.post('/api/v1/agents/:agentId/versions/:version/promote', async (req, res) => {
    const a = (await op(res, 'agents.promote', { agentId: p(req, 'agentId'), version: p(req, 'version') })) as Json;
    res.json(agentOut(p(req, 'agentId'), a));
  });

  // ---- deployments and per-agent settings ----------------------------------------------------------
  const deploymentOut = (d: Json, base: string): Json => {
    const agents = Array.isArray(d.agents) ? (d.agents as AgentViewLike[]) : undefined;
    return {
      id: d.id,
      name: d.name,
      defaultAgentId: d.defaultAgentId ?? null,
      createdAt: iso(d.createdAtMs),
      updatedAt: iso(d.updatedAtMs),
      ...(agents
        ? {
            agents: agents.map((a) => deploymentAgentOut(a, base)),
            a2aEnabledCount: agents.filter((a) => a.a2aEnabled && a.type === 'AI Agent' && a.status === 'running')
              .length,
            catalogUrl: `${base}/deployments/${encodeURIComponent(String(d.id))}/.well-known/agent-catalog.json`,
          }
        : {}),
    };
  };
  router.get('/api/v1/deployments', async (req, res) => {
    const list = (await op(res, 'deployments.list', {})) as Json[];
    res.json({ deployments: list.map((d) => deploymentOut(d, deps.baseUrl(req))) });
  });
  router.post('/api/v1/deployments', async (req, res) => {
    const d = (await op(res, 'deployments.create', bodyOf(req))) as Json;
    res
      .status(201)
      .location(`/api/v1/deployments/${encodeURIComponent(String(d.id))}`)
      .json(deploymentOut({ ...d, agents: [] }, deps.baseUrl(req)));
  });
  router.get('/api/v1/deployments/:deploymentId', async (req, res) => {
    const d = (await op(res, 'deployments.get', { deploymentId: p(req, 'deploymentId') })) as Json;
    res.json(deploymentOut(d, deps.baseUrl(req)));
  });
  router.post('/api/v1/deployments/:deploymentId/agents', async (req, res) => {
    const b = bodyOf(req);
    const settings = isObject(b.settings) ? b.settings : {};
    for (const k of Object.keys(settings)) {
      if (!['a2aEnabled', 'rateLimitPerMinute', 'blockingBudgetSeconds'].includes(k))
        throw new InvalidParamsError(`setting ${k} cannot be given when adding; PATCH the settings after`);
    }
    const params: Json = { deploymentId: p(req, 'deploymentId'), agentId: b.agentId };
    if (settings.a2aEnabled !== undefined) params.a2aEnabled = settings.a2aEnabled;
    if (settings.rateLimitPerMinute !== undefined) params.rateLimitPerMinute = settings.rateLimitPerMinute;
    if (settings.blockingBudgetSeconds !== undefined) {
      if (typeof settings.blockingBudgetSeconds !== 'number')
        throw new InvalidParamsError('blockingBudgetSeconds must be a number of seconds');
      params.blockingBudgetMs = Math.round(settings.blockingBudgetSeconds * 1000);
    }
    const placed = (await op(res, 'deployments.addAgent', params)) as Json;
    const view = await freshView(String(placed.agentId));
    res
      .status(201)
      .location(
        `/api/v1/deployments/${encodeURIComponent(p(req, 'deploymentId'))}/agents/${encodeURIComponent(view.agentId)}`,
      )
      .json(deploymentAgentOut(view, deps.baseUrl(req)));
  });
  router.delete('/api/v1/deployments/:deploymentId/agents/:agentId', async (req, res) => {
    await op(res, 'deployments.removeAgent', { deploymentId: p(req, 'deploymentId'), agentId: p(req, 'agentId') });
    res.status(204).end();
  });
  router.patch('/api/v1/deployments/:deploymentId/agents/:agentId/settings', async (req, res) => {
    const patch = settingsPatch(bodyOf(req));
    await op(res, 'settings.update', {
      deploymentId: p(req, 'deploymentId'),
      agentId: p(req, 'agentId'),
      settings: patch,
    });
    res.json(deploymentAgentOut(await freshView(p(req, 'agentId')), deps.baseUrl(req)));
  });
  router.put('/api/v1/deployments/:deploymentId/default-agent', async (req, res) => {
    const b = bodyOf(req);
    if (b.agentId !== null && typeof b.agentId !== 'string')
      throw new InvalidParamsError('agentId must be an agent id or null');
    await op(res, 'deployments.setDefaultAgent', { deploymentId: p(req, 'deploymentId'), agentId: b.agentId });
    res.json({ deploymentId: p(req, 'deploymentId'), defaultAgentId: b.agentId });
  });

  // ---- A2A Discovery banner and Test Discovery -----------------------------------------------------
  const catalogPath = (deploymentId: string): string =>
    `/deployments/${encodeURIComponent(deploymentId)}/.well-known/agent-catalog.json`;
  /** The banner, from the same catalog document clients get (so its count equals the catalog's entries). */
  const banner = async (req: Request, res: Response): Promise<Json> => {
    const id = p(req, 'deploymentId');
    await op(res, 'deployments.get', { deploymentId: id }); // tenant and role check
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
    const list = (await op(res, 'keys.list', {})) as Json[];
    res.json({ keys: list.map(keyOut) });
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
    const k = (await op(res, 'keys.create', {
      name: b.name ?? 'key',
      scope: b.scope,
      expiresAt: b.expiresAt ?? null,
    })) as Json;
    // The value is in this answer only: it is stored as a hash.
    res
      .status(201)
      .location(`/api/v1/keys/${encodeURIComponent(String(k.id))}`)
      .json({ ...keyOut(k), key: k.key });
  });
  router.delete('/api/v1/keys/:keyId', async (req, res) => {
    const k = (await op(res, 'keys.revoke', { keyId: p(req, 'keyId') })) as Json;
    res.json(keyOut(k));
  });

  // ---- credits -----------------------------------------------------------------------------------
  router.get('/api/v1/credits', async (_req, res) => {
    const c = (await op(res, 'credits.get', {})) as Json;
    res.json({ credits: c.credits, costPerInvocation: c.cost });
  });
  router.post('/api/v1/credits/add', async (req, res) => {
    const b = bodyOf(req);
    if (typeof b.amount !== 'number' || !Number.isSafeInteger(b.amount))
      throw new InvalidParamsError('amount must be an integer');
    const params: Json = { amount: b.amount };
    if (typeof b.subscriptionId === 'string') params.subscriptionId = b.subscriptionId;
    const c = (await op(res, 'credits.add', params)) as Json;
    res.json({ credits: c.credits });
  });
  router.put('/api/v1/credits/cost', async (req, res) => {
    const b = bodyOf(req);
    if (typeof b.cost !== 'number' || !Number.isSafeInteger(b.cost) || b.cost < 0)
      throw new InvalidParamsError('cost must be a non-negative integer');
    const params: Json = { cost: b.cost };
    if (typeof b.subscriptionId === 'string') params.subscriptionId = b.subscriptionId;
    await op(res, 'credits.setCost', params);
    res.json({ costPerInvocation: b.cost });
  });

  // ---- users -------------------------------------------------------------------------------------
  router.get('/api/v1/users', async (_req, res) => {
    res.json({ users: (await op(res, 'users.list', {})) as Json[] });
  });
  router.post('/api/v1/users', async (req, res) => {
    const b = bodyOf(req);
    const u = (await op(res, 'users.create', { email: b.email, role: b.role })) as Json;
    // The token is in this answer only.
    res.status(201).json({ id: u.id, email: u.email, role: u.role, token: u.token });
  });

  router.use('/api/v1', (_req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: 'Not found' } });
  });
  router.use('/api/v1', restErrors(log, 'management'));
  return router;
}
