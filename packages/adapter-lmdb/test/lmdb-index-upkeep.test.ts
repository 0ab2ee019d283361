import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LmdbDatabase, LmdbDocumentStore } from '../src/index';

interface Task {
  tenant: string;
  state: string;
  n: number;
}

describe('LmdbDocumentStore: a replace rewrites only the index and expiry entries that changed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmdb-upkeep-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps exactly one entry per index and per retention, and puts none for an unchanged one', async () => {
    const db = LmdbDatabase.open(dir);
    const store = new LmdbDocumentStore(db);
    const tasks = await store.collection<Task>({
      name: 'tasks',
      indexes: [{ fields: ['tenant'] }, { fields: ['tenant', 'state'] }],
    });
    const puts: string[] = [];
    for (const [name, sub] of [
      ['index', db.index],
      ['expiry', db.expiry],
    ] as const) {
      const put = sub.put.bind(sub);
      sub.put = (k: Buffer, v: string) => (puts.push(name), put(k, v));
    }
    const entries = (): { index: number; expiry: number } => ({
      index: db.index.getCount(),
      expiry: db.expiry.getCount(),
    });

    await tasks.insert('t1', { tenant: 'a', state: 'submitted', n: 0 }, { expiresAt: 1_000 });
    expect(puts.splice(0)).toEqual(['index', 'index', 'expiry']);
    // The state moves: only the (tenant, state) entry is rewritten; the tenant one and the retention stay.
    await tasks.replace('t1', 1, { tenant: 'a', state: 'working', n: 1 });
    expect(puts.splice(0)).toEqual(['index']);
    await tasks.replace('t1', 2, { tenant: 'a', state: 'working', n: 2 });
    expect(puts.splice(0)).toEqual([]);
    expect(entries()).toEqual({ index: 2, expiry: 1 });
    expect((await tasks.find({ tenant: 'a', state: 'submitted' })).length).toBe(0);
    expect((await tasks.find({ tenant: 'a', state: 'working' })).map((t) => t.id)).toEqual(['t1']);

    // A new retention time moves the expiry entry: the old one is gone, so a sweep at the old time keeps it.
    await tasks.replace('t1', 3, { tenant: 'a', state: 'completed', n: 3 }, { expiresAt: 5_000 });
    expect(entries()).toEqual({ index: 2, expiry: 1 });
    expect(await tasks.sweepExpired(2_000)).toBe(0);
    expect(await tasks.sweepExpired(5_000)).toBe(1);
    expect(entries()).toEqual({ index: 0, expiry: 0 });
    await store.close();
  });
});
