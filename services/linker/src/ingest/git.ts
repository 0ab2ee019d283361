import { execFile } from 'node:child_process';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { type CheckedRemote, redactSecrets } from '../domain/git-url';

const run = promisify(execFile);

// No prompts, no system config, and only plain transports (never `ext::` or other helpers that run commands).
const GIT_ENV = {
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'echo',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_ALLOW_PROTOCOL: 'http:https:ssh:git:file',
};

// A server fetch of a tenant's URL: http(s) only, no user or system config (no `insteadOf` rewrites, no
// credential helpers), no redirects (a redirect could lead to an internal address), no proxy from the
// environment (the pinned addresses are what is checked).
const SERVER_GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'echo',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ALLOW_PROTOCOL: 'http:https',
  // Trust anchors an operator configured for TLS, nothing else.
  ...Object.fromEntries(
    ['SSL_CERT_FILE', 'SSL_CERT_DIR', 'GIT_SSL_CAINFO', 'GIT_SSL_CAPATH']
      .filter((k) => process.env[k])
      .map((k) => [k, process.env[k]]),
  ),
};

async function git(
  args: readonly string[],
  cwd?: string,
  env: NodeJS.ProcessEnv = GIT_ENV,
  timeoutMs = 120_000,
): Promise<string> {
  try {
    const { stdout } = await run('git', [...args], { cwd, env, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    return stdout.trim();
  } catch (err) {
    // Never the command line (it holds the URL, maybe with credentials): git's own last words, redacted.
    const e = err as { stderr?: string; killed?: boolean; message?: string };
    const said = (e.stderr ?? '').trim().split('\n').filter(Boolean).slice(-2).join(' ');
    const why = e.killed ? 'timed out' : said || 'failed';
    throw new Error(
      redactSecrets(
        `git ${args.find((a) => a === 'clone' || a === 'checkout' || a === 'rev-parse') ?? ''} ${why}`.trim(),
      ),
    );
  }
}

/** `-c` options that pin a checked remote's host to the addresses the guard allowed (curl's resolve list). */
export function pinnedGitConfig(remote: CheckedRemote): string[] {
  const addrs = remote.addresses.map((a) => (isIP(a) === 6 ? `[${a}]` : a)).join(',');
  return [
    '-c',
    `http.curloptResolve=${remote.host}:${remote.port}:${addrs}`,
    '-c',
    'http.followRedirects=false',
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.https.allow=always',
    '-c',
    'protocol.http.allow=always',
  ];
}

/** Whatever `git clone` accepts: https, ssh, scp-like `git@host:path`, `file://`. */
export function looksLikeGitUrl(spec: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(spec) || /^[\w.-]+@[\w.-]+:/.test(spec) || /\.git(#.*)?$/.test(spec);
}

/** `url#ref` → url and ref (branch, tag or commit). */
export function splitRef(spec: string): { url: string; ref?: string } {
  const i = spec.lastIndexOf('#');
  return i > 0 ? { url: spec.slice(0, i), ref: spec.slice(i + 1) } : { url: spec };
}

export function repoName(url: string): string {
  const last =
    url
      .replace(/[/\\]+$/, '')
      .split(/[/:\\]/)
      .pop() ?? 'repo';
  return last.replace(/\.git$/, '') || 'repo';
}

/**
 * Clones `url` at `ref` into `dest` (which must not exist). A branch or tag is cloned shallowly; any
 * other ref (a commit) falls back to a full clone and a checkout. Resolves the checked-out commit.
 */
export async function cloneAt(url: string, dest: string, ref?: string, remote?: CheckedRemote): Promise<string> {
  if (url.startsWith('-') || (ref !== undefined && ref.startsWith('-'))) throw new Error('invalid git url or ref');
  // A guarded remote (the server): pinned addresses, hardened environment. The CLI keeps plain git.
  const pre = remote ? pinnedGitConfig(remote) : [];
  const env = remote ? SERVER_GIT_ENV : GIT_ENV;
  if (ref) {
    try {
      await git([...pre, 'clone', '--quiet', '--depth', '1', '--branch', ref, '--', url, dest], undefined, env);
    } catch {
      await git([...pre, 'clone', '--quiet', '--no-checkout', '--', url, dest], undefined, env);
      await git(['checkout', '--quiet', '--detach', ref], dest, env);
    }
  } else {
    await git([...pre, 'clone', '--quiet', '--depth', '1', '--', url, dest], undefined, env);
  }
  return git(['rev-parse', 'HEAD'], dest, env);
}
