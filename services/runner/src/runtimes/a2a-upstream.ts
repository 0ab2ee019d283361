import { createHash } from 'node:crypto';
import type { Message, Part, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import {
  agentCardUrl,
  credentialOrigins,
  untrustedCardEndpoints,
  untrustedEndpointReason,
} from '@a2a-inbound/agent-definitions';
import { EgressPolicy } from '@a2a-inbound/runtime';
import { RUN_CANCELED, type AgentRuntime, type RunContext } from '../domain/agent-runtime';
import {
  authHeaders,
  CallBudget,
  ConfigChecker,
  fail,
  failureReason,
  intOr,
  outboundParts,
  turnMessageId,
  UpstreamFailure,
  withMetadata,
  type ConfigProblem,
} from './common';

/**
 * Runtime `a2a-upstream`: an existing A2A agent behind the gateway. The version's configuration names the
 * upstream (its agent card URL, or the base URL whose card is at `/.well-known/agent-card.json`); each run
 * forwards the caller's message (text, data, files) with `message/stream` (or `message/send` when the card
 * says it does not stream) through the guarded egress, and turns the upstream's events into ours.
 */
export interface A2aUpstreamConfig {
  /** The agent card URL (`…/agent-card.json`) or the agent's base URL. */
  url: string;
  /** The upstream's token (the resolved secret): sent as `Authorization: Bearer <token>`, or in `authHeader`. */
  tokenSecret?: string;
  /** Another header for the token, sent as is (`X-Api-Key`). */
  authHeader?: string;
  /**
   * Origins besides `url`'s where the token may go: the service endpoints the upstream's card names on another
   * host (ADR 0021, decision 9). A card naming an origin outside these is not called with the token.
   */
  allowedOrigins?: string[];
  /** Budget of the whole run, from the first call to the final event (default 300 000). */
  timeoutMs?: number;
  /** Longest silence between two upstream events (default 60 000). */
  idleTimeoutMs?: number;
}

const FIELDS = ['url', 'tokenSecret', 'authHeader', 'allowedOrigins', 'timeoutMs', 'idleTimeoutMs'] as const;
export const A2A_UPSTREAM_DEFAULTS = { timeoutMs: 300_000, idleTimeoutMs: 60_000, pollMs: 1_000 } as const;
/** How long the upstream gets to acknowledge a cancel. */
const CANCEL_TIMEOUT_MS = 5_000;

/** Metadata of our agent messages that records the upstream task a reply continues. */
export const UPSTREAM_KEY = 'a2a-inbound/upstream';

/**
 * Problems of an `a2a-upstream` configuration (empty when valid). Pure: the URL is checked against the egress
 * policy's rules without DNS (the default policy is the strict one: public https only).
 */
export function validateA2aUpstreamConfig(config: unknown, policy: EgressPolicy = new EgressPolicy()): ConfigProblem[] {
  const c = new ConfigChecker(config, FIELDS);
  if (!c.isObject) return c.problems;
  c.url('url', policy);
  c.optionalSecret('tokenSecret');
  c.headerName('authHeader');
  c.optionalOrigins('allowedOrigins', policy);
  c.optionalInt('timeoutMs', 1_000, 3_600_000);
  c.optionalInt('idleTimeoutMs', 1_000, 3_600_000);
  return c.problems;
}

interface UpstreamRef {
  taskId?: string;
  contextId?: string;
}

/** The upstream task this run continues (our task waits for input), and the upstream context of our context. */
function continuation(ctx: RunContext): UpstreamRef {
  let contextId: string | undefined;
  for (let i = ctx.history.length - 1; i >= 0; i--) {
    const m = ctx.history[i]!;
    const ref =
      m.role === 'agent' ? (m.metadata?.[UPSTREAM_KEY] as (UpstreamRef & { state?: string }) | undefined) : undefined;
    if (!ref) continue;
    contextId ??= ref.contextId;
    if (m.taskId === ctx.taskId && (ref.state === 'input-required' || ref.state === 'auth-required'))
      return { ...(ref.taskId ? { taskId: ref.taskId } : {}), ...(contextId ? { contextId } : {}) };
    // An earlier task of the conversation: its upstream context, but not its (finished) upstream task.
  }
  return contextId ? { contextId } : {};
}

/** A card URL (`….json`) as given; a base URL gets `.well-known/agent-card.json` under its path (shared with tasks). */
export { agentCardUrl };

const FINAL: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled', 'rejected']);

export interface A2aUpstreamDeps {
  /** The guarded egress fetch (every connection checked against the policy). */
  fetch: typeof fetch;
  policy: EgressPolicy;
}

export function createA2aUpstreamRuntime(deps: A2aUpstreamDeps): AgentRuntime {
  const clients = new UpstreamClients(deps);
  return async (ctx) => {
    const problems = validateA2aUpstreamConfig(ctx.config, deps.policy);
    if (problems.length > 0) {
      await fail(
        ctx,
        `The agent version's a2a-upstream configuration is invalid: ${problems.map((p) => `${p.path} ${p.reason}`).join('; ')}.`,
      );
      return;
    }
    const config = ctx.config as unknown as A2aUpstreamConfig;
    const budget = new CallBudget(
      ctx.signal,
      intOr(config.timeoutMs, A2A_UPSTREAM_DEFAULTS.timeoutMs),
      intOr(config.idleTimeoutMs, A2A_UPSTREAM_DEFAULTS.idleTimeoutMs),
    );
    const run = new UpstreamRun(ctx, config, clients, budget);
    try {
      await run.execute();
    } catch (err) {
      // The card may have changed (moved endpoint, new auth): the next run reads it again.
      clients.forget(config.url, authHeaders(ctx.config), credentialOrigins(ctx.config));
      if (ctx.signal.aborted) {
        // Canceled: cancel upstream too. Handed back (drain): the re-run continues with the same messageId.
        if (ctx.signal.reason === RUN_CANCELED) await run.cancelUpstream();
        throw err;
      }
      await fail(ctx, failureReason(err, 'The upstream agent', config.url, budget.timedOut()), run.stamp('failed'));
    } finally {
      budget.close();
    }
  };
}

/** How long a resolved agent card (and the client built on it) is reused. */
export const CARD_TTL_MS = 5 * 60_000;
const CARD_FETCH_TIMEOUT_MS = 30_000;
const MAX_CACHED_CLIENTS = 256;

/**
 * SDK clients by upstream (URL, auth headers and the origins the token may go to), reused for `CARD_TTL_MS`: a
 * run does not fetch the card again. The calls of a run carry its budget's signal; through it, each chunk
 * received restarts that run's idle budget (SSE keep-alive comments too).
 */
class UpstreamClients {
  readonly #cache = new Map<string, { client: Promise<Client>; expiresAt: number }>();
  readonly #budgets = new WeakMap<AbortSignal, CallBudget>();

  constructor(readonly deps: A2aUpstreamDeps) {}

  /** The cache key: the URL, the trusted origins and a digest of the headers (the token is not kept in clear). */
  #key(url: string, headers: Record<string, string>, trusted: ReadonlySet<string>): string {
    const digest = createHash('sha256').update(JSON.stringify(headers)).digest('base64url');
    return `${url}\n${[...trusted].sort().join(' ')}\n${digest}`;
  }

  forget(url: string, headers: Record<string, string>, trusted: ReadonlySet<string>): void {
    this.#cache.delete(this.#key(url, headers, trusted));
  }

  async get(
    url: string,
    headers: Record<string, string>,
    trusted: ReadonlySet<string>,
    budget: CallBudget,
  ): Promise<Client> {
    this.#budgets.set(budget.signal, budget);
    const key = this.#key(url, headers, trusted);
    const now = Date.now();
    let entry = this.#cache.get(key);
    if (!entry || entry.expiresAt <= now) {
      if (this.#cache.size >= MAX_CACHED_CLIENTS) this.#evict(now);
      const client = this.#create(url, headers, trusted);
      entry = { client, expiresAt: now + CARD_TTL_MS };
      this.#cache.set(key, entry);
      client.catch(() => this.#cache.delete(key));
    }
    // The card fetch has its own timeout; this run waits for it no longer than its own budget.
    return await new Promise<Client>((resolve, reject) => {
      if (budget.signal.aborted) return reject(budget.signal.reason as Error);
      const onAbort = (): void => reject(budget.signal.reason as Error);
      budget.signal.addEventListener('abort', onAbort, { once: true });
      entry.client.then(resolve, reject).finally(() => budget.signal.removeEventListener('abort', onAbort));
    });
  }

  #evict(now: number): void {
    for (const [k, v] of this.#cache) if (v.expiresAt <= now) this.#cache.delete(k);
    while (this.#cache.size >= MAX_CACHED_CLIENTS) this.#cache.delete(this.#cache.keys().next().value!);
  }

  /**
   * Reads the card and builds the client on it. With a token, the card must name its endpoints on `trusted`
   * origins only, and every request is checked again before it leaves (a card read later may name others).
   */
  async #create(url: string, headers: Record<string, string>, trusted: ReadonlySet<string>): Promise<Client> {
    const credentialed = Object.keys(headers).length > 0;
    const refused = (untrusted: string[]): UpstreamFailure =>
      new UpstreamFailure(
        `The upstream agent at ${new URL(url).host} was not called: ${untrustedEndpointReason(untrusted, url)}.`,
      );
    const fetchImpl: typeof fetch = async (input, init = {}) => {
      const target = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (credentialed && !trusted.has(new URL(target).origin)) throw refused([new URL(target).origin]);
      const h = new Headers(init.headers);
      for (const [k, v] of Object.entries(headers)) h.set(k, v);
      // A run's call carries its budget's signal; the card fetch (no signal) gets its own timeout.
      const signal = init.signal ?? AbortSignal.timeout(CARD_FETCH_TIMEOUT_MS);
      const res = await this.deps.fetch(input, { ...init, headers: h, signal });
      const budget = init.signal ? this.#budgets.get(init.signal) : undefined;
      return budget ? watched(res, budget) : res;
    };
    const cardResolver = new DefaultAgentCardResolver({ fetchImpl });
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver,
    });
    const card = await cardResolver.resolve(agentCardUrl(url), '');
    const untrusted = credentialed ? untrustedCardEndpoints(card, trusted) : [];
    if (untrusted.length > 0) throw refused(untrusted);
    return factory.createFromAgentCard(card);
  }
}

