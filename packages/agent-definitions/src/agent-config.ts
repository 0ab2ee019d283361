import type { EnvReader } from '@a2a-inbound/config';
import { parseEgressAllowList, type EgressAllowList } from '@a2a-inbound/runtime';
import { SecretBox } from './secret-box';

/**
 * `SECRETS_KEY` (32 bytes, base64; the same in tasks and every runner) and `SECRETS_KEY_PREVIOUS` (older keys,
 * comma-separated, during a rotation). Undefined without a key: no secret can be created or opened.
 */
export function readSecretsConfig(r: EnvReader): SecretBox | undefined {
  const key = r.optionalString('SECRETS_KEY');
  const previous = r.list('SECRETS_KEY_PREVIOUS', []);
  const is32 = (k: string): boolean => Buffer.from(k, 'base64').length === 32;
  if (key === undefined) {
    if (previous.length > 0) r.problem('SECRETS_KEY_PREVIOUS needs SECRETS_KEY');
    return undefined;
  }
  if (!is32(key)) r.problem('SECRETS_KEY must be 32 bytes, base64 (e.g. `openssl rand -base64 32`)');
  else if (!previous.every(is32)) r.problem('SECRETS_KEY_PREVIOUS must list 32-byte base64 keys');
  else return SecretBox.fromBase64(key, previous);
  return undefined;
}

/** What the tasks service checks definitions with: the secrets key and the operator's egress allow-list. */
export interface AgentSecurityConfig {
  secretBox: SecretBox | undefined;
  egressAllowList: EgressAllowList;
}

export function readAgentSecurityConfig(r: EnvReader): AgentSecurityConfig {
  const secretBox = readSecretsConfig(r);
  const egress = parseEgressAllowList(r.list('EGRESS_ALLOW_HOSTS', []), r.list('EGRESS_ALLOW_CIDRS', []));
  for (const p of egress.problems) r.problem(p);
  return { secretBox, egressAllowList: egress.allowList };
}
