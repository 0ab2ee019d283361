import { afterAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { DuplicateKeyError } from '@a2a-inbound/errors';
import { MongoDocumentStore } from '../src/index';

// `onOperation` tells every driver command of the port, by collection and command (claims as `_cas_claims`):
// what `a2a_store_operations_total` and the distributed bench's store operations per send count (issue 23).
const url = process.env.MONGO_URL ?? '';
const dbName = `adapter_ops_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;

describe.runIf(Boolean(url))('MongoDocumentStore onOperation', () => {
  afterAll(async () => {
    const raw = new MongoClient(url);
    await raw.connect();
    await raw
      .db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await raw.close();
  });

  it('counts each command of the port by collection, the claims of claim-mode CAS apart', async () => {
    const seen: string[] = [];
    const store = await MongoDocumentStore.connect({
      url,
      dbName,
      onOperation: (collection, command) => seen.push(`${collection} ${command}`),
    });
    try {
      const coll = await store.collection<{ n: number }>({ name: 'counted' });
      seen.length = 0;
      const a = await coll.insert('a', { n: 1 });
      await coll.get('a');
      await coll.replace('a', a.version, { n: 2 });
      await coll.delete('a');
      const cas = store.claims ? ['_cas_claims insert'] : [];
      expect(seen).toEqual(['counted insert', 'counted find', ...cas, 'counted findAndModify', 'counted delete']);
    } finally {
      await store.close();
    }
  });

  it('coalesces inserts made while one is in flight into one unordered command; a duplicate fails alone', async () => {
    const seen: string[] = [];
    const store = await MongoDocumentStore.connect({
      url,
      dbName,
      onOperation: (collection, command) => seen.push(`${collection} ${command}`),
    });
    try {
      const coll = await store.collection<{ n: number }>({ name: 'coalesced' });
      await coll.insert('taken', { n: 0 });
      seen.length = 0;
      // The first goes at once (alone); the nine made meanwhile share the next command.
      const results = await Promise.allSettled(
        ['b0', 'b1', 'b2', 'taken', 'b4', 'b5', 'b6', 'b7', 'b8', 'b9'].map((id, n) => coll.insert(id, { n })),
      );
      expect(seen).toEqual(['coalesced insert', 'coalesced insert']);
      expect(results.map((r) => r.status)).toEqual([
        ...Array(3).fill('fulfilled'),
        'rejected',
        ...Array(6).fill('fulfilled'),
      ]);
      expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateKeyError);
      const stored = await coll.find({});
      expect(stored.map((v) => [v.id, v.doc.n]).sort()).toEqual(
        [
          ['b0', 0],
          ['b1', 1],
          ['b2', 2],
          ['b4', 4],
          ['b5', 5],
          ['b6', 6],
          ['b7', 7],
          ['b8', 8],
          ['b9', 9],
          ['taken', 0],
        ].sort(),
      );
      // Each coalesced document is writable as one inserted alone (claim mode: its incarnation is known).
      const b5 = stored.find((v) => v.id === 'b5')!;
      await coll.replace('b5', b5.version, { n: 50 });
      expect((await coll.get('b5'))?.doc.n).toBe(50);
    } finally {
      await store.close();
    }
  });
});
