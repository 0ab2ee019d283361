#!/usr/bin/env node
// 1.0 gRPC `GetTask` against 0.3 JSON-RPC `tasks/get` at c=1 in ONE embedded process (STORE=memory): both paths
// warmed first (COMPARE_WARMUP_SECONDS each, half at c=16, half at c=1, so that the JIT is done with both), then
// COMPARE_ROUNDS rounds of COMPARE_SLICE_SECONDS slices (gRPC, 0.3 paced, 0.3; then 0.3, gRPC, 0.3 paced): gRPC
// at its client's own rate (grpc-js, one call at a time, as `npm run bench` drives it), 0.3 at its client's own
// rate (a Node HTTP/1.1 keep-alive loop), and 0.3 paced to the rate the gRPC client reached in its last slice.
// Prints the process's CPU (utime + stime, every thread) per request of each slice and the gRPC/0.3 ratios per
// round: a server's CPU per request depends on how often it is woken, and the gRPC client runs at a sixth to a half
// of the HTTP loop's rate, so the free-running pair compares two loads, the paced pair two transports. Issue 21.
// With COMPARE_PERF=1 (needs Linux `perf`), one more slice of each (gRPC free, 0.3 at its rate; COMPARE_PERF_SECONDS,
// 10) runs under `perf record` of the server, split by `bench/perf-split.mjs` (HTTP/2, grpc-js, HTTP/1.1, ours...).
// Usage: node bench/get-compare.mjs   (needs `npm run build`; NODE_ARGS adds flags to the server)
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startGetTarget } from './get-target.mjs';
import { perfSplit, perfSplitLines } from './perf-split.mjs';

const warmup = Number(process.env.COMPARE_WARMUP_SECONDS ?? 15);
const rounds = Number(process.env.COMPARE_ROUNDS ?? 4);
const slice = Number(process.env.COMPARE_SLICE_SECONDS ?? 4);
const perf = process.env.COMPARE_PERF === '1';
const perfSeconds = Number(process.env.COMPARE_PERF_SECONDS ?? 10);
const nodeArgs = (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean);
// perf names JIT-compiled (and, with the second flag, interpreted) JavaScript frames from /tmp/perf-<pid>.map.
if (perf) nodeArgs.push('--perf-basic-prof', '--interpreted-frames-native-stack');
// Without perf (or allowed to record), say so before the server starts rather than fail after the rounds.
if (perf)
  await promisify(execFile)('perf', ['--version']).catch((err) => {
    throw new Error(`COMPARE_PERF=1 needs Linux perf on the PATH (${err.code ?? err.message})`);
  });
const target = await startGetTarget(nodeArgs);
const { cpu, calls } = target;

/** `concurrency` loops for `secs`; paced to `perSecond` in all when given. Returns the successful requests. */
const load = async (call, secs, concurrency = 1, perSecond = 0) => {
  let n = 0;
  const start = performance.now();
  const end = start + secs * 1000;
  const one = async () => {
    while (performance.now() < end) {
      if (await call()) n += 1;
      if (perSecond) {
        const due = start + (n * 1000) / perSecond - performance.now();
        if (due > 0) await sleep(due);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
  return n;
};
const measured = async (kind, perSecond, secs = slice) => {
  const c0 = cpu();
  const t0 = performance.now();
  const n = await load(calls[kind], secs, 1, perSecond);
  return { n, cpuMs: (cpu() - c0) * 1000, seconds: (performance.now() - t0) / 1000 };
};
let grpcRate = 0; // the gRPC client's rate in its last slice: what the paced 0.3 slice runs at
const slices = {
  grpc: async (secs) => {
    const r = await measured('grpc', 0, secs);
    grpcRate = r.n / r.seconds;
    return r;
  },
  jsonrpc03: (secs) => measured('jsonrpc03', 0, secs),
  paced: (secs) => measured('jsonrpc03', grpcRate, secs),
};

const results = [];
const splits = [];
// The server is stopped whatever fails (perf included): it would outlive this script otherwise.
try {
  for (const kind of ['grpc', 'jsonrpc03']) await load(calls[kind], warmup / 2, 16);
  for (const kind of ['grpc', 'jsonrpc03']) await load(calls[kind], warmup / 2, 1);

  for (let r = 0; r < rounds; r++) {
    const row = {};
    for (const kind of r % 2 ? ['jsonrpc03', 'grpc', 'paced'] : ['grpc', 'paced', 'jsonrpc03'])
      row[kind] = await slices[kind](slice);
    results.push(row);
  }
  if (perf) {
    const dir = mkdtempSync(join(tmpdir(), 'get-compare-'));
    for (const kind of ['grpc', 'paced']) {
      const data = join(dir, `${kind}.data`);
      const record = promisify(execFile)('perf', [
        'record',
        '-e',
        'cpu-clock',
        '-F',
        '2000',
        '-g',
        '-p',
        String(target.pid),
        '-o',
        data,
        '--',
        'sleep',
        String(perfSeconds),
      ]);
      // Awaited together: a perf that fails (not allowed to record) rejects here, not as an unhandled rejection.
      const [{ n }] = await Promise.all([slices[kind](perfSeconds + 1), record]);
      const { stdout } = await promisify(execFile)('perf', ['script', '-i', data], { maxBuffer: 1 << 30 });
      writeFileSync(join(dir, `${kind}.txt`), stdout);
      // The requests of the recorded seconds (the loop ran one second longer than perf, at a steady rate).
      splits.push([kind, perfSplitLines(perfSplit(stdout, 500), Math.round((n * perfSeconds) / (perfSeconds + 1)))]);
    }
    splits.push(['files', [`perf data and scripts: ${dir}`]]);
  }
} finally {
  await target.stop();
}

const perReq = (s) => s.cpuMs / s.n;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(
  `gRPC GetTask vs 0.3 tasks/get, c=1, one process, ${rounds} rounds of ${slice} s slices (load average ${load1})`,
);
const cell = (s) => `${perReq(s).toFixed(3)}@${(s.n / s.seconds).toFixed(0)}/s`;
console.log('  server CPU ms/request @ requests/s, per round: gRPC | 0.3 | 0.3 at the gRPC rate');
for (const row of results) console.log(`    ${cell(row.grpc)} | ${cell(row.jsonrpc03)} | ${cell(row.paced)}`);
for (const [label, kind] of [
  ["0.3 at its client's own rate", 'jsonrpc03'],
  ["0.3 at the gRPC client's rate", 'paced'],
]) {
  const ratios = results.map((row) => perReq(row.grpc) / perReq(row[kind]));
  console.log(
    `  gRPC / ${label}: median ${median(ratios).toFixed(2)}x (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`,
  );
}
for (const [kind, lines] of splits) {
  const label = kind === 'grpc' ? 'gRPC GetTask' : `0.3 tasks/get at the gRPC rate (${grpcRate.toFixed(0)}/s)`;
  console.log(kind === 'files' ? lines[0] : `perf split, ${label}:`);
  if (kind !== 'files') for (const l of lines) console.log(`  ${l}`);
}
