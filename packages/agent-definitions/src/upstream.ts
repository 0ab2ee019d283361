import { SECRET_NAME_PATTERN } from './secret-box';
import { registerRuntimeValidator, type DefinitionIssue } from './registry';

/**
 * The definitions of the runtimes that call existing agents (`a2a-upstream`, `http`: ADR 0021; their runners'
 * own validators check the same fields). `tokenSecret` names a secret of the subscription; `url` must pass the
 * egress policy.
 */
const FIELDS: Record<
  'a2a-upstream' | 'http',
  Record<string, [number, number] | 'url' | 'secret' | 'header' | 'boolean'>
> = {
  'a2a-upstream': {
    url: 'url',
    tokenSecret: 'secret',
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

export function registerUpstreamRuntimes(): void {
  const egressUrls = (c: Readonly<Record<string, unknown>>): { path: string; url: string }[] =>
    typeof c.url === 'string' ? [{ path: 'url', url: c.url }] : [];
  // a2a-upstream: what the upstream's own card says, read when the version is created and stored with it (the
  // version's streaming flag and card fields: tasks' Management.publishVersion); without that record (a version
  // created before), nothing is claimed that the upstream may not do. Every input is forwarded (text, data,
  // files), so the input modes are the upstream's (intersected at creation).
  registerRuntimeValidator('a2a-upstream', validator(FIELDS['a2a-upstream']), { streaming: false, egressUrls });
  // http: the contract lets the agent answer JSON or SSE, turn by turn; the card claims streaming only when the
  // version says its agent answers with SSE (`streaming: true`). Every part kind is forwarded: every input mode.
  registerRuntimeValidator('http', validator(FIELDS.http), { streaming: (c) => c.streaming === true, egressUrls });
}