/** Every chunk received (SSE keep-alive comments too) restarts the idle budget. */
function watched(res: Response, budget: CallBudget): Response {
  if (!res.body) return res;
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        budget.touch();
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

class UpstreamRun {
  readonly #ref: UpstreamRef;
  #client: Client | undefined;
  #ended = false;

  constructor(
    readonly ctx: RunContext,
    readonly config: A2aUpstreamConfig,
    readonly clients: UpstreamClients,
    readonly budget: CallBudget,
  ) {
    this.#ref = continuation(ctx);
  }

  /** Metadata that lets the next turn continue the upstream task (or its context). */
  stamp(state: string): Record<string, unknown> {
    return { [UPSTREAM_KEY]: { ...this.#ref, state } };
  }

  async #connect(): Promise<Client> {
    this.#client = await this.clients.get(
      this.config.url,
      authHeaders(this.ctx.config),
      credentialOrigins(this.ctx.config),
      this.budget,
    );
    return this.#client;
  }

  async execute(): Promise<void> {
    const { ctx } = this;
    const client = await this.#connect();
    const message: Message = {
      kind: 'message',
      role: 'user',
      messageId: turnMessageId(ctx),
      parts: await outboundParts(ctx, ctx.message.parts),
      ...(this.#ref.taskId ? { taskId: this.#ref.taskId } : {}),
      ...(this.#ref.contextId ? { contextId: this.#ref.contextId } : {}),
    };
    const stream = client.sendMessageStream({ message }, { signal: this.budget.signal });
    let last: TaskState | undefined;
    for await (const event of stream) {
      this.budget.touch();
      last = await this.#apply(event);
      if (this.#ended) return;
    }
    // The stream closed (or the upstream answered `message/send` with a task still running): poll it.
    while (!this.#ended) {
      if (!this.#ref.taskId)
        throw new UpstreamFailure('The upstream agent ended its answer without a task or a message.');
      if (last !== undefined && FINAL.has(last)) return;
      await this.ctx.sleep(A2A_UPSTREAM_DEFAULTS.pollMs);
      const task = await client.getTask({ id: this.#ref.taskId, historyLength: 0 }, { signal: this.budget.signal });
      last = await this.#apply(task, { artifacts: false });
    }
  }

  /** One upstream event into ours; returns the upstream task's state after it. */
  async #apply(
    event: Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent,
    opts: { artifacts: boolean } = { artifacts: true },
  ): Promise<TaskState | undefined> {
    const { ctx } = this;
    switch (event.kind) {
      case 'message': {
        // A direct answer, no upstream task: it is the result.
        if (event.contextId) this.#ref.contextId = event.contextId;
        await this.#artifact(
          { artifactId: `${ctx.taskId}-agent_response`, name: 'agent_response', parts: event.parts },
          false,
          true,
        );
        await this.#finish('completed', event);
        return 'completed';
      }
      case 'task': {
        this.#ref.taskId = event.id;
        this.#ref.contextId = event.contextId;
        if (opts.artifacts) {
          for (const a of event.artifacts ?? []) await this.#artifact(a, false, true);
        }
        await this.#status(event.status.state, event.status.message);
        return event.status.state;
      }
      case 'status-update': {
        this.#ref.taskId = event.taskId;
        this.#ref.contextId = event.contextId;
        await this.#status(event.status.state, event.status.message);
        return event.status.state;
      }
      case 'artifact-update': {
        this.#ref.taskId = event.taskId;
        this.#ref.contextId = event.contextId;
        await this.#artifact(event.artifact, event.append ?? false, event.lastChunk ?? false);
        return undefined;
      }
    }
  }

  async #artifact(
    a: { artifactId: string; name?: string | undefined; parts: Part[] },
    append: boolean,
    lastChunk: boolean,
  ): Promise<void> {
    await this.ctx.artifact({
      artifactId: a.artifactId,
      name: a.name ?? 'artifact',
      parts: a.parts,
      append,
      lastChunk,
    });
  }

  /** Upstream states onto ours: input-required and auth-required wait for the caller; final states end the run. */
  async #status(state: TaskState, message: Message | undefined): Promise<void> {
    switch (state) {
      case 'submitted':
      case 'working':
        if (message) await this.ctx.status('working', this.#ours(message, state));
        return;
      case 'input-required':
      case 'auth-required':
        await this.#finish('input-required', message, state);
        return;
      case 'completed':
        await this.#finish('completed', message);
        return;
      case 'failed':
      case 'rejected':
      case 'canceled':
      case 'unknown': {
        const why = message ? undefined : `The upstream agent ended the task as ${state}.`;
        await this.#finish('failed', message, state, why);
        return;
      }
    }
  }

  async #finish(
    ours: 'input-required' | 'completed' | 'failed',
    message: Message | undefined,
    upstreamState: string = ours,
    fallbackText?: string,
  ): Promise<void> {
    this.#ended = true;
    if (message) await this.ctx.status(ours, this.#ours(message, upstreamState));
    else if (fallbackText) await fail(this.ctx, fallbackText, this.stamp(upstreamState));
    else if (ours === 'input-required')
      await this.ctx.status(
        ours,
        withMetadata(
          {
            kind: 'message',
            role: 'agent',
            messageId: `${this.ctx.taskId}-upstream-input-${Date.now()}`,
            taskId: this.ctx.taskId,
            contextId: this.ctx.contextId,
            parts: [{ kind: 'text', text: 'The agent needs more input.' }],
          },
          this.stamp(upstreamState),
        ),
      );
    else await this.ctx.status(ours);
  }

  /** An upstream agent message as ours: our task and context, the upstream ids in its metadata. */
  #ours(m: Message, upstreamState: string): Message {
    return withMetadata(
      {
        ...m,
        messageId: `${this.ctx.taskId}-up-${m.messageId}`,
        taskId: this.ctx.taskId,
        contextId: this.ctx.contextId,
      },
      this.stamp(upstreamState),
    );
  }

  /** `tasks/cancel` upstream (best effort, bounded): our task was canceled. */
  async cancelUpstream(): Promise<void> {
    const id = this.#ref.taskId;
    if (!id || !this.#client) return;
    try {
      await this.#client.cancelTask({ id }, { signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS) });
    } catch {
      // Already final upstream, or unreachable: our task is canceled either way.
    }
  }
}
