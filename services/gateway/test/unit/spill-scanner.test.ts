import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SpillScanner, SPILL_PREFIX, type SpillOutcome } from '../../src/protocol/spill-scanner';
import { JSON_RPC_FILE_PATHS, LargeBodyGate } from '../../src/http/spilled-body';

/** Scans `body` in chunks of `size` bytes; returns the parsed remainder, what was spilled and the stored files. */
async function scan(body: string, size: number, maxFileBytes = 20 * 1024 * 1024) {
  const stored: Buffer[] = [];
  const scanner = new SpillScanner({
    paths: JSON_RPC_FILE_PATHS,
    maxFileBytes,
    store: async (data) => {
      stored.push(data);
      return { id: `blob-${stored.length}`, size: data.length, sha256: 'x' };
    },
  });
  const bytes = Buffer.from(body);
  for (let i = 0; i < bytes.length; i += size) await scanner.write(bytes.subarray(i, i + size));
  const { json, spilled } = scanner.end();
  return { value: JSON.parse(json.toString('utf8')), spilled, stored, kept: json.length };
}

const send = (parts: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: { message: { role: 'user', messageId: 'm', parts }, ...extra },
  });

describe('SpillScanner: file bytes leave the body as it streams', () => {
  it('decodes every file part into the store at any chunking, keeps the rest byte for byte', async () => {
    const a = randomBytes(100_003);
    // `/////AE=`: its slashes are sent JSON-escaped (`\/`), which the scanner must read as `/`. Escaped in the
    // JSON text itself: escaping before JSON.stringify sent a backslash, invalid base64 (a 1-in-10 flake).
    const b = Buffer.from([0xff, 0xff, 0xff, 0xfc, 0x01]);
    const b64 = b.toString('base64');
    const body = send(
      [
        { kind: 'text', text: 'quote " and \\ and "bytes": "x"' },
        { kind: 'file', file: { name: 'a.bin', mimeType: 'application/pdf', bytes: a.toString('base64') } },
        { kind: 'data', data: { bytes: 'not a file', nested: { file: { bytes: 'QUJD' } } } },
        { kind: 'file', file: { bytes: b64, mimeType: 'image/png' } },
      ],
      { metadata: { bytes: 'kept' } },
    ).replace(`"${b64}"`, `"${b64.replace(/\//g, '\\/')}"`);
    expect(body).toContain('"\\/\\/\\/\\/\\/AE="');
    for (const size of [1, 7, 4096, body.length]) {
      const { value, spilled, stored, kept } = await scan(body, size);
      expect(stored.map((s) => s.equals(a) || s.equals(b))).toEqual([true, true]);
      expect(stored[0]!.equals(a)).toBe(true);
      const parts = value.params.message.parts;
      expect(parts[0].text).toBe('quote " and \\ and "bytes": "x"');
      expect(parts[2].data).toEqual({ bytes: 'not a file', nested: { file: { bytes: 'QUJD' } } });
      expect(value.params.metadata).toEqual({ bytes: 'kept' });
      expect(parts[1].file.bytes.startsWith(SPILL_PREFIX)).toBe(true);
      expect([...spilled.values()]).toEqual<SpillOutcome[]>([
        { kind: 'stored', blobId: 'blob-1', size: a.length, sha256: 'x' },
        { kind: 'stored', blobId: 'blob-2', size: 5, sha256: 'x' },
      ]);
      expect(spilled.get(parts[3].file.bytes)).toMatchObject({ blobId: 'blob-2' });
      expect(kept).toBeLessThan(1000);
    }
  });

  it('refuses invalid base64 and files over the limit without storing them', async () => {
    const body = send([
      { kind: 'file', file: { mimeType: 'application/pdf', bytes: 'QUJD*' } },
      { kind: 'file', file: { mimeType: 'application/pdf', bytes: 'QU=JD' } },
      { kind: 'file', file: { mimeType: 'application/pdf', bytes: 'QUJ' } },
      { kind: 'file', file: { mimeType: 'application/pdf', bytes: randomBytes(3000).toString('base64') } },
    ]);
    const { spilled, stored } = await scan(body, 64, 2048);
    expect([...spilled.values()].map((o) => o.kind)).toEqual(['invalid', 'invalid', 'invalid', 'too-large']);
    expect(stored).toEqual([]);
  });
});

describe('LargeBodyGate: at most `max` large bodies are read at once', () => {
  it('lets the next waiting body in when one leaves, in arrival order', async () => {
    const gate = new LargeBodyGate(1);
    const leaveA = await gate.enter();
    const order: string[] = [];
    const b = gate.enter().then((leave) => (order.push('b'), leave));
    const c = gate.enter().then((leave) => (order.push('c'), leave));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(gate.waiting).toBe(2);
    leaveA();
    leaveA(); // idempotent: frees one slot only
    (await b)();
    (await c)();
    expect(order).toEqual(['b', 'c']);
    expect(gate.waiting).toBe(0);
  });
});
