import { A2AClient } from '@a2a-js/sdk/client';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import { controlV1 } from '@a2a-inbound/proto';
import { call, grpc } from '@a2a-inbound/runtime';

/** The system under test, however it was started (embedded, split, distributed). */
export interface Sut {
  baseUrl: string;
  a2aKey: string;
  invokeKey: string;
  /** Other gateway replicas, when the layout has several. */
  otherBaseUrls: string[];
  /** gRPC address of the tasks service (control plane), for test set-up through the management operations. */
  tasksAddress: string;
  /** The seeded demo subscription. */
  subscriptionId: string;
  close(): Promise<void>;
}

type Params = Record<string, unknown>;
type Actor = controlV1.ManagementActor;
type Client = controlV1.ControlPlaneServiceClient;

const isoOrNull = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());
const text = (p: Params, k: string): string => (typeof p[k] === 'string' ? p[k] : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function keyView(k: controlV1.ApiKey | undefined): Params {
  if (!k) throw new Error('no key in the answer');
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    createdAt: new Date(k.createdAtMs).toISOString(),
    expiresAt: isoOrNull(k.expiresAtMs),
    revokedAt: isoOrNull(k.revokedAtMs),
  };
}

/** The stored agent document as the management operations return it (`id` when `withId`). */
function agentDoc(a: controlV1.Agent, withId = true): Params {
  return {
    ...(withId ? { id: a.id } : {}),
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
      runtimeConfig: v.runtimeConfigJson ? (JSON.parse(v.runtimeConfigJson) as unknown) : {},
      createdAtMs: v.createdAtMs,
      promotedAtMs: v.promotedAtMs ?? null,
    })),
    createdAtMs: a.createdAtMs,
    updatedAtMs: a.updatedAtMs,
  };
}

function deploymentDoc(d: controlV1.Deployment | undefined): Params {
  if (!d) throw new Error('no deployment in the answer');
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    name: d.name,
    defaultAgentId: d.defaultAgentId ?? null,
    createdAtMs: d.createdAtMs,
    updatedAtMs: d.updatedAtMs,
  };
}

function settingsDoc(r: controlV1.DeploymentAgentResponse): Params {
  const s = r.settings;
  if (!s) throw new Error('no settings in the answer');
  return { ...s, pinnedVersion: s.pinnedVersion ?? null, schedule: s.schedule ?? null };
}

/** The served view as the control plane's domain has it (the proto-only card fields left out). */
function agentView(v: controlV1.AgentView): Params {
  const { providerOrganization, providerUrl, stateTransitionHistory, streaming, ...rest } = v;
  void providerOrganization;
  void providerUrl;
  void stateTransitionHistory;
  void streaming;
  return rest;
}

/** `settings` by their control-plane names onto the typed patch; its fields are the allow-list. */
function settingsPatch(settings: unknown): controlV1.AgentSettingsPatch {
  const given = (typeof settings === 'object' && settings !== null ? settings : {}) as Params;
  const allowed = Object.keys(controlV1.AgentSettingsPatch.create());
  const patch: Params = {};
  for (const [k, v] of Object.entries(given)) {
    if (!allowed.includes(k)) throw new InvalidParamsError(`unknown setting ${k}`);
    // A list setting (`a2aVersions`) travels as its wrapper message.
    patch[k] = v === null ? '' : Array.isArray(v) ? { values: v } : v;
  }
  return controlV1.AgentSettingsPatch.fromPartial(patch);
}

/**
 * Each management operation by name: its typed RPC, the request built from loose parameters, and the
 * answer in the JSON shape the operations have always returned to tests.
 */
