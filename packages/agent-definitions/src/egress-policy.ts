import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which destinations agent runtimes may call (model providers, HTTP tools, MCP servers, upstream agents):
 * by default public unicast addresses only, as webhook egress. An operator allow-list (of hosts and
 * networks) opens private ones; tests use it for their loopback servers.
 */
export interface EgressPolicy {
  /** May a connection go to this resolved (or literal) address? */
  isAllowed(ip: string): boolean;
  /** May this host name be used even though it names an internal host (`localhost`, `*.internal`)? */
  allowsHost(host: string): boolean;
  resolve(host: string): Promise<string[]>;
}

export function isPublicIp(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  return ipaddr.process(ip).range() === 'unicast';
}

const INTERNAL_NAMES = new Set(['localhost', 'metadata.google.internal', 'metadata', 'instance-data']);

export function isInternalHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return INTERNAL_NAMES.has(h) || /\.(localhost|internal|local)$/.test(h) || (isIP(h) === 0 && !h.includes('.'));
}

export const systemResolve = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Public destinations only. */
export const publicEgress: EgressPolicy = { isAllowed: isPublicIp, allowsHost: () => false, resolve: systemResolve };

/**
 * The policy with an operator allow-list: `hosts` (exact names) and `cidrs` (`10.0.0.0/8`, `127.0.0.1/32`) are
 * allowed besides public addresses.
 */
export function allowListEgress(
  allow: { hosts?: readonly string[]; cidrs?: readonly string[] },
  resolve: (host: string) => Promise<string[]> = systemResolve,
): EgressPolicy {
  const hosts = new Set((allow.hosts ?? []).map((h) => h.toLowerCase()));
  const nets = (allow.cidrs ?? []).map((c) => ipaddr.parseCIDR(c));
  return {
    isAllowed: (ip) => {
      if (isPublicIp(ip)) return true;
      if (!ipaddr.isValid(ip)) return false;
      const a = ipaddr.process(ip);
      return nets.some(([net, bits]) => a.kind() === net.kind() && a.match(net, bits));
    },
    allowsHost: (host) => hosts.has(host.toLowerCase()),
    resolve,
  };
}

/** Placeholders of a URL template (`{city}`) stand for path or query values; the origin is fixed. */
export function templateOrigin(template: string): string | undefined {
  const m = /^(https?:\/\/[^/?#]*)/i.exec(template);
  return m?.[1];
}

/**
 * Whether an agent runtime may call this URL (or URL template): http(s), no credentials, a fixed host, and
 * every address it resolves to allowed by the policy. Undefined when allowed; else the reason.
 */
export async function checkEgressUrl(raw: string, policy: EgressPolicy): Promise<string | undefined> {
  const origin = templateOrigin(raw);
  if (!origin) return 'must be an http or https URL';
  if (origin.includes('{')) return 'the host of a URL template must be fixed (placeholders only in path and query)';
  let url: URL;
  try {
    url = new URL(raw.replace(/\{[^}]*\}/g, 'x'));
  } catch {
    return 'is not a valid URL';
  }
  if (url.username || url.password) return 'must not carry credentials (use a secret reference)';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy.allowsHost(host)) return undefined;
  const plainHttp = 'must use https for a public host (plain http only on the operator allow-list)';
  if (isIP(host) !== 0) {
    if (!policy.isAllowed(host)) return `must point to a public address (${host} is private)`;
    return url.protocol === 'http:' && isPublicIp(host) ? plainHttp : undefined;
  }
  if (isInternalHost(host)) return `must point to a public host (${host} is internal)`;
  let addresses: string[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    return `host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `host ${host} does not resolve`;
  const blocked = addresses.find((a) => !policy.isAllowed(a));
  if (blocked) return `must point to a public address (${host} resolves to ${blocked})`;
  if (url.protocol === 'http:' && addresses.every(isPublicIp)) return plainHttp;
  return undefined;
}
