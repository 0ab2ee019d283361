import { dnsResolver, type EgressPolicy, type Resolver } from '@a2a-inbound/runtime';

/** The egress rules a definition's destinations are checked against when a version is created. */
export interface DefinitionEgress {
  /** Public https, plus the operator's allow-list (EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS). */
  policy: EgressPolicy;
  resolve?: Resolver;
}

/** Placeholders of a URL template (`{city}`) stand for path or query values; the origin is fixed. */
export function templateOrigin(template: string): string | undefined {
  return /^(https?:\/\/[^/?#]*)/i.exec(template)?.[1];
}

/**
 * Whether an agent runtime may call this URL (or URL template): a fixed origin, and the egress policy's rules
 * with every resolved address allowed (the runner checks again at connect time). Undefined when allowed.
 */
export async function checkEgressUrl(raw: string, egress: DefinitionEgress): Promise<string | undefined> {
  const origin = templateOrigin(raw);
  if (!origin) return 'must be an http or https URL';
  if (origin.includes('{')) return 'the host of a URL template must be fixed (placeholders only in path and query)';
  const check = await egress.policy.checkUrl(raw.replace(/\{[^}]*\}/g, 'x'), egress.resolve ?? dnsResolver);
  return check.ok ? undefined : check.reason;
}