const OPERATIONS: Record<string, (c: Client, actor: Actor, p: Params) => Promise<unknown>> = {
  'keys.create': async (c, actor, p) => {
    const scopes = Array.isArray(p.scopes) ? p.scopes.map(String) : [text(p, 'scope')];
    const expiresAtMs = typeof p.expiresAt === 'string' ? Date.parse(p.expiresAt) : undefined;
    const r = await call(c.createKey.bind(c), { actor, name: text(p, 'name'), scopes, expiresAtMs });
    return { id: r.key?.id, key: r.secret, ...keyView(r.key) };
  },
  'keys.list': async (c, actor) => (await call(c.listKeys.bind(c), { actor })).keys.map(keyView),
  'keys.revoke': async (c, actor, p) =>
    keyView((await call(c.revokeKey.bind(c), { actor, keyId: text(p, 'keyId') })).key),
  'agents.create': async (c, actor, p) => {
    const modes = (v: unknown): controlV1.MediaTypes | undefined =>
      Array.isArray(v) ? { values: v.map(String) } : undefined;
    const r = await call(c.createAgent.bind(c), {
      actor,
      name: text(p, 'name'),
      description: text(p, 'description'),
      type: text(p, 'type'),
      skills: Array.isArray(p.skills)
        ? (p.skills as controlV1.AgentSkill[]).map((s) => controlV1.AgentSkill.fromPartial(s))
        : [],
      defaultInputModes: modes(p.defaultInputModes),
      defaultOutputModes: modes(p.defaultOutputModes),
    });
    return agentDoc(r);
  },
  'agents.list': async (c, actor) => (await call(c.listAgents.bind(c), { actor })).agents.map((a) => agentDoc(a)),
  'agents.get': async (c, actor, p) => agentDoc(await call(c.getAgent.bind(c), { actor, agentId: text(p, 'agentId') })),
  'agents.publishVersion': async (c, actor, p) => {
    const config = typeof p.runtimeConfig === 'object' && p.runtimeConfig !== null ? p.runtimeConfig : {};
    const r = await call(c.publishVersion.bind(c), {
      actor,
      agentId: text(p, 'agentId'),
      version: text(p, 'version'),
      runtime: text(p, 'runtime'),
      runtimeConfigJson: JSON.stringify(config),
    });
    return agentDoc(r, false);
  },
  'agents.promote': async (c, actor, p) =>
    agentDoc(
      await call(c.promoteVersion.bind(c), { actor, agentId: text(p, 'agentId'), version: text(p, 'version') }),
      false,
    ),
  'deployments.create': async (c, actor, p) =>
    deploymentDoc(await call(c.createDeployment.bind(c), { actor, name: text(p, 'name') })),
  'deployments.list': async (c, actor) =>
    (await call(c.listDeployments.bind(c), { actor })).deployments.map(deploymentDoc),
  'deployments.get': async (c, actor, p) => {
    const r = await call(c.getDeployment.bind(c), { actor, deploymentId: text(p, 'deploymentId') });
    const agents = r.agents.map(agentView);
    return { ...deploymentDoc(r.deployment), agents, a2aEnabledCount: r.agents.filter((a) => a.a2aEnabled).length };
  },
  'deployments.addAgent': async (c, actor, p) =>
    settingsDoc(
      await call(c.addDeploymentAgent.bind(c), {
        actor,
        deploymentId: text(p, 'deploymentId'),
        agentId: text(p, 'agentId'),
        a2aEnabled: typeof p.a2aEnabled === 'boolean' ? p.a2aEnabled : undefined,
        rateLimitPerMinute: num(p.rateLimitPerMinute),
        blockingBudgetMs: num(p.blockingBudgetMs),
      }),
    ),
  'deployments.removeAgent': async (c, actor, p) => {
    await call(c.removeDeploymentAgent.bind(c), {
      actor,
      deploymentId: text(p, 'deploymentId'),
      agentId: text(p, 'agentId'),
    });
    return { removed: true };
  },
  'deployments.setDefaultAgent': async (c, actor, p) => {
    await call(c.setDefaultAgent.bind(c), {
      actor,
      deploymentId: text(p, 'deploymentId'),
      agentId: p.agentId === null ? undefined : text(p, 'agentId'),
    });
    return { ok: true };
  },
  'settings.update': async (c, actor, p) =>
    settingsDoc(
      await call(c.updateAgentSettings.bind(c), {
        actor,
        agentId: text(p, 'agentId'),
        deploymentId: typeof p.deploymentId === 'string' ? p.deploymentId : undefined,
        patch: settingsPatch(p.settings),
      }),
    ),
  'credits.get': async (c, actor) => {
    const r = await call(c.getCredits.bind(c), { actor });
    return { credits: r.credits, cost: r.costPerInvocation };
  },
  'credits.add': async (c, actor, p) => ({
    credits: (
      await call(c.addCredits.bind(c), { actor, subscriptionId: text(p, 'subscriptionId'), amount: Number(p.amount) })
    ).credits,
  }),
  'credits.setCost': async (c, actor, p) => {
    await call(c.setCreditCost.bind(c), { actor, subscriptionId: text(p, 'subscriptionId'), cost: Number(p.cost) });
    return { ok: true };
  },
  'users.create': async (c, actor, p) => {
    const r = await call(c.createUser.bind(c), { actor, email: text(p, 'email'), role: text(p, 'role') });
    return { id: r.user?.id, token: r.token, email: r.user?.email, role: r.user?.role };
  },
  'users.list': async (c, actor) =>
    (await call(c.listUsers.bind(c), { actor })).users.map((u) => ({
      id: u.id,
      email: u.email,
      role: u.role,
      createdAt: new Date(u.createdAtMs).toISOString(),
    })),
};

