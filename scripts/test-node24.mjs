#!/usr/bin/env node
// CI's second Node: the suites that need no engine, run again on Node 24 (the current LTS; `npm test` runs on the
// machine's Node, 20 here). Node 24 comes from the npm registry (the `node-<os>-<arch>` package the `node` package
// installs), pinned, into .cache/node-<version> (ignored by git; reused while it is there). Tests that start
// processes start them with `process.execPath`, so the bundles run on Node 24 too. Needs `npm run build` first.
//   node scripts/test-node24.mjs [vitest file filters…]   (default: the engine-free suites listed below)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const VERSION = '24.21.0';
const root = new URL('..', import.meta.url).pathname;
const os = process.platform === 'win32' ? 'win' : process.platform;
const pkg = `node-${os}-${process.arch}`;
const dir = join(root, '.cache', `node-${VERSION}`);
const bin = join(dir, 'node_modules', pkg, 'bin', os === 'win' ? 'node.exe' : 'node');
if (!existsSync(bin)) {
  process.stdout.write(`installing ${pkg}@${VERSION} from the npm registry into ${dir}\n`);
  execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `${pkg}@${VERSION}`], {
    stdio: 'inherit',
  });
}
process.stdout.write(`${execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()}\n`);
// Unit, contract (in-memory and LMDB) and integration suites, and the embedded mode end to end as a process:
// the engine-free suites whose behaviour depends on the runtime. Browser, bench, deploy and fault suites stay
// on the machine's Node.
const suites = process.argv.slice(2).length
  ? process.argv.slice(2)
  : ['packages', 'services', 'test/e2e/embedded-durable.test.ts', 'test/e2e/embedded-process.test.ts'];
const env = { ...process.env, PATH: `${join(dir, 'node_modules', pkg, 'bin')}:${process.env.PATH ?? ''}` };
// No engine URLs: the real-engine halves of the suites skip themselves.
for (const k of ['REDIS_URL', 'KAFKA_BROKERS', 'MONGO_URL']) delete env[k];
const run = spawnSync(bin, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...suites], {
  stdio: 'inherit',
  env,
  cwd: root,
});
process.exit(run.status ?? 1);
