// What the images copy (Dockerfile: `scripts/pack-service.mjs` into an empty directory), proven without
// building images: each service is packed into its own empty directory, started there with only `node` and
// an environment (no repository, no dev dependencies, no inherited variables), reports ready, serves an A2A
// request end to end on the real engines, answers gRPC reflection, and exits 0 on SIGTERM.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Metadata, credentials } from '@grpc/grpc-js';
import { healthV1 } from '@a2a-inbound/proto';
import { reflectedServices } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const engines = {
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '',
  MONGO_URL: process.env.MONGO_URL ?? '',
  REDIS_URL: process.env.REDIS_URL ?? '',
};
const enginesSet = Boolean(engines.KAFKA_BROKERS && engines.MONGO_URL && engines.REDIS_URL);
const SERVICES = ['tasks', 'runner', 'webhooks', 'linker', 'gateway'] as const;
type Service = (typeof SERVICES)[number];

interface Packed {
  dir: string;
  proc?: ChildProcess;
  output: string;
  exit?: Promise<number | null>;
}

/** A port for a child to bind, below the ephemeral range (scripts/cluster.mjs says why). */
async function freePort(): Promise<number> {
  const { freePort: draw } = (await import('../../scripts/cluster.mjs')) as { freePort: () => Promise<number> };
  return draw();
}

async function waitFor(what: string, check: () => Promise<boolean>, packed: Packed, timeoutMs = 90_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() - start > timeoutMs) throw new Error(`${what} not ready within ${timeoutMs} ms:\n${packed.output}`);
    if (packed.proc?.exitCode !== null && packed.proc?.exitCode !== undefined)
      throw new Error(`${what} exited with ${packed.proc.exitCode}:\n${packed.output}`);
    await sleep(200);
  }
}

function grpcServing(address: string): Promise<boolean> {
  const client = new healthV1.HealthClient(address, credentials.createInsecure());
  return new Promise<boolean>((resolve) => {
    client.check({ service: '' }, new Metadata(), { deadline: Date.now() + 2_000 }, (err, res) => {
      client.close();
      resolve(!err && res?.status === healthV1.HealthCheckResponse_ServingStatus.SERVING);
    });
  });
}

function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}

