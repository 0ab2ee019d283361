import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LmdbDatabase } from '../src/index';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const key = (s: string): Buffer => Buffer.from(s);

/**
 * When an `interval` write resolves and when its transaction commits (ADR 0069): a write resolves at the next
 * check phase, with the others of its turn (concurrent writers stay in step); the transaction stays open while
 * writes keep coming and commits after two turns without one, or at `maxOpenMs`.
 */
describe('LmdbDatabase: writes settle at the check phase, the transaction commits when its writers pause', () => {
  const dbs: LmdbDatabase[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const db of dbs.splice(0)) await db.close();
    dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
  });
  const open = (maxOpenMs?: number): LmdbDatabase => {
    const dir = mkdtempSync(join(tmpdir(), 'lmdb-schedule-'));
    dirs.push(dir);
    const db = LmdbDatabase.open(dir, maxOpenMs ? { maxOpenMs } : {});
    dbs.push(db);
    return db;
  };

  it('resolves the writes of a turn together at its check phase, not within the writer’s own callback', async () => {
    const db = open();
    const order: string[] = [];
    // Two writers of one turn: the first one's continuation runs only after the second one has written.
    const first = db.write(() => db.meta.putSync(key('a'), '1')).then(() => order.push('a resolved'));
    await Promise.resolve();
    order.push('b writes');
    const second = db.write(() => db.meta.putSync(key('b'), '2')).then(() => order.push('b resolved'));
    await Promise.all([first, second]);
    expect(order).toEqual(['b writes', 'a resolved', 'b resolved']);
  });

  it('keeps one transaction while a writer writes turn after turn, and commits it after two turns without writes', async () => {
    const db = open(10_000);
    const before = db.commits;
    for (let i = 0; i < 8; i++) await db.write(() => db.meta.putSync(key(`w${i}`), String(i)));
    expect(db.commits).toBe(before);
    expect(db.committed()).toBeDefined();
    await db.committed();
    expect(db.commits - before).toBe(1);
    expect(db.writes).toBeGreaterThanOrEqual(8);
  });

  it('commits at maxOpenMs when the writes never pause', async () => {
    const db = open(20);
    const before = db.commits;
    const until = Date.now() + 200;
    let turns = 0;
    while (Date.now() < until) {
      await db.write(() => db.meta.putSync(key(`t${turns}`), String(turns)));
      turns += 1;
      await turn();
    }
    await db.committed();
    // At least one commit per 20 ms open, however busy the writer is.
    expect(db.commits - before).toBeGreaterThanOrEqual(5);
    expect(db.commits - before).toBeLessThan(turns);
  });
});

/**
 * ADR 0077: `interval` durability writes into LMDB's shared map (MDB_WRITEMAP) in the turn's transaction itself,
 * without a child transaction per write. A write that throws after writing cannot be undone alone, so the turn's
 * transaction is aborted with it; `writemap: false` keeps LMDB's child transactions (a throw undoes that write).
 */
describe('LmdbDatabase: a write that throws (writemap, ADR 0077)', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const open = (options: { writemap?: boolean } = {}): LmdbDatabase => {
    const dir = mkdtempSync(join(tmpdir(), 'lmdb-writemap-'));
    dirs.push(dir);
    return LmdbDatabase.open(dir, { maxOpenMs: 10_000, ...options });
  };
  const reopenRead = async (db: LmdbDatabase, k: string): Promise<string | undefined> => {
    const path = db.path;
    await db.close();
    const again = LmdbDatabase.open(path);
    try {
      return again.meta.get(key(k));
    } finally {
      await again.close();
    }
  };

  it('is on by default for interval durability and off for commit durability', async () => {
    const a = open();
    const b = open({ writemap: false });
    expect(a.writemap).toBe(true);
    expect(b.writemap).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), 'lmdb-writemap-'));
    dirs.push(dir);
    const c = LmdbDatabase.open(dir, { durability: 'commit' });
    expect(c.writemap).toBe(false);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('aborts the turn’s transaction: the write and the others of its transaction reject, nothing of it is stored', async () => {
    const db = open();
    await db.write(() => db.meta.putSync(key('kept'), 'committed before'));
    await db.committed();
    const earlier = db.write(() => db.meta.putSync(key('same-turn'), 'lost'));
    const committed = db.committed();
    const bad = db.write(() => {
      db.meta.putSync(key('half'), 'written before the throw');
      throw new Error('boom');
    });
    expect(db.committed()).toBeUndefined();
    const [b, e, c] = await Promise.allSettled([bad, earlier, committed]);
    for (const r of [b, e, c]) expect(r).toMatchObject({ status: 'rejected', reason: { message: 'boom' } });
    // The next write opens a new transaction and commits.
    await db.write(() => db.meta.putSync(key('after'), 'ok'));
    await db.committed();
    expect(db.meta.get(key('half'))).toBeUndefined();
    expect(db.meta.get(key('same-turn'))).toBeUndefined();
    expect(db.meta.get(key('after'))).toBe('ok');
    expect(await reopenRead(db, 'kept')).toBe('committed before');
  });

  it('without the writemap undoes only the throwing write (a child transaction)', async () => {
    const db = open({ writemap: false });
    const earlier = db.write(() => db.meta.putSync(key('same-turn'), 'kept'));
    const bad = db.write(() => {
      db.meta.putSync(key('half'), 'undone');
      throw new Error('boom');
    });
    await expect(bad).rejects.toThrow('boom');
    await earlier;
    await db.committed();
    expect(db.meta.get(key('half'))).toBeUndefined();
    expect(await reopenRead(db, 'same-turn')).toBe('kept');
  });

  it('keeps committed writes across a reopen with the writemap', async () => {
    const db = open();
    for (let i = 0; i < 50; i++) await db.write(() => db.meta.putSync(key(`k${i}`), 'x'.repeat(i * 40)));
    await db.committed();
    expect(await reopenRead(db, 'k49')).toBe('x'.repeat(49 * 40));
  });
});
