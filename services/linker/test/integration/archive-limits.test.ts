import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip, crc32, deflateRawSync } from 'node:zlib';
import { createLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, ManualClock, SequentialIds } from '@a2a-inbound/ports';
import { call, grpc } from '@a2a-inbound/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LinkerApp, startLinkerApp } from '../../src/app';
import type { IngestLimits } from '../../src/domain/sources';
import { ArchiveRefused, unpack } from '../../src/ingest/index';
import { linkerV1 } from '../../src/transport/proto';

const MiB = 1024 * 1024;

/** A zip made here: each member stored or deflated, with the sizes its directory claims (`declared`). */
function zip(
  members: { name: string; data?: Buffer; deflated?: { bytes: Buffer; size: number; crc: number } }[],
  declared?: number,
): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const method = m.deflated ? 8 : 0;
    const body = m.deflated ? m.deflated.bytes : (m.data ?? Buffer.alloc(0));
    const size = declared ?? (m.deflated ? m.deflated.size : body.length);
    const crc = m.deflated ? m.deflated.crc : crc32(body);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(method, 10);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(body.length, 20);
    dir.writeUInt32LE(size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    central.push(dir, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A tar header of a regular file (ustar, checksum filled in). */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0);
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(size.toString(8).padStart(11, '0') + '\0', 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0' + '00', 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

/** A .tar.gz of the given files, gzipped as a stream (a bomb of zeros never exists whole in memory). */
async function tarGz(files: { name: string; size: number; data?: Buffer }[]): Promise<Buffer> {
  const gz = createGzip();
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => gz.on('end', r));
  const zeros = Buffer.alloc(MiB);
  const write = (b: Buffer) => new Promise<void>((r) => (gz.write(b) ? r() : gz.once('drain', () => r())));
  for (const f of files) {
    await write(tarHeader(f.name, f.size));
    if (f.data) await write(f.data);
    else for (let left = f.size; left > 0; left -= MiB) await write(zeros.subarray(0, Math.min(MiB, left)));
    const pad = (512 - (f.size % 512)) % 512;
    if (pad) await write(Buffer.alloc(pad));
  }
  await write(Buffer.alloc(1024));
  gz.end();
  await done;
  return Buffer.concat(out);
}

/** Bytes of the files below a directory. */
function du(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? du(p) : statSync(p).size;
  }
  return n;
}

/** Runs `fn` while sampling this process's RSS; resolves its outcome and the highest RSS growth seen. */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ outcome: PromiseSettledResult<T>; growth: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const [outcome] = await Promise.allSettled([fn()]);
  clearInterval(timer);
  return { outcome, growth: Math.max(peak, process.memoryUsage().rss) - before };
}

// Each member 1 MiB less 1 KiB of zeros (~1 KiB deflated): under the per-file limit, so only the total stops it.
const MEMBER = MiB - 1024;
const zeros = Buffer.alloc(MEMBER);
const deflatedZeros = { bytes: deflateRawSync(zeros, { level: 9 }), size: MEMBER, crc: crc32(zeros) };

