import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import type { Collection, DocumentStore } from '../document-store';
import { updateWithRetry } from '../retry';

interface Doc {
  tenant: string;
  name: string;
  n: number;
  metadata?: Record<string, unknown>;
  lists?: Record<string, unknown>;
}

/** The document store contract, run against every adapter. `factory` gets a fresh namespace each run. */
export function describeDocumentStoreContract(adapter: string, factory: () => Promise<DocumentStore>): void {
  describe(`DocumentStore contract: ${adapter}`, () => {
    let store: DocumentStore;
    let coll: Collection<Doc>;
    const name = `contract_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;

    beforeAll(async () => {
      store = await factory();
      coll = await store.collection<Doc>({
        name,
        indexes: [{ fields: ['tenant', 'name'], unique: true }, { fields: ['n'] }],
      });
    });
    afterAll(async () => {
      await store.close();
    });

    it('inserts at version 1 and reads back a document that changing does not change the store', async () => {
      const v = await coll.insert('a', { tenant: 't1', name: 'a', n: 1 });
      expect(v.version).toBe(1);
      const got = await coll.get('a');
      expect(got?.doc).toEqual({ tenant: 't1', name: 'a', n: 1 });
      // A returned document may be read-only (the in-memory adapter's are frozen): changing it either throws or
      // changes only the caller's copy, never the store.
      try {
        got!.doc.n = 99;
      } catch (err) {
        expect(err).toBeInstanceOf(TypeError);
      }
      expect((await coll.get('a'))?.doc.n).toBe(1);
    });

    it('refuses a duplicate id and a duplicate unique key with DUPLICATE_KEY', async () => {
      await expect(coll.insert('a', { tenant: 't1', name: 'zz', n: 1 })).rejects.toMatchObject({
        code: 'DUPLICATE_KEY',
      });
      await expect(coll.insert('a2', { tenant: 't1', name: 'a', n: 2 })).rejects.toMatchObject({
        code: 'DUPLICATE_KEY',
      });
      await coll.insert('a3', { tenant: 't2', name: 'a', n: 3 });
    });

    it('compare-and-set: replaces at the expected version, refuses a stale one', async () => {
      const cur = (await coll.get('a'))!;
      const next = await coll.replace('a', cur.version, { ...cur.doc, n: 10 });
      expect(next.version).toBe(cur.version + 1);
      await expect(coll.replace('a', cur.version, { ...cur.doc, n: 11 })).rejects.toMatchObject({
        code: 'VERSION_CONFLICT',
      });
      await expect(coll.replace('missing', 1, cur.doc)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await coll.get('a'))?.doc.n).toBe(10);
    });

    it('takes writes from version 1 again after a delete and a new insert of the same id', async () => {
      await coll.insert('again', { tenant: 't11', name: 'again', n: 0 });
      await coll.replace('again', 1, { tenant: 't11', name: 'again', n: 1 });
      expect(await coll.delete('again')).toBe(true);
      await coll.insert('again', { tenant: 't11', name: 'again', n: 5 });
      expect(await coll.replace('again', 1, { tenant: 't11', name: 'again', n: 6 })).toMatchObject({
        version: 2,
        doc: { n: 6 },
      });
      expect(await coll.delete('again', 2)).toBe(true);
    });

    it('lets exactly one of two racing writers win', async () => {
      await coll.insert('race', { tenant: 't9', name: 'race', n: 0 });
      const results = await Promise.allSettled([
        coll.replace('race', 1, { tenant: 't9', name: 'race', n: 1 }),
        coll.replace('race', 1, { tenant: 't9', name: 'race', n: 2 }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected');
      expect((rejected as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
    });

    it('keeps one winner per version under many racing writers, and loses no update', async () => {
      for (let i = 0; i < 8; i++) await coll.insert(`many-${i}`, { tenant: 't10', name: `many-${i}`, n: 0 });
      const rounds = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          Promise.allSettled(
            Array.from({ length: 4 }, (__, w) =>
              coll.replace(`many-${i}`, 1, { tenant: 't10', name: `many-${i}`, n: w + 1 }),
            ),
          ),
        ),
      );
      for (const results of rounds) expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      await coll.insert('counter', { tenant: 't10', name: 'counter', n: 0 });
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let k = 0; k < 5; k++)
            await updateWithRetry(coll, 'counter', (cur) => ({ ...cur.doc, n: cur.doc.n + 1 }), 200);
        }),
      );
      expect(await coll.get('counter')).toMatchObject({ version: 21, doc: { n: 20 } });
    }, 60_000);

    it('exempts documents missing every field of a unique index, not those missing some', async () => {
      const sparse = await store.collection<Partial<Doc>>({
        name: `${name}_sparse`,
        indexes: [{ fields: ['tenant', 'name'], unique: true }],
      });
      await sparse.insert('none-1', { n: 0 });
      await sparse.insert('none-2', { n: 0 });
      await sparse.insert('half-1', { tenant: 'half', n: 0 });
      await expect(sparse.insert('half-2', { tenant: 'half', n: 0 })).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    });

    it('finds by equality on top-level fields, sorted and limited', async () => {
      await coll.insert('b', { tenant: 't3', name: 'b', n: 5 });
      await coll.insert('c', { tenant: 't3', name: 'c', n: 4 });
      await coll.insert('d', { tenant: 't3', name: 'd', n: 6 });
      const all = await coll.find({ tenant: 't3' }, { sort: { field: 'n', direction: -1 } });
      expect(all.map((v) => v.id)).toEqual(['d', 'b', 'c']);
      expect(
        (await coll.find({ tenant: 't3' }, { limit: 2, sort: { field: 'n', direction: 1 } })).map((v) => v.id),
      ).toEqual(['c', 'b']);
      expect(await coll.count({ tenant: 't3' })).toBe(3);
      expect((await coll.findOne({ tenant: 't3', name: 'c' }))?.id).toBe('c');
      expect(await coll.findOne({ tenant: 'nobody' })).toBeUndefined();
    });

    it('stores user metadata with "." and "$" keys losslessly', async () => {
      const metadata = {
        'a.b': 1,
        $set: { 'x.y': [1, { $inc: 'z' }] },
        plain: 'v',
        'dots.in.keys': null,
        nested: { $: '.' },
      };
      await coll.insert('meta', { tenant: 't4', name: 'meta', n: 0, metadata });
      expect((await coll.get('meta'))?.doc.metadata).toEqual(metadata);
    });

    it('stores arrays of arrays losslessly (FerretDB refuses them raw: the linker stores argument lists so)', async () => {
      const lists = { args: [[{ lit: '/v1' }], [], [[1, [2]], { k: [[]] }]], objectLike: { '%a': [1] } };
      await coll.insert('lists', { tenant: 't5', name: 'lists', n: 0, lists });
      expect((await coll.get('lists'))?.doc.lists).toEqual(lists);
    });

    it('frees a unique key when a replace or delete moves it away, and finds by the new value', async () => {
      await coll.insert('mv', { tenant: 't7', name: 'old-name', n: 1 });
      await coll.replace('mv', 1, { tenant: 't7', name: 'new-name', n: 2 });
      await coll.insert('mv2', { tenant: 't7', name: 'old-name', n: 3 });
      await expect(coll.insert('mv3', { tenant: 't7', name: 'new-name', n: 4 })).rejects.toMatchObject({
        code: 'DUPLICATE_KEY',
      });
      expect((await coll.findOne({ tenant: 't7', name: 'new-name' }))?.id).toBe('mv');
      expect(await coll.delete('mv')).toBe(true);
      await coll.insert('mv4', { tenant: 't7', name: 'new-name', n: 5 });
      expect((await coll.find({ tenant: 't7' })).map((v) => v.id).sort()).toEqual(['mv2', 'mv4']);
    });

    it('keeps a key that a replace leaves as it was, and moves only the keys it changes', async () => {
      await coll.insert('keep', { tenant: 't12', name: 'keep', n: 100 });
      await coll.insert('other', { tenant: 't12', name: 'other', n: 100 });
      // The unique key unchanged, the non-unique one moved.
      await coll.replace('keep', 1, { tenant: 't12', name: 'keep', n: 101 });
      expect((await coll.find({ n: 100 })).map((v) => v.id)).toEqual(['other']);
      expect((await coll.find({ n: 101 })).map((v) => v.id)).toEqual(['keep']);
      expect((await coll.findOne({ tenant: 't12', name: 'keep' }))?.doc.n).toBe(101);
      await expect(coll.insert('keep2', { tenant: 't12', name: 'keep', n: 1 })).rejects.toMatchObject({
        code: 'DUPLICATE_KEY',
      });
      // Nothing indexed changed: still found by both keys.
      await coll.replace('keep', 2, { tenant: 't12', name: 'keep', n: 101, metadata: { a: 1 } });
      expect((await coll.find({ n: 101 })).map((v) => v.id)).toEqual(['keep']);
      expect((await coll.findOne({ tenant: 't12', name: 'keep' }))?.version).toBe(3);
      // Onto a key another document holds: refused, and the document keeps its own.
      await expect(coll.replace('keep', 3, { tenant: 't12', name: 'other', n: 101 })).rejects.toMatchObject({
        code: 'DUPLICATE_KEY',
      });
      expect((await coll.findOne({ tenant: 't12', name: 'keep' }))?.version).toBe(3);
    });

    it('deletes, optionally at a version', async () => {
      await coll.insert('del', { tenant: 't5', name: 'del', n: 0 });
      expect(await coll.delete('del', 7)).toBe(false);
      expect(await coll.delete('del', 1)).toBe(true);
      expect(await coll.delete('del')).toBe(false);
      expect(await coll.get('del')).toBeUndefined();
    });

    it('sweeps documents whose expiresAt has passed, and only those', async () => {
      await coll.insert('old', { tenant: 't6', name: 'old', n: 0 }, { expiresAt: 1_000 });
      await coll.insert('new', { tenant: 't6', name: 'new', n: 0 }, { expiresAt: 10_000 });
      await coll.insert('forever', { tenant: 't6', name: 'forever', n: 0 });
      expect(await coll.sweepExpired(5_000)).toBe(1);
      expect((await coll.find({ tenant: 't6' })).map((v) => v.id).sort()).toEqual(['forever', 'new']);
    });

    it('without indexes too: compare-and-set and delete check the version and keep the retention time', async () => {
      const plain = await store.collection<Doc>({ name: `${name}_plain` });
      await plain.insert('p', { tenant: 't8', name: 'p', n: 0 }, { expiresAt: 2_000 });
      expect((await plain.replace('p', 1, { tenant: 't8', name: 'p', n: 1 })).version).toBe(2);
      await expect(plain.replace('p', 1, { tenant: 't8', name: 'p', n: 9 })).rejects.toMatchObject({
        code: 'VERSION_CONFLICT',
      });
      await expect(plain.replace('none', 1, { tenant: 't8', name: 'p', n: 9 })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      expect((await plain.replace('p', 2, { tenant: 't8', name: 'p', n: 2 })).version).toBe(3);
      expect((await plain.get('p'))?.doc.n).toBe(2);
      expect(await plain.delete('p', 2)).toBe(false);
      expect(await plain.sweepExpired(1_000)).toBe(0);
      expect(await plain.sweepExpired(3_000)).toBe(1);
      expect(await plain.get('p')).toBeUndefined();
      await plain.insert('q', { tenant: 't8', name: 'q', n: 0 });
      await plain.replace('q', 1, { tenant: 't8', name: 'q', n: 1 }, { expiresAt: 4_000 });
      expect(await plain.delete('q', 2)).toBe(true);
      expect(await plain.sweepExpired(5_000)).toBe(0);
    });

    it('opening a collection twice is idempotent and sees the same data', async () => {
      const again = await store.collection<Doc>({ name, indexes: [{ fields: ['tenant', 'name'], unique: true }] });
      expect((await again.get('a'))?.doc.n).toBe(10);
      await store.ping();
    });
  });
}
