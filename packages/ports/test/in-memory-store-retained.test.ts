import { describe, expect, it } from 'vitest';
import { InMemoryDocumentStore } from '../src/memory/in-memory-document-store';

interface Doc {
  n: number;
  state?: string;
}

/**
 * The in-memory store's bounds (ADR 0075): documents with a retention (`expiresAt`: finished tasks, messageId
 * records) make room, oldest retention first; documents without one (running tasks, accounts) are never dropped.
 */
describe('in-memory document store at its bounds', () => {
  it('a full collection evicts the document whose retention started first instead of refusing the insert', async () => {
    const store = new InMemoryDocumentStore({ maxDocumentsPerCollection: 3 });
    const c = await store.collection<Doc>({ name: 'tasks', indexes: [{ fields: ['state'] }] });
    await c.insert('running', { n: 0, state: 'working' }); // no retention: kept for good
    await c.insert('a', { n: 1, state: 'completed' }, { expiresAt: 1_000 });
    await c.insert('b', { n: 2, state: 'completed' }, { expiresAt: 2_000 });
    await c.insert('c', { n: 3, state: 'working' }); // full: `a` goes
    expect(await c.get('a')).toBeUndefined();
    expect((await c.find({ state: 'completed' })).map((v) => v.id)).toEqual(['b']);
    // A replace that sets a retention moves the document to the end of the order.
    const b = await c.get('b');
    await c.replace('c', 1, { n: 3, state: 'completed' }, { expiresAt: 3_000 });
    await c.replace('b', b!.version, { n: 2, state: 'completed' }, { expiresAt: 4_000 });
    await c.insert('d', { n: 4, state: 'working' }); // full: `c` goes (its retention was set before b's)
    expect(await c.get('c')).toBeUndefined();
    expect((await c.get('b'))?.doc.n).toBe(2);
    expect((await c.get('running'))?.doc.n).toBe(0);
    await store.close();
  });

  it('refuses an insert only when no document of the collection has a retention', async () => {
    const store = new InMemoryDocumentStore({ maxDocumentsPerCollection: 2 });
    const c = await store.collection<Doc>({ name: 'accounts' });
    await c.insert('x', { n: 1 });
    await c.insert('y', { n: 2 });
    await expect(c.insert('z', { n: 3 })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect((await c.find({})).map((v) => v.id)).toEqual(['x', 'y']);
    await store.close();
  });

  it('keeps at most maxRetainedPerCollection documents with a retention, the latest ones', async () => {
    const store = new InMemoryDocumentStore({ maxDocumentsPerCollection: 1_000, maxRetainedPerCollection: 3 });
    const c = await store.collection<Doc>({ name: 'message_ids' });
    for (let i = 0; i < 4; i++) await c.insert(`keep${i}`, { n: i }); // no retention: not counted, never evicted
    for (let i = 0; i < 10; i++) await c.insert(`m${i}`, { n: i }, { expiresAt: 10_000 + i });
    expect((await c.find({})).map((v) => v.id).sort()).toEqual(['keep0', 'keep1', 'keep2', 'keep3', 'm7', 'm8', 'm9']);
    // The retention sweep still deletes what expired, and an evicted document no longer counts.
    expect(await c.sweepExpired(10_008)).toBe(2);
    expect((await c.find({})).map((v) => v.id).sort()).toEqual(['keep0', 'keep1', 'keep2', 'keep3', 'm9']);
    await c.insert('m10', { n: 10 }, { expiresAt: 20_000 });
    await c.insert('m11', { n: 11 }, { expiresAt: 20_001 });
    expect((await c.find({})).map((v) => v.id).sort()).toEqual([
      'keep0',
      'keep1',
      'keep2',
      'keep3',
      'm10',
      'm11',
      'm9',
    ]);
    await store.close();
  });
});
