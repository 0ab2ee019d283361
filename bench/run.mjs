#!/usr/bin/env node
// `npm run bench`: the A2A HTTP benchmark in one run, as ratios to a bare Express JSON echo measured in the same
// run. Targets: the bare Express echo (bench/baseline-server.mjs), the `@a2a-js/sdk` reference server with an echo
// agent (bench/reference-server.mjs), our embedded mode, and, when REDIS_URL, KAFKA_BROKERS and MONGO_URL are set,
// the distributed mode (two gateways, two runners, tasks, webhooks and linker as separate processes on those
// engines). Cases at each concurrency: message/send (blocking, echo, a unique messageId per request), tasks/get,
// the agent card, the first SSE frame of message/stream; then the idle-SSE test (BENCH_IDLE_STREAMS idle
// streams on one gateway: its RSS and the p99 of other requests meanwhile) and the distributed echo round trip.
// Writes the tables to docs/performance.md (BENCH_OUT) between the generated-section markers.
//
// Environment (all optional):
//   BENCH_SECONDS=10        seconds per throughput case
//   BENCH_WARMUP_SECONDS=10 seconds of load at c=16 on each process before anything is recorded (the sends get
//                           this; the other cases a third of it). On a 2-core VM a fresh process needs 10-15 s of
//                           load before its numbers settle (JIT tiers, heap sizing): 2 s made every case but the
//                           last look slower than it is, by up to 2.5x for message/send.
//   BENCH_CONCURRENCY=1,16,64
//   BENCH_ROUNDS=1          rounds of the interleaved 0.3/1.0 cases (A B C, C B A each), sharing BENCH_SECONDS
//   BENCH_CASES=get,card,stream,send  which groups of cases run on our gateway
//   BENCH_TARGETS=baseline,reference,embedded,embedded-durable,distributed,distributed-mtls  (distributed only when
//     the engines are configured; embedded is STORE=memory, embedded-durable the default `npm start` on LMDB in a
//     scratch DATA_DIR; distributed-mtls: the same cluster with mutual TLS on every gRPC link, ADR 0032, send only)
//   BENCH_IDLE_STREAMS=10000  (0 skips the idle-SSE test)
//   BENCH_LOADGEN=auto|wrk|node  (auto: wrk when installed, else the built-in Node load generator)
//   BENCH_OUT=docs/performance.md  (`-` prints only)
//   BENCH_NODE_ARGS=''    extra Node flags for every server child (--cpu-prof, --trace-gc, -r a probe)
//   BENCH_STORE_OPS=1  (0: the distributed cluster without /metrics, so no store operations per send in the notes)
//   BENCH_SEND_ONLY=0  (1: the distributed targets measure message/send only, for comparing builds quickly)
// The distributed sends' notes also give the engines' CPU per send (FerretDB, PostgreSQL, Kafka, Redis: the
// processes of those names on this machine, so on shared engines others' work is in it too).
// Requires `npm run build` first (the embedded and distributed modes run the bundles in dist/).
import { spawn, execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const root = new URL('..', import.meta.url).pathname;
const env = process.env;
const seconds = Number(env.BENCH_SECONDS ?? 10);
const warmupSeconds = Number(env.BENCH_WARMUP_SECONDS ?? 10);
/** Interleaved cases: rounds of (A B C, C B A) sharing each case's BENCH_SECONDS; more rounds follow a faster drift. */
const rounds = Math.max(1, Number(env.BENCH_ROUNDS ?? 1));
const concurrencies = (env.BENCH_CONCURRENCY ?? '1,16,64').split(',').map(Number);
const idleStreams = Number(env.BENCH_IDLE_STREAMS ?? 10_000);
/** The distributed target's processes serve /metrics, read for the store operations per send (issue 23). */
const storeOpsWanted = env.BENCH_STORE_OPS !== '0';
const sendOnlyWanted = env.BENCH_SEND_ONLY === '1';
const engines = Boolean(env.REDIS_URL && env.KAFKA_BROKERS && env.MONGO_URL);
const wanted = new Set(
  (env.BENCH_TARGETS ?? 'baseline,reference,embedded,embedded-durable,distributed,distributed-mtls').split(','),
);
const out = env.BENCH_OUT ?? join(root, 'docs/performance.md');
const tmp = mkdtempSync(join(os.tmpdir(), 'a2a-bench-'));
const hasWrk = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (err) {
    return err.status === 1; // wrk --version exits 1 after printing its version
  }
})();
const loadgen = env.BENCH_LOADGEN === 'node' || (env.BENCH_LOADGEN !== 'wrk' && !hasWrk) ? 'node' : 'wrk';
const execFileAsync = promisify(execFile);
const log = (s) => process.stderr.write(`[bench] ${s}\n`);

// ---------------------------------------------------------------------------------------------- processes

const children = new Set();
/** Extra Node flags for every server child (BENCH_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`). */
const nodeArgs = (env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
function startChild(args, childEnv, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '-r', join(root, 'bench/elu-probe.cjs'), ...args], {
      env: { ...env, ...childEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let text = '';
    let done = false;
    const onData = (d) => {
      text += d.toString();
      const m = ready(text);
      if (m && !done) {
        done = true;
        resolve({ child, match: m, output: () => text });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (text += d.toString()));
    child.on('exit', (code) => {
      children.delete(child);
      if (!done) reject(new Error(`${args[0]} exited ${code}: ${text.slice(-800)}`));
    });
  });
}
async function stopChild(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** Event-loop utilisation of a child started by startChild since the previous call (bench/elu-probe.cjs). */
async function eluOf(started) {
  const seen = (started.output().match(/^ELU /gm) ?? []).length;
  started.child.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    const all = [...started.output().matchAll(/^ELU ([\d.]+)$/gm)];
    if (all.length > seen) return Number(all.at(-1)[1]);
    await sleep(20);
  }
  return undefined;
}

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};
const cpuSeconds = (pid) => {
  // utime + stime of /proc/<pid>/stat, in clock ticks (100 per second on Linux)
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};

/** An engine's processes, by name: PostgreSQL's backends come and go, so they are looked up at each reading. */
const ENGINES = [
  ['FerretDB', (comm) => comm === 'ferretdb'],
  ['PostgreSQL', (comm) => comm === 'postgres'],
  ['Kafka', (comm, cmdline) => comm === 'java' && cmdline.includes('kafka')],
  ['Redis', (comm) => comm === 'redis-server'],
];

/**
 * CPU seconds of each engine's processes so far: utime + stime + the reaped children's (a PostgreSQL backend
 * that exits is counted in its postmaster from then on). Issue 23 counts the engines in the CPU per send.
 */
