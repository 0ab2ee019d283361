import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LmdbDatabase, LmdbEventLog } from '../src/index';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('LmdbEventLog: reads take the stream records from memory, as its writes committed them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmdb-meta-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads no stream record after the write that made it, and follows appends, retention and the sweep', async () => {
    let now = 1_000;
    const db = LmdbDatabase.open(dir);
    const log = new LmdbEventLog(db, { clock: { now: () => now } });
    let gets = 0;
    const get = db.streams.get.bind(db.streams);
    db.streams.get = (k: Buffer) => (gets++, get(k));

    expect(await log.last('s')).toBe(0); // a miss: read once, remembered as absent
    expect(await log.read('s', 0)).toEqual([]);
    expect(gets).toBe(1);
    expect(await log.appendBatch('s', [{ seq: 1, data: enc('a') }])).toBe(1);
    gets = 0;
    expect(await log.last('s')).toBe(1);
    expect((await log.read('s', 0)).map((e) => e.seq)).toEqual([1]);
    expect(gets).toBe(0);

    await log.expire('s', 500);
    expect(await log.last('s')).toBe(1);
    now = 1_500; // past its retention: absent to readers, and a new stream for the next append
    expect(await log.last('s')).toBe(0);
    expect(await log.read('s', 0)).toEqual([]);
    expect(await log.appendBatch('s', [{ seq: 1, data: enc('b') }])).toBe(1);
    expect(new TextDecoder().decode((await log.read('s', 0))[0]!.data)).toBe('b');

    await log.expire('s', 100);
    now = 2_000;
    expect(await log.sweepExpired()).toBe(1);
    expect(await log.last('s')).toBe(0);
    expect(db.streams.getCount()).toBe(0);
    await log.close();
  });
});

describe('LmdbEventLog: the retention sweep', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmdb-sweep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('deletes every expired stream in one sweep, reading the records a page per turn of the event loop', async () => {
    let now = 1_000;
    const db = LmdbDatabase.open(dir);
    const log = new LmdbEventLog(db, { clock: { now: () => now } });
    const n = 2_500;
    for (let i = 0; i < n; i++) {
      const s = `s${String(i).padStart(5, '0')}`;
      await log.appendBatch(s, [{ seq: 1, data: enc('x') }]);
      if (i % 5 !== 0) await log.expire(s, 100); // every fifth stream is kept
    }
    now = 2_000;
    let turns = 0;
    let sweeping = true;
    const tick = (): void => {
      turns += 1;
      if (sweeping) setImmediate(tick);
    };
    setImmediate(tick);
    expect(await log.sweepExpired()).toBe(n - n / 5);
    sweeping = false;
    expect(turns).toBeGreaterThanOrEqual(2); // 2,500 records: three pages, a turn between each
    expect(db.streams.getCount()).toBe(n / 5);
    expect(await log.last('s00000')).toBe(1);
    expect(await log.last('s00001')).toBe(0);
    await log.close();
  });
});
