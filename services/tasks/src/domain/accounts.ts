import { AppError, DuplicateKeyError, InvalidParamsError, NotFoundError } from '@a2a-inbound/errors';
import type { Cache, Clock, IdGenerator, Versioned } from '@a2a-inbound/ports';
import { updateWithRetry } from '@a2a-inbound/ports';
import type { ApiKeyDoc, Role, SubscriptionDoc, UserDoc } from './control-model';
import { cacheKeys, KEY_SCOPES, type Collections, type KeyPrincipal } from './control-common';
import { Credits } from './credits';
import { newSecret, sha256Hex } from './hashing';

/** How long a cached cost per invocation may outlive a change whose invalidation raced a reader. */
const CREDIT_COST_TTL_MS = 10_000;

/** Accounts: subscriptions, their users, their API keys and their credits. */
export class Accounts {
  readonly #credits: Credits;

  constructor(
    private readonly c: Collections,
    private readonly cache: Cache,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.#credits = new Credits(c, clock, ids);
  }

  // ---- keys -------------------------------------------------------------------------------------

  async authenticateKey(keyHash: string): Promise<KeyPrincipal> {
    const found = await this.c.apiKeys.findOne({ keyHash });
    if (!found) throw new AppError('UNAUTHENTICATED', 'Invalid API key');
    const k = found.doc;
    return {
      keyId: found.id,
      subscriptionId: k.subscriptionId,
      scopes: k.scopes,
      keyHash: k.keyHash,
      expiresAtMs: k.expiresAtMs ?? 0,
      revoked: k.revokedAtMs !== null,
    };
  }

  /** Creates a key; the value is returned here once and never stored. */
  async createKey(input: {
    subscriptionId: string;
    name: string;
    scopes: string[];
    expiresAtMs?: number | null;
  }): Promise<{
    id: string;
    key: string;
    doc: ApiKeyDoc;
  }> {
    if (input.scopes.length === 0 || input.scopes.some((s) => !(KEY_SCOPES as readonly string[]).includes(s))) {
      throw new InvalidParamsError(`scopes must be a non-empty subset of ${KEY_SCOPES.join(', ')}`);
    }
    const now = this.clock.now();
    if (input.expiresAtMs != null && input.expiresAtMs <= now)
      throw new InvalidParamsError('expiresAt must be in the future');
    const scopePrefix = input.scopes.includes('a2a') ? 'a2a' : 'inv';
    const key = newSecret(scopePrefix);
    const doc: ApiKeyDoc = {
      subscriptionId: input.subscriptionId,
      name: input.name.slice(0, 200),
      keyHash: sha256Hex(key),
      prefix: key.slice(0, 8),
      scopes: [...new Set(input.scopes)].sort(),
      createdAtMs: now,
      expiresAtMs: input.expiresAtMs ?? null,
      revokedAtMs: null,
    };
    const id = this.ids.next();
    await this.c.apiKeys.insert(id, doc);
    return { id, key, doc };
  }