function engineCpu() {
  const byEngine = new Map(ENGINES.map(([name]) => [name, 0]));
  if (!existsSync('/proc/self/stat')) return byEngine;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const cmdline = comm === 'java' ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
      const engine = ENGINES.find(([, is]) => is(comm, cmdline));
      if (!engine) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      byEngine.set(engine[0], byEngine.get(engine[0]) + ticks / 100);
    } catch {
      // the process ended meanwhile
    }
  }
  return byEngine;
}

/** One notes line: the engines' CPU per send between two `engineCpu` readings, beside the services'. */
function engineCpuLine(target, c, before, after, sends, servicesCpuSeconds) {
  const per = [...after.entries()].map(([k, v]) => [k, ((v - before.get(k)) * 1000) / sends]);
  const engines = per.reduce((s, [, v]) => s + v, 0);
  const services = (servicesCpuSeconds * 1000) / sends;
  const detail = per.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
  log(
    `${target} send c=${c}: CPU per send ${services.toFixed(1)} ms services + ${engines.toFixed(1)} ms engines (${detail})`,
  );
  return `- ${target} message/send c=${c}: **${(services + engines).toFixed(1)} ms of CPU per send** with the engines: the services ${services.toFixed(1)}, the engines ${engines.toFixed(1)} (${detail}; shared engines carry others' work too).`;
}

// ---------------------------------------------------------------------------------------------- load

let stamps = 0;
/**
 * A stamp no other load run of this bench shares: the runs on two gateways start within the same millisecond, and
 * a time alone gave both the same messageIds, so half their sends were repeats answered from the first one's task
 * (idempotency by messageId) and counted as answers.
 */
const uniqueStamp = () =>
  `${Date.now().toString(36)}${(stamps += 1).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** One case: method, path, headers, and a body (a string, or a function of a unique request number). */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function wrkRun(base, spec, connections, secs) {
  const script = join(tmp, `s${Math.random().toString(36).slice(2)}.lua`);
  const headers = Object.entries(spec.headers ?? {})
    .map(([k, v]) => `["${k}"] = "${v}"`)
    .join(', ');
  // Per-thread ids (setup) and a per-run stamp keep generated messageIds unique across threads and runs.
  const body =
    spec.body === undefined
      ? 'nil'
      : typeof spec.body === 'function'
        ? spec.body('" .. stamp .. "-" .. tid .. "-" .. counter .. "')
        : spec.body;
  writeFileSync(
    script,
    `
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
counter = 0
stamp = "${uniqueStamp()}"
request = function()
  counter = counter + 1
  local body = ${body === 'nil' ? 'nil' : `"${body}"`}
  return wrk.format("${spec.method}", "${spec.path}", { ${headers} }, body)
