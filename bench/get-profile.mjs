#!/usr/bin/env node
// One embedded process (STORE=memory) under `node --cpu-prof`, serving one kind of request at c=1 for
// PROFILE_SECONDS after PROFILE_WARMUP_SECONDS of the same load: `grpc` (1.0 GetTask over gRPC, grpc-js client)
// or `jsonrpc03` (0.3 tasks/get over HTTP/1.1 keep-alive, a Node loop). Prints the requests, the process's CPU per
// request (utime + stime), its CPU while idle, and the profile's self time per request by category (the gRPC and
// HTTP stacks, the gateway's A2A code, the tasks service, GC, timers outside any request). Issue 21, ADR 0071.
// `--cpu-prof` samples the main thread's wall time (waiting for a core included; V8's compiler and GC threads left
// out): for CPU, `COMPARE_PERF=1 node bench/get-compare.mjs` (ADR 0074).
// Usage: node bench/get-profile.mjs grpc|jsonrpc03 [profile dir]   (needs `npm run build`)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGetTarget } from './get-target.mjs';

const kind = process.argv[2];
const dir = process.argv[3] ?? `/tmp/get-profile-${kind}-${Date.now()}`;
const seconds = Number(process.env.PROFILE_SECONDS ?? 20);
const warmup = Number(process.env.PROFILE_WARMUP_SECONDS ?? 6);
if (kind !== 'grpc' && kind !== 'jsonrpc03') throw new Error('usage: get-profile.mjs grpc|jsonrpc03 [dir]');

const target = await startGetTarget(['--cpu-prof', `--cpu-prof-dir=${dir}`]);
const { cpu } = target;
const call = target.calls[kind];
const loop = async (secs) => {
  let n = 0;
  const end = Date.now() + secs * 1000;
  while (Date.now() < end) if (await call()) n += 1;
  return n;
};
await loop(warmup);
await sleep(1000);
const idle0 = cpu();
await sleep(5000);
const idleMsPerSecond = ((cpu() - idle0) * 1000) / 5;
const c0 = cpu();
const t0 = Date.now();
const n = await loop(seconds);
const wall = (Date.now() - t0) / 1000;
const used = cpu() - c0;
const profileStart = Date.now();
await target.stop();
console.log(
  `${kind}: ${n} requests in ${wall.toFixed(1)} s (${(n / wall).toFixed(0)}/s); process CPU ${((used * 1000) / n).toFixed(3)} ms/request; ` +
    `idle CPU ${idleMsPerSecond.toFixed(1)} ms/s; above idle ${(((used - (idleMsPerSecond / 1000) * wall) * 1000) / n).toFixed(3)} ms/request`,
);

// The profile of the whole process life (start and warm-up included): self time by category, per request of the
// measured window (an approximation: the categories' shares, not their absolute values, are what to compare).
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const prof = JSON.parse(readFileSync(join(dir, file), 'utf8'));
const byId = new Map(prof.nodes.map((x) => [x.id, x]));
const parent = new Map();
for (const x of prof.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const self = new Map();
for (let i = 0; i < prof.samples.length; i++)
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
// The bundle (embedded/dist/main.js) holds our code and grpc-js alike: only Node's own modules are told apart by URL.
const categories = [
  ['(idle)', (fs) => fs[0] === '(idle)'],
  ['(garbage collector)', (fs) => fs[0] === '(garbage collector)'],
  ['(program)', (fs) => fs[0] === '(program)'],
  [
    'timers outside a request (listOnTimeout at the root)',
    (fs) => fs.some((f) => /:listOnTimeout$|:processTimers$/.test(f)) && !fs.some((f) => /http2|_http_/.test(f)),
  ],
  ['Node http2 (node:internal/http2)', (fs) => fs.some((f) => /internal\/http2/.test(f))],
  ['Node http/1.1 (node:_http_*)', (fs) => fs.some((f) => /node:_http_/.test(f))],
  ['net / stream internals', (fs) => fs.some((f) => /node:internal\/(stream|net)|node:net/.test(f))],
  ['other (the bundle: gateway, tasks, grpc-js, express)', () => true],
];
const totals = new Map(categories.map(([k]) => [k, 0]));
for (const [id, us] of self) {
  const frames = [];
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const cf = byId.get(at).callFrame;
    frames.push(cf.url ? `${cf.url}:${cf.functionName}` : cf.functionName);
  }
  const [name] = categories.find(([, test]) => test(frames));
  totals.set(name, totals.get(name) + us);
}
const all = [...totals.values()].reduce((a, b) => a + b, 0);
for (const [k, us] of totals)
  console.log(
    `  ${k.padEnd(50)} ${(us / 1000).toFixed(0).padStart(7)} ms  ${((100 * us) / all).toFixed(1).padStart(5)} %`,
  );
console.log(`  profile: ${dir}/${file} (${((profileStart - t0) / 1000).toFixed(0)} s of it the measured window)`);
