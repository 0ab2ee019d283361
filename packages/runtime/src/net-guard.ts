import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * SSRF guard. A destination is allowed only when every address it resolves to is public unicast:
 * private ranges, loopback, link-local (cloud metadata 169.254.169.254), CGNAT, multicast, reserved and
 * IPv4-mapped forms of these are refused. Checked at registration and again before every delivery.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.process(ip); // unwraps ::ffff:127.0.0.1
  return addr.range() === 'unicast';
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
