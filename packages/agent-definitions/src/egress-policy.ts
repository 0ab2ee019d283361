import { urlTemplateProblem } from './url-template';
import { dnsResolver, type EgressPolicy, type Resolver } from '@a2a-inbound/runtime';

/** The egress rules a definition's destinations are checked against when a version is created. */
export interface DefinitionEgress {
  /** Public https, plus the operator's allow-list (EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS). */
  policy: EgressPolicy;
  resolve?: Resolver;
}

/**
 * Whether an agent runtime may call this URL (or URL template): a fixed origin, and the egress policy's rules
 * with every resolved address allowed (the runner checks again at connect time). Undefined when allowed.
 */
export async function checkEgressUrl(raw: string, egress: DefinitionEgress): Promise<string | undefined> {
  const problem = urlTemplateProblem(raw);
  if (problem) return problem;
  const check = await egress.policy.checkUrl(raw.replace(/\{[^}]*\}/g, 'x'), egress.resolve ?? dnsResolver);
  return check.ok ? undefined : check.reason;
}
