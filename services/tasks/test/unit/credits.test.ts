import { describe, expect, it, vi } from 'vitest';
import { AppError } from '@a2a-inbound/errors';
import { InMemoryCache, InMemoryDocumentStore, ManualClock, SequentialIds } from '@a2a-inbound/ports';
import type { Collection, DocumentStore } from '@a2a-inbound/ports';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import type { CreditBucketDoc, CreditChargeDoc, SubscriptionDoc } from '../../src/domain/control-model';
import { CREDIT_BUCKETS } from '../../src/domain/credits';
import { debitNote } from '../../src/domain/debit-ring';

/**
 * The credit design of ADR 0015 against any document store: the in-memory one here (with writes made slow,
 * so racing charges interleave between their read and their compare-and-set), FerretDB in
 * credits.mongo.test.ts.
 */
export async function creditsSetup(
  store: DocumentStore,
  credits: number,
  clock = new ManualClock(Date.UTC(2026, 10, 25)),
) {
  const control = new ControlPlane(
    await openControlCollections(store),
    new InMemoryCache({ clock }),
    clock,
    new SequentialIds('c'),
  );
  await control.accounts.createSubscription('sub', 'Sub', credits);
  const buckets = await store.collection<CreditBucketDoc>({ name: 'credit_buckets' });
  const charges = await store.collection<CreditChargeDoc>({ name: 'credit_charges' });
  const subscriptions = await store.collection<SubscriptionDoc>({ name: 'subscriptions' });
  return { control, buckets, charges, subscriptions, clock };
}

/** Makes every replace wait a little after its caller read, like a store across a network. */
function slowWrites<T extends object>(c: Collection<T>): void {
  const replace = c.replace.bind(c);
  c.replace = async (...args) => {
    await new Promise((r) => setTimeout(r, Math.random() * 3));
    return replace(...args);
  };
}

async function storeWithSlowWrites(): Promise<DocumentStore> {
  const store = new InMemoryDocumentStore();
  const open = store.collection.bind(store);
  store.collection = (async (spec: Parameters<typeof open>[0]) => {
    const c = await open(spec);
    if (!(c as unknown as { slowed?: boolean }).slowed) {
      slowWrites(c);
      (c as unknown as { slowed?: boolean }).slowed = true;
    }
    return c;
  }) as typeof store.collection;
  return store;
}

