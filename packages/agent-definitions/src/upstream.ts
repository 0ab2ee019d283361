import { SECRET_NAME_PATTERN } from './secret-box';
import { registerRuntimeValidator, type DefinitionIssue } from './registry';

/**
 * The definitions of the runtimes that call existing agents (`a2a-upstream`, `http`: ADR 0021; their runners'
 * own validators check the same fields). `tokenSecret` names a secret of the subscription; `url` must pass the
 * egress policy, and so must every origin of `allowedOrigins`.
 */
const FIELDS: Record<
  'a2a-upstream' | 'http',
  Record<string, [number, number] | 'url' | 'secret' | 'header' | 'boolean' | 'origins'>
> = {
  'a2a-upstream': {
    url: 'url',
    tokenSecret: 'secret',
    allowedOrigins: 'origins',
    authHeader: 'header',
    timeoutMs: [1_000, 3_600_000],
    idleTimeoutMs: [1_000, 3_600_000],
  },
  http: {
    url: 'url',
    tokenSecret: 'secret',
    authHeader: 'header',
    timeoutMs: [1_000, 3_600_000],
    idleTimeoutMs: [1_000, 3_600_000],
    maxResponseBytes: [1_024, 16 * 1024 * 1024],
    historyMessages: [0, 200],
    streaming: 'boolean',
  },
};

function validator(fields: (typeof FIELDS)[keyof typeof FIELDS]) {
  return (config: Readonly<Record<string, unknown>>): DefinitionIssue[] => {
    const issues: DefinitionIssue[] = [];
    for (const k of Object.keys(config))
      if (!(k in fields)) issues.push({ path: k, reason: `unknown field (known: ${Object.keys(fields).join(', ')})` });
    for (const [k, rule] of Object.entries(fields)) {
      const v = config[k];
      if (v === undefined) {
        if (rule === 'url') issues.push({ path: k, reason: 'is required (a URL)' });
        continue;
      }
      if (Array.isArray(rule)) {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < rule[0] || v > rule[1])
          issues.push({ path: k, reason: `must be an integer from ${rule[0]} to ${rule[1]}` });
      } else if (rule === 'url') {
        if (typeof v !== 'string' || !/^https?:\/\//i.test(v))
          issues.push({ path: k, reason: 'must be an http or https URL' });
      } else if (rule === 'origins') {
        const reason = originListProblem(v);
        if (reason) issues.push({ path: k, reason });
      } else if (rule === 'boolean') {
        if (typeof v !== 'boolean') issues.push({ path: k, reason: 'must be true or false' });
      } else if (rule === 'secret') {
        if (typeof v !== 'string' || !SECRET_NAME_PATTERN.test(v))
          issues.push({ path: k, reason: 'must name a secret' });
      } else if (typeof v !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/.test(v)) {
        issues.push({ path: k, reason: 'must be an HTTP header name' });
      }
    }
    return issues;
  };
}