end
`,
  );
  const { stdout: text } = await execFileAsync(
    'wrk',
    // wrk takes whole seconds only ("-d2.5s" is a usage error): the interleaved halves of an odd BENCH_SECONDS.
    [
      `-t${Math.min(2, connections)}`,
      `-c${connections}`,
      `-d${Math.max(1, Math.round(secs))}s`,
      '--latency',
      '-s',
      script,
      base,
    ],
    { encoding: 'utf8' },
  );
  const ms = (m) => (m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : NaN);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0),
    p50: ms(/50%\s+([\d.]+)(us|ms|s)\b/.exec(text)),
    p99: ms(/99%\s+([\d.]+)(us|ms|s)\b/.exec(text)),
    errors:
      Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0) +
      [...text.matchAll(/(connect|read|write|timeout) (\d+)/g)].reduce((n, m) => n + Number(m[2]), 0),
  };
}

/** The built-in load generator: `connections` keep-alive loops, each one request at a time. */
async function nodeRun(base, spec, connections, secs) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const lat = [];
  let errors = 0;
  let n = 0;
  const stamp = uniqueStamp();
  const end = performance.now() + secs * 1000;
  const one = (body) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.request(
        { host: url.hostname, port: url.port, path: spec.path, method: spec.method, headers: spec.headers, agent },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => {
            if (res.statusCode >= 400) errors += 1;
            lat.push(performance.now() - t0);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      while (performance.now() < end) {
        n += 1;
        const body = typeof spec.body === 'function' ? spec.body(`${stamp}-${w}-${n}`) : spec.body;
        await one(body === undefined ? undefined : body.replaceAll('\\"', '"'));
        // Paced (`spec.ratePerSecond`, all loops together): the n-th request starts no earlier than its slot.
        const due = spec.ratePerSecond ? started + (n * 1000) / spec.ratePerSecond - performance.now() : 0;
        if (due > 0) await sleep(Math.min(due, Math.max(0, end - performance.now())));
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  lat.sort((a, b) => a - b);
  return { rps: lat.length / elapsed, p50: percentile(lat, 50), p99: percentile(lat, 99), errors };
}

/** The A2A 1.0 gRPC service (`lf.a2a.v1.A2AService`) from the repository's a2a.proto, loaded once. */
let a2aGrpc;
async function a2aGrpcClient(address) {
  const grpc = await import('@grpc/grpc-js');
  if (!a2aGrpc) {
    const loader = await import('@grpc/proto-loader');
    const def = await loader.load(join(root, 'proto/lf/a2a/v1/a2a.proto'), {
      includeDirs: [join(root, 'proto')],
      keepCase: false,
      enums: String,
      defaults: false,
    });
    a2aGrpc = { grpc, Service: grpc.loadPackageDefinition(def).lf.a2a.v1.A2AService };
  }
  return new a2aGrpc.Service(address, grpc.credentials.createInsecure());
}

/**
 * A gRPC case (`spec.grpc`: the RPC, a request of a unique request number, metadata): `connections` loops of
 * unary calls on one channel, as a gRPC client multiplexes them.
 */
async function grpcRun(spec, connections, secs) {
  const { address, rpc, request, metadata } = spec.grpc;
  const client = await a2aGrpcClient(address);
  const md = new a2aGrpc.grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  const lat = [];
  let errors = 0;
  let n = 0;
  const stamp = uniqueStamp();
  const end = performance.now() + secs * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      while (performance.now() < end) {
        n += 1;
        const t0 = performance.now();
        const ok = await new Promise((resolve) =>
          client[rpc](request(`${stamp}-${w}-${n}`), md, (err) => resolve(!err)),
        );
        if (ok) lat.push(performance.now() - t0);
        else errors += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  client.close();
  lat.sort((a, b) => a - b);
  return { rps: lat.length / elapsed, p50: percentile(lat, 50), p99: percentile(lat, 99), errors };
}

const runLoad = (base, spec, c, secs = seconds) =>
  spec.grpc
    ? grpcRun(spec, c, secs)
    : loadgen === 'wrk' && !spec.nodeClient
      ? wrkRun(base, spec, c, secs)
      : nodeRun(base, spec, c, secs);

/** Several gateways at once (the distributed mode): connections split between them, results combined. */
async function runLoadOn(bases, spec, c, secs = seconds) {
  if (bases.length === 1 || c < bases.length) return runLoad(bases[0], spec, c, secs);
  const parts = await Promise.all(
    bases.map((b, i) => {
      const share = Math.floor(c / bases.length) + (i < c % bases.length ? 1 : 0);
      const paced = spec.ratePerSecond ? { ...spec, ratePerSecond: (spec.ratePerSecond * share) / c } : spec;
      return runLoad(b, paced, share, secs);
    }),
  );
  const rps = parts.reduce((s, p) => s + p.rps, 0);
  return {
    rps,
    p50: parts.reduce((s, p) => s + p.p50 * p.rps, 0) / rps,
    p99: Math.max(...parts.map((p) => p.p99)),
    errors: parts.reduce((s, p) => s + p.errors, 0),
  };
}

/** Time to the first SSE frame of message/stream, `connections` loops for `secs`; each stream is read to its end. */
async function firstFrame(base, spec, connections, secs) {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const lat = [];
  let errors = 0;
  let n = 0;
  const end = performance.now() + secs * 1000;
  const one = (body) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      let first = true;
      const req = http.request(
        { host: url.hostname, port: url.port, path: spec.path, method: 'POST', headers: spec.headers, agent },
        (res) => {
          if (res.statusCode !== 200) errors += 1;
          res.on('data', (d) => {
            if (first && d.toString().includes('data:')) {
              first = false;
              lat.push(performance.now() - t0);
            }
          });
          res.on('end', resolve);
        },
      );
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      while (performance.now() < end) {
        n += 1;
        await one(spec.body(`ff-${Date.now().toString(36)}-${w}-${n}`).replaceAll('\\"', '"'));
      }
    }),
  );
  agent.destroy();
  lat.sort((a, b) => a - b);
  return { rps: lat.length / secs, p50: percentile(lat, 50), p99: percentile(lat, 99), errors };
}

async function postJson(base, path, headers, body) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return res.json();
}

// ---------------------------------------------------------------------------------------------- targets

const sendBody = (method) => (id) =>
  `{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"${method}\\",\\"params\\":{\\"message\\":{\\"role\\":\\"user\\",\\"messageId\\":\\"m-${id}\\",\\"parts\\":[{\\"kind\\":\\"text\\",\\"text\\":\\"benchmark text\\"}]}}}`;

const getBody = (taskId) =>
  `{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"tasks/get\\",\\"params\\":{\\"id\\":\\"${taskId}\\"}}`;

/** The same send in A2A 1.0 (SendMessage, member-based parts). */
const sendBodyV1 = (id) =>
  `{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"SendMessage\\",\\"params\\":{\\"message\\":{\\"role\\":\\"ROLE_USER\\",\\"messageId\\":\\"m1-${id}\\",\\"parts\\":[{\\"text\\":\\"benchmark text\\"}]}}}`;

/** The same send on the 1.0 HTTP+JSON binding (`POST {v1Path}/rest/message:send`): the SendMessageRequest alone. */
const sendBodyV1Rest = (id) =>
  `{\\"message\\":{\\"role\\":\\"ROLE_USER\\",\\"messageId\\":\\"mr-${id}\\",\\"parts\\":[{\\"text\\":\\"benchmark text\\"}]}}`;

/**
 * Cases of an A2A server: its JSON-RPC path, card path and auth header; a seeded task for tasks/get. With
 * `v1Path` (our gateway), also the A2A 1.0 send and get on the agent's 1.0 endpoints, JSON-RPC and HTTP+JSON.
 */
async function a2aCases(base, { rpcPath, cardPath, headers, v1Path, key }) {
  const seeded = await postJson(base, rpcPath, headers, {
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: { message: { role: 'user', messageId: `seed-${Date.now()}`, parts: [{ kind: 'text', text: 'x' }] } },
  });
  const taskId = seeded.result?.id;
  if (!taskId) throw new Error(`seed send failed: ${JSON.stringify(seeded).slice(0, 300)}`);
  const h = { 'Content-Type': 'application/json', ...headers };
  // The agent's gRPC interface, as its card declares it (URL and tenant).
  const card = v1Path ? await fetch(`${base}${cardPath}`).then((r) => r.json()) : undefined;
  const grpcInterface = card?.supportedInterfaces?.find((i) => i.protocolBinding === 'GRPC');
  const grpcCase = (rpc, request) => ({
    grpc: {
      address: grpcInterface.url,
      rpc,
      request,
      metadata: { authorization: `Bearer ${key}`, 'a2a-version': '1.0' },
    },
  });
  return {
    send: { method: 'POST', path: rpcPath, headers: h, body: sendBody('message/send') },
    get: { method: 'POST', path: rpcPath, headers: h, body: getBody(taskId) },
    card: { method: 'GET', path: cardPath, headers: {} },
    stream: { path: rpcPath, headers: { ...h, Accept: 'text/event-stream' }, body: sendBody('message/stream') },
    ...(v1Path
      ? {
          'send-v1': { method: 'POST', path: v1Path, headers: { ...h, 'A2A-Version': '1.0' }, body: sendBodyV1 },
          'get-v1': {
            method: 'POST',
            path: v1Path,
            headers: { ...h, 'A2A-Version': '1.0' },
            body: `{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"GetTask\\",\\"params\\":{\\"id\\":\\"${taskId}\\"}}`,
          },
          'send-v1-rest': {
            method: 'POST',
            path: `${v1Path}/rest/message:send`,
            headers: { ...h, 'A2A-Version': '1.0' },
            body: sendBodyV1Rest,
          },
          'get-v1-rest': {
            method: 'GET',
            path: `${v1Path}/rest/tasks/${taskId}`,
            headers: { ...headers, 'A2A-Version': '1.0' },
          },
        }
      : {}),
    ...(grpcInterface && key
      ? {
          'send-v1-grpc': grpcCase('sendMessage', (id) => ({
            tenant: grpcInterface.tenant,
            message: { role: 'ROLE_USER', messageId: `mg-${id}`, parts: [{ text: 'benchmark text' }] },
          })),
          'get-v1-grpc': grpcCase('getTask', () => ({ tenant: grpcInterface.tenant, id: taskId })),
          // An A/A control: the 0.3 case again in the same interleave, so the table shows how far two measurements
          // of one request drift apart in this run (the noise a 1.0/0.3 ratio is read against).
          'get-aa': { method: 'POST', path: rpcPath, headers: h, body: getBody(taskId) },
          'send-aa': { method: 'POST', path: rpcPath, headers: h, body: sendBody('message/send') },
        }
      : {}),
  };
}

/**
 * The like-for-like comparison (the primary one): the 0.3 JSON-RPC cases and the 1.0 JSON-RPC and HTTP+JSON cases
 * driven by the bench's Node loop, the client kind of the gRPC cases (wrk has no gRPC, and the same request costs
 * the server more per request from a Node loop at a third of wrk's rate than from wrk), plus an A/A control of
 * the Node-driven 0.3 case. The wrk-driven cases stay as the secondary comparison.
 */
function nodeDriven(cases) {
  if (!cases['get-v1-grpc']) return cases;
  const node = (spec) => ({ ...spec, nodeClient: true });
  return {
    ...cases,
    'get-node': node(cases.get),
    'get-node-aa': node(cases.get),
    // The same 0.3 request paced to the rate the gRPC case reached in its last slice at that concurrency: a server's
    // CPU per request depends on how often it is woken, and gRPC's client runs at a sixth to a half of the HTTP
    // loop's rate.
    'get-node-paced': { ...node(cases.get), paceOf: 'get-v1-grpc' },
    'get-v1-node': node(cases['get-v1']),
    'get-v1-rest-node': node(cases['get-v1-rest']),
    'send-node': node(cases.send),
    'send-node-aa': node(cases.send),
    'send-node-paced': { ...node(cases.send), paceOf: 'send-v1-grpc' },
    'send-v1-node': node(cases['send-v1']),
    'send-v1-rest-node': node(cases['send-v1-rest']),
  };
}

const SYSTEM_ENV = { LOG_LEVEL: 'warn', SEED_RATE_LIMIT_PER_MINUTE: '10000000', HOST: '127.0.0.1' };

/** The embedded mode in memory (STORE=memory), or durable (LMDB) on a fresh data directory. */
async function startEmbedded(durable) {
  const store = durable ? { DATA_DIR: mkdtempSync(join(tmp, 'data-')) } : { STORE: 'memory' };
  const started = await startChild(
    [join(root, 'embedded/dist/main.js')],
    { ...SYSTEM_ENV, ...store, PORT: '0' },
    (o) => {
      const port = /base URL:\s+http:\/\/[^:]+:(\d+)/.exec(o)?.[1];
      const key = /a2a key:\s+(\S+)/.exec(o)?.[1];
      return port && key ? { port, key } : undefined;
    },
  );
  const { child, match } = started;
  return {
    started,
    bases: [`http://127.0.0.1:${match.port}`],
    key: match.key,
    pid: child.pid,
    pids: [child.pid],
    // The gateway is this process (with tasks and the runners, whose work is the same for 0.3 and 1.0).
    gatewayPids: [child.pid],
    stop: () => stopChild(child),
  };
}

