import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@a2a-inbound/config';
import { loadGatewayConfig } from '@a2a-inbound/gateway';
import { loadLinkerConfig } from '@a2a-inbound/linker';
import { loadRunnerConfig } from '@a2a-inbound/runner';
import { loadTasksConfig } from '@a2a-inbound/tasks';
import { loadWebhooksConfig } from '@a2a-inbound/webhooks';
// @ts-expect-error -- a plain .mjs script (repository tooling)
import { makeDevPki, tlsEnv } from '../../scripts/dev-ca.mjs';

const root = join(__dirname, '..', '..');
type Env = Record<string, string>;

/** What deploy/k8s/base/config.env gives every service: listeners on every interface, peers by Service name. */
const cluster: Env = {
  NODE_ENV: 'production',
  TASKS_GRPC_HOST: '0.0.0.0',
  RUNNER_GRPC_HOST: '0.0.0.0',
  WEBHOOKS_GRPC_HOST: '0.0.0.0',
  LINKER_GRPC_HOST: '0.0.0.0',
  TASKS_GRPC_ADDR: 'tasks:50051',
  LINKER_GRPC_ADDR: 'linker:50055',
  WEBHOOKS_GRPC_ADDR: 'webhooks:50053',
  LINKER_SERVICE_TOKEN: 'a-linker-token-of-at-least-32-characters',
  STORE: 'mongo',
  MONGO_URL: 'mongodb://mongo.internal:27017/?tls=true',
};

const loaders: Record<string, (env: Env) => { warnings: readonly string[] }> = {
  gateway: loadGatewayConfig,
  tasks: loadTasksConfig,
  runner: (env) => loadRunnerConfig(env, 'runner-x'),
  webhooks: loadWebhooksConfig,
  linker: loadLinkerConfig,
};

const problemsOf = (load: () => unknown): string[] => {
  try {
    load();
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    // The linker reports through its own ConfigError (same shape).
    if (err instanceof Error && 'problems' in err) return [...(err as { problems: string[] }).problems];
    throw err;
  }
};

const GRPC_PROBLEM =
  /^GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE .* are required with NODE_ENV=production/;

describe('production refuses plaintext gRPC (issue 24, ADR 0035)', () => {
  let pki = '';
  beforeAll(() => {
    pki = makeDevPki(mkdtempSync(join(tmpdir(), 'a2a-pki-'))) as string;
    // `npm test` builds first; a bare `npx vitest run` on a fresh clone builds here.
    if (!existsSync(join(root, 'services/runner/dist/main.js')))
      execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
  }, 120_000);
  afterAll(() => rmSync(pki, { recursive: true, force: true }));

  for (const [service, load] of Object.entries(loaders)) {
    it(`${service}: refused without GRPC_TLS_*, accepted with them, accepted and warned with ALLOW_PLAINTEXT_LINKS=grpc`, () => {
      const refused = problemsOf(() => load(cluster));
      expect(
        refused.filter((p) => GRPC_PROBLEM.test(p)),
        refused.join('\n'),
      ).toHaveLength(1);
      expect(refused.find((p) => GRPC_PROBLEM.test(p))).toContain('ALLOW_PLAINTEXT_LINKS=grpc');
      expect(problemsOf(() => load({ ...cluster, ...(tlsEnv(pki, service) as Env) }))).toEqual([]);
      expect(load({ ...cluster, ...(tlsEnv(pki, service) as Env) }).warnings).toEqual([]);
      const optedOut = load({ ...cluster, ALLOW_PLAINTEXT_LINKS: 'grpc' });
      expect(optedOut.warnings).toHaveLength(1);
      expect(optedOut.warnings[0]).toMatch(/plaintext grpc with .*allowed by ALLOW_PLAINTEXT_LINKS=grpc/);
      // Loopback only (one machine, a TLS sidecar) and development stay as they were.
      const loopback = Object.fromEntries(
        Object.entries(cluster).map(([k, v]) => [
          k,
          v.replace(/^0\.0\.0\.0$|^(tasks|linker|webhooks)(?=:)/, '127.0.0.1'),
        ]),
      );
      expect(problemsOf(() => load(loopback))).toEqual([]);
      expect(problemsOf(() => load({ ...cluster, NODE_ENV: 'development' }))).toEqual([]);
    });
  }

  it('the linker also refuses a plaintext MONGO_URL in production', () => {
    const env = { ...cluster, ...(tlsEnv(pki, 'linker') as Env), MONGO_URL: 'mongodb://mongo.internal:27017' };
    expect(problemsOf(() => loadLinkerConfig(env))).toEqual([
      'MONGO_URL must turn TLS on (tls=true, or mongodb+srv://) with NODE_ENV=production (plaintext mongo with mongo.internal); ALLOW_PLAINTEXT_LINKS=mongo accepts it on a network you vouch for',
    ]);
  });

  /** The built runner, as its image starts it (only the environment given). */
  const runRunner = (env: Env) => {
    const child = spawn(process.execPath, [join(root, 'services/runner/dist/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        RUNNER_GRPC_HOST: '0.0.0.0',
        RUNNER_GRPC_PORT: '0',
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exit, output: () => output };
  };

  it('a service process refuses to start (exit 1) naming the setting: plaintext gRPC, then a plaintext Kafka', async () => {
    const grpcRefused = runRunner({ ENGINES: 'memory', ALLOW_MEMORY_ADAPTERS: 'true' });
    expect(await grpcRefused.exit).toBe(1);
    expect(grpcRefused.output()).toMatch(/runner failed to start[\s\S]*GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE/);
    const kafkaRefused = runRunner({
      ...(tlsEnv(pki, 'runner') as Env),
      KAFKA_BROKERS: 'kafka.internal:9092',
      REDIS_URL: 'rediss://redis.internal:6380',
      MONGO_URL: 'mongodb://mongo.internal:27017/?tls=true',
    });
    expect(await kafkaRefused.exit).toBe(1);
    expect(kafkaRefused.output()).toContain(
      'KAFKA_TLS=true (or KAFKA_TLS_CA_FILE) is required with NODE_ENV=production',
    );
    expect(kafkaRefused.output()).not.toMatch(/REDIS_URL must|MONGO_URL must/);
  }, 30_000);

  it('with the opt-out it starts and logs the unencrypted link loudly at warn', async () => {
    const p = runRunner({ ENGINES: 'memory', ALLOW_MEMORY_ADAPTERS: 'true', ALLOW_PLAINTEXT_LINKS: 'grpc' });
    try {
      const deadline = Date.now() + 20_000;
      while (!p.output().includes('runner started')) {
        if (Date.now() > deadline || p.child.exitCode !== null) throw new Error(`not started:\n${p.output()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const line = p
        .output()
        .split('\n')
        .find((l) => l.includes('UNENCRYPTED LINK IN PRODUCTION'));
      expect(line, p.output()).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ level: 'warn', setting: 'ALLOW_PLAINTEXT_LINKS' });
      expect(line).toContain('plaintext grpc with 0.0.0.0');
    } finally {
      p.child.kill('SIGTERM');
      await p.exit;
    }
  }, 30_000);
});
