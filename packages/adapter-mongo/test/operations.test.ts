import { afterAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
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
});
