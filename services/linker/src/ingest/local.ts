import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceFile } from '../domain/extract/index';
import { isIgnoredDir, kindOf } from '../domain/extract/index';

/**
 * Files of a directory tree that extraction reads, sorted by path so reports are stable. Ignored
 * folders (node_modules, build output, and test folders unless asked) are not even listed.
 */
export async function listSourceFiles(root: string, options: { includeTests?: boolean } = {}): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!isIgnoredDir(e.name, options.includeTests ?? false)) await walk(join(dir, e.name), path);
      } else if (e.isFile() && kindOf(path)) {
        const abs = join(dir, e.name);
        out.push({ path, read: () => readFile(abs, 'utf8') });
      }
    }
  };
  await walk(root, '');
  return out;
}
