import { describe, expect, it } from 'vitest';
import { checkHttpsUrlShape, checkPublicHttpsUrl, isPublicAddress } from '../src/net-guard';

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    '::ffff:127.0.0.1',
    '100.64.0.1',
    '0.0.0.0',
    'fd00::1',
    'fe80::1',
    '224.0.0.1',
  ])('refuses %s', (ip) => expect(isPublicAddress(ip)).toBe(false));
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('allows public %s', (ip) =>
    expect(isPublicAddress(ip)).toBe(true),
  );

  it('refuses non-https, credentials, localhost and private literals', () => {
    expect(checkHttpsUrlShape('http://example.com/hook').ok).toBe(false);
    expect(checkHttpsUrlShape('https://user:pw@example.com/').ok).toBe(false);
    expect(checkHttpsUrlShape('https://localhost/').ok).toBe(false);
    expect(checkHttpsUrlShape('https://127.0.0.1/').ok).toBe(false);
    expect(checkHttpsUrlShape('https://[::1]/').ok).toBe(false);
    expect(checkHttpsUrlShape('https://169.254.169.254/latest/meta-data').ok).toBe(false);
    expect(checkHttpsUrlShape('not a url').ok).toBe(false);
    expect(checkHttpsUrlShape('https://example.com/hook').ok).toBe(true);
  });

  it('refuses a public-looking name that resolves to a private address (DNS check)', async () => {
    const resolver = async (host: string): Promise<string[]> =>
      host === 'evil.example.com' ? ['10.0.0.5'] : ['93.184.216.34'];
    expect((await checkPublicHttpsUrl('https://evil.example.com/x', resolver)).ok).toBe(false);
    expect((await checkPublicHttpsUrl('https://good.example.com/x', resolver)).ok).toBe(true);
    expect(
      (await checkPublicHttpsUrl('https://nx.example.com/x', async () => Promise.reject(new Error('ENOTFOUND')))).ok,
    ).toBe(false);
  });
});
