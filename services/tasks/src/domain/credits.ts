import { AppError, DuplicateKeyError, InsufficientCreditsError, NotFoundError } from '@a2a-inbound/errors';
import { a2aMeter } from '@a2a-inbound/telemetry';
import type { Clock, Collection, IdGenerator, Versioned } from '@a2a-inbound/ports';
import { isVersionConflict, updateWithRetry, upsertWithRetry } from '@a2a-inbound/ports';
import type { CreditBucketDoc, CreditChargeDoc, SubscriptionDoc } from './control-model';
import { bucketWith, debitNote, paidIn, ringOf, withDebit, withoutDebit } from './debit-ring';

/** How many documents one subscription's balance is spread over (see ADR 0015). */
export const CREDIT_BUCKETS = 16;
const GRANT_RING = 16;
/** A charge record younger than this may still be paying (its request is running): a repeat leaves it alone. */
const CHARGE_IN_PROGRESS_MS = 10_000;
/** The ledger outlives every idempotency window of the sends (message_ids are kept 7 days by default). */
export const CHARGE_RETENTION_MS = 30 * 24 * 3600_000;
/** Compare-and-set rounds before a charge gives up; each round moves to another bucket on a conflict. */
const MAX_ROUNDS = 200;
/** Buckets remembered as this process last wrote or read them (a charge starts from one without a read). */
const KNOWN_BUCKETS = 1_000;

export interface CreditCollections {
  subscriptions: Collection<SubscriptionDoc>;
  creditBuckets: Collection<CreditBucketDoc>;
  creditCharges: Collection<CreditChargeDoc>;
}

type Bucket = Versioned<CreditBucketDoc> | undefined;

/**
 * Credits of a subscription, spread over `CREDIT_BUCKETS` bucket documents, with a ledger of charges.
 *
 * - A charge first inserts its ledger record (`<sub>:<chargeId>`; an insert is atomic on every engine, so
 *   one chargeId is charged once across replicas), then debits ONE bucket that holds enough, chosen at random:
 *   concurrent charges of a tenant land on different documents instead of racing for one. A conflict moves
 *   the charge to another bucket. Each bucket's compare-and-set keeps it at zero or above, so the balance
 *   (their sum) never goes below zero. When no single bucket holds the cost, the charge takes it from
 *   several, each debit noted in its bucket; if the sum is short, what was taken is given back.
 * - A refund flips the record to `refunded` (once) and gives back exactly the debits noted for the charge.
 * - Grants are spread evenly over the buckets.
 */
