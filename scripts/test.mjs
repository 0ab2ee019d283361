#!/usr/bin/env node
// `npm test`: everything the tests need, then every suite. Starts Redis, Kafka and FerretDB (installing
// them on first use, cached under .infra/), builds the services, runs vitest with the real-engine URLs set
// (so the contract suites and the distributed end-to-end suite run against real engines), and stops the
// engines it started. `SKIP_ENGINES=1 npm test` runs only what needs no engine. With the engines, the fault
// suite (test/faults: it restarts the engines under load) runs last, on its own; `SKIP_FAULTS=1` leaves it
// out, and `npm run faults` (`--faults-only`) runs only it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
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
// The official A2A Python client (a2a-sdk from PyPI) of the interoperability tests, in a virtualenv cached under
// .infra/python: installed once here, so the first test's time-out never includes pip.
// Without python3 only those tests fail (with the script's reason); the others still run.
if (!process.argv.includes('--faults-only')) {
  const py = spawnSync(join(root, 'scripts/python-client.sh'), { stdio: ['ignore', 'ignore', 'inherit'] });
  if (py.status !== 0) log('the official Python client could not be installed: test/e2e/python-client tests will fail');
}

// Each vitest run also writes a JSON report; the failures of all runs are listed again at the very end, so
// the last lines of a long CI log say what failed (the verbose output above them is thousands of lines).
const reportDir = join(root, '.infra', 'test-results');
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });
const reporterArgs = (name) => [
  '--reporter',
  process.env.CI ? 'verbose' : 'default',
  '--reporter',
  'json',
  '--outputFile.json',
  join(reportDir, `${name}.json`),
];
const failuresOf = (name) => {
  const file = join(reportDir, `${name}.json`);
  if (!existsSync(file)) return [`${name}: no report (vitest did not finish)`];
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    const out = [];
    for (const f of report.testResults ?? []) {
      const rel = f.name.startsWith(root) ? f.name.slice(root.length) : f.name;
      const failed = (f.assertionResults ?? []).filter((a) => a.status === 'failed');
      for (const a of failed) {
        const why = String(a.failureMessages?.[0] ?? '')
          .split('\n')[0]
          .slice(0, 300);
        out.push(`${rel} > ${a.fullName ?? a.title}${why ? `\n      ${why}` : ''}`);
      }
      if (failed.length === 0 && f.status === 'failed')
        out.push(
          `${rel}: ${String(f.message || 'failed outside its tests (a beforeAll/afterAll hook or the file itself: its error is in the log above)').split('\n')[0]}`,
        );
    }
    return out;
  } catch (err) {
    return [`${name}: unreadable report (${err.message})`];
  }
};
const hasReporter = process.argv.some((a) => a.startsWith('--reporter'));
const summaries = [];

const faultsOnly = process.argv.includes('--faults-only');
const passThrough = process.argv.slice(2).filter((a) => a !== '--faults-only');
let status = 0;
if (!faultsOnly) {
  const t1 = Date.now();
  const args = ['vitest', 'run', ...(hasReporter ? [] : reporterArgs('vitest')), ...passThrough];
  const result = spawnSync('npx', args, { stdio: 'inherit', env, cwd: root });
  status = result.status ?? 1;
  if (status !== 0 && !hasReporter) summaries.push(['vitest', failuresOf('vitest')]);
  log(`vitest finished in ${((Date.now() - t1) / 1000).toFixed(1)} s with exit code ${result.status}`);
}
// The document-store suites once more on FerretDB's other backend (SQLite), on the next port, so the
// adapters stay correct on both (the engines above run FerretDB on PostgreSQL: scripts/engines/README.md).
if (!skipEngines && !faultsOnly && passThrough.length === 0 && process.env.SKIP_SQLITE !== '1') {
  const t3 = Date.now();
  const port = String(Number(process.env.MONGO_PORT ?? 27017) + 1);
  const sqliteEnv = { ...process.env, FERRETDB_BACKEND: 'sqlite', MONGO_PORT: port };
  const ferret = join(root, 'scripts/engines/ferretdb.sh');
  execFileSync(ferret, ['start'], { stdio: 'inherit', env: sqliteEnv });
  try {
    const files = [
      'packages/adapter-mongo',
      'services/tasks/test/integration/credits.mongo.test.ts',
      'test/webhooks/delivery-log.mongo.test.ts',
    ];
    const sqlite = spawnSync('npx', ['vitest', 'run', ...reporterArgs('sqlite'), ...files], {
      stdio: 'inherit',
      env: { ...env, MONGO_URL: `mongodb://127.0.0.1:${port}` },
      cwd: root,
    });
    if (sqlite.status !== 0) summaries.push(['document-store suites on FerretDB/SQLite', failuresOf('sqlite')]);
    if (status === 0) status = sqlite.status ?? 1;
    log(
      `document-store suites on FerretDB/SQLite finished in ${((Date.now() - t3) / 1000).toFixed(1)} s with exit code ${sqlite.status}`,
    );
  } finally {
    execFileSync(ferret, ['stop'], { stdio: 'inherit', env: sqliteEnv });
  }
}
if (!skipEngines && process.env.SKIP_FAULTS !== '1' && (faultsOnly || passThrough.length === 0)) {
  const t2 = Date.now();
  const faults = spawnSync('npx', ['vitest', 'run', '--config', 'vitest.faults.config.ts', ...reporterArgs('faults')], {
    stdio: 'inherit',
    env,
    cwd: root,
  });
  if (faults.status !== 0) summaries.push(['fault suite', failuresOf('faults')]);
  log(`fault suite finished in ${((Date.now() - t2) / 1000).toFixed(1)} s with exit code ${faults.status}`);
  if (status === 0) status = faults.status ?? 1;
}

if (startedByUs.length > 0 && process.env.KEEP_ENGINES !== '1') {
  execFileSync(join(root, 'scripts/engines/down.sh'), startedByUs, { stdio: 'inherit' });
}
for (const [name, failures] of summaries) {
  log(`${name} failed:`);
  for (const f of failures) log(`  ${f}`);
}
process.exit(status);