  async listKeys(subscriptionId: string): Promise<Versioned<ApiKeyDoc>[]> {
    return this.c.apiKeys.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 } });
  }

  async revokeKey(subscriptionId: string, keyId: string): Promise<ApiKeyDoc> {
    const updated = await updateWithRetry(this.c.apiKeys, keyId, (cur) => {
      if (cur.doc.subscriptionId !== subscriptionId) throw new NotFoundError('API key');
      if (cur.doc.revokedAtMs !== null) return undefined;
      return { ...cur.doc, revokedAtMs: this.clock.now() };
    });
    if (!updated) throw new NotFoundError('API key');
    await this.cache.delete(cacheKeys.key(updated.doc.keyHash));
    return updated.doc;
  }

  // ---- credits ----------------------------------------------------------------------------------

  /**
   * Consumes `amount` credits (default: the cost per invocation) unless `chargeId` is already charged;
   * INSUFFICIENT_CREDITS when short. Concurrent charges of one subscription spread over its credit buckets
   * (ADR 0015): they do not serialise on one document, and the balance never goes below zero.
   */
  async charge(subscriptionId: string, chargeId: string, amount?: number): Promise<void> {
    if (amount !== undefined) return this.#credits.charge(subscriptionId, chargeId, amount);
    await this.#credits.charge(subscriptionId, chargeId, await this.creditCost(subscriptionId), { settled: true });
  }

  /**
   * Takes `amount` for `chargeId` once per call: the caller's record (a send's idempotency record, holding
   * the amount from `creditCost`) makes it once per message (ADR 0041). INSUFFICIENT_CREDITS when short.
   */
  async pay(subscriptionId: string, chargeId: string, amount: number): Promise<void> {
    await this.#credits.pay(subscriptionId, chargeId, amount);
  }

  /** Pays what is missing of `amount` for `chargeId` (a take-over of a send whose process died). */
  async payRest(subscriptionId: string, chargeId: string, amount: number): Promise<void> {
    await this.#credits.payRest(subscriptionId, chargeId, amount);
  }

  /** Gives back what `pay` (or `charge`) took for `chargeId`; a repeat gives back nothing more. */
  async giveBack(subscriptionId: string, chargeId: string): Promise<void> {
    await this.#credits.giveBack(subscriptionId, chargeId);
  }

  /** Gives back what was paid for `chargeId` beyond `amount` (the loser of two requests of one message). */
  async giveBackBeyond(subscriptionId: string, chargeId: string, amount: number): Promise<void> {
    await this.#credits.giveBackBeyond(subscriptionId, chargeId, amount);
  }

  /**
   * The subscription's cost per invocation, from the shared cache when a replica read it lately (a send
   * need not read the subscription). Cached only once its credits are in the buckets (settled), so a
   * cached cost also says no move is pending; a change of the cost deletes it.
   */
  async creditCost(subscriptionId: string): Promise<number> {
    const key = cacheKeys.creditCost(subscriptionId);
    const hit = await this.cache.get(key).catch(() => undefined); // a cache outage degrades to the store
    if (hit !== undefined && /^\d+$/.test(hit)) return Number(hit);
    const sub = await this.#credits.settled(subscriptionId);
    await this.cache.set(key, String(sub.creditCostPerInvocation), CREDIT_COST_TTL_MS).catch(() => undefined);
    return sub.creditCostPerInvocation;
  }

  /** Gives back a charge (the request was refused after charging, e.g. the bus was down). */
  async refund(subscriptionId: string, chargeId: string): Promise<void> {
    await this.#credits.refund(subscriptionId, chargeId);
  }

  async addCredits(subscriptionId: string, amount: number): Promise<number> {
    if (!Number.isSafeInteger(amount)) throw new InvalidParamsError('amount must be an integer');
    return this.#credits.add(subscriptionId, amount);
  }

  /** Deletes credit ledger records past their retention (the retention sweep). */
  async sweepExpiredCharges(): Promise<number> {
    return this.#credits.sweepExpired(this.clock.now());
  }

  async setCreditCost(subscriptionId: string, cost: number): Promise<void> {
    if (!Number.isSafeInteger(cost) || cost < 0) throw new InvalidParamsError('cost must be a non-negative integer');
    const updated = await updateWithRetry(this.c.subscriptions, subscriptionId, (cur) => ({
      ...cur.doc,
      creditCostPerInvocation: cost,
    }));
    if (!updated) throw new NotFoundError('subscription');
    await this.cache.delete(cacheKeys.creditCost(subscriptionId));
  }

  /** The subscription with `credits` = its balance (the sum of its credit buckets). */
  async getSubscription(subscriptionId: string): Promise<SubscriptionDoc> {
    const doc = await this.#credits.settled(subscriptionId);
    return { ...doc, credits: await this.#credits.balance(subscriptionId) };
  }

  async createSubscription(id: string, name: string, credits: number): Promise<void> {
    // Created with its credits on the document (one atomic insert), then moved into the buckets.
    await this.c.subscriptions.insert(id, {
      name,
      credits,
      creditCostPerInvocation: 1,
      recentCharges: [],
      createdAtMs: this.clock.now(),
    });
    await this.#credits.settled(id);
  }

  // ---- users ------------------------------------------------------------------------------------

  /**
   * Creates a user and returns its bearer token once (only the hash is stored). `token` lets the
   * bootstrap use a token chosen in configuration; otherwise a fresh `usr_…` secret is made.
   */
  async createUser(input: {
    subscriptionId: string;
    email: string;
    role: Role;
    token?: string;
    id?: string;
  }): Promise<{ id: string; token: string; createdAtMs: number }> {
    if (!['admin', 'developer', 'operator'].includes(input.role))
      throw new InvalidParamsError('role must be admin, developer or operator');
    const email = input.email.trim().toLowerCase();
    if (!/^[^\s@]{1,200}@[^\s@]{1,200}$/.test(email)) throw new InvalidParamsError('email must be an email address');
    if (input.token !== undefined && input.token.length < 32)
      throw new InvalidParamsError('a user token must have at least 32 characters');
    const token = input.token ?? newSecret('usr');
    const id = input.id ?? this.ids.next();
    const createdAtMs = this.clock.now();
    try {
      await this.c.users.insert(id, {
        subscriptionId: input.subscriptionId,
        email,
        role: input.role,
        tokenHash: sha256Hex(token),
        createdAtMs,
      });
    } catch (err) {
      if (err instanceof DuplicateKeyError)
        throw new AppError('CONFLICT', 'a user with this email exists in this subscription');
      throw err;
    }
    return { id, token, createdAtMs };
  }

  async listUsers(subscriptionId: string): Promise<Versioned<UserDoc>[]> {
    return this.c.users.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 }, limit: 1000 });
  }

  async findUserByEmail(subscriptionId: string, email: string): Promise<Versioned<UserDoc> | undefined> {
    return this.c.users.findOne({ subscriptionId, email: email.trim().toLowerCase() });
  }

  async subscriptionExists(subscriptionId: string): Promise<boolean> {
    return (await this.c.subscriptions.get(subscriptionId)) !== undefined;
  }

  async authenticateUser(tokenHash: string): Promise<Versioned<UserDoc>> {
    const found = await this.c.users.findOne({ tokenHash });
    if (!found) throw new AppError('UNAUTHENTICATED', 'Invalid user token');
    return found;
  }
}