/** The distributed mode; `mtls`: every gRPC link on mutual TLS from a dev CA (scripts/dev-ca.mjs). */
async function startDistributed(mtls = false) {
  const { startCluster } = await import(join(root, 'scripts/cluster.mjs'));
  const namespace = `bench${Date.now().toString(36)}`;
  const cluster = await startCluster({
    namespace,
    engines: false,
    build: false,
    quiet: true,
    env: SYSTEM_ENV,
    logDir: join(tmp, mtls ? 'cluster-mtls' : 'cluster'),
    mtls,
    // Each process serves /metrics: the store operations per send, per collection, come from there.
    metrics: storeOpsWanted,
  });
  const key = cluster.credentials().a2aKey;
  const pids = [...cluster.procs.values()].map((p) => p.child.pid);
  return {
    bases: cluster.gateways,
    key,
    pid: cluster.procs.get('gateway-1').child.pid,
    pids,
    gatewayPids: [...cluster.procs.entries()]
      .filter(([name]) => name.startsWith('gateway'))
      .map(([, p]) => p.child.pid),
    ...(storeOpsWanted ? { storeOps: () => storeOperations([...cluster.metricsUrls.values()]) } : {}),
    engineCpu,
    stop: () => cluster.stopAll(),
  };
}

/**
 * `a2a_store_operations_total` of every process (each service's document-store commands), summed by
 * `collection command` (issue 23: store operations per send, per collection).
 */
async function storeOperations(urls) {
  const counts = new Map();
  for (const url of urls) {
    const text = await fetch(url)
      .then((r) => r.text())
      .catch(() => '');
    for (const line of text.split('\n')) {
      let key;
      if (line.startsWith('a2a_store_operations_total{')) {
        const collection = /collection="([^"]*)"/.exec(line)?.[1] ?? '?';
        key = `${collection} ${/command="([^"]*)"/.exec(line)?.[1] ?? '?'}`;
      } else if (line.startsWith('a2a_event_log_operations_total{')) {
        key = `${EVENT_LOG}${/command="([^"]*)"/.exec(line)?.[1] ?? '?'}`;
      } else if (line.startsWith('a2a_bus_messages_total{')) {
        key = `${BUS}${/topic="([^"]*)"/.exec(line)?.[1] ?? '?'}`;
      } else continue;
      counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
  }
  return counts;
}

/** Keys of `storeOperations` that are event-log commands and bus messages (the rest: store commands). */
const EVENT_LOG = 'event-log:';
const BUS = 'bus:';

/**
 * One notes line: the store operations, event-log commands and bus messages per send between two
 * `storeOperations` snapshots, by collection, command and topic.
 */
function storeOpsLine(target, c, before, after, sends) {
  const per = [...after.entries()]
    .map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / sends])
    .filter(([k, v]) => v >= 0.005 && !k.startsWith('ping ') && !k.endsWith(':ping')) // readiness pings are not the sends'
    .sort((a, b) => a[0].localeCompare(b[0]));
  const group = (prefix) => {
    const of = per.filter(([k]) => (prefix ? k.startsWith(prefix) : !k.startsWith(EVENT_LOG) && !k.startsWith(BUS)));
    const all = of.reduce((s, [, v]) => s + v, 0);
    return { all, detail: of.map(([k, v]) => `${k.slice(prefix.length)} ${v.toFixed(2)}`).join(', ') };
  };
  const store = group('');
  const events = group(EVENT_LOG);
  const bus = group(BUS);
  log(
    `${target} send c=${c}: ${store.all.toFixed(2)} store operations per send (${store.detail}); ` +
      `event log ${events.all.toFixed(2)} (${events.detail}); bus messages ${bus.all.toFixed(2)} (${bus.detail})`,
  );
  return (
    `- ${target} message/send c=${c}: **${store.all.toFixed(2)} store operations per send** (every process's \`a2a_store_operations_total\`, by collection and command: ${store.detail}); ` +
    `**${events.all.toFixed(2)} event-log commands** (\`a2a_event_log_operations_total\`: ${events.detail}); ` +
    `**${bus.all.toFixed(2)} bus messages** (\`a2a_bus_messages_total\`: ${bus.detail}).`
  );
}

// ---------------------------------------------------------------------------------------------- run

const rows = []; // { target, kase, c, rps, p50, p99, errors, cpuMsPerReq }
const extras = []; // lines for the notes section
const record = (target, kase, c, r, cpu, elu) => {
  rows.push({ target, kase, c, ...r, cpuMsPerReq: cpu, elu });
  log(
    `${target.padEnd(12)} ${kase.padEnd(12)} c=${String(c).padEnd(3)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}${cpu ? `  cpu ${cpu.toFixed(3)} ms/req` : ''}${elu === undefined ? '' : `  ELU ${elu.toFixed(2)}`}`,
  );
};

