#!/usr/bin/env node
// The distributed mode on one machine: the engines (Redis, Kafka, FerretDB) and the services as separate
// processes: tasks, webhooks, linker, two runners and two gateways. `npm run cluster` starts it in the
// foreground and stops everything cleanly on Ctrl-C / SIGTERM. Tests import startCluster() from here.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeDevPki, tlsEnv } from './dev-ca.mjs';

const root = new URL('..', import.meta.url).pathname;

/**
 * A port free now, for a child process to bind. Drawn below Linux's ephemeral range (32768–60999): a port the
 * OS hands out for `listen(0)` is also what it gives the next outgoing connection, and once CI's parallel
 * suites took one (EADDRINUSE) between this check and the child's bind.
 */
export async function freePort() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise((resolve) => {
      const s = createServer();
      s.unref();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port found between 20000 and 32000');
}

async function waitFor(check, timeoutMs, what) {
  const start = Date.now();
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      if (String(err?.message ?? '').includes('exited')) throw err;
    }
    if (Date.now() - start > timeoutMs) throw new Error(`${what} not ready within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * Starts the services. Options: namespace (isolates topics, groups, Redis keys and the database),
 * gateways, runners, gatewayPorts, logDir, env (extra environment for every process), tasksEnv, runnerEnv,
 * gatewayEnv, webhooksEnv (extra environment for those processes), engines (start them), metrics (each
 * process serves /metrics on a free port: `metricsUrls` maps process names to those URLs), mtls (mutual TLS
 * on every gRPC link, ADR 0032: `true` makes a dev CA and certificates under the log directory, a string is a
 * directory that has them (scripts/dev-ca.mjs); `pkiDir` in the result), tlsReloadMs, nodeArgs (extra Node
 * options for every service process, e.g. `['--cpu-prof', '--cpu-prof-dir=…']`: Node refuses --cpu-prof in
 * NODE_OPTIONS).
 */
/** The last `lines` lines of a log file ('' when it cannot be read). */
/** Whether the process logged, after byte `from` of its log, that it listens on `port` ("… listening" with it). */
function loggedListening(file, from, port) {
  let text = '';
  try {
    text = readFileSync(file).subarray(from).toString('utf8');
  } catch {
    return false;
  }
  return text
    .split('\n')
    .some((l) => / listening"/.test(l) && (l.includes(`:${port}"`) || l.includes(`"port":${port},`)));
}

function logTail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export async function startCluster(options = {}) {
  const namespace = options.namespace ?? '';
  const logDir = options.logDir ?? join(root, '.infra', 'cluster', namespace || 'default');
  mkdirSync(logDir, { recursive: true });
  if (options.engines !== false)
    execFileSync(join(root, 'scripts/engines/up.sh'), { stdio: options.quiet ? 'ignore' : 'inherit' });
  if (options.build !== false)
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: options.quiet ? 'ignore' : 'inherit' });
  const baseEnv = {
    ...process.env,
    NAMESPACE: namespace,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
    MONGO_URL: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017',
    ...(options.env ?? {}),
  };
  const procs = new Map();
  const metricsUrls = new Map();
  const pkiDir = options.mtls === true ? makeDevPki(join(logDir, 'pki')) : options.mtls || undefined;
  /** The process's certificate files when the cluster runs on mutual TLS. */
  const tls = (service) => (pkiDir ? tlsEnv(pkiDir, service, options.tlsReloadMs ?? 60_000) : {});
  /** With `metrics`: a free METRICS_PORT for the named process (kept across its restarts). */
  const metricsEnv = async (name) => {
    if (!options.metrics) return {};
    const port = await freePort();
    metricsUrls.set(name, `http://127.0.0.1:${port}/metrics`);
    return { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' };
  };
  const start = (name, script, env, append = false) => {
    // A new cluster starts new logs; a restarted process appends to its own.
    const out = openSync(join(logDir, `${name}.log`), append ? 'a' : 'w');
    const child = spawn(process.execPath, ['--enable-source-maps', ...(options.nodeArgs ?? []), join(root, script)], {
      env: { ...baseEnv, ...env },
      stdio: ['ignore', out, out],
    });
    const entry = { name, script, env, child, exited: false, code: null, startedAt: Date.now(), exitedAt: undefined };
    child.on('exit', (code, signal) => {
      entry.exited = true;
      entry.code = code ?? signal;
      entry.exitedAt = Date.now();
    });
    procs.set(name, entry);
    return entry;
  };
  const tasksPort = options.tasksPort ?? (await freePort());
  const tasksAddress = `127.0.0.1:${tasksPort}`;
  // The gateways' credential towards the linker (ADR 0012): one per cluster unless configured.
  const linkerServiceToken = baseEnv.LINKER_SERVICE_TOKEN || randomBytes(32).toString('base64url');
  const tasks = start('tasks', 'services/tasks/dist/main.js', {
    ...(await metricsEnv('tasks')),
    ...tls('tasks'),
    TASKS_GRPC_PORT: String(tasksPort),
    ...(options.tasksEnv ?? {}),
  });
  // The tasks service seeds the demo data; wait for its gRPC port before the others connect.
  await waitFor(
    async () => {
      if (tasks.exited)
        throw new Error(`tasks exited (${tasks.code}): ${readFileSync(join(logDir, 'tasks.log'), 'utf8').slice(-800)}`);
      return portOpen(tasksPort);
    },
    120_000,
    'tasks',
  ).catch((err) => {
    if (!tasks.exited) tasks.child.kill('SIGKILL'); // not ready in time: a failed start leaks no process
    throw err;
  });
  /**
   * Starts a process that listens on `port` (and more ports) drawn by `make(attempt)`, and waits for `ready`. A
   * port taken between the draw and the child's bind (EADDRINUSE: a parallel suite's process, CI 2026-11-28) is
   * drawn again. That other process answers on the port at once, so `ready` alone would count it: the child
   * must also have logged that it listens there (its "<name> listening" line, at LOG_LEVEL info or below).
   */
  const startListening = async (name, script, make) => {
    for (let attempt = 1; ; attempt++) {
      const { env, ready, port } = await make(attempt);
      const logFrom =
        attempt > 1 && existsSync(join(logDir, `${name}.log`)) ? statSync(join(logDir, `${name}.log`)).size : 0;
      const entry = start(name, script, env, attempt > 1);
      const logsInfo = ['trace', 'debug', 'info'].includes(String({ ...baseEnv, ...env }.LOG_LEVEL));
      const listens = () => !logsInfo || loggedListening(join(logDir, `${name}.log`), logFrom, port);
      try {
        await waitFor(
          async () => {
            if (entry.exited) throw new Error(`${name} exited (${entry.code})`);
            return listens() && (await ready());
          },
          120_000,
          name,
        );
        return;
      } catch (err) {
        const inUse =
          entry.exited &&
          readFileSync(join(logDir, `${name}.log`))
            .subarray(logFrom)
            .toString('utf8')
            .includes('EADDRINUSE');
        if (!inUse || attempt >= 3) throw err;
      }
    }
  };
  let webhooksPort = 0;
  let linkerPort = 0;
  const gateways = [];
  try {
    await Promise.all([
      startListening('webhooks', 'services/webhooks/dist/main.js', async () => {
        webhooksPort = await freePort();
        return {
          env: {
            ...(await metricsEnv('webhooks')),
            ...tls('webhooks'),
            // Known to the gateways: they read the push delivery log from it.
            WEBHOOKS_GRPC_PORT: String(webhooksPort),
            TASKS_GRPC_ADDR: tasksAddress,
            ...(options.webhooksEnv ?? {}),
          },
          ready: () => portOpen(webhooksPort),
          port: webhooksPort,
        };
      }),
      existsSync(join(root, 'services/linker/dist/main.js')) &&
        startListening('linker', 'services/linker/dist/main.js', async () => {
          linkerPort = await freePort();
          return {
            env: {
              ...(await metricsEnv('linker')),
              ...tls('linker'),
              LINKER_GRPC_PORT: String(linkerPort),
              LINKER_GRPC_HOST: '127.0.0.1',
              LINKER_SERVICE_TOKEN: linkerServiceToken,
              STORE: 'mongo',
              MONGO_DB: `${baseEnv.MONGO_DB ?? 'a2a_inbound'}${namespace ? `_${namespace}` : ''}`,
            },
            ready: () => portOpen(linkerPort),
            port: linkerPort,
          };
        }),
    ]);
    for (let i = 0; i < (options.runners ?? 2); i++)
      start(`runner-${i + 1}`, 'services/runner/dist/main.js', {
        ...(await metricsEnv(`runner-${i + 1}`)),
        ...tls('runner'),
        RUNNER_GRPC_PORT: '0',
        RUNNER_INSTANCE_ID: `runner-${i + 1}-${namespace || 'default'}`,
        ...(options.runnerEnv ?? {}),
      });
    const gatewayPorts = options.gatewayPorts ?? [];
    await Promise.all(
      Array.from({ length: options.gateways ?? 2 }, async (_, i) => {
        let url = '';
        await startListening(`gateway-${i + 1}`, 'services/gateway/dist/main.js', async () => {
          const port = gatewayPorts[i] ?? (await freePort());
          url = `http://127.0.0.1:${port}`;
          return {
            env: {
              ...(await metricsEnv(`gateway-${i + 1}`)),
              ...tls('gateway'),
              PORT: String(port),
              // Each gateway's A2A 1.0 gRPC service (its cards give the address).
              A2A_GRPC_PORT: String(await freePort()),
              HOST: '127.0.0.1',
              TASKS_GRPC_ADDR: tasksAddress,
              LINKER_GRPC_ADDR: `127.0.0.1:${linkerPort}`,
              LINKER_SERVICE_TOKEN: linkerServiceToken,
              WEBHOOKS_GRPC_ADDR: `127.0.0.1:${webhooksPort}`,
              ...(options.gatewayEnv ?? {}),
            },
            ready: async () => (await fetch(`${url}/readyz`)).ok,
            port,
          };
        });
        gateways[i] = url;
      }),
    );
  } catch (err) {
    // Stop the others (a failed start leaks no process) and say why: the log may be gone with the CI machine.
    for (const p of procs.values()) if (!p.exited) p.child.kill('SIGKILL');
    const dead = [...procs.values()].filter((p) => p.exited);
    throw new Error(`${err instanceof Error ? err.message : String(err)}${describeDead(dead)}`);
  }
  const dead = [...procs.values()].filter((p) => p.exited);
  if (dead.length) {
    for (const p of procs.values()) if (!p.exited) p.child.kill('SIGKILL');
    throw new Error(`processes exited during start-up:${describeDead(dead)}`);
  }
  /** Each dead process, where its log is, and the log's last lines (the log may be gone with the CI machine). */
  function describeDead(dead) {
    return dead
      .map(
        (d) =>
          `\n${d.name} (${d.code}), see ${logDir}/${d.name}.log; its last lines:\n${logTail(join(logDir, `${d.name}.log`))}`,
      )
      .join('');
  }
  const stopOne = async (entry, signal = 'SIGTERM', timeoutMs = 20_000) => {
    if (entry.exited) return;
    entry.child.kill(signal);
    const started = Date.now();
    while (!entry.exited && Date.now() - started < timeoutMs) await sleep(50);
    if (!entry.exited) entry.child.kill('SIGKILL');
    while (!entry.exited) await sleep(20);
  };
  return {
    gateways,
    tasksAddress,
    webhooksAddress: `127.0.0.1:${webhooksPort}`,
    linkerAddress: `127.0.0.1:${linkerPort}`,
    linkerServiceToken,
    pkiDir,
    logDir,
    procs,
    metricsUrls,
    credentials() {
      const text = readFileSync(join(logDir, 'tasks.log'), 'utf8');
      const m = (label) => new RegExp(`${label}:\\s+(\\S+)`).exec(text)?.[1];
      return {
        a2aKey: m('a2a key'),
        invokeKey: m('invoke key'),
        adminToken: m('admin token'),
        operatorToken: m('operator token'),
      };
    },
    /** Kills a process hard (SIGKILL), as a crash would. */
    async kill(name) {
      await stopOne(procs.get(name), 'SIGKILL');
    },
    async stop(name) {
      await stopOne(procs.get(name));
    },
    /** Starts a stopped process again with its original environment. */
    async restart(name) {
      const old = procs.get(name);
      await stopOne(old);
      return start(name, old.script, old.env, true);
    },
    async stopAll() {
      // Reverse order: gateways first (readiness flips, streams end), then runners (drain), then the rest.
      const order = [...procs.values()].reverse();
      for (const p of order.filter((x) => x.name.startsWith('gateway'))) await stopOne(p);
      await Promise.all(order.filter((x) => x.name.startsWith('runner')).map((p) => stopOne(p)));
      for (const p of order.filter((x) => !x.name.startsWith('gateway') && !x.name.startsWith('runner')))
        await stopOne(p);
    },
  };
}

