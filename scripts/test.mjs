#!/usr/bin/env node
// `npm test`: everything the tests need, then every suite. Starts Redis, Kafka and FerretDB (installing
// them on first use, cached under .infra/), builds the services, runs vitest with the real-engine URLs set
// (so the contract suites and the distributed end-to-end suite run against real engines), and stops the
// engines it started. `SKIP_ENGINES=1 npm test` runs only what needs no engine.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const engines = ['redis', 'kafka', 'ferretdb'];
const skipEngines = process.env.SKIP_ENGINES === '1';
const log = (m) => process.stdout.write(`[test] ${m}\n`);

const running = (e) =>
  spawnSync(join(root, 'scripts/engines', `${e}.sh`), ['status'], { stdio: 'ignore' }).status === 0;

let startedByUs = [];
const env = { ...process.env };
if (!skipEngines) {
  const before = engines.filter(running);
  const t0 = Date.now();
  execFileSync(join(root, 'scripts/engines/up.sh'), { stdio: 'inherit' });
  log(`engines ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  startedByUs = engines.filter((e) => !before.includes(e));
  env.REDIS_URL ??= 'redis://127.0.0.1:6379';
  env.KAFKA_BROKERS ??= '127.0.0.1:9092';
  env.MONGO_URL ??= 'mongodb://127.0.0.1:27017';
} else {
  log('SKIP_ENGINES=1: real-engine suites will not run');
  delete env.REDIS_URL;
  delete env.KAFKA_BROKERS;
  delete env.MONGO_URL;
}

execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });

const args = ['vitest', 'run', ...process.argv.slice(2)];
const t1 = Date.now();
const result = spawnSync('npx', args, { stdio: 'inherit', env, cwd: root });
log(`vitest finished in ${((Date.now() - t1) / 1000).toFixed(1)} s with exit code ${result.status}`);

if (startedByUs.length > 0 && process.env.KEEP_ENGINES !== '1') {
  execFileSync(join(root, 'scripts/engines/down.sh'), startedByUs, { stdio: 'inherit' });
}
process.exit(result.status ?? 1);