// Needs the real engines (each packed service connects to Kafka, MongoDB and Redis by environment): it runs
// in `npm test` and CI, which start them, and is skipped only under `SKIP_ENGINES=1` (no engine to connect to).
describe.skipIf(!enginesSet)('each service from its bundle and production dependencies in an empty directory', () => {
  const packed = new Map<Service, Packed>();
  const namespace = `img${randomBytes(4).toString('hex')}`;
  const linkerToken = randomBytes(32).toString('base64url');
  const ports = new Map<Service, number>();
  const metricsPorts = new Map<Service, number>();
  let key = '';
  let gatewayBase = '';

  beforeAll(async () => {
    if (!existsSync(join(root, 'services/gateway/dist/main.js')))
      execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
    for (const s of SERVICES) {
      const dir = mkdtempSync(join(tmpdir(), `a2a-image-${s}-`));
      execFileSync(process.execPath, [join(root, 'scripts/pack-service.mjs'), s, dir], { stdio: 'ignore' });
      packed.set(s, { dir, output: '' });
      ports.set(s, await freePort());
      metricsPorts.set(s, await freePort());
    }
  }, 120_000);

  afterAll(async () => {
    for (const p of packed.values()) {
      if (p.proc && p.proc.exitCode === null) {
        p.proc.kill('SIGKILL');
        await p.exit;
      }
      rmSync(p.dir, { recursive: true, force: true });
    }
  });

  const start = (s: Service, env: Record<string, string>): Packed => {
    const p = packed.get(s)!;
    // Only what an image's environment would hold: no variable of this process leaks in (PATH for `git`).
    const proc = spawn(process.execPath, [`services/${s}/dist/main.js`], {
      cwd: p.dir,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        NODE_ENV: 'production',
        ENGINES: 'real',
        NAMESPACE: namespace,
        LOG_LEVEL: 'info',
        METRICS_PORT: String(metricsPorts.get(s)),
        ...engines,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    p.proc = proc;
    proc.stdout.on('data', (d: Buffer) => (p.output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (p.output += d.toString()));
    p.exit = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    return p;
  };

  it('copies only the bundle and production packages', () => {
    for (const [s, p] of packed) {
      const files = listFiles(p.dir);
      expect(files).toContain(join('services', s, 'dist', 'main.js'));
      const outside = files.filter(
        (f) => !f.startsWith(`services/${s}/`) && !f.startsWith('node_modules/') && f !== 'package.json',
      );
      expect(outside, s).toEqual([]);
      // Not a source file of the repository, nor a development tool.
      expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f.startsWith('services/'))).toEqual([]);
      for (const dev of [
        'vitest',
        'typescript',
        'esbuild',
        'eslint',
        'prettier',
        'ts-proto',
        '@bufbuild/buf',
        '@a2a-inbound',
      ])
        expect(existsSync(join(p.dir, 'node_modules', dev)), `${s} has ${dev}`).toBe(false);
    }
    expect(existsSync(join(packed.get('linker')!.dir, 'node_modules/tree-sitter-go/tree-sitter-go.wasm'))).toBe(true);
  });

  it('starts each one configured by environment until it reports ready, and serves A2A end to end', async () => {
    const tasks = start('tasks', {
      TASKS_GRPC_HOST: '127.0.0.1',
      TASKS_GRPC_PORT: String(ports.get('tasks')),
      SEED_DEMO: 'true',
      // Low enough for the metrics test to meet the rate limit.
      SEED_RATE_LIMIT_PER_MINUTE: '20',
      BOOTSTRAP_SUBSCRIPTION_CREDITS: '1000',
    });
    const tasksAddr = `127.0.0.1:${ports.get('tasks')}`;
    await waitFor('tasks', () => grpcServing(tasksAddr), tasks);
    const grpcEnv = (s: 'runner' | 'webhooks' | 'linker'): Record<string, string> => ({
      [`${s.toUpperCase()}_GRPC_HOST`]: '127.0.0.1',
      [`${s.toUpperCase()}_GRPC_PORT`]: String(ports.get(s)),
    });
    start('runner', grpcEnv('runner'));
    start('webhooks', { ...grpcEnv('webhooks'), TASKS_GRPC_ADDR: tasksAddr });
    start('linker', {
      ...grpcEnv('linker'),
      STORE: 'mongo',
      MONGO_DB: `a2a_inbound_${namespace}`,
      LINKER_SERVICE_TOKEN: linkerToken,
    });
    for (const s of ['runner', 'webhooks', 'linker'] as const)
      await waitFor(s, () => grpcServing(`127.0.0.1:${ports.get(s)}`), packed.get(s)!);
    const gateway = start('gateway', {
      HOST: '127.0.0.1',
      PORT: String(ports.get('gateway')),
      TASKS_GRPC_ADDR: tasksAddr,
      LINKER_GRPC_ADDR: `127.0.0.1:${ports.get('linker')}`,
      LINKER_SERVICE_TOKEN: linkerToken,
      WEBHOOKS_GRPC_ADDR: `127.0.0.1:${ports.get('webhooks')}`,
    });
    const base = `http://127.0.0.1:${ports.get('gateway')}`;
    await waitFor('gateway', async () => (await fetch(`${base}/readyz`)).ok, gateway);

    key = /a2a key:\s+(\S+)/.exec(tasks.output)?.[1] ?? '';
    expect(key, tasks.output).toBeTruthy();
    gatewayBase = base;
    const res = await fetch(`${base}/agents/demo-echo/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: { role: 'user', messageId: `m-${namespace}`, parts: [{ kind: 'text', text: 'from the image' }] },
          configuration: { blocking: true },
        },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result?: { kind: string; status: { state: string }; artifacts?: unknown[] } };
    expect(body.result?.kind, JSON.stringify(body)).toBe('task');
    expect(body.result?.status.state, JSON.stringify(body)).toBe('completed');
    expect(JSON.stringify(body.result?.artifacts)).toContain('from the image');
  }, 240_000);

  it('answers gRPC server reflection on each gRPC port with its services (what grpcurl lists)', async () => {
    const expected: Record<'tasks' | 'runner' | 'webhooks' | 'linker', string[]> = {
      tasks: [
        'a2a_inbound.control.v1.ControlPlaneService',
        'a2a_inbound.tasks.v1.TasksService',
        'grpc.health.v1.Health',
      ],
      runner: ['grpc.health.v1.Health'],
      webhooks: ['a2a_inbound.webhooks.v1.WebhooksService', 'grpc.health.v1.Health'],
      linker: ['a2a_inbound.linker.v1.LinkerService', 'grpc.health.v1.Health'],
    };
    for (const [s, services] of Object.entries(expected))
      expect(await reflectedServices(`127.0.0.1:${ports.get(s as Service)}`), s).toEqual(services);
  });

  it('exposes OpenTelemetry metrics for Prometheus on each service, with the traffic it saw', async () => {
    const rpc = (method: string, params: unknown): Promise<Response> =>
      fetch(`${gatewayBase}/agents/demo-echo/a2a`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }),
      });
    const notFound = (await (await rpc('tasks/get', { id: 'no-such-task' })).json()) as { error?: { code: number } };
    expect(notFound.error?.code).toBe(-32001);
    let limited = 0;
    for (let i = 0; i < 40 && limited === 0; i++)
      if ((await rpc('tasks/get', { id: 'no-such-task' })).status === 429) limited++;
    expect(limited).toBe(1);

    const scrape = async (s: Service): Promise<string> => {
      const res = await fetch(`http://127.0.0.1:${metricsPorts.get(s)}/metrics`);
      expect(res.status, s).toBe(200);
      return res.text();
    };
    const value = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
      for (const line of text.split('\n')) {
        if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
        if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
          return Number(line.split(' ').at(-1));
      }
      return undefined;
    };
    const gw = await scrape('gateway');
    expect(value(gw, 'a2a_requests_total', { method: 'message/send', agent: 'demo-echo', outcome: 'ok' }), gw).toBe(1);
    expect(
      value(gw, 'a2a_requests_total', { method: 'tasks/get', agent: 'demo-echo', outcome: 'task_not_found' }),
      gw,
    ).toBeGreaterThanOrEqual(2);
    expect(value(gw, 'a2a_rate_limit_refusals_total', { agent: 'demo-echo' }), gw).toBe(1);
    expect(value(gw, 'a2a_request_duration_seconds_count', { method: 'message/send', outcome: 'ok' }), gw).toBe(1);
    const sendSeconds = value(gw, 'a2a_request_duration_seconds_sum', { method: 'message/send', outcome: 'ok' })!;
    expect(sendSeconds).toBeGreaterThan(0);
    expect(sendSeconds).toBeLessThan(60);
    expect(value(gw, 'a2a_sse_streams_open'), gw).toBe(0);
    // The runner consumed the run request, tasks the runner's events: consumer groups with a lag each.
    for (const s of ['tasks', 'runner', 'webhooks'] as const) {
      const text = await scrape(s);
      const lags = text.split('\n').filter((l) => l.startsWith('a2a_bus_consumer_lag{'));
      expect(lags.length, `${s}:\n${text}`).toBeGreaterThan(0);
      for (const l of lags) {
        expect(l).toContain(namespace);
        const lag = Number(l.split(' ').at(-1));
        expect(lag).toBeGreaterThanOrEqual(0);
        expect(lag).toBeLessThan(1000);
      }
    }
    for (const s of SERVICES) {
      const text = await scrape(s);
      expect(value(text, 'process_uptime_seconds', { service: `a2a-inbound-${s}` }), s).toBeGreaterThan(0);
    }
    const missing = await fetch(`http://127.0.0.1:${metricsPorts.get('tasks')}/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'not found: metrics are at GET /metrics' });
  }, 60_000);

  it('stops each one on SIGTERM with exit code 0 (signals reach Node)', async () => {
    for (const s of ['gateway', 'linker', 'webhooks', 'runner', 'tasks'] as const) {
      const p = packed.get(s)!;
      expect(p.proc?.exitCode, `${s} exited early:\n${p.output}`).toBeNull();
      p.proc!.kill('SIGTERM');
      expect(await p.exit, `${s}:\n${p.output}`).toBe(0);
    }
  }, 120_000);
});