function portOpen(port) {
  return new Promise((resolve) => {
    import('node:net').then(({ connect }) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
  });
}

const ENGINES = ['redis', 'kafka', 'ferretdb'];
const engineRunning = (e) => {
  try {
    execFileSync(join(root, 'scripts/engines', `${e}.sh`), ['status'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  // The engines this command starts, it stops on exit (those already running are left running).
  const enginesBefore = ENGINES.filter(engineRunning);
  const cluster = await startCluster({
    gatewayPorts: [Number(process.env.PORT ?? 8080), Number(process.env.PORT2 ?? 8081)],
    namespace: process.env.NAMESPACE ?? '',
    // Mutual TLS between the services, from a dev CA made for this run (CLUSTER_MTLS=0: plaintext as before).
    mtls: process.env.CLUSTER_MTLS !== '0',
  });
  const creds = cluster.credentials();
  const lines = [
    '',
    `a2a-inbound cluster is up in ${((Date.now() - started) / 1000).toFixed(1)} s (distributed mode: Kafka, FerretDB/MongoDB, Redis)`,
    `  gateways:  ${cluster.gateways.join('  ')}`,
    `  tasks gRPC: ${cluster.tasksAddress}${cluster.pkiDir ? ` (mutual TLS; CA and certificates in ${cluster.pkiDir})` : ''}`,
    `  processes: ${[...cluster.procs.keys()].join(', ')}`,
    `  logs:      ${cluster.logDir}`,
    `  card:      ${cluster.gateways[0]}/agents/demo-echo/.well-known/agent-card.json`,
  ];
  if (creds.a2aKey)
    lines.push(
      `  a2a key:   ${creds.a2aKey} (created now; shown once)`,
      `  invoke key: ${creds.invokeKey}`,
      `  admin token: ${creds.adminToken}`,
      `  operator token: ${creds.operatorToken}`,
    );
  else
    lines.push(
      '  demo data existed already: use the credentials printed when it was created (or create a key with the management API)',
    );
  const ownEngines = ENGINES.filter((e) => !enginesBefore.includes(e));
  lines.push(
    ownEngines.length > 0
      ? `  Ctrl-C stops every service and the engines this command started (${ownEngines.join(', ')}).`
      : '  Ctrl-C stops every service (the engines were already running and keep running).',
    '',
  );
  process.stdout.write(lines.join('\n'));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('stopping services…\n');
    await cluster.stopAll();
    process.stdout.write('all services stopped\n');
    if (ownEngines.length > 0 && process.env.KEEP_ENGINES !== '1') {
      execFileSync(join(root, 'scripts/engines/down.sh'), ownEngines, { stdio: 'inherit' });
      process.stdout.write(`engines stopped: ${ownEngines.join(', ')}\n`);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  setInterval(() => {
    for (const p of cluster.procs.values())
      if (p.exited && !stopping)
        process.stdout.write(`process ${p.name} exited (${p.code}); see ${cluster.logDir}/${p.name}.log\n`);
  }, 5000).unref();
  await new Promise(() => undefined);
}
