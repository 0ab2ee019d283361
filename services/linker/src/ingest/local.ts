import { lstat, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceFile } from '../domain/extract/index';
import { isIgnoredDir, isReadPath } from '../domain/extract/index';
import type { SkippedFile } from '../domain/sources';
import { formatBytes } from './archive';

export interface ListOptions {
  readonly includeTests?: boolean;
  /** Larger files are left out before they are read (reported through `onSkip`). */
  readonly maxFileBytes?: number;
  readonly onSkip?: (file: SkippedFile) => void;
}

/**
 * Files of a directory tree that extraction reads, sorted by path so reports are stable. Ignored
 * folders (node_modules, build output, and test folders unless asked) are not even listed. A file over
 * `maxFileBytes` is skipped by its size on disk, never read (a string of 512 MB cannot even be made).
 */
export async function listSourceFiles(root: string, options: ListOptions = {}): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  const max = options.maxFileBytes;
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!isIgnoredDir(e.name, options.includeTests ?? false)) await walk(join(dir, e.name), path);
      } else if (e.isFile() && isReadPath(path)) {
        const abs = join(dir, e.name);
        if (max !== undefined && (await lstat(abs)).size > max) {
          options.onSkip?.({ path, reason: `larger than ${formatBytes(max)} (LINKER_MAX_FILE_BYTES)` });
          continue;
        }
        out.push({ path, read: () => readFile(abs, 'utf8') });
      }
    }
  };
  await walk(root, '');
  return out;
}
