import { isIP } from 'node:net';
import { InvalidParamsError } from '@a2a-inbound/errors';
import { type Resolver, dnsResolver, isInternalHostname, isPublicAddress } from '@a2a-inbound/runtime';

/**
 * Egress policy of the linker's server (the CLI has none): which addresses a git fetch may reach.
 * The same SSRF guard as webhooks: every address the host resolves to must be public unicast.
 */
export interface EgressPolicy {
  readonly resolve: Resolver;
  readonly isAllowed: (ip: string) => boolean;
}

export const publicEgress: EgressPolicy = { resolve: dnsResolver, isAllowed: isPublicAddress };

/** A remote git URL that passed the guard, with the addresses the fetch is pinned to. */
export interface CheckedRemote {
  readonly url: URL;
  /** Host name as curl sees it (IPv6 without brackets). */
  readonly host: string;
  readonly port: number;
  /** Every address the host resolved to, all allowed (the literal address for an IP host). */
  readonly addresses: readonly string[];
}

/** `file://…` or a plain path: read from the linker's disk (allowed roots only). */
export function isLocalGitUrl(url: string): boolean {
  return url.startsWith('file://') || url.startsWith('/') || url.startsWith('.');
}

/**
 * Shape of a remote git URL a tenant may add: http(s) only (ssh and git:// would let a tenant use the
 * server's keys, and helpers such as `ext::` run commands), a host that is not an internal name, and a
 * literal address that is public. No DNS here.
 */
export function checkRemoteGitUrlShape(raw: string, egress: EgressPolicy = publicEgress): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidParamsError('git url must be an http(s) URL (https://host/owner/repo.git)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InvalidParamsError('git url must use https or http (ssh, git:// and other transports are refused)');
  const host = bare(url.hostname);
  if (!host) throw new InvalidParamsError('git url has no host');
  if (isInternalHostname(host) || (isIP(host) === 0 && !host.includes('.')))
    throw new InvalidParamsError(`git url must point to a public host (${host} is internal)`);
  if (isIP(host) !== 0 && !egress.isAllowed(host))
    throw new InvalidParamsError(`git url must point to a public address (${host} is not)`);
  return url;
}

/**
 * The full guard, at creation and again before every fetch: the shape, then every address the host
 * resolves to must be allowed (a name that resolves to loopback, a private range or 169.254.169.254
 * is refused). The fetch is then pinned to these addresses, so DNS cannot change between check and use.
 */
export async function checkRemoteGitUrl(raw: string, egress: EgressPolicy = publicEgress): Promise<CheckedRemote> {
  const url = checkRemoteGitUrlShape(raw, egress);
  const host = bare(url.hostname);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (isIP(host) !== 0) return { url, host, port, addresses: [host] };
  let addresses: string[];
  try {
    addresses = await egress.resolve(host);
  } catch {
    throw new InvalidParamsError(`git url host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new InvalidParamsError(`git url host ${host} does not resolve`);
  const bad = addresses.find((a) => !egress.isAllowed(a));
  if (bad !== undefined)
    throw new InvalidParamsError(`git url host ${host} resolves to a non-public address (refused)`);
  return { url, host, port, addresses };
}

const bare = (hostname: string): string => hostname.replace(/^\[|\]$/g, '').toLowerCase();

/** The URL without its userinfo (`https://***@host/…` when it had some): what answers and logs show. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (!url.username && !url.password) return raw;
    url.username = '';
    url.password = '';
    return url.toString().replace('://', '://***@');
  } catch {
    return redactSecrets(raw);
  }
}

/** Any `scheme://user[:password]@` inside free text (git's errors quote the URL) becomes `scheme://***@`. */
export function redactSecrets(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@'"]+@/gi, '$1***@');
}
