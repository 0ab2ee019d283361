#!/usr/bin/env node
// The blocking echo send of each HTTP binding in ONE embedded process (STORE=memory), interleaved (issue 21: "a 1.0
// request costs no more CPU than a 0.3 one"): 0.3 JSON-RPC `message/send`, 1.0 JSON-RPC `SendMessage`, 1.0
// HTTP+JSON `POST …/rest/message:send` as the fast path takes it, and the same HTTP+JSON send spelt `/Agents/…`, which
// Express routes alike and the fast path leaves to it (the route walk the fast path skips: ADR 0067). Each case is
// warmed (COMPARE_WARMUP_SECONDS, at c=16), then COMPARE_ROUNDS rounds of COMPARE_SLICE_SECONDS slices per case at
// COMPARE_CONCURRENCY keep-alive loops, the order reversed every other round. Prints the process's CPU (utime +
// stime, every thread) per request of each case (median round) and, per round, each case over the 0.3 one.
// Usage: node bench/send-compare.mjs   (needs `npm run build`; NODE_ARGS adds flags to the server, e.g.
// `--cpu-prof --cpu-prof-dir=/tmp/p` with COMPARE_CASES naming one case, for a profile of that request alone)
import http from 'node:http';
import { startEmbeddedChild } from './get-target.mjs';

const warmup = Number(process.env.COMPARE_WARMUP_SECONDS ?? 4);
const rounds = Number(process.env.COMPARE_ROUNDS ?? 6);
const slice = Number(process.env.COMPARE_SLICE_SECONDS ?? 3);
const concurrency = Number(process.env.COMPARE_CONCURRENCY ?? 1);
const nodeArgs = (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean);

const { child, port, key, cpu } = await startEmbeddedChild(nodeArgs);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const auth = { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` };
const v1 = { ...auth, 'A2A-Version': '1.0' };
const stamp = Date.now().toString(36);
let seq = 0;
const message = () => `${stamp}-${++seq}`;
const text = 'benchmark text';
const CASES = {
  '0.3 JSON-RPC': {
    path: '/agents/demo-echo/a2a',
    headers: auth,
    body: () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { role: 'user', messageId: `m-${message()}`, parts: [{ kind: 'text', text }] } },
      }),
  },
  '1.0 JSON-RPC': {
    path: '/agents/demo-echo/a2a/v1',
    headers: v1,
    body: () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { role: 'ROLE_USER', messageId: `m1-${message()}`, parts: [{ text }] } },
      }),
  },
  '1.0 HTTP+JSON': {
    path: '/agents/demo-echo/a2a/v1/rest/message:send',
    headers: v1,
    body: () => JSON.stringify({ message: { role: 'ROLE_USER', messageId: `mr-${message()}`, parts: [{ text }] } }),
  },
  '1.0 HTTP+JSON via Express': {
    path: '/Agents/demo-echo/a2a/v1/rest/message:send',
    headers: v1,
    body: () => JSON.stringify({ message: { role: 'ROLE_USER', messageId: `me-${message()}`, parts: [{ text }] } }),
  },
};
/** COMPARE_CASES: a comma-separated subset of the cases' names (the first is the base of the ratios). */
const names = process.env.COMPARE_CASES ? process.env.COMPARE_CASES.split(',') : Object.keys(CASES);
for (const n of names) if (!CASES[n]) throw new Error(`no case ${n}; cases: ${Object.keys(CASES).join(', ')}`);

let failed = 0;
const one = (c) =>
  new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: c.path, method: 'POST', headers: c.headers, agent },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) failed += 1;
          resolve();
        });
      },
    );
    req.on('error', () => {
      failed += 1;
      resolve();
    });
    req.end(c.body());
  });
const load = async (c, secs, loops) => {
  let n = 0;
  const end = performance.now() + secs * 1000;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (performance.now() < end) {
        await one(c);
        n += 1;
      }
    }),
  );
  return n;
};

for (const n of names) await load(CASES[n], warmup, 16);
const per = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < rounds; r++) {
  for (const n of r % 2 ? [...names].reverse() : names) {
    const c0 = cpu();
    const done = await load(CASES[n], slice, concurrency);
    per[n].push({ msPerReq: ((cpu() - c0) * 1000) / done, perSecond: done / slice });
  }
}
child.kill('SIGTERM');
agent.destroy();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const base = per[names[0]];
process.stdout.write(
  `c=${concurrency}, ${rounds} rounds of ${slice} s slices, ${failed} non-200 answers; CPU ms per send (median round), req/s, and per round / the 0.3 send:\n`,
);
for (const n of names) {
  const ratios = per[n].map((x, i) => x.msPerReq / base[i].msPerReq);
  process.stdout.write(
    `${n.padEnd(26)} ${median(per[n].map((x) => x.msPerReq)).toFixed(3)} ms  ${median(per[n].map((x) => x.perSecond))
      .toFixed(0)
      .padStart(5)}/s` +
      (n === names[0]
        ? '\n'
        : `  median ${median(ratios).toFixed(2)}×  rounds ${ratios.map((x) => x.toFixed(2)).join(' ')}\n`),
  );
}