/** A card URL (`….json`) as given; a base URL gets `.well-known/agent-card.json` under its path (ADR 0021). */
export function agentCardUrl(url: string): string {
  const u = new URL(url);
  if (u.pathname.endsWith('.json')) return u.href;
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/.well-known/agent-card.json`;
  return u.href;
}

/** Most origins an `a2a-upstream` version may list besides its own (ADR 0021, decision 9). */
export const MAX_ALLOWED_ORIGINS = 10;

/** Why a value is not a list of origins (`scheme://host[:port]`, http or https, no path), or undefined. */
export function originListProblem(v: unknown): string | undefined {
  const reason = `must be a list of at most ${MAX_ALLOWED_ORIGINS} origins (http(s)://host[:port], no path)`;
  if (!Array.isArray(v) || v.length > MAX_ALLOWED_ORIGINS) return reason;
  for (const o of v) {
    if (typeof o !== 'string' || o.length > 300 || !URL.canParse(o)) return reason;
    const u = new URL(o);
    if (!/^https?:$/.test(u.protocol) || u.origin !== o.replace(/\/$/, '').toLowerCase()) return reason;
  }
  return undefined;
}

/**
 * The origins an `a2a-upstream` version's token may go to: its configured `url`'s, and those it lists in
 * `allowedOrigins` (ADR 0021, decision 9). The card's own URLs never widen this: a card is the upstream's word.
 */
export function credentialOrigins(config: Readonly<Record<string, unknown>>): Set<string> {
  const out = new Set<string>();
  if (typeof config.url === 'string' && URL.canParse(config.url)) out.add(new URL(config.url).origin);
  if (Array.isArray(config.allowedOrigins))
    for (const o of config.allowedOrigins) if (typeof o === 'string' && URL.canParse(o)) out.add(new URL(o).origin);
  return out;
}

/** The origin of a URL, or the URL itself when it is not one (then it is never trusted). */
export const originOf = (url: string): string => (URL.canParse(url) ? new URL(url).origin : url);

/** The A2A transports the runner's client speaks (`@a2a-js/sdk`): the only endpoints of a card it may call. */
const CALLED_TRANSPORTS = new Set(['jsonrpc', 'http+json']);

/**
 * The origins of the service endpoints an agent card names for a transport the runner speaks (`url` under its
 * `preferredTransport`, JSON-RPC by default; `additionalInterfaces[]`) that are not in `trusted`: where a client
 * built on this card could send the version's token although the operator never named that origin. Empty when
 * every such endpoint is trusted.
 */
export function untrustedCardEndpoints(card: unknown, trusted: ReadonlySet<string>): string[] {
  if (typeof card !== 'object' || card === null) return [];
  const c = card as { url?: unknown; preferredTransport?: unknown; additionalInterfaces?: unknown };
  const endpoints: [unknown, unknown][] = [[c.preferredTransport ?? 'JSONRPC', c.url]];
  if (Array.isArray(c.additionalInterfaces))
    for (const i of c.additionalInterfaces as ({ transport?: unknown; url?: unknown } | null)[])
      endpoints.push([i?.transport, i?.url]);
  const out = new Set<string>();
  for (const [transport, url] of endpoints)
    if (typeof transport === 'string' && CALLED_TRANSPORTS.has(transport.toLowerCase()) && typeof url === 'string')
      if (!trusted.has(originOf(url))) out.add(originOf(url));
  return [...out];
}

/**
 * Why a card whose endpoints are on `untrusted` origins is not called with the version's token: the same words at
 * version creation (tasks) and at each run (runner), naming the setting that would allow it.
 */
export function untrustedEndpointReason(untrusted: readonly string[], configUrl: string): string {
  const list = untrusted.map((o) => JSON.stringify(o)).join(', ');
  return (
    `the upstream agent card names its service on ${list}, another origin than the configured url ` +
    `(${originOf(configUrl)}); the upstream token goes only to that origin and runtimeConfig.allowedOrigins: if ` +
    `that service is the same agent's, add ${list} to runtimeConfig.allowedOrigins`
  );
}

export function registerUpstreamRuntimes(): void {
  const egressUrls = (c: Readonly<Record<string, unknown>>): { path: string; url: string }[] => [
    ...(typeof c.url === 'string' ? [{ path: 'url', url: c.url }] : []),
    ...(Array.isArray(c.allowedOrigins)
      ? c.allowedOrigins.flatMap((o, i) =>
          typeof o === 'string' && URL.canParse(o) ? [{ path: `allowedOrigins[${i}]`, url: o }] : [],
        )
      : []),
  ];
  // a2a-upstream: what the upstream's own card says, read when the version is created and stored with it (the
  // version's streaming flag and card fields: tasks' Management.publishVersion); without that record (a version
  // created before), nothing is claimed that the upstream may not do. Every input is forwarded (text, data,
  // files), so the input modes are the upstream's (intersected at creation).
  registerRuntimeValidator('a2a-upstream', validator(FIELDS['a2a-upstream']), { streaming: false, egressUrls });
  // http: the contract lets the agent answer JSON or SSE, turn by turn; the card claims streaming only when the
  // version says its agent answers with SSE (`streaming: true`). Every part kind is forwarded: every input mode.
  registerRuntimeValidator('http', validator(FIELDS.http), { streaming: (c) => c.streaming === true, egressUrls });
}
