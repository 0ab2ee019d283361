import { execFile } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type ArchiveFormat = 'tar.gz' | 'zip';

export function archiveFormat(name: string, bytes: Uint8Array): ArchiveFormat | undefined {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'zip';
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  if (/\.zip$/i.test(name)) return 'zip';
  if (/\.(tar\.gz|tgz)$/i.test(name)) return 'tar.gz';
  return undefined;
}

/**
 * Unpacks an uploaded archive into `dest` with the system tar/unzip (both refuse `..` members and
 * absolute paths). Resolves the source root: the single top-level folder when there is one
 * (GitHub-style archives), otherwise `dest`.
 */
export async function unpack(bytes: Uint8Array, format: ArchiveFormat, dest: string, scratch: string): Promise<string> {
  const file = join(scratch, format === 'zip' ? 'upload.zip' : 'upload.tar.gz');
  await writeFile(file, bytes);
  if (format === 'zip') await run('unzip', ['-q', '-o', file, '-d', dest], { timeout: 120_000 });
  else await run('tar', ['-xzf', file, '-C', dest, '--no-same-owner', '--no-same-permissions'], { timeout: 120_000 });
  const entries = (await readdir(dest, { withFileTypes: true })).filter((e) => !e.name.startsWith('__MACOSX'));
  return entries.length === 1 && entries[0]!.isDirectory() ? join(dest, entries[0]!.name) : dest;
}
