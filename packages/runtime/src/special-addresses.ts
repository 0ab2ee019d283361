import ipaddr from 'ipaddr.js';

/**
 * The IANA special-purpose address registries (IPv4: iana-ipv4-special-registry, IPv6:
 * iana-ipv6-special-registry), plus the IPv4 multicast block and the IPv6 blocks outside global unicast.
 * `reachable: false` rows are refused as egress destinations; `true` rows are the registries' globally
 * reachable exceptions inside a refused block. The most specific matching row decides. One table for every
 * egress (gateway push-config and file-URI checks, webhooks, runner, tasks, linker): see ADR 0021.
 */
interface SpecialRange {
  readonly cidr: string;
  readonly name: string;
  readonly reachable: boolean;
}

export const SPECIAL_PURPOSE_RANGES: readonly SpecialRange[] = [
  // IPv4
  { cidr: '0.0.0.0/8', name: 'this network', reachable: false },
  { cidr: '10.0.0.0/8', name: 'private-use', reachable: false },
  { cidr: '100.64.0.0/10', name: 'shared address space (CGNAT)', reachable: false },
  { cidr: '127.0.0.0/8', name: 'loopback', reachable: false },
  { cidr: '169.254.0.0/16', name: 'link-local (cloud metadata)', reachable: false },
  { cidr: '172.16.0.0/12', name: 'private-use', reachable: false },
  { cidr: '192.0.0.0/24', name: 'IETF protocol assignments', reachable: false },
  { cidr: '192.0.0.9/32', name: 'port control protocol anycast', reachable: true },
  { cidr: '192.0.0.10/32', name: 'traversal using relays around NAT anycast', reachable: true },
  { cidr: '192.0.2.0/24', name: 'documentation (TEST-NET-1)', reachable: false },
  { cidr: '192.88.99.0/24', name: 'deprecated 6to4 relay anycast', reachable: false },
  { cidr: '192.168.0.0/16', name: 'private-use', reachable: false },
  { cidr: '198.18.0.0/15', name: 'benchmarking', reachable: false },
  { cidr: '198.51.100.0/24', name: 'documentation (TEST-NET-2)', reachable: false },
  { cidr: '203.0.113.0/24', name: 'documentation (TEST-NET-3)', reachable: false },
  { cidr: '224.0.0.0/4', name: 'multicast', reachable: false },
  { cidr: '240.0.0.0/4', name: 'reserved', reachable: false },
  { cidr: '255.255.255.255/32', name: 'limited broadcast', reachable: false },
  // IPv6: everything outside 2000::/3 is not global unicast (loopback, unspecified, the deprecated
  // IPv4-compatible ::/96, site-local fec0::/10, unique-local fc00::/7, link-local fe80::/10, multicast ff00::/8).
  { cidr: '::/0', name: 'not global unicast', reachable: false },
  { cidr: '2000::/3', name: 'global unicast', reachable: true },
  { cidr: '64:ff9b:1::/48', name: 'local-use IPv4/IPv6 translation', reachable: false },
  { cidr: '100::/64', name: 'discard-only', reachable: false },
  { cidr: '100:0:0:1::/64', name: 'dummy prefix', reachable: false },
  { cidr: '2001::/23', name: 'IETF protocol assignments', reachable: false },
  { cidr: '2001:1::1/128', name: 'port control protocol anycast', reachable: true },
  { cidr: '2001:1::2/128', name: 'traversal using relays around NAT anycast', reachable: true },
  { cidr: '2001:1::3/128', name: 'DNS-SD service registration protocol anycast', reachable: true },
  { cidr: '2001:3::/32', name: 'AMT', reachable: true },
  { cidr: '2001:4:112::/48', name: 'AS112-v6', reachable: true },
  { cidr: '2001:20::/28', name: 'ORCHIDv2', reachable: true },
  { cidr: '2001:30::/28', name: 'drone remote ID (DET)', reachable: true },
  { cidr: '2001:db8::/32', name: 'documentation', reachable: false },
  { cidr: '3fff::/20', name: 'documentation', reachable: false },
  { cidr: '5f00::/16', name: 'segment routing (SRv6) SIDs', reachable: false },
];

const PARSED = SPECIAL_PURPOSE_RANGES.map((r) => ({ ...r, range: ipaddr.parseCIDR(r.cidr) }));

const IPV4_MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');

/**
 * The address a connection to `addr` really reaches when it embeds an IPv4 address: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, but not :: and ::1), the well-known NAT64 prefix
 * (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::). Anything else is returned as it is.
 */
export function effectiveAddress(addr: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (addr.kind() === 'ipv4') return addr;
  const v6 = addr as ipaddr.IPv6;
  const parts = v6.parts;
  const low32 = (): ipaddr.IPv4 =>
    new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
  if (v6.match(IPV4_MAPPED) || v6.match(NAT64_WELL_KNOWN)) return low32();
  if (v6.match(IPV4_COMPATIBLE) && (parts[6] !== 0 || parts[7]! > 1)) return low32();
  if (v6.match(SIX_TO_FOUR))
    return new ipaddr.IPv4([parts[1]! >> 8, parts[1]! & 0xff, parts[2]! >> 8, parts[2]! & 0xff]);
  return v6;
}

/** The most specific special-purpose row `ip` falls in (after unwrapping an embedded IPv4), if any. */
export function specialPurposeRange(ip: string): SpecialRange | undefined {
  const addr = effectiveAddress(ipaddr.parse(ip));
  let best: (typeof PARSED)[number] | undefined;
  for (const row of PARSED) {
    const [range, bits] = row.range;
    if (range.kind() !== addr.kind() || !addr.match(range, bits)) continue;
    if (!best || bits > best.range[1]) best = row;
  }
  return best && { cidr: best.cidr, name: best.name, reachable: best.reachable };
}

/** A globally reachable unicast address: valid, and in no special-purpose range that is not reachable. */
export function isGloballyReachable(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  return specialPurposeRange(ip)?.reachable ?? true;
}
