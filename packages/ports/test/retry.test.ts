import { describe, expect, it } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { InMemoryDocumentStore, isVersionConflict, updateWithRetry, upsertWithRetry } from '../src/index';
import type { Collection } from '../src/index';

interface Counter {
  n: number;
}

async function counters(): Promise<Collection<Counter>> {
  const store = new InMemoryDocumentStore();
  return store.collection<Counter>({ name: 'counters' });
}

describe('updateWithRetry: one compare-and-set loop with write options and an after-write hook', () => {
  it('applies the mutation to the fresh document after a concurrent writer won, and runs afterWrite once', async () => {
    const coll = await counters();
    await coll.insert('c', { n: 0 });
    let rounds = 0;
    const after: number[] = [];
    const saved = await updateWithRetry(
      coll,
      'c',
      async (cur) => {
        rounds += 1;
        // The first round loses to a concurrent writer that lands between the read and the write.
        if (rounds === 1) await coll.replace('c', cur.version, { n: cur.doc.n + 10 });
        return { n: cur.doc.n + 1 };
      },
      { writeOptions: () => ({ expiresAt: 1234 }), afterWrite: (s) => void after.push(s.doc.n) },
    );
    expect(rounds).toBe(2);
    expect(saved?.doc.n).toBe(11);
    expect(saved?.expiresAt).toBe(1234);
    expect(after).toEqual([11]);
  });

  it('uses the given current read on the first round; undefined from mutate leaves it and skips afterWrite', async () => {
    const coll = await counters();
    const first = await coll.insert('c', { n: 5 });
    let hook = 0;
    const same = await updateWithRetry(coll, 'c', () => undefined, { current: first, afterWrite: () => void hook++ });
    expect(same).toBe(first);
    expect(hook).toBe(0);
  });

  it('resolves undefined for a missing document and lets a refusal from mutate through', async () => {
    const coll = await counters();
    expect(await updateWithRetry(coll, 'nope', () => ({ n: 1 }))).toBeUndefined();
    await coll.insert('c', { n: 1 });
    await expect(
      updateWithRetry(coll, 'c', () => {
        throw new AppError('INVALID_PARAMS', 'refused');
      }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('throws the exhausted error when every round meets a concurrent writer (a number is still the attempts)', async () => {
    const coll = await counters();
    await coll.insert('c', { n: 0 });
    const racing = async (cur: { version: number; doc: Counter }): Promise<Counter> => {
      await coll.replace('c', cur.version, { n: cur.doc.n + 1 });
      return { n: -1 };
    };
    await expect(
      updateWithRetry(coll, 'c', racing, { attempts: 3, exhausted: () => new AppError('UNAVAILABLE', 'busy') }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', message: 'busy' });
    const err = await updateWithRetry(coll, 'c', racing, 2).catch((e: unknown) => e);
    expect(isVersionConflict(err)).toBe(true);
    expect((await coll.get('c'))?.doc.n).toBe(5);
  });
});

describe('upsertWithRetry: creates when missing, retries a racing insert', () => {
  it('inserts when missing, then updates the stored document', async () => {
    const coll = await counters();
    const bump = (cur: { doc: Counter } | undefined): Counter => ({ n: (cur?.doc.n ?? 0) + 1 });
    expect((await upsertWithRetry(coll, 'c', bump))?.doc.n).toBe(1);
    expect((await upsertWithRetry(coll, 'c', bump, { writeOptions: () => ({ expiresAt: 99 }) }))?.expiresAt).toBe(99);
    expect((await coll.get('c'))?.doc.n).toBe(2);
  });

  it('a racing insert (duplicate key) is read again and the mutation applied to the winner', async () => {
    const coll = await counters();
    let rounds = 0;
    const saved = await upsertWithRetry(coll, 'c', async (cur) => {
      rounds += 1;
      if (!cur) await coll.insert('c', { n: 100 }); // another writer creates it first
      return { n: (cur?.doc.n ?? 0) + 1 };
    });
    expect(rounds).toBe(2);
    expect(saved?.doc.n).toBe(101);
  });

  it('insertFirst writes without a read when the document is new, and falls back to the loop when it exists', async () => {
    const coll = await counters();
    let mutated = 0;
    const mutate = (cur: { doc: Counter } | undefined): Counter => {
      mutated += 1;
      return { n: (cur?.doc.n ?? 0) + 1 };
    };
    expect((await upsertWithRetry(coll, 'c', mutate, { insertFirst: () => ({ n: 1 }) }))?.doc.n).toBe(1);
    expect(mutated).toBe(0);
    expect((await upsertWithRetry(coll, 'c', mutate, { insertFirst: () => ({ n: 1 }) }))?.doc.n).toBe(2);
    expect(mutated).toBe(1);
  });
});
