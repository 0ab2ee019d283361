import { describe, expect, it } from 'vitest';
import { InMemoryDocumentStore } from '../src/memory/in-memory-document-store';

describe('in-memory unique index: a replace from missing fields to null ones (review25)', () => {
  it('indexes the null key, as an insert of that document would', async () => {
    const store = new InMemoryDocumentStore();
    const c = await store.collection<{ email?: string | null; n: number }>({
      name: 'users',
      indexes: [{ fields: ['email'], unique: true }],
    });
    await c.insert('a', { n: 0 }); // missing every field: exempt
    await c.replace('a', 1, { email: null, n: 1 }); // now holds the key [null]
    await expect(c.insert('b', { email: null, n: 2 })).rejects.toMatchObject({ code: 'DUPLICATE_KEY' });
    // And back: missing again frees it.
    await c.replace('a', 2, { n: 3 });
    await c.insert('b', { email: null, n: 2 });
    expect((await c.findOne({ email: null }))?.id).toBe('b');
  });
});
