import { isPublicAddress } from '@a2a-inbound/runtime';
import { describe, expect, it } from 'vitest';
import {
  type EgressPolicy,
  checkRemoteGitUrl,
  isLocalGitUrl,
  redactSecrets,
  redactUrl,
} from '../../src/domain/git-url';
import { cloneAt, pinnedGitConfig } from '../../src/ingest/git';

/** DNS as the tests want it: names to addresses, anything else does not resolve. */
const dns = (table: Record<string, string[]>): EgressPolicy => ({
  resolve: (host) => {
    const found = table[host];
    return found ? Promise.resolve(found) : Promise.reject(new Error(`ENOTFOUND ${host}`));
  },
  isAllowed: isPublicAddress,
});

const egress = dns({
  'git.example.com': ['93.184.216.34'],
  'loopback.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '10.1.2.3'],
  'metadata.example.com': ['169.254.169.254'],
  'v6loop.example.com': ['::1'],
});

describe('the SSRF guard of remote git URLs', () => {
  it.each([
    ['http://127.0.0.1/repo.git', /public address/],
    ['https://127.1.2.3:8443/repo.git', /public address/],
    ['http://169.254.169.254/latest/meta-data/', /public address/],
    ['http://10.0.0.5/repo.git', /public address/],
    ['http://172.16.3.4/repo.git', /public address/],
    ['http://192.168.1.10/repo.git', /public address/],
    ['http://100.64.0.1/repo.git', /public address/],
    ['http://[::1]/repo.git', /public address/],
    ['http://[::ffff:127.0.0.1]/repo.git', /public address/],
    ['http://[fd00::1]/repo.git', /public address/],
    ['http://0.0.0.0/repo.git', /public address/],
    ['http://2130706433/repo.git', /public address/],
    ['http://0x7f.1/repo.git', /public address/],
    ['http://LOCALHOST./repo.git', /public host/],
    ['http://localhost/repo.git', /public host/],
    ['http://metadata.google.internal/computeMetadata/v1/', /public host/],
    ['http://gitserver/repo.git', /public host/],
    ['https://loopback.example.com/repo.git', /resolves to a non-public address/],
    ['https://mixed.example.com/repo.git', /resolves to a non-public address/],
    ['https://metadata.example.com/repo.git', /resolves to a non-public address/],
    ['https://v6loop.example.com/repo.git', /resolves to a non-public address/],
    ['https://unknown.example.com/repo.git', /does not resolve/],
    ['ssh://git@github.com/acme/web.git', /must use https or http/],
    ['git://github.com/acme/web.git', /must use https or http/],
    ['ext::sh -c touch% /tmp/pwned', /must be an http\(s\) URL|must use https or http/],
    ['git@github.com:acme/web.git', /must use https or http|must be an http\(s\) URL/],
  ])('%s is refused with INVALID_PARAMS', async (url, reason) => {
    await expect(checkRemoteGitUrl(url, egress)).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringMatching(reason) as string,
    });
  });

  it('a public host passes, with the checked addresses and port the fetch is pinned to', async () => {
    const ok = await checkRemoteGitUrl('https://user:tok@git.example.com/acme/web.git', egress);
    expect(ok).toMatchObject({ host: 'git.example.com', port: 443, addresses: ['93.184.216.34'] });
    const literal = await checkRemoteGitUrl('http://93.184.216.34:8080/web.git', egress);
    expect(literal).toMatchObject({ host: '93.184.216.34', port: 8080, addresses: ['93.184.216.34'] });
  });

  it('pins the clone to the checked addresses, without redirects or other transports', () => {
    const args = pinnedGitConfig({
      url: new URL('https://git.example.com/x.git'),
      host: 'git.example.com',
      port: 443,
      addresses: ['93.184.216.34', '2606:2800:220:1::1'],
    });
    expect(args).toContain('http.curloptResolve=git.example.com:443:93.184.216.34,[2606:2800:220:1::1]');
    expect(args).toContain('http.followRedirects=false');
    expect(args).toContain('protocol.allow=never');
  });

  it('tells local repositories from remote URLs', () => {
    expect(isLocalGitUrl('file:///srv/repo')).toBe(true);
    expect(isLocalGitUrl('/srv/repo')).toBe(true);
    expect(isLocalGitUrl('https://github.com/acme/web.git')).toBe(false);
  });
});

describe('credentials in git URLs', () => {
  it('are replaced by *** in what answers show', () => {
    expect(redactUrl('https://alice:s3cret@github.com/acme/web.git')).toBe('https://***@github.com/acme/web.git');
    expect(redactUrl('https://ghp_token123@github.com/acme/web.git')).toBe('https://***@github.com/acme/web.git');
    expect(redactUrl('https://github.com/acme/web.git')).toBe('https://github.com/acme/web.git');
  });

  it('are redacted from free text such as git errors', () => {
    expect(
      redactSecrets("fatal: unable to access 'https://alice:s3cret@git.example.com/x.git/': Could not resolve host"),
    ).toBe("fatal: unable to access 'https://***@git.example.com/x.git/': Could not resolve host");
  });

  it('never reach a failed clone error (neither the command line nor git’s message)', async () => {
    // Port 1 on loopback refuses at once: git fails, quoting the URL.
    const err = await cloneAt('http://alice:s3cret@127.0.0.1:1/x.git', `/tmp/linker-test-${process.pid}-nope`).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/^git clone /);
    expect(err!.message).not.toContain('s3cret');
    expect(err!.message).not.toContain('alice');
  });
});