describe('credits (bucketed balance and charge ledger)', () => {
  it('spreads a new subscription over its buckets and reports the sum as the balance', async () => {
    const { control, buckets, subscriptions } = await creditsSetup(new InMemoryDocumentStore(), 1000);
    expect((await control.accounts.getSubscription('sub')).credits).toBe(1000);
    const docs = await Promise.all(Array.from({ length: CREDIT_BUCKETS }, (_, n) => buckets.get(`sub:${n}`)));
    expect(docs.filter((d) => (d?.doc.credits ?? 0) > 0)).toHaveLength(CREDIT_BUCKETS);
    expect((await subscriptions.get('sub'))?.doc.credits).toBe(0);
  });

  it('100 racing charges of one tenant all succeed, each charged once, with no "too many concurrent writers"', async () => {
    const { control, charges } = await creditsSetup(await storeWithSlowWrites(), 1000);
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => control.accounts.charge('sub', `msg:m${i}`)),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect((await control.accounts.getSubscription('sub')).credits).toBe(900);
    expect(await charges.count({ subscriptionId: 'sub' })).toBe(100);
  });

  it('charges from two replicas (each starting from the buckets it last wrote) are each taken once, and the cost is read once', async () => {
    const store = await storeWithSlowWrites();
    const { control: one, clock } = await creditsSetup(store, 1000);
    const cache = new InMemoryCache({ clock });
    const two = new ControlPlane(await openControlCollections(store), cache, clock, new SequentialIds('r'));
    const subscriptions = await store.collection<SubscriptionDoc>({ name: 'subscriptions' });
    const buckets = await store.collection<CreditBucketDoc>({ name: 'credit_buckets' });
    await one.accounts.charge('sub', 'msg:warm-1');
    await two.accounts.charge('sub', 'msg:warm-2');
    const subscriptionReads = vi.spyOn(subscriptions, 'get');
    const bucketReads = vi.spyOn(buckets, 'get');
    for (let round = 0; round < 10; round++)
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? two : one).accounts.charge('sub', `msg:r${round}-${i}`)),
      );
    expect(subscriptionReads).not.toHaveBeenCalled();
    // Conflicts between the replicas cost reads; most charges start from a remembered bucket.
    expect(bucketReads.mock.calls.length).toBeLessThan(100);
    expect((await one.accounts.getSubscription('sub')).credits).toBe(1000 - 102);
    // A new cost is charged from the next send on (the cached cost is deleted with the change).
    await one.accounts.setCreditCost('sub', 5);
    await one.accounts.charge('sub', 'msg:costly');
    expect((await one.accounts.getSubscription('sub')).credits).toBe(1000 - 107);
  });

  it('concurrent pays of one process start from buckets it is not writing: no conflict among them (ADR 0060)', async () => {
    const store = await storeWithSlowWrites();
    const { control, buckets } = await creditsSetup(store, 1000);
    // Every bucket known to the process (the balance reads them all): a pay then starts without a read.
    expect((await control.accounts.getSubscription('sub')).credits).toBe(1000);
    const replace = vi.spyOn(buckets, 'replace');
    const reads = vi.spyOn(buckets, 'get');
    for (let round = 0; round < 5; round++)
      await Promise.all(
        Array.from({ length: CREDIT_BUCKETS }, (_, i) => control.accounts.pay('sub', `msg:c${round}-${i}`, 1)),
      );
    // One compare-and-set per pay: none lost to another pay of the same process (each such loss costs a read,
    // a claim and a write more on FerretDB).
    expect(replace).toHaveBeenCalledTimes(5 * CREDIT_BUCKETS);
    expect(reads).not.toHaveBeenCalled();
    expect((await control.accounts.getSubscription('sub')).credits).toBe(1000 - 5 * CREDIT_BUCKETS);
  });

  it('racing charges never take the balance below zero: exactly the affordable ones succeed', async () => {
    const { control } = await creditsSetup(await storeWithSlowWrites(), 37);
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => control.accounts.charge('sub', `msg:r${i}`)),
    );
    const refused = results.filter((r) => r.status === 'rejected').map((r) => r.reason);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(37);
    expect(refused).toHaveLength(23);
    for (const e of refused) expect((e as AppError).code).toBe('INSUFFICIENT_CREDITS');
    expect((await control.accounts.getSubscription('sub')).credits).toBe(0);
  });

  it('a repeated chargeId is charged once, also when the repeats race', async () => {
    const { control } = await creditsSetup(new InMemoryDocumentStore(), 10);
    await control.accounts.charge('sub', 'msg:same');
    await Promise.all([control.accounts.charge('sub', 'msg:same'), control.accounts.charge('sub', 'msg:same')]);
    expect((await control.accounts.getSubscription('sub')).credits).toBe(9);
  });

  it('a refund gives back exactly the charge, once; the same chargeId can then be charged again', async () => {
    const { control, charges } = await creditsSetup(new InMemoryDocumentStore(), 10);
    await control.accounts.charge('sub', 'msg:a');
    await Promise.all([control.accounts.refund('sub', 'msg:a'), control.accounts.refund('sub', 'msg:a')]);
    expect((await control.accounts.getSubscription('sub')).credits).toBe(10);
    expect((await charges.get('sub:msg:a'))?.doc.state).toBe('refunded');
    await control.accounts.refund('sub', 'msg:never-charged');
    expect((await control.accounts.getSubscription('sub')).credits).toBe(10);
    await control.accounts.charge('sub', 'msg:a');
    expect((await control.accounts.getSubscription('sub')).credits).toBe(9);
  });

  it('a bucket stays small whatever the message ids: 128 notes of 12 characters, not the charge ids (ADR 0076)', async () => {
    const { control, buckets } = await creditsSetup(new InMemoryDocumentStore(), 16 * 1000);
    const longId = (i: number): string => `msg:${'x'.repeat(200)}-${i}`; // a client's long messageId
    for (let i = 0; i < 16 * 160; i++) await control.accounts.charge('sub', longId(i));
    let largest = 0;
    for (let n = 0; n < CREDIT_BUCKETS; n++) {
      const doc = (await buckets.get(`sub:${n}`))!.doc;
      expect(doc.debits).toBeUndefined();
      largest = Math.max(largest, JSON.stringify(doc).length);
    }
    // 128 entries of `<12 characters>:1` and a space: about 2 KB; the whole ids would be about 27 KB.
    expect(largest).toBeLessThan(2_300);
  });

  it("a bucket's debit ring keeps its latest 128 charges, oldest first; a refund within it gives back exactly its charge", async () => {
    const store = new InMemoryDocumentStore();
    const placed = new Map<string, string[]>(); // bucket id -> the charges it paid, in order
    const wrapped = new Set<object>();
    const open = store.collection.bind(store);
    store.collection = (async (spec: Parameters<typeof open>[0]) => {
      const c = await open(spec);
      if (spec.name !== 'credit_buckets' || wrapped.has(c)) return c;
      wrapped.add(c);
      const replace = c.replace.bind(c);
      c.replace = async (id, version, doc, options) => {
        const saved = await replace(id, version, doc, options);
        const last = (doc as CreditBucketDoc).ring?.split(' ').at(-1);
        if (last) placed.set(id, [...(placed.get(id) ?? []), last]);
        return saved;
      };
      return c;
    }) as typeof store.collection;
    const { control, buckets } = await creditsSetup(store, 16 * 1000);
    const sends = 16 * 140; // more than 128 per bucket on average
    for (let i = 0; i < sends; i++) await control.accounts.charge('sub', `msg:${i}`);
    let full = 0;
    for (let n = 0; n < CREDIT_BUCKETS; n++) {
      const ringText = (await buckets.get(`sub:${n}`))?.doc.ring ?? '';
      const ring = ringText === '' ? [] : ringText.split(' ');
      const expected = (placed.get(`sub:${n}`) ?? []).slice(-128);
      expect(ring).toEqual(expected);
      expect(ring.every((e) => e.endsWith(':1'))).toBe(true);
      if (ring.length === 128) full += 1;
    }
    expect(full).toBeGreaterThan(0);
    // Every charge's note is where it was paid: the ring holds the note of each charge its bucket paid last.
    const notes = new Set([...placed.values()].flat().map((e) => e.split(':')[0]));
    for (let i = sends - 50; i < sends; i++) expect(notes.has(debitNote(`msg:${i}`))).toBe(true);
    await control.accounts.refund('sub', `msg:${sends - 1}`);
    expect((await control.accounts.getSubscription('sub')).credits).toBe(16 * 1000 - sends + 1);
    await control.accounts.refund('sub', `msg:${sends - 1}`); // once only
    expect((await control.accounts.getSubscription('sub')).credits).toBe(16 * 1000 - sends + 1);
  });

  it('a bucket written before ADR 0076 (its debits as objects) is refunded from them and rewritten as notes', async () => {
    const store = new InMemoryDocumentStore();
    const { control, buckets, charges, clock } = await creditsSetup(store, 0);
    for (let n = 0; n < CREDIT_BUCKETS; n++) {
      await buckets.insert(`sub:${n}`, {
        subscriptionId: 'sub',
        credits: 9,
        debits:
          n === 3
            ? [
                { chargeId: 'msg:old', amount: 1 },
                { chargeId: 'msg:older', amount: 2 },
              ]
            : [],
        grants: [],
      });
    }
    await charges.insert('sub:msg:old', {
      subscriptionId: 'sub',
      chargeId: 'msg:old',
      amount: 1,
      state: 'charged',
      createdAtMs: clock.now(),
    });
    await control.accounts.refund('sub', 'msg:old');
    expect((await control.accounts.getSubscription('sub')).credits).toBe(16 * 9 + 1);
    const rewritten = (await buckets.get('sub:3'))!.doc;
    expect(rewritten.debits).toBeUndefined();
    expect(rewritten.ring).toBe(`${debitNote('msg:older')}:2`);
    await control.accounts.refund('sub', 'msg:old'); // already refunded: nothing more
    expect((await control.accounts.getSubscription('sub')).credits).toBe(16 * 9 + 1);
  });

  it('a cost larger than any one bucket is paid from several, and refunded to them', async () => {
    const { control } = await creditsSetup(new InMemoryDocumentStore(), 20); // 16 buckets: 1 or 2 credits each
    await control.accounts.setCreditCost('sub', 7);
    await control.accounts.charge('sub', 'msg:big');
    expect((await control.accounts.getSubscription('sub')).credits).toBe(13);
    await control.accounts.refund('sub', 'msg:big');
    expect((await control.accounts.getSubscription('sub')).credits).toBe(20);
  });

  it('a refused charge (insufficient) leaves no ledger record and takes nothing, even after a partial debit', async () => {
    const { control, charges } = await creditsSetup(new InMemoryDocumentStore(), 5);
    await control.accounts.setCreditCost('sub', 6);
    await expect(control.accounts.charge('sub', 'msg:x')).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      details: { balance: 5, cost: 6 },
    });
    expect(await charges.get('sub:msg:x')).toBeUndefined();
    expect((await control.accounts.getSubscription('sub')).credits).toBe(5);
  });

  it('moves the credits of a subscription stored before buckets existed, once, also when a move was cut short', async () => {
    const store = new InMemoryDocumentStore();
    const { control, subscriptions, buckets } = await creditsSetup(store, 0);
    const legacy = await subscriptions.insert('legacy', {
      name: 'Legacy',
      credits: 50,
      creditCostPerInvocation: 1,
      recentCharges: [],
      createdAtMs: 0,
    });
    // A process zeroed the document and died before granting every bucket (here: one bucket got its share).
    await subscriptions.replace('legacy', legacy.version, {
      ...legacy.doc,
      credits: 0,
      creditsMoving: { id: 'move-1', amount: 50 },
    });
    await buckets.insert('legacy:0', { subscriptionId: 'legacy', credits: 4, debits: [], grants: ['move-1'] });
    expect((await control.accounts.getSubscription('legacy')).credits).toBe(50);
    await control.accounts.charge('legacy', 'msg:1');
    expect((await control.accounts.getSubscription('legacy')).credits).toBe(49);
    expect((await subscriptions.get('legacy'))?.doc.creditsMoving).toBeNull();
  });

  it('addCredits spreads a grant and removes down to zero', async () => {
    const { control } = await creditsSetup(new InMemoryDocumentStore(), 3);
    expect(await control.accounts.addCredits('sub', 100)).toBe(103);
    expect(await control.accounts.addCredits('sub', -50)).toBe(53);
    expect(await control.accounts.addCredits('sub', -500)).toBe(0);
    await expect(control.accounts.charge('sub', 'msg:z')).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS' });
  });

  it('a charge record left by a process that died before paying is paid by a later repeat, not before', async () => {
    const { control, charges, clock } = await creditsSetup(new InMemoryDocumentStore(), 10);
    await charges.insert('sub:msg:dead', {
      subscriptionId: 'sub',
      chargeId: 'msg:dead',
      amount: 1,
      state: 'charged',
      createdAtMs: clock.now(),
    });
    await control.accounts.charge('sub', 'msg:dead'); // its request may still be paying: left alone
    expect((await control.accounts.getSubscription('sub')).credits).toBe(10);
    clock.advance(11_000);
    await control.accounts.charge('sub', 'msg:dead');
    await control.accounts.charge('sub', 'msg:dead');
    expect((await control.accounts.getSubscription('sub')).credits).toBe(9);
  });

  it('an unknown subscription is NOT_FOUND', async () => {
    const { control } = await creditsSetup(new InMemoryDocumentStore(), 1);
    await expect(control.accounts.charge('nope', 'msg:1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
