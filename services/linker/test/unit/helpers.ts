import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractSource } from '../../src/domain/extract/index';
import type { SourceFacts } from '../../src/domain/model';
import { listSourceFiles } from '../../src/ingest/local';

export const FIXTURES = fileURLToPath(new URL('../fixtures', import.meta.url));

/** The repositories (sub-directories) of one fixture application, sorted. */
export function fixtureRepos(app: string): string[] {
  const dir = join(FIXTURES, app);
  return readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isDirectory())
    .sort()
    .map((n) => join(dir, n));
}

export async function extractFixture(app: string, options: { includeTests?: boolean } = {}): Promise<SourceFacts[]> {
  const out: SourceFacts[] = [];
  for (const dir of fixtureRepos(app))
    out.push(await extractSource(dir.split('/').pop()!, await listSourceFiles(dir, options), options));
  return out;
}
