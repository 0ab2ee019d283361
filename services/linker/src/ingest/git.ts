import { execFile } from 'node:child_process';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { type CheckedRemote, redactSecrets } from '../domain/git-url';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IngestLimits, SkippedFile } from '../domain/sources';
import { formatBytes } from './archive';

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
  maxBuffer = 16 * 1024 * 1024,
): Promise<string> {
  try {
    const { stdout } = await run('git', [...args], { cwd, env, timeout: timeoutMs, maxBuffer });
    return stdout.trim();
  } catch (err) {
    // Never the command line (it holds the URL, maybe with credentials): git's own last words, redacted.
    const e = err as { stderr?: string; killed?: boolean; message?: string };
    const said = (e.stderr ?? '').trim().split('\n').filter(Boolean).slice(-2).join(' ');
    const why = e.killed ? 'timed out' : said || 'failed';
    throw new Error(
      redactSecrets(
        `git ${args.find((a) => a === 'clone' || a === 'checkout' || a === 'rev-parse' || a === 'ls-tree') ?? ''} ${why}`.trim(),
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
 * other ref (a commit) falls back to a full clone. Nothing is checked out until the commit's tree is known
 * to fit `limits` (its file count and total size, read from git's own listing): a repository of a
 * million files or of gigabytes is refused before it reaches the disk, and files over `maxFileBytes` are
 * left out of the checkout (a sparse checkout) and answered as skipped. Resolves the checked-out commit.
 */
export async function cloneAt(
  url: string,
  dest: string,
  ref?: string,
  remote?: CheckedRemote,
  limits?: IngestLimits,
): Promise<{ commit: string; skipped: SkippedFile[] }> {
  if (url.startsWith('-') || (ref !== undefined && ref.startsWith('-'))) throw new Error('invalid git url or ref');
  // A guarded remote (the server): pinned addresses, hardened environment. The CLI keeps plain git.
  const pre = remote ? pinnedGitConfig(remote) : [];
  const env = remote ? SERVER_GIT_ENV : GIT_ENV;
  let target = 'HEAD';
  if (ref) {
    try {
      await git(
        [...pre, 'clone', '--quiet', '--no-checkout', '--depth', '1', '--branch', ref, '--', url, dest],
        undefined,
        env,
      );
    } catch {
      await git([...pre, 'clone', '--quiet', '--no-checkout', '--', url, dest], undefined, env);
      target = ref;
    }
  } else {
    await git([...pre, 'clone', '--quiet', '--no-checkout', '--depth', '1', '--', url, dest], undefined, env);
  }
  const commit = await git(['rev-parse', '--verify', '--end-of-options', `${target}^{commit}`], dest, env);
  let skipped: SkippedFile[] = [];
  if (limits) {
    const listing = await git(['ls-tree', '-r', '-l', '-z', commit], dest, env, 120_000, 64 * 1024 * 1024);
    skipped = checkTree(listing, limits);
    const excluded = skipped.filter((f) => !/[\n\r]/.test(f.path));
    if (excluded.length > 0) {
      // Everything but the oversized files (gitignore patterns, anchored, special characters escaped).
      const patterns = ['/*', ...excluded.map((f) => '!/' + f.path.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`))];
      await git(['config', 'core.sparseCheckout', 'true'], dest, env);
      await mkdir(join(dest, '.git', 'info'), { recursive: true });
      await writeFile(join(dest, '.git', 'info', 'sparse-checkout'), patterns.join('\n') + '\n');
    }
  }
  await git(['checkout', '--quiet', '--detach', commit], dest, env);
  return { commit, skipped };
}

/**
 * Refuses a tree (`git ls-tree -r -l -z` output) with more files or bytes than the limits; answers the files
 * over `maxFileBytes` (left out of the checkout).
 */
function checkTree(listing: string, limits: IngestLimits): SkippedFile[] {
  let files = 0;
  let bytes = 0;
  const oversized: SkippedFile[] = [];
  for (const line of listing.split('\0')) {
    // "<mode> <type> <object> <size>\t<path>"; submodules (type commit) bring nothing.
    const m = /^\d+ blob \S+ +(\d+)\t(.*)$/s.exec(line);
    if (!m) continue;
    files += 1;
    const size = Number(m[1]);
    if (size > limits.maxFileBytes)
      oversized.push({
        path: m[2]!,
        reason: `larger than ${formatBytes(limits.maxFileBytes)} (LINKER_MAX_FILE_BYTES)`,
      });
    else bytes += size;
  }
  if (files > limits.maxFiles)
    throw new Error(`repository refused: it holds more than ${limits.maxFiles} files (${files}) (LINKER_MAX_FILES)`);
  if (bytes > limits.maxUnpackedBytes)
    throw new Error(
      `repository refused: its files hold more than ${formatBytes(limits.maxUnpackedBytes)} (${formatBytes(bytes)}) (LINKER_MAX_UNPACKED_BYTES)`,
    );
  return oversized;
}
