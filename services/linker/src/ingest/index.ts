import { mkdir, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { type ArchiveFormat, archiveFormat, unpack } from './archive';
import { DEFAULT_INGEST_LIMITS, type IngestLimits } from '../domain/sources';
import { cloneAt, looksLikeGitUrl, repoName, splitRef } from './git';
import type { FetchedSource, SourceLocation } from '../domain/sources';
import { type EgressPolicy, checkRemoteGitUrl, isLocalGitUrl } from '../domain/git-url';

export { listSourceFiles, type ListOptions } from './local';
export { ArchiveRefused, formatBytes, unpack, type Unpacked } from './archive';
export { looksLikeGitUrl, repoName, splitRef } from './git';

export type { FetchedSource, SourceLocation } from '../domain/sources';

export interface FetchOptions {
  /** Local directories may only be read below these roots (a server must not read arbitrary paths). */
  readonly allowedDirs?: readonly string[];
  /**
   * The server's SSRF guard: a remote git URL is checked again at fetch time (http(s) only, every
   * resolved address allowed) and the clone is pinned to the checked addresses. Unset for the CLI.
   */
  readonly egress?: EgressPolicy;
  /** Unpacked size, file count and file size (default DEFAULT_INGEST_LIMITS). */
  readonly limits?: IngestLimits;
}

/** Real paths on both sides: a symlink below an allowed root must not lead outside it. */
async function insideRoots(path: string, allowedDirs: readonly string[]): Promise<string> {
  const abs = await realpath(resolve(path));
  const roots = await Promise.all(allowedDirs.map((d) => realpath(resolve(d)).catch(() => resolve(d))));
  if (!roots.some((d) => abs === d || abs.startsWith(d + '/'))) throw new Error(`${path} is outside the allowed roots`);
  return abs;
}

/** The fetch stage. */
export async function fetchSource(location: SourceLocation, options: FetchOptions = {}): Promise<FetchedSource> {
  switch (location.kind) {
    case 'dir': {
      const abs = options.allowedDirs
        ? await insideRoots(location.path, options.allowedDirs).catch((err: unknown) => {
            throw new Error(`directory ${err instanceof Error ? err.message : String(err)}`);
          })
        : await realpath(resolve(location.path));
      if (!(await stat(abs)).isDirectory()) throw new Error(`${location.path} is not a directory`);
      return { root: abs, revision: abs, dispose: () => Promise.resolve() };
    }
    case 'git': {
      let remote;
      if (options.egress) {
        if (isLocalGitUrl(location.url)) {
          await insideRoots(location.url.replace(/^file:\/\//, ''), options.allowedDirs ?? []).catch(() => {
            throw new Error('local git repositories outside the allowed roots cannot be fetched');
          });
        } else remote = await checkRemoteGitUrl(location.url, options.egress);
      }
      const tmp = await mkdtemp(join(tmpdir(), 'linker-git-'));
      try {
        const dest = join(tmp, repoName(location.url));
        // A checked remote is cloned by its normalised URL: the host git sees is the host that was checked
        // and pinned (no second reading of odd forms such as `http://2130706433/`).
        const limits = options.limits ?? DEFAULT_INGEST_LIMITS;
        const { commit, skipped } = await cloneAt(
          remote ? remote.url.href : location.url,
          dest,
          location.ref,
          remote,
          limits,
        );
        return { root: dest, revision: commit, skipped, dispose: () => rm(tmp, { recursive: true, force: true }) };
      } catch (err) {
        await rm(tmp, { recursive: true, force: true });
        throw err;
      }
    }
    case 'archive': {
      const format: ArchiveFormat | undefined = archiveFormat(location.filename, location.bytes);
      if (!format) throw new Error('archive must be .tar.gz or .zip');
      const tmp = await mkdtemp(join(tmpdir(), 'linker-archive-'));
      try {
        const dest = join(tmp, 'src');
        await mkdir(dest);
        const { root, skipped } = await unpack(location.bytes, format, dest, options.limits ?? DEFAULT_INGEST_LIMITS);
        return { root, revision: format, skipped, dispose: () => rm(tmp, { recursive: true, force: true }) };
      } catch (err) {
        await rm(tmp, { recursive: true, force: true });
        throw err;
      }
    }
  }
}

/** A CLI argument: an existing directory, or a git URL with an optional `#ref`. */
export async function locationOf(spec: string): Promise<{ name: string; location: SourceLocation }> {
  const isDir = await stat(spec).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (isDir) return { name: basename(resolve(spec)), location: { kind: 'dir', path: spec } };
  if (looksLikeGitUrl(spec)) {
    const { url, ref } = splitRef(spec);
    return { name: repoName(url), location: ref ? { kind: 'git', url, ref } : { kind: 'git', url } };
  }
  throw new Error(`${spec} is neither a directory nor a git URL`);
}
