import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface TestCert {
  cert: string;
  key: string;
}

/**
 * A throwaway self-signed certificate for the test receiver, made with the openssl CLI in a temp dir (valid
 * one day, for 127.0.0.1 and every `*.public.example` name the tests use).
 */
export async function selfSignedCert(): Promise<TestCert> {
  const dir = await mkdtemp(join(tmpdir(), 'webhook-cert-'));
  try {
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=hook.public.example',
      '-addext',
      'subjectAltName=DNS:hook.public.example,DNS:rebind.public.example,IP:127.0.0.1',
    ]);
    return { cert: await readFile(join(dir, 'cert.pem'), 'utf8'), key: await readFile(join(dir, 'key.pem'), 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Receiver {
  port: number;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * HTTPS receiver on 127.0.0.1. Paths: `/ok` 200; `/fail` 500; `/bad` 400; `/limited` 429 (Retry-After: 0) on
 * every other request, 200 otherwise; `/redirect` 302 to `/ok?from=redirect`; `/redirect307?to=<url>` 307 to `<url>`.
 */
export async function startReceiver(tls: TestCert): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  let limited = 0;
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const route = path.split('?')[0];
      if (route === '/fail') res.writeHead(500).end('boom');
      else if (route === '/bad') res.writeHead(400).end('bad');
      else if (route === '/limited') {
        limited += 1;
        if (limited % 2 === 1) res.writeHead(429, { 'retry-after': '0' }).end();
        else res.writeHead(200).end();
      } else if (route === '/redirect') {
        res.writeHead(302, { location: `https://hook.public.example:${port}/ok?from=redirect` }).end();
      } else if (route === '/redirect307') {
        res.writeHead(307, { location: new URL(path, 'https://x').searchParams.get('to') ?? '/ok' }).end();
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(200_000));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The task update a test delivery pushes (owner: one subscription and agent unless given). */
export function update(
  taskId: string,
  seq: number,
  owner: { subscriptionId?: string; agentId?: string } = {},
): { taskId: string; seq: number; subscriptionId: string; agentId: string } {
  return { taskId, seq, subscriptionId: owner.subscriptionId ?? 'sub-1', agentId: owner.agentId ?? 'agent-1' };
}
