import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, textMessage } from '@a2a-inbound/testing';

const root = join(__dirname, '..', '..');
const bundles = [
  ...['gateway', 'tasks', 'runner', 'webhooks', 'linker'].map((s) => join(root, 'services', s, 'dist', 'main.js')),
  join(root, 'embedded', 'dist', 'main.js'),
];
const INSTRUMENTED = ['express', '@grpc/grpc-js', 'kafkajs', 'mongodb', 'ioredis'];

beforeAll(() => {
  // `npm test` builds first; a bare `npx vitest run` on a fresh clone builds here.
  if (!bundles.every((b) => existsSync(b)))
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
}, 60_000);

describe('each bundle starts telemetry before it requires an instrumented package', () => {
  for (const bundle of bundles) {
    it(bundle.slice(root.length + 1), () => {
      const lines = readFileSync(bundle, 'utf8').split('\n');
      const start = lines.findIndex((l) => /^var telemetry = startTelemetry\(/.test(l));
      expect(start).toBeGreaterThan(0);
      // Module-level requires (lazily initialised modules are indented and run later, from main()).
      const instrumented = lines.flatMap((line, i) => {
        const m = /^var \w+ = (?:__toESM\()?require\("([^"]+)"\)/.exec(line);
        return m && INSTRUMENTED.includes(m[1]!) ? [{ module: m[1]!, line: i }] : [];
      });
      expect(instrumented.length).toBeGreaterThan(0);
      expect(instrumented.filter((r) => r.line < start)).toEqual([]);
    });
  }
});

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

describe('node embedded/dist/main.js with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let collector: Server;
  const bodies: { url: string; type: string; body: string }[] = [];
  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        bodies.push({ url: req.url ?? '', type: String(req.headers['content-type']), body });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => collector.close(() => r())));

  it('exports one trace of a message/send over OTLP HTTP, flushed on SIGTERM', async () => {
    const port = (collector.address() as AddressInfo).port;
    const child = spawn(process.execPath, [join(root, 'embedded/dist/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        STORE: 'memory',
        LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        // Far beyond the test: what arrives was flushed by the shutdown, not by the batch timer.
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 30_000;
      while (!/a2a key:[\s\S]*curl[\s\S]*\n\n/.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no banner:\n${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const base = /base URL:\s+(http:\/\/\S+)/.exec(out)![1]!;
      const key = /a2a key:\s+(\S+)/.exec(out)![1]!;
      const text = 'otlp-secret-text-52c1';
      const res = await rpc(
        `${base}/agents/demo-echo/a2a`,
        { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: textMessage(text) } },
        { key },
      );
      expect(res.body.result.status.state).toBe('completed');
      expect(bodies).toEqual([]); // nothing sent yet: batched
      child.kill('SIGTERM');
      expect(await exited).toBe(0);

      const traces = bodies.filter((b) => b.url === '/v1/traces');
      expect(traces.length).toBeGreaterThan(0);
      expect(traces[0]!.type).toContain('application/json');
      for (const b of bodies) {
        expect(b.body).not.toContain(key);
        expect(b.body).not.toContain(text);
      }
      const scopes = new Map<string, OtlpSpan[]>();
      let serviceName: unknown;
      for (const b of traces) {
        const payload = JSON.parse(b.body) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
          }[];
        };
        for (const rs of payload.resourceSpans) {
          serviceName = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          for (const ss of rs.scopeSpans)
            scopes.set(ss.scope.name, [...(scopes.get(ss.scope.name) ?? []), ...ss.spans]);
        }
      }
      expect(serviceName).toBe('a2a-inbound');
      for (const scope of [
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-express',
        '@opentelemetry/instrumentation-grpc',
        '@a2a-inbound/gateway',
        '@a2a-inbound/tasks',
        '@a2a-inbound/runner',
        '@a2a-inbound/telemetry',
      ])
        expect([...scopes.keys()]).toContain(scope);
      const run = scopes.get('@a2a-inbound/runner')!.find((s) => s.name === 'runner.run')!;
      const rpcSpan = scopes.get('@a2a-inbound/gateway')!.find((s) => s.name === 'a2a message/send')!;
      expect(run.traceId).toBe(rpcSpan.traceId);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
