import type { EnvReader } from '@a2a-inbound/config';
import ipaddr from 'ipaddr.js';
import { allowListEgress, publicEgress, type EgressPolicy } from './egress-policy';
import { SecretBox } from './secret-box';

/** What tasks and the runner both read: the secrets key(s) and the agents' egress allow-list. */
export interface AgentSecurityConfig {
  /** Undefined when SECRETS_KEY is not set: secrets cannot be created, definitions cannot reference any. */
  secretBox: SecretBox | undefined;
  egressAllowHosts: string[];
  egressAllowCidrs: string[];
}

/**
 * `SECRETS_KEY` (32 bytes, base64; the same in tasks and every runner), `SECRETS_KEY_PREVIOUS` (older keys,
 * comma-separated, for a rotation), `EGRESS_ALLOW_HOSTS` / `EGRESS_ALLOW_CIDRS` (private destinations agent
 * runtimes may call).
 */
export function readAgentSecurityConfig(r: EnvReader): AgentSecurityConfig {
  const key = r.optionalString('SECRETS_KEY');
  const previous = r.list('SECRETS_KEY_PREVIOUS', []);
  let secretBox: SecretBox | undefined;
  const is32 = (k: string): boolean => Buffer.from(k, 'base64').length === 32;
  if (key !== undefined) {
    if (!is32(key)) r.problem('SECRETS_KEY must be 32 bytes, base64 (e.g. `openssl rand -base64 32`)');
    else if (!previous.every(is32)) r.problem('SECRETS_KEY_PREVIOUS must list 32-byte base64 keys');
    else secretBox = SecretBox.fromBase64(key, previous);
  } else if (previous.length > 0) r.problem('SECRETS_KEY_PREVIOUS needs SECRETS_KEY');
  const egressAllowHosts = r.list('EGRESS_ALLOW_HOSTS', []);
  const egressAllowCidrs = r.list('EGRESS_ALLOW_CIDRS', []);
  for (const c of egressAllowCidrs) {
    try {
      ipaddr.parseCIDR(c);
    } catch {
      r.problem(`EGRESS_ALLOW_CIDRS: "${c}" is not a CIDR (e.g. 10.0.0.0/8)`);
    }
  }
  return { secretBox, egressAllowHosts, egressAllowCidrs };
}

/** The egress policy of a configuration: public only, or with the operator's allow-list. */
export function egressPolicyOf(c: Pick<AgentSecurityConfig, 'egressAllowHosts' | 'egressAllowCidrs'>): EgressPolicy {
  if (c.egressAllowHosts.length === 0 && c.egressAllowCidrs.length === 0) return publicEgress;
  return allowListEgress({ hosts: c.egressAllowHosts, cidrs: c.egressAllowCidrs });
}
