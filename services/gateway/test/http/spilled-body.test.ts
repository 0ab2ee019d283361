import { connect, type AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryBlobStore } from '@a2a-inbound/ports';
import {
  BodyAbortedError,
  JSON_RPC_FILE_PATHS,
  LargeBodyGate,
  readSpilledBody,
  type SpilledBody,
} from '../../src/http/spilled-body';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A server whose one route reads the body with readSpilledBody and reports how the read ended. */
async function reader() {
  const outcomes: Promise<SpilledBody>[] = [];
  const blobs = new InMemoryBlobStore();
  const app = express();
  app.post('/', (req, res) => {
    const read = readSpilledBody(req, {
      limitBytes: 1024 * 1024,
      blobs,
      owner: 'sub-1',
      gate: new LargeBodyGate(1),
      paths: JSON_RPC_FILE_PATHS,
      maxFileBytes: 1024 * 1024,
    });
    outcomes.push(read);
    read.then(
      (b) => res.json({ json: b.json.toString('utf8'), spilled: b.spilled.size }),
      () => res.end(),
    );
  });
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  servers.push(server);
  return { outcomes, port: (server.address() as AddressInfo).port };
}

/** POSTs `parts` with a Content-Length of `length`, a pause between the writes; `cut` ends the socket early. */
function post(port: number, length: number, parts: string[], cut: boolean) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('utf8')));
  socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
  void (async () => {
    for (const p of parts) {
      socket.write(p);
      await new Promise((r) => setTimeout(r, 50));
    }
    if (cut) socket.destroy();
  })();
  return { answer: () => answer, socket };
}

describe('readSpilledBody: a small body read whole (issue 23)', () => {
  it('a small body in several packets is read whole, its file bytes spilled as before', async () => {
    const { port, outcomes } = await reader();
    const body = JSON.stringify({
      params: { message: { parts: [{ kind: 'file', file: { bytes: Buffer.from('hello').toString('base64') } }] } },
    });
    const half = body.length >> 1;
    const got = post(port, Buffer.byteLength(body), [body.slice(0, half), body.slice(half)], false);
    await expect.poll(() => got.answer(), { timeout: 3_000 }).toContain('"spilled":1');
    got.socket.destroy();
    const read = await outcomes[0]!;
    expect(JSON.parse(read.json.toString('utf8')).params.message.parts[0].file.bytes).not.toBe('aGVsbG8=');
  });

  it('a small body whose client goes away mid-body ends the read as aborted (it does not wait forever)', async () => {
    const { port, outcomes } = await reader();
    post(port, 1000, ['{"jsonrpc":"2.0","id":1,'], true);
    await expect.poll(() => outcomes.length, { timeout: 3_000 }).toBe(1);
    const ended = await Promise.race([
      outcomes[0]!.then(
        () => 'read',
        (err: unknown) => (err instanceof BodyAbortedError ? 'aborted' : String(err)),
      ),
      new Promise((r) => setTimeout(() => r('still waiting'), 3_000)),
    ]);
    expect(ended).toBe('aborted');
  });
});
