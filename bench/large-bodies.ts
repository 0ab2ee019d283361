/**
 * Large sends at once (issue 19, item 6): BENCH_BODIES concurrent `message/send`s of BENCH_BODY_MB each (files
 * of at most 20 MB decoded, base64 in JSON, the spec's worst case is 10 × 20 MB ≈ 267 MB) against the
 * embedded system in a child process; prints the child's peak RSS (VmHWM), its RSS when every send answered
 * and a few seconds later, and the outcomes. With BENCH_MONGO_URL set the blob store is GridFS (what a
 * gateway uses in the distributed mode); otherwise the in-memory one, which holds every file itself.
 * Run by `test/bench/large-bodies.test.ts` (4 × 100 MB in `npm test`; the full case with
 * `BENCH_BODIES=14 BENCH_BODY_MB=265`, see bench/README.md).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createInterface } from 'node:readline';

const MB = 1024 * 1024;
const FILE_BYTES = 20_000_000; // the spec's 20 MB, decoded

async function server(): Promise<void> {
  const { inMemoryEngines, startSystem } = await import('@a2a-inbound/embedded');
  const { silentLogger } = await import('@a2a-inbound/logger');
  const { InMemoryBlobStore } = await import('@a2a-inbound/ports');
  const engines = inMemoryEngines();
  if (process.env.BENCH_MONGO_URL) {
    const { MongoBlobStore } = await import('@a2a-inbound/adapter-mongo');
    engines.blobs = await MongoBlobStore.connect({
      url: process.env.BENCH_MONGO_URL,
      dbName: `bench_large_${process.pid}`,
    });
  } else engines.blobs = new InMemoryBlobStore({ maxTotalBytes: 4096 * MB });
  const system = await startSystem({
    // Uploads waiting for a large-body slot count against the whole-request timeout (300 s by default); on a
    // slow blob store (GridFS on FerretDB, a shared 2-core machine) 14 × 265 MB take longer than that.
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      BODY_LIMIT_BYTES: String(280 * MB),
      HTTP_REQUEST_TIMEOUT_MS: process.env.BENCH_REQUEST_TIMEOUT_MS ?? '300000',
    },
    engines,
    log: silentLogger(),
  });
  process.stdout.write(`${JSON.stringify({ baseUrl: system.baseUrl, key: system.tasks.seed!.credentials!.a2aKey })}\n`);
}

function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

/** One send of about `bodyBytes`, written in chunks (the client never holds the body). */
function send(baseUrl: string, key: string, i: number, bodyBytes: number, block: string): Promise<string> {
  const files: { chars: number }[] = [];
  let left = bodyBytes;
  const perFile = Math.ceil(FILE_BYTES / 3) * 4;
  while (left > 4096 && files.length < 10) {
    const chars = Math.min(perFile, Math.max(4, Math.floor((left - 200) / 4) * 4));
    files.push({ chars });
    left -= chars + 100;
  }
  const head = `{"jsonrpc":"2.0","id":${i},"method":"message/send","params":{"message":{"role":"user","messageId":"large-${Date.now()}-${i}","parts":[{"kind":"text","text":"large ${i}"}`;
  const fileHead = (n: number): string =>
    `,{"kind":"file","file":{"name":"f${n}.bin","mimeType":"application/pdf","bytes":"`;
  const fileTail = '"}}';
  const tail = ']},"configuration":{"blocking":true}}}';
  let length = Buffer.byteLength(head) + Buffer.byteLength(tail);
  files.forEach((f, n) => (length += Buffer.byteLength(fileHead(n)) + f.chars + Buffer.byteLength(fileTail)));
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/agents/demo-echo/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': length, Authorization: `Bearer ${key}` },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        try {
          const body = JSON.parse(text) as { result?: { status?: { state?: string } }; error?: { message?: string } };
          resolve(body.result?.status?.state ?? `error ${body.error?.message ?? text.slice(0, 100)}`);
        } catch {
          resolve(`HTTP ${res.statusCode}`);
        }
      });
    });
    void (async () => {
      const write = (s: string): Promise<void> =>
        req.write(s) ? Promise.resolve() : new Promise((r) => req.once('drain', () => r()));
      await write(head);
      for (const [n, f] of files.entries()) {
        await write(fileHead(n));
        for (let done = 0; done < f.chars; done += block.length)
          await write(block.slice(0, Math.min(block.length, f.chars - done)));
        await write(fileTail);
      }
      req.end(tail);
    })();
  });
}

async function client(): Promise<void> {
  const bodies = Number(process.env.BENCH_BODIES ?? 14);
  const bodyBytes = Number(process.env.BENCH_BODY_MB ?? 265) * MB;
  const child = spawn(process.execPath, [process.argv[1]!, 'server'], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout }).once('line', resolve),
    );
    const { baseUrl, key } = JSON.parse(first) as { baseUrl: string; key: string };
    const idle = rssOf(child.pid!);
    // A block of base64 whose length is a multiple of 4: every file is this text repeated.
    const block = randomBytes(3 * 64 * 1024).toString('base64');
    const t0 = Date.now();
    let peakSampled = idle.rss;
    const sampler = setInterval(() => (peakSampled = Math.max(peakSampled, rssOf(child.pid!).rss)), 100);
    const outcomes = await Promise.all(
      Array.from({ length: bodies }, (_, i) => send(baseUrl, key, i, bodyBytes, block)),
    );
    clearInterval(sampler);
    const seconds = (Date.now() - t0) / 1000;
    const done = rssOf(child.pid!);
    await new Promise((r) => setTimeout(r, 5000));
    const later = rssOf(child.pid!);
    const counts: Record<string, number> = {};
    for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
    const mb = (n: number): string => (n / MB).toFixed(0);
    process.stdout.write(
      [
        `bodies: ${bodies} × ${mb(bodyBytes)} MB concurrent (${process.env.BENCH_MONGO_URL ? 'GridFS' : 'in-memory'} blob store) in ${seconds.toFixed(1)} s`,
        `outcomes: ${JSON.stringify(counts)}`,
        `RSS idle: ${mb(idle.rss)} MB`,
        `peak RSS: ${mb(Math.max(done.hwm, peakSampled))} MB`,
        `RSS when all answered: ${mb(done.rss)} MB; 5 s later: ${mb(later.rss)} MB`,
        '',
      ].join('\n'),
    );
  } finally {
    child.kill('SIGTERM');
  }
}

void (process.argv[2] === 'server' ? server() : client()).catch((err: unknown) => {
  process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