/** The 1.0 cases of our gateway, each beside the 0.3 case it is compared with (`npm run bench` reports the ratio). */
const V1_PAIRS = [
  // Primary, like for like: every case driven by a Node client (HTTP loop; gRPC's own client), the A/A first.
  ['get-node-aa', 'get-node'],
  ['get-v1-node', 'get-node'],
  ['get-v1-rest-node', 'get-node'],
  ['get-v1-grpc', 'get-node'],
  // gRPC against the 0.3 request at the gRPC client's rate (ADR 0074): the two transports at one load.
  ['get-v1-grpc', 'get-node-paced'],
  ['send-node-aa', 'send-node'],
  ['send-v1-node', 'send-node'],
  ['send-v1-rest-node', 'send-node'],
  ['send-v1-grpc', 'send-node'],
  ['send-v1-grpc', 'send-node-paced'],
  // Secondary: the HTTP cases driven by wrk (gRPC against wrk's 0.3 mixes two clients' loads).
  ['get-aa', 'get'],
  ['get-v1', 'get'],
  ['get-v1-rest', 'get'],
  ['get-v1-grpc', 'get'],
  ['send-aa', 'send'],
  ['send-v1', 'send'],
  ['send-v1-rest', 'send'],
  ['send-v1-grpc', 'send'],
];
// A paced case runs right after the gRPC case whose rate it takes, in either direction of a round.
const GET_INTERLEAVE = ['get-node', 'get-v1-node', 'get-v1-rest-node', 'get-v1-grpc', 'get-node-paced', 'get-node-aa'];
const SEND_INTERLEAVE = [
  'send-node',
  'send-v1-node',
  'send-v1-rest-node',
  'send-v1-grpc',
  'send-node-paced',
  'send-node-aa',
];
/** BENCH_CASES: which groups of cases run on our gateway (get, card, stream, send); all by default. */
const caseGroups = new Set((env.BENCH_CASES ?? 'get,card,stream,send').split(','));

async function measure(target, sys, cases, sendOnly = false) {
  // Warm-up, not recorded: the JIT and the caches of a fresh process would otherwise weigh on the first cases.
  // Each server path once (a Node-driven case runs the same server code as its wrk-driven one).
  const warm = [
    'send',
    'get',
    'card',
    'get-v1',
    'get-v1-rest',
    'get-v1-grpc',
    'send-v1',
    'send-v1-rest',
    'send-v1-grpc',
  ];
  for (const kase of sendOnly ? ['send'] : warm)
    if (cases[kase] && warmupSeconds > 0)
      await runLoadOn(
        sys.bases,
        cases[kase],
        16,
        // The gRPC cases run code no other case warms (grpc-js, node:http2, the protobuf codec): a third of the
        // warm-up left V8 still compiling it in the measured slices (ADR 0074).
        kase.startsWith('send') || kase.endsWith('-grpc') ? warmupSeconds : Math.ceil(warmupSeconds / 3),
      );
  // Sends last: a mode that falls behind at a high concurrency (the distributed one) keeps working off the
  // backlog for a while, which would otherwise weigh on the cases after it.
  const throughput = async (kase) => {
    for (const c of concurrencies) {
      const ops = kase === 'send' && sys.storeOps ? await sys.storeOps() : undefined;
      const enginesBefore = kase === 'send' && sys.engineCpu ? sys.engineCpu() : undefined;
      const before = sys.pids.reduce((s, p) => s + cpuSeconds(p), 0);
      if (sys.started) await eluOf(sys.started);
      const r = await runLoadOn(sys.bases, cases[kase], c);
      const elu = sys.started ? await eluOf(sys.started) : undefined;
      const cpu = sys.pids.reduce((s, p) => s + cpuSeconds(p), 0) - before;
      record(target, kase, c, r, r.rps > 0 ? (cpu * 1000) / (r.rps * seconds) : undefined, elu);
      if (enginesBefore && r.rps > 0)
        extras.push(engineCpuLine(target, c, enginesBefore, sys.engineCpu(), r.rps * seconds, cpu));
      if (ops && r.rps > 0) {
        await sleep(1000); // the sends' trailing work (webhooks, run markers)
        extras.push(storeOpsLine(target, c, ops, await sys.storeOps(), r.rps * seconds));
      }
    }
  };
  /**
   * A 0.3 case and its 1.0 counterparts, interleaved: at each concurrency every case runs half its time in the
   * order given, then half in the reverse order (A B C, C B A). The machine's speed drifts by more than the
   * difference between them, and a comparison of cases run a minute apart measured the drift.
   */
  const interleaved = async (kases) => {
    const present = kases.filter((k) => cases[k]);
    if (present.length === 1) return throughput(present[0]);
    // Whole seconds: wrk takes no fractions of them.
    const half = Math.max(1, Math.round(seconds / (2 * rounds)));
    // A paced case runs right after the case whose rate it takes, in both directions.
    const pacedAfter = (order) =>
      order
        .filter((k) => !order.includes(cases[k].paceOf))
        .flatMap((k) => [k, ...order.filter((p) => cases[p].paceOf === k)]);
    const orders = Array.from({ length: rounds }, () => [present, [...present].reverse()].map(pacedAfter)).flat();
    const gatewayPids = sys.gatewayPids ?? sys.pids;
    const gatewayCpu = () => gatewayPids.reduce((s, p) => s + cpuSeconds(p), 0);
    for (const c of concurrencies) {
      const acc = new Map(present.map((k) => [k, { n: 0, cpu: 0, p50: 0, p99: 0, errors: 0, elu: 0, parts: 0 }]));
      // Per round (A…Z then Z…A, pooled: a drift that is linear over the round weighs on every case alike): all
      // of the server's CPU, and the gateway's above its idle rate (`net`, what the 1.0/0.3 ratios compare).
      const perRound = new Map(
        present.map((k) => [k, Array.from({ length: rounds }, () => ({ n: 0, cpu: 0, net: 0 }))]),
      );
      const idleRates = [];
      const lastRate = new Map(); // a case's req/s in its last slice at this concurrency (paced cases follow it)
      for (const [o, order] of orders.entries()) {
        // The gateway's CPU with no request in flight (timers, periodic sweeps, the runtime's own work), before
        // each direction: a per-second cost that a slower client would otherwise spread over fewer requests.
        await sleep(1000);
        const idleBefore = gatewayCpu();
        const idleT0 = performance.now();
        await sleep(half * 1000);
        const idleRate = (gatewayCpu() - idleBefore) / ((performance.now() - idleT0) / 1000);
        idleRates.push(idleRate);
        for (const kase of order) {
          const ops = kase === 'send' && sys.storeOps && order === orders[0] ? await sys.storeOps() : undefined;
          const enginesBefore = kase === 'send' && sys.engineCpu && order === orders[0] ? sys.engineCpu() : undefined;
          const before = sys.pids.reduce((s, p) => s + cpuSeconds(p), 0);
          const gatewayBefore = gatewayCpu();
          const t0 = performance.now();
          if (sys.started) await eluOf(sys.started);
          const pace = cases[kase].paceOf && lastRate.get(cases[kase].paceOf);
          const r = await runLoadOn(sys.bases, pace ? { ...cases[kase], ratePerSecond: pace } : cases[kase], c, half);
          lastRate.set(kase, r.rps);
          const elu = sys.started ? await eluOf(sys.started) : undefined;
          const a = acc.get(kase);
          const cpu = sys.pids.reduce((s, p) => s + cpuSeconds(p), 0) - before;
          const wall = (performance.now() - t0) / 1000;
          a.cpu += cpu;
          const round = perRound.get(kase)[o >> 1];
          round.cpu += cpu;
          round.net += gatewayCpu() - gatewayBefore - idleRate * wall;
          round.n += r.rps * half;
          if (enginesBefore && r.rps > 0)
            extras.push(engineCpuLine(target, c, enginesBefore, sys.engineCpu(), r.rps * half, cpu));
          a.n += r.rps * half;
          a.p50 += r.p50;
          a.p99 = Math.max(a.p99, r.p99);
          a.errors += r.errors;
          a.elu += elu ?? NaN;
          a.parts += 1;
          if (ops && r.rps > 0) {
            await sleep(1000); // the sends' trailing work (webhooks, run markers)
            extras.push(storeOpsLine(target, c, ops, await sys.storeOps(), r.rps * half));
          }
        }
      }
      idle.push({
        target,
        kases: present[0],
        c,
        msPerSecond: (1000 * idleRates.reduce((x, y) => x + y, 0)) / idleRates.length,
      });
      for (const kase of present) {
        const a = acc.get(kase);
        const r = { rps: a.n / (half * a.parts), p50: a.p50 / a.parts, p99: a.p99, errors: a.errors };
        const elu = sys.started && Number.isFinite(a.elu) ? a.elu / a.parts : undefined;
        record(target, kase, c, r, a.n > 0 ? (a.cpu * 1000) / a.n : undefined, elu);
        rows.at(-1).roundCpu = perRound.get(kase).map((x) => (x.n > 0 ? (x.cpu * 1000) / x.n : NaN));
        rows.at(-1).roundNet = perRound.get(kase).map((x) => (x.n > 0 ? (x.net * 1000) / x.n : NaN));
      }
    }
  };
  if (sendOnly) return throughput('send');
  // A2A 1.0 on the same agent beside 0.3 (JSON-RPC and HTTP+JSON): `npm run bench` reports both and the ratio.
  if (caseGroups.has('get')) await interleaved([...GET_INTERLEAVE, 'get', 'get-v1', 'get-v1-rest', 'get-aa']);
  if (caseGroups.has('card')) await throughput('card');
  for (const c of concurrencies.filter((x) => x <= 16 && caseGroups.has('stream'))) {
    const r = await firstFrame(sys.bases[0], cases.stream, c, Math.max(1, seconds / 2));
    record(target, 'stream-first', c, r);
  }
  if (caseGroups.has('send')) await interleaved([...SEND_INTERLEAVE, 'send', 'send-v1', 'send-v1-rest', 'send-aa']);
  for (const [v1, v03] of V1_PAIRS)
    for (const c of concurrencies) {
      const a = rows.find((r) => r.target === target && r.kase === v1 && r.c === c);
      const b = rows.find((r) => r.target === target && r.kase === v03 && r.c === c);
      if (!a?.cpuMsPerReq || !b?.cpuMsPerReq) continue;
      const st = ratioStats(a, b);
      ratios.push({ target, v1, v03, c, ...st });
      log(
        `${target} ${v1}/${v03} c=${c}: median ${st.median.toFixed(2)}x over ${st.rounds} rounds${st.lo === undefined ? '' : `, 95% ${st.lo.toFixed(2)}-${st.hi.toFixed(2)}, min-max ${st.min.toFixed(2)}-${st.max.toFixed(2)}`}`,
      );
    }
}

