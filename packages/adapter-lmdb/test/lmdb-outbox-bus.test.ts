import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryBus, type BusMessage } from '@a2a-inbound/ports';
import { LmdbDatabase, LmdbOutboxBus } from '../src/index';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array): string => new TextDecoder().decode(b);
/** What was published so far is committed and handed to the inner bus (after the commit, ADR 0069). */
const handedOver = async (db: LmdbDatabase): Promise<void> => {
  await db.committed();
  await new Promise((resolve) => setImmediate(resolve));
};

describe('LmdbOutboxBus: messages of the kept topics outlive the process until their group handled them', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const fresh = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'lmdb-outbox-'));
    dirs.push(d);
    return d;
  };
  const open = (dir: string, inner = new InMemoryBus({ retryDelayMs: 1 })) => {
    const db = LmdbDatabase.open(dir);
    return { db, inner, bus: new LmdbOutboxBus(db, inner, { topics: { updates: 'hooks' } }) };
  };

  it('publishes again, in order and with their headers, the messages a stopped process had not handled', async () => {
    const dir = fresh();
    const first = open(dir);
    let seen: string[] = [];
    let hang = false;
    await first.bus.subscribe('updates', 'hooks', async (m) => {
      seen.push(dec(m.value));
      if (hang) await new Promise(() => undefined); // the process dies in the handler
    });
    await first.bus.publish({ topic: 'updates', key: 'a', value: enc('handled') });
    // Resolved once committed and handed to the consumers (ADR 0069), not before.
    expect(first.db.committed()).toBeUndefined();
    await handedOver(first.db);
    await first.inner.drain();
    expect(seen).toEqual(['handled']);
    expect(first.bus.pending).toBe(0); // handled: settled
    hang = true;
    await first.bus.publish({ topic: 'updates', key: 'b', value: enc('cut-1'), headers: { trace: 't1' } });
    await first.bus.publish({ topic: 'updates', key: 'c', value: enc('queued-2') });
    await first.bus.publish({ topic: 'other', key: 'd', value: enc('not kept') });
    // Both in a handler that never ends (different keys: delivered side by side).
    await expect.poll(() => seen.length).toBe(3);
    expect(first.bus.pending).toBe(2);
    await first.bus.close();

    const second = open(dir);
    expect(second.bus.pending).toBe(2);
    seen = [];
    const got: BusMessage[] = [];
    await second.bus.subscribe('updates', 'hooks', async (m) => {
      got.push(m);
      seen.push(dec(m.value));
      await Promise.resolve();
    });
    await second.inner.drain();
    expect(seen).toEqual(['cut-1', 'queued-2']);
    expect(got[0]!.key).toBe('b');
    expect(got[0]!.headers).toEqual({ trace: 't1' }); // the outbox's own header never reaches the handler
    expect(second.bus.pending).toBe(0);
    // New messages follow the old ones' sequence and are settled too.
    await second.bus.publish({ topic: 'updates', key: 'e', value: enc('new') });
    await handedOver(second.db);
    await second.inner.drain();
    expect(seen).toEqual(['cut-1', 'queued-2', 'new']);
    expect(second.bus.pending).toBe(0);
    await second.bus.close();
  });

  it('settles without a commit of its own: the delete rides the next commit, or the sync timer within its interval', async () => {
    const dir = fresh();
    // Long enough that the timer does not commit between the steps below on a loaded machine.
    const db = LmdbDatabase.open(dir, { syncIntervalMs: 400 });
    const inner = new InMemoryBus({ retryDelayMs: 1 });
    const bus = new LmdbOutboxBus(db, inner, { topics: { updates: 'hooks' } });
    const base = db.commits;
    await bus.subscribe('updates', 'hooks', async () => Promise.resolve());
    await bus.publish({ topic: 'updates', key: 'a', value: enc('one') });
    await handedOver(db);
    await inner.drain();
    expect(db.commits - base).toBe(1); // the put; the delete waits
    expect(bus.pending).toBe(0); // settled, though its delete is not committed yet
    expect(db.outbox.getCount()).toBe(1);
    await bus.publish({ topic: 'updates', key: 'b', value: enc('two') });
    await handedOver(db);
    expect(db.commits - base).toBe(2); // the second put carried the first delete
    expect(db.outbox.getCount()).toBe(1);
    await inner.drain();
    // The timer's commit (the process reads the delete in the open transaction a little before it commits).
    await expect.poll(() => db.commits - base, { timeout: 5_000 }).toBe(3);
    expect(db.outbox.getCount()).toBe(0);
    await bus.close();
  });

  it('keeps a message whose handler fails until it succeeds; one given up on (dead letter) is settled', async () => {
    const dir = fresh();
    const late: { outbox?: LmdbOutboxBus } = {};
    const dead: string[] = [];
    const inner = new InMemoryBus({
      maxAttempts: 2,
      retryDelayMs: 1,
      onDeadLetter: (m, group) => {
        dead.push(dec(m.value));
        void late.outbox!.deadLettered(m, group);
      },
    });
    const { bus: outbox, db } = open(dir, inner);
    late.outbox = outbox;
    let failures = 1;
    const sub = await outbox.subscribe('updates', 'hooks', async (m) => {
      await Promise.resolve();
      if (dec(m.value) === 'poison') throw new Error('never handled');
      if (failures-- > 0) throw new Error('once');
    });
    // Another group on the kept topic does not settle it.
    await outbox.subscribe('updates', 'audit', async () => Promise.resolve());
    await outbox.publish({ topic: 'updates', key: 'a', value: enc('retried') });
    await outbox.publish({ topic: 'updates', key: 'p', value: enc('poison') });
    await handedOver(db);
    await inner.drain();
    await expect.poll(() => outbox.pending).toBe(0);
    expect(dead).toEqual(['poison']);
    // Stopping: the group unsubscribed, so the bus gives up on what comes now for want of a consumer; the
    // message stays for the next start.
    await sub.close();
    await outbox.publish({ topic: 'updates', key: 'late', value: enc('after the consumer stopped') });
    await handedOver(db);
    await inner.drain();
    expect(dead).toEqual(['poison', 'after the consumer stopped']);
    await new Promise((r) => setTimeout(r, 20));
    expect(outbox.pending).toBe(1);
    await outbox.close();
  });
});
