import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// No prompts, no system config, and only plain transports (never `ext::` or other helpers that run commands).
const GIT_ENV = {
  ...process.env,
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'echo',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_ALLOW_PROTOCOL: 'http:https:ssh:git:file',
};

async function git(args: readonly string[], cwd?: string, timeoutMs = 120_000): Promise<string> {
  const { stdout } = await run('git', [...args], {
    cwd,
    env: GIT_ENV,
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
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
export async function cloneAt(url: string, dest: string, ref?: string): Promise<string> {
  if (url.startsWith('-') || (ref !== undefined && ref.startsWith('-'))) throw new Error('invalid git url or ref');
  if (ref) {
    try {
      await git(['clone', '--quiet', '--depth', '1', '--branch', ref, '--', url, dest]);
    } catch {
      await git(['clone', '--quiet', '--no-checkout', '--', url, dest]);
      await git(['checkout', '--quiet', '--detach', ref], dest);
    }
  } else {
    await git(['clone', '--quiet', '--depth', '1', '--', url, dest]);
  }
  return git(['rev-parse', 'HEAD'], dest);
}
