import { SECRET_NAME_PATTERN } from './secret-box';
import { registerRuntimeValidator, type DefinitionIssue } from './registry';

/**
 * The definitions of the runtimes that call existing agents (`a2a-upstream`, `http`: ADR 0021; their runners'
 * own validators check the same fields). `tokenSecret` names a secret of the subscription; `url` must pass the
 * egress policy.
 */
const FIELDS: Record<'a2a-upstream' | 'http', Record<string, [number, number] | 'url' | 'secret' | 'header'>> = {
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

export function registerUpstreamRuntimes(): void {
  for (const name of ['a2a-upstream', 'http'] as const)
    registerRuntimeValidator(name, validator(FIELDS[name]), {
      // They stream when the agent behind them does (deltas are passed on as they come).
      streaming: true,
      egressUrls: (c) => (typeof c.url === 'string' ? [{ path: 'url', url: c.url }] : []),
    });
}
