import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { Collection } from '@a2a-inbound/ports';
import { updateWithRetry } from '@a2a-inbound/ports';
import { MongoBlobStore, MongoDocumentStore } from '../src/index';

// MongoDB/FerretDB-specific behaviour beyond the shared suites; real engine only (MONGO_URL).
const url = process.env.MONGO_URL ?? '';
const dbName = `adapter_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;

interface Doc {
  tenant?: string;
  name?: string;
  n: number;
  metadata?: Record<string, unknown>;
}

describe.runIf(Boolean(url))('MongoDocumentStore specifics', () => {
  let store: MongoDocumentStore;
  let raw: MongoClient;
  let coll: Collection<Doc>;
  beforeAll(async () => {
    store = await MongoDocumentStore.connect({ url, dbName, claimStaleMs: 300 });
    raw = new MongoClient(url);
    await raw.connect();
    coll = await store.collection<Doc>({
      name: 'things',
      indexes: [{ fields: ['tenant', 'name'], unique: true }, { fields: ['n'] }],
    });
  });
  afterAll(async () => {
    await raw
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await raw.close();
    await store.close();
    await store.close(); // idempotent
  });

  it('stores {_id, v, d (keys encoded), x, u_<fields>} and reads it back', async () => {
    await coll.insert(
      'layout',
      { tenant: 't', name: 'layout', n: 1, metadata: { 'a.b': 1, $x: { $y: 2 } } },
      { expiresAt: 42 },
    );
    const row = await raw
      .db(dbName)
      .collection('things')
      .findOne({ _id: 'layout' as never });
    expect(row).toMatchObject({
      v: 1,
      x: 42,
      d: { tenant: 't', metadata: { 'a%2Eb': 1, '%24x': { '%24y': 2 } } },
      'u_tenant%2Cname': '["t","layout"]',
    });
    expect(await coll.get('layout')).toEqual({
      id: 'layout',
      version: 1,
      expiresAt: 42,
      doc: { tenant: 't', name: 'layout', n: 1, metadata: { 'a.b': 1, $x: { $y: 2 } } },
    });
    expect((await coll.find({ n: 1 })).map((v) => v.id)).toContain('layout');
  });

  it('refuses a replace that collides with a unique key (DUPLICATE_KEY), leaving the document as it was', async () => {
    await coll.insert('u1', { tenant: 'u', name: 'one', n: 0 });
    await coll.insert('u2', { tenant: 'u', name: 'two', n: 0 });
    await expect(coll.replace('u2', 1, { tenant: 'u', name: 'one', n: 1 })).rejects.toMatchObject({
      code: 'DUPLICATE_KEY',
    });
    expect(await coll.get('u2')).toMatchObject({ version: 1, doc: { name: 'two' } });
    expect((await coll.replace('u2', 1, { tenant: 'u', name: 'three', n: 1 })).version).toBe(2);
  });

  it('keeps exactly one winner per version under heavy races, and loses no update', async () => {
    for (let i = 0; i < 10; i++) await coll.insert(`race-${i}`, { tenant: 'race', name: String(i), n: 0 });
    const rounds = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        Promise.allSettled(
          Array.from({ length: 4 }, (__, w) =>
            coll.replace(`race-${i}`, 1, { tenant: 'race', name: String(i), n: w + 1 }),
          ),
        ),
      ),
    );
    for (const results of rounds) expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await coll.insert('counter', { tenant: 'counter', name: 'c', n: 0 });
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let k = 0; k < 5; k++)
          await updateWithRetry(coll, 'counter', (cur) => ({ ...cur.doc, n: cur.doc.n + 1 }), 200);
      }),
    );
    expect(await coll.get('counter')).toMatchObject({ version: 31, doc: { n: 30 } });
  }, 60_000);

  it('maintains every unique index in the database, even through a handle opened without it', async () => {
    const bare = await store.collection<Doc>({ name: 'things' });
    await bare.insert('via-bare', { tenant: 'bare', name: 'x', n: 0 });
    await expect(coll.insert('via-full', { tenant: 'bare', name: 'x', n: 0 })).rejects.toMatchObject({
      code: 'DUPLICATE_KEY',
    });
  });

  it('adds a unique index to a populated collection by backfilling its keys', async () => {
    const plain = await store.collection<Doc>({ name: 'later' });
    await plain.insert('l1', { tenant: 'a', n: 1 });
    await plain.insert('l2', { tenant: 'b', n: 2 });
    const uniq = await store.collection<Doc>({ name: 'later', indexes: [{ fields: ['tenant'], unique: true }] });
    await expect(uniq.insert('l3', { tenant: 'a', n: 3 })).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    await uniq.insert('l4', { tenant: 'c', n: 4 });
  });

  it('claim CAS: recovers from a claim left by a crashed writer, and respects a live one', async () => {
    const claimed = await MongoDocumentStore.connect({ url, dbName, cas: 'claim', claimStaleMs: 300 });
    const coll = await claimed.collection<Doc>({ name: 'things' });
    await coll.insert('stale', { tenant: 'stale', name: 's', n: 0 });
    const claims = raw.db(dbName).collection('_cas_claims');
    const row = await raw
      .db(dbName)
      .collection('things')
      .findOne({ _id: 'stale' as never });
    const k = JSON.stringify(['things', 'stale', row!.i, 2]);
    await claims.insertOne({ _id: 'live' as never, k, at: Date.now() + 60_000 });
    await expect(coll.replace('stale', 1, { tenant: 'stale', name: 's', n: 1 })).rejects.toMatchObject({
      code: 'VERSION_CONFLICT',
    });
    await claims.updateOne({ _id: 'live' as never }, { $set: { at: Date.now() - 1_000 } });
    expect((await coll.replace('stale', 1, { tenant: 'stale', name: 's', n: 1 })).version).toBe(2);
    // The winner's claim is kept (a version is claimed once), the crashed writer's is gone.
    expect(await claims.find({ k }).toArray()).toEqual([expect.objectContaining({ k })]);
    expect(await claims.countDocuments({ _id: 'live' as never })).toBe(0);
    await claimed.close();
  });

  it('claim CAS: two operations per write of a known document, filtered on _id, version and incarnation', async () => {
    const commands: { name: string; coll: unknown; filter?: Record<string, unknown> }[] = [];
    const claimed = await MongoDocumentStore.connect({
      url,
      dbName,
      cas: 'claim',
      onCommand: (name, command) => {
        if (['ping', 'hello', 'isMaster', 'ismaster', 'buildInfo', 'listIndexes', 'createIndexes'].includes(name))
          return;
        const filter =
          name === 'findAndModify'
            ? (command.query as Record<string, unknown>)
            : name === 'delete'
              ? (command.deletes as { q: Record<string, unknown> }[])[0]!.q
              : undefined;
        commands.push({ name, coll: command[name], ...(filter ? { filter } : {}) });
      },
    });
    const c = await claimed.collection<Doc>({ name: 'known' });
    await c.insert('a', { n: 0 });
    commands.length = 0;
    await c.replace('a', 1, { n: 1 });
    await c.replace('a', 2, { n: 2 });
    expect(commands.map((x) => `${String(x.coll)} ${x.name}`)).toEqual([
      '_cas_claims insert',
      'known findAndModify',
      '_cas_claims insert',
      'known findAndModify',
    ]);
    for (const f of commands.filter((x) => x.filter)) expect(Object.keys(f.filter!).sort()).toEqual(['_id', 'i', 'v']);
    await expect(c.replace('a', 1, { n: 9 })).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(await c.delete('a', 1)).toBe(false);
    expect(await c.delete('a', 3)).toBe(true);
    expect(await c.get('a')).toBeUndefined();
    await claimed.close();
  });

  it('claim CAS: an id deleted and inserted again elsewhere takes writes from version 1, and a stale replica cannot write the new one', async () => {
    const a = await MongoDocumentStore.connect({ url, dbName, cas: 'claim' });
    const b = await MongoDocumentStore.connect({ url, dbName, cas: 'claim' });
    const ca = await a.collection<Doc>({ name: 'reborn' });
    const cb = await b.collection<Doc>({ name: 'reborn' });
    await ca.insert('x', { n: 0 });
    await ca.replace('x', 1, { n: 1 }); // claims version 2 of the first incarnation (kept)
    expect(await cb.delete('x')).toBe(true);
    await cb.insert('x', { n: 10 });
    // Replica a still remembers the first incarnation: its write at version 1 lands on the new one once.
    expect(await ca.replace('x', 1, { n: 11 })).toMatchObject({ version: 2, doc: { n: 11 } });
    await expect(cb.replace('x', 1, { n: 12 })).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    // Racing replicas on the new incarnation: one winner per version.
    const results = await Promise.allSettled([ca.replace('x', 2, { n: 20 }), cb.replace('x', 2, { n: 21 })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await ca.get('x')).toMatchObject({ version: 3 });
    await a.close();
    await b.close();
  });

  it('sorts missing fields first ascending and last descending, ties by id', async () => {
    const s = await store.collection<Doc>({ name: 'sorting', indexes: [{ fields: ['tenant'] }] });
    await s.insert('b', { tenant: 's', n: 2 });
    await s.insert('a', { tenant: 's', n: 2 });
    await s.insert('c', { tenant: 's', name: 'x', n: 1 });
    await s.insert('d', { n: 0 });
    expect((await s.find({}, { sort: { field: 'tenant', direction: 1 } })).map((v) => v.id)).toEqual([
      'd',
      'a',
      'b',
      'c',
    ]);
    expect((await s.find({}, { sort: { field: 'tenant', direction: -1 } })).map((v) => v.id)).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
    expect((await s.find({ tenant: null }, {})).map((v) => v.id)).toEqual(['d']);
    expect(await s.find({}, { limit: 0 })).toEqual([]);
    expect((await s.find({}, { skip: 1, limit: 2 })).map((v) => v.id)).toEqual(['b', 'c']);
  });

  it('reports UNAVAILABLE once closed', async () => {
    const other = await MongoDocumentStore.connect({ url, dbName });
    const c = await other.collection<Doc>({ name: 'things' });
    await other.close();
    await expect(c.get('layout')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    await expect(other.ping()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe.runIf(Boolean(url))('MongoBlobStore specifics', () => {
  let blobs: MongoBlobStore;
  beforeAll(async () => {
    blobs = await MongoBlobStore.connect({ url, dbName, maxBlobBytes: 1024 * 1024 });
  });
  afterAll(async () => {
    await blobs.close();
    await blobs.close();
  });

  it('treats malformed or unknown ids as absent', async () => {
    expect(await blobs.get('not-an-id', 'o')).toBeUndefined();
    expect(await blobs.get('0123456789abcdef01234567', 'o')).toBeUndefined();
    expect(await blobs.delete('0123456789abcdef01234567', 'o')).toBe(false);
  });

  it('refuses a file over maxBlobBytes with PAYLOAD_TOO_LARGE', async () => {
    await expect(blobs.put(randomBytes(1024 * 1024 + 1), { owner: 'o', mimeType: 'x/y' })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('keeps name and mime type, and stores in GridFS chunks', async () => {
    const data = randomBytes(600 * 1024);
    const ref = await blobs.put(data, { owner: 'o', name: 'report.pdf', mimeType: 'application/pdf' });
    const raw = new MongoClient(url);
    try {
      await raw.connect();
      expect(
        await raw
          .db(dbName)
          .collection('files.chunks')
          .countDocuments({ files_id: { $exists: true } }),
      ).toBeGreaterThanOrEqual(3);
    } finally {
      await raw.close();
    }
    const got = await blobs.get(ref.id, 'o');
    expect(got?.ref).toEqual(ref);
    expect(Buffer.from(got!.data).equals(data)).toBe(true);
  });
});
