import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { dnsResolver, EgressPolicy, type Resolver } from './net-guard';

/** A destination refused by the egress policy (at connect time: a resolved or literal address). */
export class EgressBlockedError extends Error {
  readonly code = 'BLOCKED_DESTINATION';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`destination ${host} (${address}) is not a public address and not on the operator allow-list`);
    this.name = 'EgressBlockedError';
  }
}

export interface EgressAgentOptions {
  policy?: EgressPolicy;
  /** DNS of the agent's `lookup` (default: the system resolver); tests inject one. */
  resolve?: Resolver;
  connectTimeoutMs?: number;
}

/**
 * An undici Agent whose every connection is checked against the egress policy: each address a name resolves
 * to (a custom `lookup`, so a DNS answer that changed since the URL was checked cannot slip through) and
 * every literal IP (in `dispatch`: literals never reach `lookup`).
 */
export class EgressAgent extends Agent {
  constructor(
    readonly policy: EgressPolicy,
    options: Agent.Options,
  ) {
    super(options);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const host = new URL(String(options.origin)).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !this.policy.allowsAddress(host)) throw new EgressBlockedError(host, host);
    return super.dispatch(options, handler);
  }
}

export function createEgressAgent(options: EgressAgentOptions = {}): EgressAgent {
  const policy = options.policy ?? new EgressPolicy();
  const resolve = options.resolve ?? dnsResolver;
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(new Error(`no address for ${hostname}`), '', 0);
        const blocked = addresses.find((a) => !policy.allowsAddress(a, hostname));
        if (blocked !== undefined) return callback(new EgressBlockedError(hostname, blocked), '', 0);
        const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
        if (lookupOptions.all) callback(null, all);
        else callback(null, all[0]!.address, all[0]!.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), '', 0),
    );
  };
  return new EgressAgent(policy, { connect: { lookup, timeout: options.connectTimeoutMs ?? 5_000 } });
}

/** The refusal behind a failed fetch, if the egress policy refused it. */
export function egressBlockedCause(err: unknown): EgressBlockedError | undefined {
  for (let e: unknown = err, i = 0; e && i < 6; i++) {
    if (e instanceof EgressBlockedError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const MAX_REDIRECTS = 5;

/**
 * The only request headers that follow a redirect to another origin: content negotiation, tracing and
 * protocol versions, none of which can carry a credential. Everything else is dropped there: not only
 * `Authorization`, `Cookie` and `Proxy-Authorization` (what browsers and undici drop) but every header whose
 * name a user chose (`authHeader`, MCP and graph `headerSecrets`, a provider's `x-api-key`), since this
 * function cannot tell a secret header from another one (ADR 0021, decision 7).
 */
export const CROSS_ORIGIN_SAFE_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'last-event-id',
  'mcp-protocol-version',
  'pragma',
  'traceparent',
  'tracestate',
  'user-agent',
  'x-a2a-extensions',
]);

function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * `fetch` through the egress agent. Redirects are followed here, at most five, each target checked against
 * the policy's URL rules first (https for public hosts) and then at connect time by the agent; a redirect to
 * a private address fails with EgressBlockedError like a direct call. Once a hop leaves the first origin,
 * only `CROSS_ORIGIN_SAFE_HEADERS` go on (for every later hop too, even one back to the first origin).
 */
export function egressFetch(agent: EgressAgent): typeof fetch {
  const f = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    let method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    let body = init.body;
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const firstOrigin = URL.canParse(url) ? originOf(url) : url;
    for (let hop = 0; ; hop++) {
      const check = agent.policy.checkUrlShape(url);
      if (!check.ok) {
        const host = URL.canParse(url) ? new URL(url).hostname : url;
        throw new TypeError(`fetch refused: ${check.reason}`, { cause: new EgressBlockedError(host, host) });
      }
      const res = (await undiciFetch(url, {
        ...(init as Record<string, unknown>),
        method,
        headers: Object.fromEntries(headers),
        body: body as never,
        redirect: 'manual',
        dispatcher: agent,
      })) as unknown as Response;
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || res.status === 304 || !location) return res;
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects`);
      url = new URL(location, url).href;
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language'])
          headers.delete(name);
      }
      if (originOf(url) !== firstOrigin) {
        for (const name of [...headers.keys()]) if (!CROSS_ORIGIN_SAFE_HEADERS.has(name)) headers.delete(name);
      }
    }
  };
  return f;
}