export class Credits {
  /** `a2a_credits_charged_total`: credits taken by charges (refunds are `a2a_credits_refunded_total`). */
  readonly #charged = a2aMeter().createCounter('a2a_credits_charged', {
    description: 'Credits charged for accepted messages (each messageId once)',
  });
  readonly #refunded = a2aMeter().createCounter('a2a_credits_refunded', {
    description: 'Credits given back for messages refused after their charge',
  });
  /**
   * Buckets as this process last saw them: a charge compares-and-sets one of them without reading it first.
   * Stale (another replica wrote it) costs a conflict, and the next round reads.
   */
  readonly #known = new Map<string, Versioned<CreditBucketDoc>>();
  /**
   * Buckets this process is writing now: a charge starts from another one, so the concurrent sends of one
   * process do not race each other for a bucket (each such conflict cost a read, a claim and a write more).
   */
  readonly #writing = new Set<string>();

  constructor(
    private readonly c: CreditCollections,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly random: () => number = Math.random,
  ) {}

  /** The current balance: the sum of the buckets (legacy credits are moved into them first). */
  async balance(subscriptionId: string): Promise<number> {
    await this.settled(subscriptionId);
    return total(await this.#buckets(subscriptionId));
  }

  /**
   * Consumes `amount` (default: the subscription's cost per invocation) unless `chargeId` is already
   * charged; INSUFFICIENT_CREDITS when the balance is short. Nothing is charged when it throws.
   * Callers charge one chargeId at a time (the send path holds the messageId claim while charging).
   * `settled`: the caller knows the subscription's credits are in the buckets (no read of it then).
   */
  async charge(
    subscriptionId: string,
    chargeId: string,
    amount?: number,
    options: { settled?: boolean } = {},
  ): Promise<void> {
    const sub = options.settled && amount !== undefined ? undefined : await this.settled(subscriptionId);
    const cost = amount ?? sub!.creditCostPerInvocation;
    const recordId = `${subscriptionId}:${chargeId}`;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = this.clock.now();
      const doc: CreditChargeDoc = { subscriptionId, chargeId, amount: cost, state: 'charged', createdAtMs: now };
      let record: Versioned<CreditChargeDoc>;
      try {
        record = await this.c.creditCharges.insert(recordId, doc, { expiresAt: now + CHARGE_RETENTION_MS });
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        const existing = await this.c.creditCharges.get(recordId);
        if (!existing) continue; // removed meanwhile (a refused attempt): try again
        if (existing.doc.state === 'charged') {
          // A repeat. A record old enough that its request is over, but short of its debits, was left by a
          // process that died between recording and paying: the repeat pays the rest.
          if (now - existing.doc.createdAtMs >= CHARGE_IN_PROGRESS_MS) {
            const buckets = await this.#buckets(subscriptionId);
            const note = debitNote(chargeId);
            const paid = buckets.reduce((s, b) => s + debitOf(b, note), 0);
            if (paid < existing.doc.amount)
              await this.#debitOrUndo(subscriptionId, chargeId, existing.doc.amount - paid);
          }
          return;
        }
        // Refunded before (the request was refused): this attempt is charged anew.
        try {
          record = await this.c.creditCharges.replace(recordId, existing.version, doc, {
            expiresAt: now + CHARGE_RETENTION_MS,
          });
        } catch (e) {
          if (isVersionConflict(e)) continue;
          throw e;
        }
      }
      try {
        await this.#debitOrUndo(subscriptionId, chargeId, cost);
      } catch (err) {
        // Not paid: the ledger must not say charged, so a later send of this messageId is charged.
        await this.c.creditCharges.delete(recordId, record.version).catch(() => false);
        throw err;
      }
      this.#charged.add(cost);
      return;
    }
    throw new AppError('UNAVAILABLE', `credits of ${subscriptionId}: too many concurrent writers`);
  }

  /**
   * Takes `amount` for `chargeId` without a ledger record: the caller's own record (the send's idempotency
   * record, which holds the amount) makes the charge happen once (ADR 0041). INSUFFICIENT_CREDITS when short;
   * nothing is taken when it throws. The caller's record says the subscription is settled (its cost came from
   * the cache, or a read that settled it).
   */
  async pay(subscriptionId: string, chargeId: string, amount: number): Promise<void> {
    if (amount <= 0) return;
    await this.#debitOrUndo(subscriptionId, chargeId, amount);
    this.#charged.add(amount);
  }

  /**
   * Pays what the buckets do not show as paid for `chargeId` of `amount` (a request taking over a charge whose
   * process died between its record and its debit). Nothing is taken when it throws.
   */
  async payRest(subscriptionId: string, chargeId: string, amount: number): Promise<void> {
    if (amount <= 0) return;
    const note = debitNote(chargeId);
    const paid = (await this.#buckets(subscriptionId)).reduce((s, b) => s + debitOf(b, note), 0);
    if (paid < amount) await this.pay(subscriptionId, chargeId, amount - paid);
  }

  /**
   * Gives back every debit noted for `chargeId` (a `pay` whose request was refused after it); each bucket
   * forgets the debit in the same write, so a repeated give-back gives nothing more.
   */
  async giveBack(subscriptionId: string, chargeId: string): Promise<void> {
    this.#refunded.add(await this.#giveBack(subscriptionId, chargeId));
  }

  /** Gives back a charge (its request was refused after charging); nothing when it is not charged. */
  async refund(subscriptionId: string, chargeId: string): Promise<void> {
    const tooBusy = (): Error =>
      new AppError('UNAVAILABLE', `credits of ${subscriptionId}: too many concurrent writers`);
    // Flipping the record first makes exactly one refund give the credits back.
    await updateWithRetry(
      this.c.creditCharges,
      `${subscriptionId}:${chargeId}`,
      (record) => (record.doc.state === 'charged' ? { ...record.doc, state: 'refunded' as const } : undefined),
      {
        attempts: MAX_ROUNDS,
        exhausted: tooBusy,
        writeOptions: () => ({ expiresAt: this.clock.now() + CHARGE_RETENTION_MS }),
        afterWrite: async (record) => {
          await this.#giveBack(subscriptionId, chargeId);
          this.#refunded.add(record.doc.amount);
        },
      },
    );
  }

  /** Adds (or, negative, removes down to zero) credits; resolves the new balance. */
  async add(subscriptionId: string, amount: number): Promise<number> {
    await this.settled(subscriptionId);
    if (amount > 0) await this.#grant(subscriptionId, amount, this.ids.next());
    else if (amount < 0) {
      let remaining = -amount;
      for (let i = 0; i < CREDIT_BUCKETS && remaining > 0; i++) {
        await this.#updateBucket(subscriptionId, i, (b) => {
          const take = Math.min(b.credits, remaining);
          if (take === 0) return undefined;
          remaining -= take;
          return { ...b, credits: b.credits - take };
        });
      }
    }
    return total(await this.#buckets(subscriptionId));
  }

  /**
   * The subscription, with any credits still on its document moved into the buckets. The move is marked on
   * the subscription in the same write that zeroes its credits, and each bucket notes the move's id, so a
   * move cut short by a crash is finished by the next reader without granting anything twice.
   */
  async settled(subscriptionId: string): Promise<SubscriptionDoc> {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const cur = await this.c.subscriptions.get(subscriptionId);
      if (!cur) throw new NotFoundError('subscription');
      const moving = cur.doc.creditsMoving;
      if (!moving && cur.doc.credits <= 0) return cur.doc;
      try {
        if (!moving) {
          const next = { ...cur.doc, credits: 0, creditsMoving: { id: this.ids.next(), amount: cur.doc.credits } };
          await this.c.subscriptions.replace(subscriptionId, cur.version, next);
        } else {
          await this.#grant(subscriptionId, moving.amount, moving.id);
          await this.c.subscriptions.replace(subscriptionId, cur.version, { ...cur.doc, creditsMoving: null });
        }
      } catch (err) {
        if (!isVersionConflict(err)) throw err;
      }
    }
    throw new AppError('UNAVAILABLE', `subscription ${subscriptionId} is changing too fast`);
  }

  /** Deletes ledger records past their retention. */
  sweepExpired(now: number): Promise<number> {
    return this.c.creditCharges.sweepExpired(now);
  }

  // ---- internals ----------------------------------------------------------------------------------

  #bucketId(subscriptionId: string, n: number): string {
    return `${subscriptionId}:${n}`;
  }

  async #buckets(subscriptionId: string): Promise<Bucket[]> {
    const buckets = await Promise.all(
      Array.from({ length: CREDIT_BUCKETS }, (_, n) => this.c.creditBuckets.get(this.#bucketId(subscriptionId, n))),
    );
    for (const b of buckets) if (b) this.#remember(b);
    return buckets;
  }

  /** A bucket at random among those this process is not writing now (any one when it writes them all). */
  #idleBucket(subscriptionId: string): string {
    const start = Math.floor(this.random() * CREDIT_BUCKETS);
    for (let i = 0; i < CREDIT_BUCKETS; i++) {
      const id = this.#bucketId(subscriptionId, (start + i) % CREDIT_BUCKETS);
      if (!this.#writing.has(id)) return id;
    }
    return this.#bucketId(subscriptionId, start);
  }

  #remember(bucket: Versioned<CreditBucketDoc>): void {
    this.#known.delete(bucket.id);
    this.#known.set(bucket.id, bucket);
    if (this.#known.size > KNOWN_BUCKETS) this.#known.delete(this.#known.keys().next().value!);
  }

  /** Takes `need` for `chargeId`; on failure gives back whatever this call took, then rethrows. */
  async #debitOrUndo(subscriptionId: string, chargeId: string, need: number): Promise<void> {
    try {
      await this.#debit(subscriptionId, chargeId, need);
    } catch (err) {
      await this.#giveBack(subscriptionId, chargeId).catch(() => undefined);
      throw err;
    }
  }

  async #debit(subscriptionId: string, chargeId: string, need: number): Promise<void> {
    const note = debitNote(chargeId);
    let remaining = need;
    // A random bucket first (one read); all of them only when that one cannot pay. After a conflict (another
    // charge wrote that bucket) the next round starts again from a random bucket: charges spread out.
    let single = true;
    for (let round = 0; round < MAX_ROUNDS && remaining > 0; round++) {
      let bucket: Bucket;
      if (single) {
        single = false;
        const id = this.#idleBucket(subscriptionId);
        bucket = this.#known.get(id) ?? (await this.c.creditBuckets.get(id));
        if (!bucket || bucket.doc.credits < remaining) continue;
      } else {
        const buckets = await this.#buckets(subscriptionId);
        const available = total(buckets);
        if (available < remaining) throw new InsufficientCreditsError(available + (need - remaining), need);
        const enough = buckets.flatMap((b, i) => (b && b.doc.credits >= remaining ? [i] : []));
        // One bucket that can pay it all, at random; otherwise the fullest pays a part.
        bucket = buckets[enough.length > 0 ? enough[Math.floor(this.random() * enough.length)]! : fullest(buckets)];
        if (!bucket) continue;
      }
      const take = Math.min(bucket.doc.credits, remaining);
      this.#writing.add(bucket.id);
      try {
        const saved = await this.c.creditBuckets.replace(
          bucket.id,
          bucket.version,
          bucketWith(bucket.doc, bucket.doc.credits - take, withDebit(ringOf(bucket.doc), note, take)),
        );
        this.#remember(saved);
        remaining -= take;
      } catch (err) {
        this.#known.delete(bucket.id);
        if (!isVersionConflict(err)) throw err;
        single = true;
      } finally {
        this.#writing.delete(bucket.id);
      }
    }
    if (remaining > 0) throw new AppError('UNAVAILABLE', `credits of ${subscriptionId}: too many concurrent writers`);
  }

  /**
   * Gives back every debit noted for `chargeId` (each bucket forgets it in the same write: once only);
   * resolves what it gave back.
   */
  async #giveBack(subscriptionId: string, chargeId: string): Promise<number> {
    const buckets = await this.#buckets(subscriptionId);
    const note = debitNote(chargeId);
    let given = 0;
    for (let n = 0; n < CREDIT_BUCKETS; n++) {
      if (debitOf(buckets[n], note) === 0) continue;
      let paid = 0; // set by the round that wrote (a conflict runs `mutate` again)
      await this.#updateBucket(subscriptionId, n, (b) => {
        const ring = ringOf(b);
        paid = paidIn(ring, note);
        if (paid === 0) return undefined;
        return bucketWith(b, b.credits + paid, withoutDebit(ring, note));
      });
      given += paid;
    }
    return given;
  }

  /**
   * Gives back what was paid for `chargeId` beyond `amount`: two requests of one message (a take-over and
   * the slow first one) may both pay before one of them loses the race to store the task; the loser calls
   * this, so the message is paid once.
   */
  async giveBackBeyond(subscriptionId: string, chargeId: string, amount: number): Promise<void> {
    const buckets = await this.#buckets(subscriptionId);
    const note = debitNote(chargeId);
    let excess = buckets.reduce((s, b) => s + debitOf(b, note), 0) - amount;
    for (let n = 0; n < CREDIT_BUCKETS && excess > 0; n++) {
      if (debitOf(buckets[n], note) === 0) continue;
      let take = 0;
      await this.#updateBucket(subscriptionId, n, (b) => {
        const ring = ringOf(b);
        const paid = paidIn(ring, note);
        take = Math.min(paid, excess);
        if (take === 0) return undefined;
        const without = withoutDebit(ring, note);
        return bucketWith(b, b.credits + take, paid > take ? withDebit(without, note, paid - take) : without);
      });
      excess -= take;
      this.#refunded.add(take);
    }
  }

  /** Spreads `amount` evenly over the buckets; `grantId` makes a resumed grant apply once per bucket. */
  async #grant(subscriptionId: string, amount: number, grantId: string): Promise<void> {
    const base = Math.floor(amount / CREDIT_BUCKETS);
    const extra = amount % CREDIT_BUCKETS;
    for (let n = 0; n < CREDIT_BUCKETS; n++) {
      const share = base + (n < extra ? 1 : 0);
      if (share === 0) continue;
      await this.#updateBucket(subscriptionId, n, (b) =>
        b.grants.includes(grantId)
          ? undefined
          : { ...b, credits: b.credits + share, grants: [...b.grants, grantId].slice(-GRANT_RING) },
      );
    }
  }

  /** Compare-and-set on one bucket, creating it when missing; `mutate` undefined leaves it unchanged. */
  async #updateBucket(
    subscriptionId: string,
    n: number,
    mutate: (b: CreditBucketDoc) => CreditBucketDoc | undefined,
  ): Promise<void> {
    const id = this.#bucketId(subscriptionId, n);
    this.#known.delete(id);
    await upsertWithRetry(this.c.creditBuckets, id, (cur) => mutate(cur?.doc ?? emptyBucket(subscriptionId)), {
      attempts: MAX_ROUNDS,
      exhausted: () => new AppError('UNAVAILABLE', `credit bucket ${id}: too many concurrent writers`),
      afterWrite: (saved) => this.#remember(saved),
    });
  }
}

function total(buckets: Bucket[]): number {
  return buckets.reduce((s, b) => s + (b?.doc.credits ?? 0), 0);
}

function fullest(buckets: Bucket[]): number {
  let best = 0;
  for (let i = 1; i < buckets.length; i++)
    if ((buckets[i]?.doc.credits ?? 0) > (buckets[best]?.doc.credits ?? 0)) best = i;
  return best;
}

function debitOf(bucket: Bucket, note: string): number {
  return bucket ? paidIn(ringOf(bucket.doc), note) : 0;
}

function emptyBucket(subscriptionId: string): CreditBucketDoc {
  return { subscriptionId, credits: 0, ring: '', grants: [] };
}
