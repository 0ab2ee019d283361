// The target of `get-profile.mjs` and `get-compare.mjs`: one embedded process (STORE=memory) with a task of the echo
// agent, and a client of each kind for it, one request at a time: `grpc` (1.0 GetTask, grpc-js with the repository's
// a2a.proto on one channel, as bench/run.mjs builds it) and `jsonrpc03` (0.3 tasks/get, HTTP/1.1 keep-alive).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = new URL('..', import.meta.url).pathname;

/**
 * Starts `node <nodeArgs> embedded/dist/main.js` (needs `npm run build`) in memory with rate limits out of the way;
 * resolves with the child, its port and printed a2a key, and `cpu()`, its CPU seconds so far (utime + stime, every
 * thread). Shared by the get benches and `send-compare.mjs`.
 */
export async function startEmbeddedChild(nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'embedded/dist/main.js')], {
    env: {
      ...process.env,
      STORE: 'memory',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_RATE_LIMIT_PER_MINUTE: '10000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  let port, key;
  for (let i = 0; i < 600 && !(port && key); i++) {
    await sleep(100);
    port = /base URL:\s+http:\/\/[^:]+:(\d+)/.exec(out)?.[1];
    key = /a2a key:\s+(\S+)/.exec(out)?.[1];
  }
  if (!port || !key) {
    child.kill('SIGKILL');
    throw new Error(`the embedded process did not start:\n${out}`);
  }
  const cpu = () => {
    const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  };
  return { child, port, key, cpu };
}

/** Starts the embedded process (`startEmbeddedChild`) and seeds a task. */
export async function startGetTarget(nodeArgs = []) {
  const { child, port, key, cpu } = await startEmbeddedChild(nodeArgs);
  const base = `http://127.0.0.1:${port}`;
  const seeded = await (
    await fetch(`${base}/agents/demo-echo/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: { message: { role: 'user', messageId: `g-${Date.now()}`, parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    })
  ).json();
  const taskId = seeded.result.id;
  const card = await fetch(`${base}/agents/demo-echo/.well-known/agent-card.json`).then((r) => r.json());
  const grpcIf = card.supportedInterfaces.find((i) => i.protocolBinding === 'GRPC');

  const grpc = await import('@grpc/grpc-js');
  const loader = await import('@grpc/proto-loader');
  const def = await loader.load(join(root, 'proto/lf/a2a/v1/a2a.proto'), {
    includeDirs: [join(root, 'proto')],
    enums: String,
  });
  const Service = grpc.loadPackageDefinition(def).lf.a2a.v1.A2AService;
  const grpcClient = new Service(grpcIf.url, grpc.credentials.createInsecure(), { 'grpc.enable_channelz': 0 });
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${key}`);
  md.set('a2a-version', '1.0');

  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: taskId } });
  const calls = {
    grpc: () =>
      new Promise((resolve) => grpcClient.getTask({ tenant: grpcIf.tenant, id: taskId }, md, (err) => resolve(!err))),
    jsonrpc03: () =>
      new Promise((resolve) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/agents/demo-echo/a2a',
            method: 'POST',
            agent,
            headers: {
              'Content-Type': 'application/json',
              Authorization: `Bearer ${key}`,
              'Content-Length': Buffer.byteLength(body),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode === 200));
          },
        );
        req.on('error', () => resolve(false));
        req.end(body);
      }),
  };
  /** Closes the clients, stops the process (SIGINT: a `--cpu-prof` profile is written) and waits for its exit. */
  const stop = async () => {
    grpcClient.close();
    agent.destroy();
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGINT');
    await exited;
  };
  return { pid: child.pid, cpu, calls, stop };
}
