#!/usr/bin/env node
// Throughput and latency of the A2A endpoint (embedded mode), as ratios against a bare Express JSON echo
// measured in the same run, with wrk as a separate process (apt-get install -y wrk).
//   npm run build && node bench/a2a-http.mjs [seconds=10] [connections=16]
// Cases: message/send to the echo agent (unique messageIds: the full path with a run), tasks/get of one task,
// the agent card, and the baseline echo.
import { spawn, execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 16);
const tmp = mkdtempSync(join(tmpdir(), 'a2a-bench-'));

function startChild(args, env, ready) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d.toString();
      const m = ready(out);
      if (m) resolve({ child, match: m });
    });
    child.on('exit', (code) => reject(new Error(`child exited ${code}: ${out.slice(-500)}`)));
  });
}

function wrk(url, luaBody) {
  const script = join(tmp, `s${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(script, luaBody);
  const text = execFileSync('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? 0);
  const p50 = /50%\s+([\d.]+)(us|ms|s)/.exec(text);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(text);
  const ms = (m) => (m ? Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1) : NaN);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  return { rps, p50: ms(p50), p99: ms(p99), non2xx };
}

const post = (path, headers, bodyExpr) => `
counter = 0
request = function()
  counter = counter + 1
  local body = ${bodyExpr}
  return wrk.format("POST", "${path}", ${headers}, body)
end`;

const baseline = await startChild(
  [join(root, 'bench/baseline-server.mjs')],
  { PORT: '0' },
  (o) => /LISTENING (\d+)/.exec(o)?.[1],
);
const system = await startChild(
  [join(root, 'embedded/dist/main.js')],
  { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', SEED_RATE_LIMIT_PER_MINUTE: '10000000' },
  (o) => {
    const port = /base URL:\s+http:\/\/[^:]+:(\d+)/.exec(o)?.[1];
    const key = /a2a key:\s+(\S+)/.exec(o)?.[1];
    return port && key ? { port, key } : undefined;
  },
);
const { port, key } = system.match;
const base = `http://127.0.0.1:${port}`;
const headers = `{ ["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${key}" }`;

// One task for tasks/get.
const sent = await (
  await fetch(`${base}/agents/demo-echo/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { role: 'user', messageId: 'bench-seed', parts: [{ kind: 'text', text: 'x' }] } },
    }),
  })
).json();
const taskId = sent.result.id;

const sendBody = `'{"jsonrpc":"2.0","id":' .. counter .. ',"method":"message/send","params":{"message":{"role":"user","messageId":"b' .. counter .. '-' .. math.random(1, 1000000000) .. '","parts":[{"kind":"text","text":"benchmark text"}]}}}'`;
const results = {
  baseline: wrk(
    `http://127.0.0.1:${baseline.match}/echo`,
    post(
      '/echo',
      '{ ["Content-Type"] = "application/json" }',
      `'{"jsonrpc":"2.0","id":' .. counter .. ',"method":"x","params":{"message":{"role":"user","parts":[{"kind":"text","text":"benchmark text"}]}}}'`,
    ),
  ),
  card: wrk(`${base}/agents/demo-echo/.well-known/agent-card.json`, ''),
  'tasks/get': wrk(
    `${base}/agents/demo-echo/a2a`,
    post(
      '/agents/demo-echo/a2a',
      headers,
      `'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"${taskId}"}}'`,
    ),
  ),
  'message/send (echo, blocking)': wrk(
    `${base}/agents/demo-echo/a2a`,
    post('/agents/demo-echo/a2a', headers, sendBody),
  ),
};
baseline.child.kill('SIGTERM');
system.child.kill('SIGTERM');

const b = results.baseline;
process.stdout.write(
  `\nA2A HTTP benchmark: ${seconds}s per case, ${connections} connections, wrk -t2 (embedded mode)\n`,
);
process.stdout.write(
  `${'case'.padEnd(32)} ${'req/s'.padStart(9)} ${'ratio'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'non-2xx'.padStart(8)}\n`,
);
for (const [name, r] of Object.entries(results)) {
  process.stdout.write(
    `${name.padEnd(32)} ${r.rps.toFixed(0).padStart(9)} ${(r.rps / b.rps).toFixed(3).padStart(7)} ${r.p50.toFixed(2).padStart(8)} ${r.p99.toFixed(2).padStart(8)} ${String(r.non2xx).padStart(8)}\n`,
  );
}
