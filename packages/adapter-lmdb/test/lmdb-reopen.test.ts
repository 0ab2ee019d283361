import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DuplicateKeyError } from '@a2a-inbound/errors';
import { LmdbBlobStore, LmdbDatabase, LmdbDocumentStore, LmdbEventLog } from '../src/index';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('lmdb adapters across a reopen of the same data directory', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const fresh = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'lmdb-reopen-'));
    dirs.push(d);
    return d;
  };

  it('keeps documents, versions, unique indexes, retention, events and blobs', async () => {
    const dir = fresh();
    let db = LmdbDatabase.open(dir);
    let store = new LmdbDocumentStore(db);
    let events = new LmdbEventLog(db);
    let blobs = new LmdbBlobStore(db);
    const spec = { name: 'users', indexes: [{ fields: ['email'], unique: true }, { fields: ['tenant'] }] };
    const users = await store.collection<{ email: string; tenant: string }>(spec);
    await users.insert('u1', { email: 'a@x', tenant: 't' });
    await users.replace('u1', 1, { email: 'b@x', tenant: 't' }, { expiresAt: 5_000 });
    await users.insert('u2', { email: 'c@x', tenant: 't' });
    await events.appendBatch('task-1', [
      { seq: 1, data: enc('one') },
      { seq: 2, data: enc('two') },
    ]);
    const ref = await blobs.put(enc('file bytes'), { owner: 'sub', mimeType: 'text/plain' });
    await Promise.all([store.close(), events.close(), blobs.close()]);

    db = LmdbDatabase.open(dir);
    store = new LmdbDocumentStore(db);
    events = new LmdbEventLog(db);
    blobs = new LmdbBlobStore(db);
    const again = await store.collection<{ email: string; tenant: string }>(spec);
    expect(await again.get('u1')).toEqual({
      id: 'u1',
      version: 2,
      doc: { email: 'b@x', tenant: 't' },
      expiresAt: 5_000,
    });
    expect((await again.find({ tenant: 't' })).map((v) => v.id)).toEqual(['u1', 'u2']);
    expect(await again.findOne({ email: 'a@x' })).toBeUndefined();
    await expect(again.insert('u3', { email: 'c@x', tenant: 't' })).rejects.toBeInstanceOf(DuplicateKeyError);
    expect(await again.sweepExpired(4_999)).toBe(0);
    expect(await again.sweepExpired(5_000)).toBe(1);
    expect(await again.findOne({ email: 'b@x' })).toBeUndefined();
    expect(await events.last('task-1')).toBe(2);
    expect((await events.read('task-1', 1)).map((e) => new TextDecoder().decode(e.data))).toEqual(['two']);
    expect(new TextDecoder().decode((await blobs.get(ref.id, 'sub'))!.data)).toBe('file bytes');
    await Promise.all([store.close(), events.close(), blobs.close()]);
  });

  it('builds an index named by a later open over the documents already stored', async () => {
    const dir = fresh();
    const store = LmdbDocumentStore.open(dir);
    const before = await store.collection<{ k: string }>({ name: 'c' });
    await before.insert('1', { k: 'a' });
    await before.insert('2', { k: 'a' });
    const plain = await store.collection<{ k: string }>({ name: 'c', indexes: [{ fields: ['k'] }] });
    expect((await plain.find({ k: 'a' })).map((v) => v.id)).toEqual(['1', '2']);
    await expect(store.collection({ name: 'c', indexes: [{ fields: ['k'], unique: true }] })).rejects.toBeInstanceOf(
      DuplicateKeyError,
    );
    await store.close();
  });

  it('forgets an event stream past its retention, and the sweep deletes it', async () => {
    let now = 1_000;
    const dir = fresh();
    const events = new LmdbEventLog(LmdbDatabase.open(dir), { clock: { now: () => now } });
    await events.append('s', 1, enc('a'));
    await events.expire('s', 100);
    now = 1_100;
    expect(await events.last('s')).toBe(0);
    expect(await events.read('s', 0)).toEqual([]);
    expect(await events.sweepExpired()).toBe(1);
    expect(await events.append('s', 1, enc('new'))).toBe(true);
    await events.close();
  });

  it('commits the writes of one turn together; one that throws fails alone and the others are kept (without the writemap)', async () => {
    const db = LmdbDatabase.open(fresh(), { writemap: false });
    const release = db.acquire();
    const k = (s: string): Buffer => Buffer.from(s);
    const results = await Promise.allSettled([
      db.write(() => db.meta.put(k('a'), '1')),
      db.write(() => {
        void db.meta.put(k('b'), '2');
        throw new Error('faulty');
      }),
      db.write(() => db.meta.put(k('c'), '3')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([db.meta.get(k('a')), db.meta.get(k('b')), db.meta.get(k('c'))]).toEqual(['1', undefined, '3']);
    await release();
  });

  it('with the writemap (ADR 0077), one that throws takes its transaction with it; the next write starts a new one', async () => {
    const db = LmdbDatabase.open(fresh());
    const release = db.acquire();
    const k = (s: string): Buffer => Buffer.from(s);
    const results = await Promise.allSettled([
      db.write(() => db.meta.put(k('a'), '1')),
      db.write(() => {
        void db.meta.put(k('b'), '2');
        throw new Error('faulty');
      }),
      db.write(() => db.meta.put(k('c'), '3')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    await db.committed();
    expect([db.meta.get(k('a')), db.meta.get(k('b')), db.meta.get(k('c'))]).toEqual([undefined, undefined, '3']);
    await release();
  });
});

describe('LmdbDatabase.compact: the file shrinks to the pages in use', () => {
  it('keeps its size after deletes (freed pages are reused, not returned); a compaction returns them and keeps every record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmdb-compact-'));
    try {
      let db = LmdbDatabase.open(dir);
      let store = new LmdbDocumentStore(db);
      let events = new LmdbEventLog(db);
      let docs = await store.collection<{ body: string; keep: boolean }>({
        name: 'docs',
        indexes: [{ fields: ['keep'] }],
      });
      const body = 'x'.repeat(8 * 1024);
      for (let i = 0; i < 1500; i++)
        await docs.insert(`d${i}`, { body, keep: i % 100 === 0 }, i % 100 === 0 ? {} : { expiresAt: 1 });
      await events.appendBatch('kept-stream', [{ seq: 1, data: enc('event') }]);
      await store.close();
      await events.close();
      const grown = statSync(join(dir, 'a2a.mdb')).size;

      db = LmdbDatabase.open(dir);
      store = new LmdbDocumentStore(db);
      docs = await store.collection({ name: 'docs', indexes: [{ fields: ['keep'] }] });
      expect(await docs.sweepExpired(10)).toBe(1485); // the retention sweep
      await db.sync();
      const firstSweep = statSync(join(dir, 'a2a.mdb')).size;
      expect(firstSweep).toBeGreaterThanOrEqual(grown); // LMDB does not shrink its file (the deletes even wrote pages)
      // The freed pages are reused: as much written again hardly grows the file.
      for (let i = 0; i < 1400; i++) await docs.insert(`again${i}`, { body, keep: false }, { expiresAt: 1 });
      expect(statSync(join(dir, 'a2a.mdb')).size).toBeLessThan(firstSweep * 1.1);
      expect(await docs.sweepExpired(10)).toBe(1400);
      await store.close();
      const swept = statSync(join(dir, 'a2a.mdb')).size;

      const { before, after } = await LmdbDatabase.compact(dir);
      expect(before).toBe(swept);
      expect(after).toBeLessThan(grown / 10);
      expect(statSync(join(dir, 'a2a.mdb')).size).toBe(after);
      expect(existsSync(join(dir, 'a2a.mdb.compact'))).toBe(false);

      db = LmdbDatabase.open(dir);
      store = new LmdbDocumentStore(db);
      events = new LmdbEventLog(db);
      docs = await store.collection({ name: 'docs', indexes: [{ fields: ['keep'] }] });
      const kept = await docs.find({ keep: true }, { limit: 100 });
      expect(kept.map((d) => d.id).sort()).toEqual(Array.from({ length: 15 }, (_, i) => `d${i * 100}`).sort());
      expect(kept[0]!.doc.body).toBe(body);
      expect((await events.read('kept-stream', 0)).map((e) => new TextDecoder().decode(e.data))).toEqual(['event']);
      // Writes go on in the compacted file.
      await docs.insert('after', { body: 'y', keep: true });
      expect((await docs.get('after'))?.version).toBe(1);
      await Promise.all([store.close(), events.close()]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
