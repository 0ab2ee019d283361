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