describe('archive limits while unpacking (zip bombs, oversized files, file counts)', () => {
  const limits: IngestLimits = { maxUnpackedBytes: 64 * MiB, maxFiles: 1000, maxFileBytes: MiB };
  let tmp: string;
  let n = 0;
  const dest = (): string => {
    const d = join(tmp, `d${n++}`);
    mkdirSync(d);
    return d;
  };
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'linker-limits-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('a zip bomb whose directory tells the truth is refused before anything is written', async () => {
    const bomb = zip(Array.from({ length: 300 }, (_, i) => ({ name: `z/${i}.txt`, deflated: deflatedZeros })));
    expect(bomb.length).toBeLessThan(MiB); // ~300 MiB unpacked
    const d = dest();
    const started = Date.now();
    await expect(unpack(bomb, 'zip', d, limits)).rejects.toThrow(
      new ArchiveRefused('archive refused: it unpacks to more than 64 MiB (LINKER_MAX_UNPACKED_BYTES)'),
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(du(d)).toBe(0);
  });

  it('a zip bomb whose directory lies is cut at the limit: disk and memory stay bounded', async () => {
    const bomb = zip(
      Array.from({ length: 300 }, (_, i) => ({ name: `z/${i}.txt`, deflated: deflatedZeros })),
      10,
    );
    const d = dest();
    const { outcome, growth } = await peakRss(() => unpack(bomb, 'zip', d, limits));
    expect(outcome.status).toBe('rejected');
    expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/more than 64 MiB \(LINKER_MAX_UNPACKED_BYTES\)/);
    expect(du(d)).toBeLessThanOrEqual(limits.maxUnpackedBytes);
    expect(growth).toBeLessThan(100 * MiB);
  });

  it('a .tar.gz bomb is cut at the limit as it streams: disk and memory stay bounded', async () => {
    const bomb = await tarGz(Array.from({ length: 100 }, (_, i) => ({ name: `t/${i}.txt`, size: MEMBER })));
    expect(bomb.length).toBeLessThan(MiB); // ~100 MiB unpacked
    const d = dest();
    const { outcome, growth } = await peakRss(() => unpack(bomb, 'tar.gz', d, limits));
    expect(outcome.status).toBe('rejected');
    expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/more than 64 MiB \(LINKER_MAX_UNPACKED_BYTES\)/);
    expect(du(d)).toBeLessThanOrEqual(limits.maxUnpackedBytes);
    expect(growth).toBeLessThan(100 * MiB);
  });

  it('an oversized file is skipped (also when its size lies), the others are unpacked', async () => {
    const big = Buffer.alloc(3 * MiB, 'x');
    const members = [
      { name: 'repo/src/app.py', data: Buffer.from('print("hi")\n') },
      { name: 'repo/huge.py', deflated: { bytes: deflateRawSync(big), size: big.length, crc: crc32(big) } },
      { name: 'repo/../escape.py', data: Buffer.from('x') },
      { name: 'repo/src/util.py', data: Buffer.from('x = 1\n') },
    ];
    const d = dest();
    const z = await unpack(zip(members), 'zip', d, limits);
    expect(z.root).toBe(join(d, 'repo'));
    expect(readdirSync(join(d, 'repo', 'src')).sort()).toEqual(['app.py', 'util.py']);
    expect(z.skipped).toEqual([
      { path: 'repo/huge.py', reason: 'larger than 1 MiB (LINKER_MAX_FILE_BYTES)' },
      { path: 'repo/../escape.py', reason: 'path outside the archive' },
    ]);
    // The same member claiming 10 bytes: inflated only up to the limit, then skipped.
    const lying = await unpack(zip(members.slice(0, 2), 10), 'zip', dest(), limits);
    expect(lying.skipped).toEqual([{ path: 'repo/huge.py', reason: 'larger than 1 MiB (LINKER_MAX_FILE_BYTES)' }]);

    const t = await unpack(
      await tarGz([
        { name: 'repo/src/app.py', size: 12, data: Buffer.from('print("hi")\n') },
        { name: 'repo/huge.py', size: 3 * MiB },
        { name: 'repo/src/util.py', size: 6, data: Buffer.from('x = 1\n') },
      ]),
      'tar.gz',
      dest(),
      limits,
    );
    expect(t.skipped).toEqual([{ path: 'repo/huge.py', reason: 'larger than 1 MiB (LINKER_MAX_FILE_BYTES)' }]);
    expect(readdirSync(join(t.root, 'src')).sort()).toEqual(['app.py', 'util.py']);
  });

  it('more files than LINKER_MAX_FILES: a zip is refused from its directory, a .tar.gz as it streams', async () => {
    const few: IngestLimits = { ...limits, maxFiles: 10 };
    const members = Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.py`, data: Buffer.from('x = 1\n') }));
    const d = dest();
    await expect(unpack(zip(members), 'zip', d, few)).rejects.toThrow(
      'archive refused: it holds more than 10 files (11) (LINKER_MAX_FILES)',
    );
    expect(readdirSync(d)).toEqual([]);
    await expect(unpack(zip(members.slice(0, 10)), 'zip', dest(), few)).resolves.toMatchObject({ files: 10 });
    const tar = await tarGz(members.map((m) => ({ name: m.name, size: m.data.length, data: m.data })));
    await expect(unpack(tar, 'tar.gz', dest(), few)).rejects.toThrow(
      'archive refused: it holds more than 10 files (LINKER_MAX_FILES)',
    );
  });
});

const TOKEN = 'linker-test-service-token-0123456789abcdef';
const caller = { subscriptionId: 'sub-a', role: 'admin', userId: 'u-a' };

describe('ingest within the limits (the version says why)', () => {
  let app: LinkerApp;
  let client: linkerV1.LinkerServiceClient;
  let store: InMemoryDocumentStore;
  let tmp: string;
  const rpc = <Res>(method: keyof linkerV1.LinkerServiceClient, req: unknown): Promise<Res> => {
    const m = new grpc.Metadata();
    m.set('authorization', `Bearer ${TOKEN}`);
    return call<unknown, Res>((client as any)[method].bind(client), req, { metadata: m });
  };
  const ingest = async (name: string, location: unknown, archive?: { bytes: Buffer; filename: string }) => {
    const created: linkerV1.Application = await rpc('createApplication', { caller, name });
    await rpc('addSource', { caller, applicationId: created.id, name, location });
    const v: linkerV1.Version = await rpc('ingestSource', {
      caller,
      applicationId: created.id,
      sourceId: name,
      ref: '',
      archive: archive?.bytes ?? Buffer.alloc(0),
      archiveFilename: archive?.filename ?? '',
    });
    const facts = await store.collection<{ applicationId: string; facts: { files: number; parsedFiles: number } }>({
      name: 'linker_facts',
    });
    const stored = (await facts.find({ applicationId: created.id }, { limit: 1 }))[0]?.doc.facts;
    return { v, stages: v.stages.map((s) => [s.name, s.status, s.detail]), facts: stored };
  };

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'linker-limits-app-'));
    store = new InMemoryDocumentStore();
    app = await startLinkerApp(
      {
        store,
        clock: new ManualClock(),
        log: createLogger({ service: 't', level: 'silent' }),
        ids: new SequentialIds('id'),
      },
      {
        allowedLocalRoots: [tmp],
        serviceToken: TOKEN,
        ingestLimits: { maxUnpackedBytes: MiB, maxFiles: 20, maxFileBytes: 64 * 1024 },
      },
    );
    client = new linkerV1.LinkerServiceClient((await app.start()).address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('an archive with an oversized file: the file is skipped (fetch stage detail), the rest ingested', async () => {
    const big = Buffer.from(`x = "${'a'.repeat(100 * 1024)}"\n`);
    const archive = zip([
      { name: 'shop/app.py', data: Buffer.from('import requests\nrequests.get("http://orders/api/orders")\n') },
      { name: 'shop/big.py', data: big },
      { name: 'shop/config.yaml', data: Buffer.from('a: 1\n') },
    ]);
    const { v, stages, facts } = await ingest(
      'zipped',
      { kind: { $case: 'archive', archive: { filename: 's.zip' } } },
      {
        bytes: archive,
        filename: 's.zip',
      },
    );
    expect(v.status).toBe('completed');
    expect(stages[0]).toEqual([
      'fetch',
      'completed',
      'skipped 1 file: shop/big.py (larger than 64 KiB (LINKER_MAX_FILE_BYTES))',
    ]);
    expect(facts).toMatchObject({ files: 2, parsedFiles: 2 });
  });

  it('a zip bomb fails the fetch stage with the reason, quickly', async () => {
    // Members under the per-file limit (60 KiB of zeros each), sizes claimed 10 bytes: only the total stops it.
    const z = Buffer.alloc(60 * 1024);
    const small = { bytes: deflateRawSync(z), size: z.length, crc: crc32(z) };
    const bomb = zip(
      Array.from({ length: 19 }, (_, i) => ({ name: `z/${i}.txt`, deflated: small })),
      10,
    );
    const started = Date.now();
    const { v, stages } = await ingest(
      'bomb',
      { kind: { $case: 'archive', archive: { filename: 'b.zip' } } },
      {
        bytes: bomb,
        filename: 'b.zip',
      },
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(v.status).toBe('failed');
    expect(stages).toEqual([
      ['fetch', 'failed', 'archive refused: it unpacks to more than 1 MiB (LINKER_MAX_UNPACKED_BYTES)'],
    ]);
  });

  it('a directory or git checkout with an oversized file: skipped by its size, never read; too many files refused', async () => {
    const repo = join(tmp, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'src', 'app.py'), 'import requests\nrequests.get("http://orders/api/orders")\n');
    writeFileSync(join(repo, 'src', 'big.py'), `x = "${'a'.repeat(100 * 1024)}"\n`);
    const dir = await ingest('dir', { kind: { $case: 'dir', dir: repo } });
    expect(dir.v.status).toBe('completed');
    expect(dir.stages[1]).toEqual([
      'parse',
      'completed',
      'skipped 1 file: src/big.py (larger than 64 KiB (LINKER_MAX_FILE_BYTES))',
    ]);
    expect(dir.facts).toMatchObject({ files: 1, parsedFiles: 1 });

    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: repo, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', 'init');
    const cloned = await ingest('git', { kind: { $case: 'git', git: { url: `file://${repo}`, ref: 'main' } } });
    expect(cloned.v.status).toBe('completed');
    // Left out of the checkout (git's listing gave its size): the fetch stage says so, the parse stage never saw it.
    expect(cloned.stages.map((st) => st.slice(0, 2).concat(st[2] ?? ''))).toEqual([
      ['fetch', 'completed', 'skipped 1 file: src/big.py (larger than 64 KiB (LINKER_MAX_FILE_BYTES))'],
      ['parse', 'completed', ''],
      ['link', 'skipped', expect.any(String)],
    ]);
    expect(cloned.facts).toMatchObject({ files: 1, parsedFiles: 1 });

    // More files than LINKER_MAX_FILES (20): refused from git's listing, before the checkout.
    for (let i = 0; i < 20; i++) writeFileSync(join(repo, `f${i}.py`), 'x = 1\n');
    git('add', '.');
    git('commit', '-qm', 'many');
    const many = await ingest('many', { kind: { $case: 'git', git: { url: `file://${repo}`, ref: '' } } });
    expect(many.stages).toEqual([
      ['fetch', 'failed', 'repository refused: it holds more than 20 files (22) (LINKER_MAX_FILES)'],
    ]);
  });
});
