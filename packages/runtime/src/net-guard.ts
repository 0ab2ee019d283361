import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { effectiveAddress, isGloballyReachable } from './special-addresses';

/**
 * SSRF guard. A destination is allowed only when every address it resolves to is globally reachable
 * unicast: every IANA special-purpose range that is not (private, loopback, link-local with cloud metadata
 * 169.254.169.254, CGNAT, benchmarking, documentation, site-local, local-use NAT64, multicast, reserved) is
 * refused, and an IPv6 address embedding an IPv4 one (mapped, compatible, NAT64, 6to4) is judged by that
 * IPv4 address. The table is `special-addresses.ts`. Checked at registration and again at connect time.
 */
export function isPublicAddress(ip: string): boolean {
  return isGloballyReachable(ip);
}

const BLOCKED_HOSTNAMES = new Set(['localhost', 'metadata.google.internal', 'metadata', 'instance-data']);

/** Names that always mean this machine or a cloud metadata service, whatever DNS says. */
export function isInternalHostname(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  return (
    BLOCKED_HOSTNAMES.has(host) || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local')
  );
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Syntax-level check: https, no credentials, a host that is not obviously internal. No DNS. */
export function checkHttpsUrlShape(raw: string, maxLength = 2048): UrlCheck {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'url is required' };
  if (raw.length > maxLength) return { ok: false, reason: `url is longer than ${maxLength} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
  if (url.username || url.password) return { ok: false, reason: 'url must not carry credentials' };
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!host) return { ok: false, reason: 'url has no host' };
  if (isInternalHostname(host)) return { ok: false, reason: 'url must point to a public host' };
  if (isIP(host) !== 0 && !isPublicAddress(host)) return { ok: false, reason: 'url must point to a public address' };
  if (isIP(host) === 0 && !host.includes('.')) return { ok: false, reason: 'url must point to a public host' };
  return { ok: true, url };
}

export type Resolver = (host: string) => Promise<string[]>;

export const dnsResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Full check: shape, then every resolved address must be public. */
export async function checkPublicHttpsUrl(raw: string, resolve: Resolver = dnsResolver): Promise<UrlCheck> {
  const shape = checkHttpsUrlShape(raw);
  if (!shape.ok) return shape;
  const host = shape.url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return shape;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return { ok: false, reason: `url host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `url host ${host} does not resolve` };
  const bad = addresses.find((a) => !isPublicAddress(a));
  if (bad) return { ok: false, reason: 'url must resolve to a public address' };
  return shape;
}

/**
 * The operator's egress allow-list: private destinations (an agent inside the cluster, a model server on the
 * LAN) that runtimes may reach although they are not public. Empty by default: only public addresses.
 * Hosts are exact names or `*.suffix` wildcards; CIDRs are IPv4 or IPv6 ranges (`10.0.0.0/8`, `fd00::/8`).
 */
export interface EgressAllowList {
  readonly hosts: readonly string[];
  readonly cidrs: readonly string[];
}

export const NO_EGRESS_ALLOW_LIST: EgressAllowList = { hosts: [], cidrs: [] };

const HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** Validates allow-list entries (from EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS); every problem is reported. */
export function parseEgressAllowList(
  hosts: readonly string[],
  cidrs: readonly string[],
  names = { hosts: 'EGRESS_ALLOW_HOSTS', cidrs: 'EGRESS_ALLOW_CIDRS' },
): { allowList: EgressAllowList; problems: string[] } {
  const problems: string[] = [];
  const h = hosts.map((x) => x.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean);
  for (const host of h) {
    if (!HOST_PATTERN.test(host)) problems.push(`${names.hosts}: "${host}" is not a host name or *.suffix pattern`);
  }
  const c = cidrs.map((x) => x.trim()).filter(Boolean);
  for (const cidr of c) {
    try {
      const [, bits] = ipaddr.parseCIDR(cidr);
      if (bits === 0) problems.push(`${names.cidrs}: "${cidr}" allows every address; list the private ranges instead`);
    } catch {
      problems.push(`${names.cidrs}: "${cidr}" is not a CIDR range (e.g. 10.0.0.0/8)`);
    }
  }
  return { allowList: { hosts: h, cidrs: c }, problems };
}

/**
 * The egress policy of outbound calls to destinations that users configure (upstream agents, HTTP agents):
 * public addresses over https, plus the operator's allow-list (then plain http is accepted too: in-cluster
 * services seldom terminate TLS). Checked on the URL before a call and on every resolved address at connect
 * time (the egress agent), so a DNS answer that changes, or a redirect, cannot reach what the URL check passed.
 */
export interface EgressPolicyOptions {
  /** Allow-listed destinations must use https too (push receivers: Webhook rule 1 keeps https). */
  httpsOnly?: boolean;
  /** The settings named in refusals (what the operator would change). */
  names?: { hosts: string; cidrs: string };
}

export class EgressPolicy {
  readonly #hosts: readonly string[];
  readonly #ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  readonly #httpsOnly: boolean;
  readonly #names: { hosts: string; cidrs: string };

