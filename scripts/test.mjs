#!/usr/bin/env node
// `npm test`: everything the tests need, then every suite. Starts Redis, Kafka and FerretDB (installing
// them on first use, cached under .infra/), builds the services, runs vitest with the real-engine URLs set
// (so the contract suites and the distributed end-to-end suite run against real engines), and stops the
// engines it started. `SKIP_ENGINES=1 npm test` runs only what needs no engine. With the engines, the fault
// suite (test/faults: it restarts the engines under load) runs last, on its own; `SKIP_FAULTS=1` leaves it
// out, and `npm run faults` (`--faults-only`) runs only it.
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

const faultsOnly = process.argv.includes('--faults-only');
const passThrough = process.argv.slice(2).filter((a) => a !== '--faults-only');
let status = 0;
if (!faultsOnly) {
  const t1 = Date.now();
  const result = spawnSync('npx', ['vitest', 'run', ...passThrough], { stdio: 'inherit', env, cwd: root });
  status = result.status ?? 1;
  log(`vitest finished in ${((Date.now() - t1) / 1000).toFixed(1)} s with exit code ${result.status}`);
}
if (!skipEngines && process.env.SKIP_FAULTS !== '1' && (faultsOnly || passThrough.length === 0)) {
  const t2 = Date.now();
  const faults = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.faults.config.ts'], {
    stdio: 'inherit',
    env,
    cwd: root,
  });
  log(`fault suite finished in ${((Date.now() - t2) / 1000).toFixed(1)} s with exit code ${faults.status}`);
  if (status === 0) status = faults.status ?? 1;
}

if (startedByUs.length > 0 && process.env.KEEP_ENGINES !== '1') {
  execFileSync(join(root, 'scripts/engines/down.sh'), startedByUs, { stdio: 'inherit' });
}
process.exit(status);