/**
 * Runs a management operation (the ones behind the management REST API) through the control-plane gRPC
 * service's typed RPC for it, as a user of the given role: test set-up that works the same in every layout.
 * Answers keep the operations' JSON shapes (ISO dates in key and user views, documents elsewhere).
 */
export async function manage(
  sut: Pick<Sut, 'tasksAddress' | 'subscriptionId'>,
  role: 'admin' | 'developer' | 'operator',
  operation: string,
  params: Record<string, unknown>,
): Promise<any> {
  const run = Object.hasOwn(OPERATIONS, operation) ? OPERATIONS[operation] : undefined;
  if (!run) throw new AppError('METHOD_NOT_FOUND', `unknown operation ${operation}`);
  const client = new controlV1.ControlPlaneServiceClient(sut.tasksAddress, grpc.credentials.createInsecure());
  try {
    return await run(client, { userId: 'test', role, subscriptionId: sut.subscriptionId }, params);
  } finally {
    client.close();
  }
}

/** The operation names `manage()` knows. */
export const MANAGEMENT_OPERATIONS: readonly string[] = Object.keys(OPERATIONS);

export const cardUrl = (base: string, agentId: string): string =>
  `${base}/agents/${agentId}/.well-known/agent-card.json`;

/** An @a2a-js/sdk client that sends the bearer key on every call. */
export async function a2aClient(base: string, agentId: string, key: string): Promise<A2AClient> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('Authorization', `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  return A2AClient.fromCardUrl(cardUrl(base, agentId), { fetchImpl });
}

export interface RpcAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Raw JSON-RPC over HTTP: the body may be anything (a string is sent as is). */
export async function rpc(
  url: string,
  body: unknown,
  init: { key?: string | undefined; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...(init.headers ?? {}) };
  if (init.key) headers.Authorization = `Bearer ${init.key}`;
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export interface SseFrame {
  id?: number;
  data: any;
}

/** POSTs and reads an SSE answer frame by frame; stops after `final: true` or when `stopAfter` says so. */
export async function sse(
  url: string,
  body: unknown,
  init: {
    key: string;
    headers?: Record<string, string>;
    stopAfter?: (f: SseFrame, all: SseFrame[]) => boolean;
    signal?: AbortSignal;
  },
): Promise<{ status: number; contentType: string | null; frames: SseFrame[] }> {
  const ac = new AbortController();
  init.signal?.addEventListener('abort', () => ac.abort());
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
      Authorization: `Bearer ${init.key}`,
      ...(init.headers ?? {}),
    },
    body: JSON.stringify(body),
    signal: ac.signal,
  });
  const frames: SseFrame[] = [];
  const answer = () => ({ status: res.status, contentType: res.headers.get('content-type'), frames });
  try {
    for await (const frame of sseFrames(res)) {
      frames.push(frame);
      if (init.stopAfter?.(frame, frames) || frame.data?.result?.final === true) {
        ac.abort();
        return answer();
      }
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  }
  return answer();
}

/** The server-sent events of a fetch response, frame by frame (`id:` and the joined `data:` lines as JSON). */
export async function* sseFrames(res: Response): AsyncGenerator<SseFrame> {
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let idx: number;
      while ((idx = buf.indexOf('\n\n')) >= 0) {
        const raw = buf.slice(0, idx);
        buf = buf.slice(idx + 2);
        const frame: SseFrame = { data: undefined };
        const dataLines: string[] = [];
        for (const line of raw.split('\n')) {
          if (line.startsWith('id:')) frame.id = Number(line.slice(3).trim());
          else if (line.startsWith('data:')) dataLines.push(line.slice(5).trimStart());
        }
        if (dataLines.length === 0) continue;
        frame.data = JSON.parse(dataLines.join('\n'));
        yield frame;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

export async function eventually<T>(
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() - start > timeoutMs)
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

let counter = 0;
export const uniqueId = (prefix = 'msg'): string =>
  `${prefix}-${Date.now().toString(36)}-${process.pid}-${(counter += 1)}`;

export const textMessage = (text: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  kind: 'message',
  role: 'user',
  messageId: uniqueId(),
  parts: [{ kind: 'text', text }],
  ...extra,
});
export * from './grpc-reflection';
export * from './upstream-agents';
export * from './http-contract-agent';
export * from './redirect-trap';
export * from './half-open-upload';