  constructor(
    readonly allowList: EgressAllowList = NO_EGRESS_ALLOW_LIST,
    options: EgressPolicyOptions = {},
  ) {
    this.#hosts = allowList.hosts.map((h) => h.toLowerCase());
    this.#ranges = allowList.cidrs.map((c) => ipaddr.parseCIDR(c));
    this.#httpsOnly = options.httpsOnly ?? false;
    this.#names = options.names ?? { hosts: 'EGRESS_ALLOW_HOSTS', cidrs: 'EGRESS_ALLOW_CIDRS' };
  }

  /** Nothing is allow-listed: public destinations only. */
  get empty(): boolean {
    return this.#hosts.length === 0 && this.#ranges.length === 0;
  }

  /** The host name is on the allow-list (exact, or under a `*.suffix` entry). */
  allowsHost(hostname: string): boolean {
    const host = hostname
      .replace(/^\[|\]$/g, '')
      .toLowerCase()
      .replace(/\.$/, '');
    return this.#hosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) : host === h));
  }

  /** The address is in an allow-listed range. */
  allowsListedAddress(ip: string): boolean {
    if (!ipaddr.isValid(ip)) return false;
    const addr = effectiveAddress(ipaddr.parse(ip)); // ::ffff:10.0.0.1 is in 10.0.0.0/8, as it is refused
    return this.#ranges.some(([range, bits]) => addr.kind() === range.kind() && addr.match(range, bits));
  }

  /** May a connection go to `ip` (resolved from `hostname`, when a name was used)? */
  allowsAddress(ip: string, hostname?: string): boolean {
    if (isPublicAddress(ip)) return true;
    if (this.allowsListedAddress(ip)) return true;
    return hostname !== undefined && isIP(hostname.replace(/^\[|\]$/g, '')) === 0 && this.allowsHost(hostname);
  }

  /** Syntax-level check of a destination URL (no DNS). */
  checkUrlShape(raw: string, maxLength = 2048): UrlCheck {
    if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'url is required' };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, reason: 'url is not a valid URL' };
    }
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const listed = host !== '' && (isIP(host) !== 0 ? this.allowsListedAddress(host) : this.allowsHost(host));
    const ip = isIP(host) !== 0;
    const privateHost = ip ? !isPublicAddress(host) : isInternalHostname(host) || !host.includes('.');
    // A private name (localhost, a LAN name) may stand for addresses the operator listed: its addresses are
    // checked against the ranges when it resolves (checkUrl) and again at connect time (the egress agent).
    const byRanges = !listed && privateHost && !ip && host !== '' && this.#ranges.length > 0;
    if (!listed && !byRanges) {
      if (privateHost)
        return {
          ok: false,
          reason: ip
            ? `url must point to a public host (${host} is private and not on the operator allow-list: add it to ${this.#names.cidrs})`
            : `url must point to a public host (${host} is private and not on the operator allow-list: add it to ${this.#names.hosts}, or the addresses it resolves to to ${this.#names.cidrs})`,
        };
      return checkHttpsUrlShape(raw, maxLength);
    }
    if (raw.length > maxLength) return { ok: false, reason: `url is longer than ${maxLength} characters` };
    if (this.#httpsOnly && url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return { ok: false, reason: 'url must use https or http' };
    if (url.username || url.password) return { ok: false, reason: 'url must not carry credentials' };
    return { ok: true, url };
  }

  /** Shape, then every resolved address must be allowed (public, or allow-listed). */
  async checkUrl(raw: string, resolve: Resolver = dnsResolver): Promise<UrlCheck> {
    const shape = this.checkUrlShape(raw);
    if (!shape.ok) return shape;
    const host = shape.url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) return shape;
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch {
      return { ok: false, reason: `url host ${host} does not resolve` };
    }
    if (addresses.length === 0) return { ok: false, reason: `url host ${host} does not resolve` };
    if (addresses.some((a) => !this.allowsAddress(a, host)))
      return {
        ok: false,
        reason: `url must resolve to a public address (or one on the operator allow-list: ${this.#names.cidrs}, or ${host} in ${this.#names.hosts})`,
      };
    return shape;
  }
}

/**
 * Push receivers' allow-list (PUSH_ALLOW_HOSTS / PUSH_ALLOW_CIDRS): private receivers the operator trusts (a
 * receiver inside the cluster, a test harness on loopback). Separate from the runtimes' egress allow-list, so
 * opening one to agents never opens the other to whoever registers a push config. Still https only.
 */
export const PUSH_ALLOW_NAMES = { hosts: 'PUSH_ALLOW_HOSTS', cidrs: 'PUSH_ALLOW_CIDRS' } as const;

/** Reads PUSH_ALLOW_HOSTS / PUSH_ALLOW_CIDRS (the gateway checks registrations, webhooks every delivery). */
export function readPushAllowList(r: {
  list(name: string, fallback: readonly string[]): string[];
  problem(message: string): void;
}): EgressAllowList {
  const parsed = parseEgressAllowList(
    r.list(PUSH_ALLOW_NAMES.hosts, []),
    r.list(PUSH_ALLOW_NAMES.cidrs, []),
    PUSH_ALLOW_NAMES,
  );
  for (const p of parsed.problems) r.problem(p);
  return parsed.allowList;
}

/** The egress policy of push deliveries: public https, plus the push allow-list (https too). */
export function pushEgressPolicy(allowList: EgressAllowList = NO_EGRESS_ALLOW_LIST): EgressPolicy {
  return new EgressPolicy(allowList, { httpsOnly: true, names: PUSH_ALLOW_NAMES });
}
