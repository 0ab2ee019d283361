import { AppError } from '@a2a-inbound/errors';
import type { Bus, BusHandler, BusMessage, BusSubscription, SubscribeOptions } from '../bus';

export interface InMemoryBusOptions {
  /** Attempts per message and group before `onDeadLetter` (at-least-once with a bound). */
  readonly maxAttempts?: number;
  /** Delay between attempts. */
  readonly retryDelayMs?: number;
  /** Messages accepted but not yet handled, over all groups; publish fails beyond it. */
  readonly maxPending?: number;
  readonly onDeadLetter?: (message: BusMessage, group: string, error: unknown) => void;
}

interface Member {
  readonly handler: BusHandler;
  readonly isTransient: (error: unknown) => boolean;
  active: boolean;
}

function hashKey(key: string): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * In-memory bus with the Kafka-like contract: per-group delivery to one member (chosen by key, like a
 * partition), per-key order, at-least-once retries, delivery always on a later macrotask.
 */
export class InMemoryBus implements Bus {
  readonly #groups = new Map<string, Map<string, Member[]>>(); // topic → group → members
  readonly #chains = new Map<string, Promise<void>>();
  readonly #maxAttempts: number;
  readonly #retryDelayMs: number;
  readonly #maxPending: number;
  readonly #onDeadLetter: (message: BusMessage, group: string, error: unknown) => void;
  #pending = 0;
  /** Messages accepted but not yet handled, per `topic\u0000group` (the consumer lag). */
  readonly #pendingBy = new Map<string, number>();
  #closed = false;

  constructor(options: InMemoryBusOptions = {}) {
    this.#maxAttempts = options.maxAttempts ?? 10;
    this.#retryDelayMs = options.retryDelayMs ?? 50;
    this.#maxPending = options.maxPending ?? 100_000;
    this.#onDeadLetter = options.onDeadLetter ?? (() => undefined);
  }

  async publish(message: BusMessage): Promise<void> {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'bus is closed');
    await Promise.resolve();
    const groups = this.#groups.get(message.topic);
    if (!groups) return; // like a topic nobody reads yet: our services subscribe before they publish
    if (this.#pending + groups.size > this.#maxPending) throw new AppError('UNAVAILABLE', 'bus is saturated');
    const copy: BusMessage = {
      topic: message.topic,
      key: message.key,
      value: message.value.slice(),
      headers: { ...(message.headers ?? {}) },
    };
    for (const group of groups.keys()) {
      const chainKey = `${message.topic}\u0000${group}\u0000${message.key}`;
      const lagKey = `${message.topic}\u0000${group}`;
      this.#pending += 1;
      this.#pendingBy.set(lagKey, (this.#pendingBy.get(lagKey) ?? 0) + 1);
      const tail = (this.#chains.get(chainKey) ?? Promise.resolve())
        .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
        .then(() => this.#deliver(copy, message.topic, group))
        .finally(() => {
          this.#pending -= 1;
          this.#pendingBy.set(lagKey, (this.#pendingBy.get(lagKey) ?? 1) - 1);
        });
      this.#chains.set(chainKey, tail);
      void tail.finally(() => {
        if (this.#chains.get(chainKey) === tail) this.#chains.delete(chainKey);
      });
    }
  }

  async #deliver(message: BusMessage, topic: string, group: string): Promise<void> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.#maxAttempts;) {
      if (this.#closed) return;
      const members = (this.#groups.get(topic)?.get(group) ?? []).filter((m) => m.active);
      const member = members[hashKey(message.key) % Math.max(members.length, 1)];
      if (!member) {
        // No live member: wait like a Kafka partition without a consumer would.
        attempt += 1;
        await new Promise((resolve) => setTimeout(resolve, this.#retryDelayMs));
        continue;
      }
      try {
        await member.handler({ ...message, value: message.value.slice() });
        return;
      } catch (err) {
        lastError = err;
        if (!member.isTransient(err)) attempt += 1; // an outage never dead-letters
        await new Promise((resolve) => setTimeout(resolve, this.#retryDelayMs));
      }
    }
    this.#onDeadLetter(message, group, lastError);
  }

  async subscribe(
    topic: string,
    group: string,
    handler: BusHandler,
    options: SubscribeOptions = {},
  ): Promise<BusSubscription> {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'bus is closed');
    await Promise.resolve();
    let groups = this.#groups.get(topic);
    if (!groups) {
      groups = new Map();
      this.#groups.set(topic, groups);
    }
    let members = groups.get(group);
    if (!members) {
      members = [];
      groups.set(group, members);
    }
    const member: Member = { handler, isTransient: options.isTransient ?? (() => false), active: true };
    members.push(member);
    return {
      close: async () => {
        member.active = false;
        const list = this.#groups.get(topic)?.get(group);
        if (list) {
          const i = list.indexOf(member);
          if (i >= 0) list.splice(i, 1);
        }
        await Promise.resolve();
      },
    };
  }

  /**
   * Per consumer group and topic, the messages published but not yet handled (or dead-lettered): the
   * in-memory counterpart of Kafka's lag after the committed offsets. Every subscribed group is listed.
   */
  consumerLag(): { group: string; topic: string; lag: number }[] {
    const out: { group: string; topic: string; lag: number }[] = [];
    for (const [topic, groups] of this.#groups)
      for (const group of groups.keys())
        out.push({ group, topic, lag: this.#pendingBy.get(`${topic}\u0000${group}`) ?? 0 });
    return out;
  }

  /** Resolves when every message published so far has been handled (tests await this, never sleep). */
  async drain(): Promise<void> {
    while (this.#chains.size > 0) {
      await Promise.allSettled([...this.#chains.values()]);
    }
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new AppError('UNAVAILABLE', 'bus is closed');
    await Promise.resolve();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.resolve();
  }
}