/** Ratios of a 1.0 case's server CPU per request to its 0.3 case's, with their spread (`ratioTable`). */
const ratios = [];
/** The gateway's idle CPU (ms per second) measured in each interleave, by target, first case and c. */
const idle = [];

/** A seeded generator (mulberry32): the bootstrap's interval is the same for the same rounds. */
function seeded(seed) {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let x = Math.imul(t ^ (t >>> 15), t | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

const medianOf = (xs) => {
  const s = [...xs].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Per round, the ratio of `a`'s CPU per request to `b`'s (both measured in that round's A…Z Z…A); their median,
 * min–max, and a 95 % bootstrap interval of the median (rounds resampled 2,000 times). One round: no spread.
 */
function ratioStats(a, b) {
  const sum = (xs) => xs.reduce((x, y) => x + y, 0);
  // The gateway's CPU per request above its idle rate (`roundNet`); the raw one (all of it) beside it.
  const raw = a.cpuMsPerReq / b.cpuMsPerReq;
  const overall = a.roundNet ? sum(a.roundNet) / sum(b.roundNet) : raw;
  const per = (a.roundNet ?? a.roundCpu ?? []).map((x, i) => x / (b.roundNet ?? b.roundCpu)[i]).filter(Number.isFinite);
  const netMs = a.roundNet ? medianOf(a.roundNet) : undefined;
  const baseNetMs = b.roundNet ? medianOf(b.roundNet) : undefined;
  if (per.length < 2) return { overall, raw, netMs, baseNetMs, median: overall, rounds: per.length };
  const rand = seeded(per.length * 7919 + Math.round(overall * 1e6));
  const medians = Array.from({ length: 2000 }, () =>
    medianOf(Array.from({ length: per.length }, () => per[Math.floor(rand() * per.length)])),
  ).sort((p, q) => p - q);
  return {
    overall,
    raw,
    netMs,
    baseNetMs,
    median: medianOf(per),
    min: Math.min(...per),
    max: Math.max(...per),
    lo: medians[Math.floor(0.025 * medians.length)],
    hi: medians[Math.ceil(0.975 * medians.length) - 1],
    rounds: per.length,
  };
}

const bindingOf = (v1) =>
  v1.endsWith('-aa')
    ? 'A/A control (0.3 vs 0.3)'
    : v1.includes('-rest')
      ? 'HTTP+JSON'
      : v1.endsWith('grpc')
        ? 'gRPC'
        : 'JSON-RPC';

/** Which load generators drove the two cases of a ratio: Node / Node is the primary, like-for-like one. */
function clientsOf(r) {
  const wrk = loadgen === 'wrk' ? 'wrk' : 'Node';
  if (r.v03.endsWith('-node')) return 'Node / Node (primary)';
  if (r.v03.endsWith('-paced')) return "Node / Node, 0.3 at gRPC's rate";
  return `${r.v1.endsWith('grpc') ? 'Node' : wrk} / ${wrk} (secondary)`;
}

/** The 1.0/0.3 ratios with their spread, each group's A/A control first: the noise the others are read against. */
function ratioTable() {
  if (!ratios.length) return [];
  const f = (x) => (x === undefined ? '' : `${x.toFixed(2)}×`);
  const lines = [
    '',
    "The gateway process's CPU per request above its idle CPU, 1.0 / 0.3 on the same agent (interleaved rounds; the A/A control is the 0.3 case measured twice; raw: all of the server's CPU, idle included, per request):",
    '',
    '| target | operation | 1.0 binding | clients (1.0 / 0.3) | c | rounds | 1.0 / 0.3 ms per request (median round) | median ratio | 95 % bootstrap interval | min–max over rounds | pooled | raw pooled |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const ms = (x) => (x === undefined ? '' : x.toFixed(3));
  for (const r of ratios)
    lines.push(
      `| ${r.target} | ${r.v03.replace(/-node(-paced)?$/, '')} | ${bindingOf(r.v1)} | ${clientsOf(r)} | ${r.c} | ${r.rounds} | ${ms(r.netMs)} / ${ms(r.baseNetMs)} | ${f(r.median)} | ${r.lo === undefined ? '' : `${f(r.lo)}–${f(r.hi)}`} | ${r.min === undefined ? '' : `${f(r.min)}–${f(r.max)}`} | ${f(r.overall)} | ${f(r.raw)} |`,
    );
  if (idle.length)
    lines.push(
      '',
      `The gateway's idle CPU, measured before each direction of each round: ${idle.map((i) => `${i.target} ${i.kases.replace(/-node$/, '')} c=${i.c} ${i.msPerSecond.toFixed(1)} ms/s`).join('; ')}.`,
    );
  return lines;
}

async function idleSse(target, sys, cases, count) {
  const base = sys.bases[0];
  const url = new URL(base);
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${sys.key}` };
  // One long-running task (the slow demo agent, working for 10 minutes); every stream resubscribes to it.
  const started = await postJson(base, '/agents/demo-slow/a2a', headers, {
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: {
      message: {
        role: 'user',
        messageId: `idle-${Date.now()}`,
        parts: [{ kind: 'data', data: { workMs: 600_000 } }],
      },
      configuration: { blocking: false },
    },
  });
  const taskId = started.result?.id;
  if (!taskId) throw new Error(`idle-SSE seed failed: ${JSON.stringify(started).slice(0, 300)}`);
  const rssBefore = rssMb(sys.pid);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } });
  const reqs = [];
  let open = 0;
  let failed = 0;
  const t0 = performance.now();
  const openOne = () =>
    new Promise((resolve) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: '/agents/demo-slow/a2a',
          method: 'POST',
          headers: { ...headers, Accept: 'text/event-stream' },
          agent,
        },
        (res) => {
          if (res.statusCode !== 200) {
            failed += 1;
            res.resume();
            return resolve();
          }
          let first = true;
          res.on('data', () => {
            if (first) {
              first = false;
              open += 1;
              resolve();
            }
          });
          res.on('error', () => undefined);
        },
      );
      req.on('error', () => {
        failed += 1;
        resolve();
      });
      req.end(body);
      reqs.push(req);
    });
  // Opened in batches: a burst of 10,000 connects would measure the kernel's accept queue, not the gateway.
  for (let i = 0; i < count; i += 200) await Promise.all(Array.from({ length: Math.min(200, count - i) }, openOne));
  const openMs = performance.now() - t0;
  await sleep(1000);
  const rssIdle = rssMb(sys.pid);
  const r = await runLoad(base, cases.get, 16);
  const rssAfter = rssMb(sys.pid);
  for (const req of reqs) req.destroy();
  agent.destroy();
  record(target, `get+${count}sse`, 16, r);
  extras.push(
    `- ${target}: ${open} idle SSE streams open (${failed} refused) in ${(openMs / 1000).toFixed(1)} s on one gateway (a fresh process); ` +
      `RSS ${rssBefore.toFixed(0)} MB before, ${rssIdle.toFixed(0)} MB with the streams open, ${rssAfter.toFixed(0)} MB after ` +
      `${seconds} s of tasks/get at c=16 beside them: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms.`,
  );
  return { open, failed, rssIdle, ...r };
}

async function main() {
  log(`load generator: ${loadgen}; ${seconds} s per case; c = ${concurrencies.join('/')}`);
  if (wanted.has('baseline')) {
    const started = await startChild(
      [join(root, 'bench/baseline-server.mjs')],
      { PORT: '0' },
      (o) => /LISTENING (\d+)/.exec(o)?.[1],
    );
    const { child, match } = started;
    const base = `http://127.0.0.1:${match}`;
    const spec = {
      method: 'POST',
      path: '/echo',
      headers: { 'Content-Type': 'application/json' },
      body: `{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"method\\":\\"x\\",\\"params\\":{\\"message\\":{\\"role\\":\\"user\\",\\"parts\\":[{\\"kind\\":\\"text\\",\\"text\\":\\"benchmark text\\"}]}}}`,
    };
    if (warmupSeconds > 0) await runLoad(base, spec, 16, warmupSeconds); // as every other process gets
    for (const c of concurrencies) {
      const before = cpuSeconds(child.pid);
      await eluOf(started);
      const r = await runLoad(base, spec, c);
      const elu = await eluOf(started);
      record('baseline', 'echo', c, r, ((cpuSeconds(child.pid) - before) * 1000) / (r.rps * seconds), elu);
    }
    await stopChild(child);
  }
  if (wanted.has('reference')) {
    const started = await startChild(
      [join(root, 'bench/reference-server.mjs')],
      { PORT: '0' },
      (o) => /LISTENING (\d+)/.exec(o)?.[1],
    );
    const { child, match } = started;
    const base = `http://127.0.0.1:${match}`;
    const cases = await a2aCases(base, { rpcPath: '/', cardPath: '/.well-known/agent-card.json', headers: {} });
    await measure('reference', { bases: [base], pids: [child.pid], started }, cases);
    await stopChild(child);
  }
  const systems = [];
  if (wanted.has('embedded')) systems.push(['embedded', () => startEmbedded(false)]);
  if (wanted.has('embedded-durable')) systems.push(['embedded-durable', () => startEmbedded(true)]);
  if (wanted.has('distributed')) {
    if (engines) systems.push(['distributed', () => startDistributed(false)]);
    else log('distributed: skipped (set REDIS_URL, KAFKA_BROKERS and MONGO_URL)');
  }
  if (wanted.has('distributed-mtls') && engines) systems.push(['distributed-mtls', () => startDistributed(true)]);
  for (const [name, start] of systems) {
    const sys = await start();
    try {
      const auth = { Authorization: `Bearer ${sys.key}` };
      const cases = nodeDriven(
        await a2aCases(sys.bases[0], {
          rpcPath: '/agents/demo-echo/a2a',
          cardPath: '/agents/demo-echo/.well-known/agent-card.json',
          headers: auth,
          v1Path: '/agents/demo-echo/a2a/v1',
          key: sys.key,
        }),
      );
      await measure(name, sys, cases, name === 'distributed-mtls' || (sendOnlyWanted && name === 'distributed'));
      if (name === 'distributed-mtls') extras.push(...mtlsCost());
      if (name === 'distributed') {
        const rt = rows.find((r) => r.target === name && r.kase === 'send' && r.c === 1);
        if (rt)
          extras.push(
            `- distributed echo round trip (message/send, blocking, c=1): p50 ${rt.p50.toFixed(1)} ms, p99 ${rt.p99.toFixed(1)} ms.`,
          );
      }
    } finally {
      await sys.stop();
    }
    // The idle-SSE test on a fresh process: the one above holds every task the send cases stored (tens of
    // thousands in the in-memory store), which is not what 10,000 streams cost.
    if (idleStreams > 0 && name === 'embedded') {
      const fresh = await start();
      try {
        const cases = await a2aCases(fresh.bases[0], {
          rpcPath: '/agents/demo-echo/a2a',
          cardPath: '/agents/demo-echo/.well-known/agent-card.json',
          headers: { Authorization: `Bearer ${fresh.key}` },
        });
        await idleSse(name, fresh, cases, idleStreams);
      } finally {
        await fresh.stop();
      }
    }
  }
  const text = report();
  process.stdout.write(`${text}\n`);
  if (out !== '-') writeReport(out, text);
}

/** The cost of mutual TLS on the request path: distributed sends with and without it, per concurrency. */
function mtlsCost() {
  const send = (target, c) => rows.find((r) => r.target === target && r.kase === 'send' && r.c === c);
  return concurrencies.flatMap((c) => {
    const [plain, tls] = [send('distributed', c), send('distributed-mtls', c)];
    if (!plain || !tls || !plain.rps || !tls.rps) return [];
    const cpu =
      plain.cpuMsPerReq !== undefined && tls.cpuMsPerReq !== undefined
        ? `, CPU of all processes ${plain.cpuMsPerReq.toFixed(2)} → ${tls.cpuMsPerReq.toFixed(2)} ms/req`
        : '';
    return [
      `- mutual TLS on the gRPC links, distributed message/send c=${c}: ${plain.rps.toFixed(0)} → ${tls.rps.toFixed(0)} req/s (×${(tls.rps / plain.rps).toFixed(2)}), p50 ${plain.p50.toFixed(1)} → ${tls.p50.toFixed(1)} ms, p99 ${plain.p99.toFixed(1)} → ${tls.p99.toFixed(1)} ms${cpu}.`,
    ];
  });
}

/** A latency, or a dash when no request completed in the case (all timed out). */
const ms = (r, v) => (r.rps > 0 && Number.isFinite(v) ? v.toFixed(2) : '—');

function report() {
  const base = new Map(rows.filter((r) => r.target === 'baseline').map((r) => [r.c, r.rps]));
  const cpus = os.cpus();
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.hostname()}: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'CPU'}, ` +
      `${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} at the end; ` +
      `load generator ${loadgen}${loadgen === 'wrk' ? ' (-t2)' : ''}, ${seconds} s per case.`,
    '',
    '| target | case | c | req/s | × bare Express | p50 ms | p99 ms | errors | server CPU ms/req |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const ratio = base.get(r.c) && !r.kase.startsWith('stream') ? (r.rps / base.get(r.c)).toFixed(2) : '';
    lines.push(
      `| ${r.target} | ${r.kase} | ${r.c} | ${r.rps.toFixed(0)} | ${ratio} | ${ms(r, r.p50)} | ${ms(r, r.p99)} | ${r.errors} | ${r.cpuMsPerReq === undefined ? '' : r.cpuMsPerReq.toFixed(3)} |`,
    );
  }
  // Event-loop utilisation of single-process servers (bench/elu-probe.cjs): near 1 means the loop never waited.
  for (const target of [...new Set(rows.filter((r) => r.elu !== undefined).map((r) => r.target))]) {
    const parts = rows
      .filter((r) => r.target === target && r.elu !== undefined)
      .map((r) => `${r.kase} c=${r.c} ${r.elu.toFixed(2)}`);
    extras.push(`- event-loop utilisation of the ${target} process during each case: ${parts.join(', ')}.`);
  }
  // Issue 22's targets for the durable embedded mode: send CPU at most 1.5x the in-memory mode's, p99 at c=16 <= 30 ms.
  for (const r of rows.filter((x) => x.target === 'embedded-durable' && x.kase === 'send')) {
    const mem = rows.find((x) => x.target === 'embedded' && x.kase === 'send' && x.c === r.c);
    const cpu =
      mem?.cpuMsPerReq && r.cpuMsPerReq
        ? `CPU ${r.cpuMsPerReq.toFixed(3)} ms/req, ${(r.cpuMsPerReq / mem.cpuMsPerReq).toFixed(2)}x the in-memory mode's (target <= 1.5x)`
        : `CPU ${r.cpuMsPerReq?.toFixed(3) ?? '?'} ms/req`;
    extras.push(
      `- durable embedded (LMDB) message/send c=${r.c}: ${cpu}; p99 ${ms(r, r.p99)} ms${r.c === 16 ? ' (target <= 30 ms)' : ''}.`,
    );
  }
  lines.push(...ratioTable());
  if (extras.length) lines.push('', ...extras);
  return lines.join('\n');
}

const BEGIN = '<!-- bench:begin (written by `npm run bench`) -->';
const END = '<!-- bench:end -->';
function writeReport(file, text) {
  const block = `${BEGIN}\n${text}\n${END}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const i = current.indexOf(BEGIN);
  const j = current.indexOf(END);
  const next =
    i >= 0 && j > i
      ? `${current.slice(0, i)}${block}${current.slice(j + END.length)}`
      : `${current || '# Performance\n'}\n## Latest run\n\n${block}\n`;
  writeFileSync(file, next);
  // Formatted as the repository's prettier check wants it (the generated table is committed).
  const prettier = join(root, 'node_modules/prettier/bin/prettier.cjs');
  if (existsSync(prettier)) execFileSync(process.execPath, [prettier, '--write', file], { stdio: 'ignore' });
  log(`wrote ${file}`);
}

await main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exitCode = 1;
});
for (const c of children) await stopChild(c);
