// What the `model` runtime adds to message/send: the embedded system in this process, an OpenAI-compatible
// provider that answers at once in a child process (bench/instant-provider.mjs), and sequential blocking
// message/send calls to the demo echo agent and to a `model` agent on that provider (JSON and streaming).
// Prints p50/p90 of each and the differences; the provider's own round trip is measured alone.
//   npx esbuild bench/model-runtime.ts --bundle --platform=node --external:@grpc/reflection --outfile=/tmp/model-bench.cjs
//   NODE_PATH=$PWD/node_modules node /tmp/model-bench.cjs [requests=1000]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startSystem } from '@a2a-inbound/embedded';
import { silentLogger } from '@a2a-inbound/logger';

const requests = Number(process.argv[2] ?? 1000);
const root = process.cwd();

async function startProvider(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [join(root, 'bench/instant-provider.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

async function timed(n: number, once: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await once(i);
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

async function main(): Promise<void> {
  const provider = await startProvider();
  const system = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1', SEED_RATE_LIMIT_PER_MINUTE: '10000000', EGRESS_ALLOW_CIDRS: '127.0.0.1/32' },
    log: silentLogger(),
  });
  const creds = system.tasks.seed!.credentials!;
  const base = system.baseUrl;
  const admin = async (method: string, path: string, body?: unknown): Promise<any> => {
    const r = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${creds.adminToken}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  async function modelAgent(stream: boolean): Promise<string> {
    const a = await admin('POST', '/agents', {
      name: `bench ${stream}`,
      description: 'bench',
      type: 'AI Agent',
      skills: [],
    });
    await admin('POST', `/agents/${a.id}/versions`, {
      version: '1.0.0',
      runtime: 'model',
      runtimeConfig: { baseUrl: `${provider.url}/v1`, model: 'instant', stream, memoryMessages: 0 },
    });
    await admin('POST', `/agents/${a.id}/versions/1.0.0/promote`);
    await admin('POST', '/deployments/demo-deployment/agents', {
      agentId: a.id,
      settings: { a2aEnabled: true, rateLimitPerMinute: 1_000_000 },
    });
    return a.id as string;
  }
  const send = async (agent: string, i: number): Promise<void> => {
    const r = await fetch(`${base}/agents/${agent}/a2a`, {
      method: 'POST',
      headers: { authorization: `Bearer ${creds.a2aKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            role: 'user',
            messageId: `${agent}-${i}-${Math.random()}`,
            parts: [{ kind: 'text', text: 'hi' }],
          },
          configuration: { blocking: true },
        },
      }),
    });
    const j = (await r.json()) as { result?: { status?: { state?: string } } };
    if (j.result?.status?.state !== 'completed') throw new Error(`not completed: ${JSON.stringify(j).slice(0, 300)}`);
  };

  const json = await modelAgent(false);
  const streamed = await modelAgent(true);
  const cases: [string, (i: number) => Promise<void>][] = [
    [
      'provider alone (POST /v1/chat/completions)',
      async () => {
        const r = await fetch(`${provider.url}/v1/chat/completions`, {
          method: 'POST',
          body: '{"model":"instant","messages":[]}',
        });
        await r.text();
      },
    ],
    ['message/send demo-echo', (i) => send('demo-echo', i)],
    ['message/send model (stream)', (i) => send(streamed, i)],
    ['message/send model (JSON)', (i) => send(json, i)],
  ];
  const results: Record<string, { p50: number; p90: number }> = {};
  for (const [, fn] of cases) await timed(Math.min(200, requests), fn); // warm-up
  for (let round = 0; round < 2; round++) {
    for (const [name, fn] of cases) {
      const t = await timed(Math.floor(requests / 2), fn);
      const r = (results[name] ??= { p50: 0, p90: 0 });
      r.p50 += pct(t, 50) / 2;
      r.p90 += pct(t, 90) / 2;
    }
  }
  for (const [name, r] of Object.entries(results))
    process.stdout.write(`${name.padEnd(46)} p50 ${r.p50.toFixed(2)} ms  p90 ${r.p90.toFixed(2)} ms\n`);
  const echo = results['message/send demo-echo']!.p50;
  const prov = results['provider alone (POST /v1/chat/completions)']!.p50;
  for (const k of ['message/send model (JSON)', 'message/send model (stream)']) {
    const added = results[k]!.p50 - echo;
    process.stdout.write(
      `${k}: +${added.toFixed(2)} ms over demo-echo at p50 (${(results[k]!.p50 / echo).toFixed(2)}x); without the provider's own round trip: +${(added - prov).toFixed(2)} ms\n`,
    );
  }
  await system.close();
  provider.stop();
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
