#!/usr/bin/env node
// `npm run admin -- …`: builds the bundles when they are missing (a fresh clone), then runs the embedded
// mode's admin CLI (embedded/src/admin.ts) with the arguments.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cli = join(root, 'embedded', 'dist', 'admin.js');
if (!existsSync(cli)) {
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const run = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(run.status ?? 1);
