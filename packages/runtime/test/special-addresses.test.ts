import { describe, expect, it } from 'vitest';
import { checkHttpsUrlShape, EgressPolicy, isPublicAddress } from '../src/net-guard';
import { SPECIAL_PURPOSE_RANGES, specialPurposeRange } from '../src/special-addresses';

// One address inside each special-purpose range that is not globally reachable (IANA IPv4 and IPv6
// special-purpose registries), and the forms that embed an IPv4 address.
const refused: [string, string][] = [
  ['0.0.0.1', 'this network'],
  ['10.20.30.40', 'private-use'],
  ['100.64.0.1', 'shared address space (CGNAT)'],
  ['127.0.0.1', 'loopback'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.31.255.254', 'private-use'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation (TEST-NET-1)'],
  ['192.88.99.1', 'deprecated 6to4 relay anycast'],
  ['192.168.0.1', 'private-use'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.254', 'benchmarking'],
  ['198.51.100.1', 'documentation (TEST-NET-2)'],
  ['203.0.113.1', 'documentation (TEST-NET-3)'],
  ['224.0.0.1', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'limited broadcast'],
  ['::1', 'not global unicast'],
  ['::', 'not global unicast'],
  ['fec0::1', 'not global unicast'],
  ['fd00::1', 'not global unicast'],
  ['fe80::1', 'not global unicast'],
  ['ff02::1', 'not global unicast'],
  ['64:ff9b:1::a00:1', 'local-use IPv4/IPv6 translation'],
  ['100::1', 'discard-only'],
  ['100:0:0:1::1', 'dummy prefix'],
  ['2001::1', 'IETF protocol assignments'],
  ['2001:2::1', 'IETF protocol assignments'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['5f00::1', 'segment routing (SRv6) SIDs'],
  // IPv4 inside IPv6: judged by the embedded address.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::7f00:1', 'loopback'],
  ['::127.0.0.1', 'loopback'],
  ['::a9fe:a9fe', 'link-local (cloud metadata)'],
  ['64:ff9b::a00:1', 'private-use'],
  ['64:ff9b::c612:1', 'benchmarking'],
  ['2002:7f00:1::1', 'loopback'],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '192.0.0.9', // PCP anycast: globally reachable inside 192.0.0.0/24
  '192.31.196.1', // AS112
  '198.20.0.1', // just past benchmarking
  '2606:4700:4700::1111',
  '2001:4860:4860::8888', // Google DNS, inside 2001::/16 but outside 2001::/23
  '2001:1::1', // PCP anycast
  '2001:4:112::1', // AS112-v6
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '::ffff:8.8.8.8',
];

describe('one table of the IANA special-purpose ranges (every egress)', () => {
  it.each(refused)('refuses %s (%s)', (ip, name) => {
    expect(isPublicAddress(ip)).toBe(false);
    expect(specialPurposeRange(ip)).toMatchObject({ name, reachable: false });
  });

  it.each(allowed)('allows the globally reachable %s', (ip) => expect(isPublicAddress(ip)).toBe(true));

  it('every row parses and names its range', () => {
    for (const row of SPECIAL_PURPOSE_RANGES) {
      expect(row.name).not.toBe('');
      expect(specialPurposeRange(row.cidr.split('/')[0]!)).toBeDefined();
    }
  });

  it.each(['[::7f00:1]', '[::127.0.0.1]', '[fec0::1]', '198.18.0.1', '[64:ff9b:1::a00:1]', '[64:ff9b::7f00:1]'])(
    'a push or egress URL on https://%s/ is refused by the URL checks',
    (host) => {
      expect(checkHttpsUrlShape(`https://${host}/hook`).ok).toBe(false);
      expect(new EgressPolicy().checkUrlShape(`https://${host}/hook`).ok).toBe(false);
    },
  );

  it('the operator allow-list still admits a listed special range, embedded forms included', () => {
    const p = new EgressPolicy({ hosts: [], cidrs: ['198.18.0.0/15', '127.0.0.0/8', 'fec0::/10'] });
    expect(p.allowsAddress('198.18.0.1')).toBe(true);
    expect(p.allowsAddress('::7f00:1')).toBe(true);
    expect(p.allowsAddress('fec0::1')).toBe(true);
    expect(p.checkUrlShape('http://198.18.0.1:8080/').ok).toBe(true);
    expect(p.allowsAddress('10.0.0.1')).toBe(false);
  });
});
