import type { Bus, BusHandler, BusMessage, BusSubscription, SubscribeOptions } from '@a2a-inbound/ports';
import { LmdbDatabase } from './lmdb-database';

/** The header that carries a message's outbox sequence through the inner bus (removed before the handler). */
const OUTBOX_HEADER = 'x-a2a-outbox-seq';

function seqKey(seq: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(seq));
  return b;
}

/** `[u32 length][JSON {t, k, h}][value]`: the value stays bytes. */
function encode(m: BusMessage): Buffer {
  const head = Buffer.from(JSON.stringify({ t: m.topic, k: m.key, h: m.headers ?? {} }), 'utf8');
  const out = Buffer.allocUnsafe(4 + head.length + m.value.byteLength);
  out.writeUInt32BE(head.length, 0);
  head.copy(out, 4);
  out.set(m.value, 4 + head.length);
  return out;
}

function decode(raw: Buffer): BusMessage {
  const length = raw.readUInt32BE(0);
  const head = JSON.parse(raw.subarray(4, 4 + length).toString('utf8')) as {
    t: string;
    k: string;
    h: Record<string, string>;
  };
  return { topic: head.t, key: head.k, value: Uint8Array.from(raw.subarray(4 + length)), headers: head.h };
}

export interface LmdbOutboxBusOptions {
  /**
   * The topics kept until handled, each with the consumer group whose successful handling (or dead letter)
   * settles a message. Messages of other topics go straight to the inner bus.
   */
  readonly topics: Readonly<Record<string, string>>;
}

/**
 * A bus whose messages on some topics outlive the process (the durable embedded mode, ADR 0038): the inner
 * bus is in memory, so without this a message published but not yet handled when the process dies is lost.
 * `publish` stores the message in the LMDB database (in the group commit of the same turn as other writes),
 * hands it to the inner bus once that commit is made (ADR 0069) and resolves then; the settling group's handler
 * deletes it when it succeeds. When that group subscribes (at start, before the process serves), the messages a previous
 * process left are published again, in their order: the consumer must be idempotent, as every bus consumer
 * is (at-least-once).
 */
export class LmdbOutboxBus implements Bus {
  readonly #release: () => Promise<void>;
  readonly #topics: ReadonlyMap<string, string>;
  readonly #replayed = new Set<string>();
  /** Topics whose settling group unsubscribed (shutdown): what the bus gives up on now stays for the next start. */
  readonly #unsubscribed = new Set<string>();
  /** Settled messages whose delete waits for the next commit (`LmdbDatabase.writeSoon`). */
  readonly #settling = new Set<number>();
  #next: number;

  constructor(
    private readonly db: LmdbDatabase,
    private readonly inner: Bus,
    options: LmdbOutboxBusOptions,
  ) {
    this.#release = db.acquire();
    this.#topics = new Map(Object.entries(options.topics));
    let last = 0;
    for (const k of db.outbox.getKeys({ reverse: true, limit: 1 })) last = Number(k.readBigUInt64BE(0));
    this.#next = last + 1;
  }

  /** Messages stored and not settled yet (operators, tests). */
  get pending(): number {
    let settling = 0;
    for (const seq of this.#settling) if (this.db.outbox.doesExist(seqKey(seq))) settling += 1;
    return this.db.outbox.getCount() - settling;
  }

  async publish(message: BusMessage): Promise<void> {
    if (!this.#topics.has(message.topic)) return this.inner.publish(message);
    const seq = this.#next++;
    const key = seqKey(seq);
    await this.db.write(() => this.db.outbox.putSync(key, encode(message)));
    // Handed to the consumers only once the message is durable (ADR 0069): a push never goes out for a write
    // a crash could still undo. Resolves after the hand-over, as before the barrier: a publisher that batches
    // what comes while a publish is in flight (task announcements, ADR 0041) keeps batching for that long.
    // A failed commit rejects here: the message was never stored, like the writes it reports.
    await this.db.committed();
    try {
      await this.inner.publish({ ...message, headers: { ...(message.headers ?? {}), [OUTBOX_HEADER]: String(seq) } });
    } catch (err) {
      await this.db.write(() => this.db.outbox.removeSync(key));
      throw err;
    }
  }

  async subscribe(
    topic: string,
    group: string,
    handler: BusHandler,
    options?: SubscribeOptions,
  ): Promise<BusSubscription> {
    if (this.#topics.get(topic) !== group) return this.inner.subscribe(topic, group, handler, options);
    const sub = await this.inner.subscribe(
      topic,
      group,
      async (m) => {
        const { [OUTBOX_HEADER]: seq, ...headers } = m.headers ?? {};
        await handler({ ...m, headers });
        if (seq !== undefined) this.#settle(Number(seq));
      },
      options,
    );
    this.#unsubscribed.delete(topic);
    if (!this.#replayed.has(topic)) {
      this.#replayed.add(topic);
      await this.#replay(topic);
    }
    return {
      close: async () => {
        this.#unsubscribed.add(topic);
        await sub.close();
      },
    };
  }

  /**
   * A message the inner bus gave up on (dead letter) for `group`: settled too, so it is not published again
   * at every start. Wire it to the inner bus's dead-letter callback. Not once the group unsubscribed (the
   * process is stopping: the bus gives up for want of a consumer), so the next start publishes it again:
   * resolves `kept` then.
   */
  deadLettered(message: BusMessage, group: string): Promise<'settled' | 'kept' | 'not-outboxed'> {
    const seq = message.headers?.[OUTBOX_HEADER];
    if (seq === undefined || this.#topics.get(message.topic) !== group) return Promise.resolve('not-outboxed');
    if (this.#unsubscribed.has(message.topic)) return Promise.resolve('kept');
    this.#settle(Number(seq));
    return Promise.resolve('settled');
  }

  /**
   * Deletes a settled message with the next commit, not one of its own (two commits per message were a fifth of
   * a durable send's): a crash before that commit publishes it again at the next start, which its consumer
   * takes as the duplicate it is (webhooks' delivery ids).
   */
  #settle(seq: number): void {
    this.#settling.add(seq);
    this.db.writeSoon(() => {
      this.#settling.delete(seq);
      void this.db.outbox.remove(seqKey(seq));
    });
  }

  /** The messages of `topic` stored before its settling group subscribed, published again in order. */
  async #replay(topic: string): Promise<void> {
    const left: { seq: number; message: BusMessage }[] = [];
    for (const { key, value } of this.db.outbox.getRange({})) {
      const message = decode(value);
      if (message.topic === topic) left.push({ seq: Number(key.readBigUInt64BE(0)), message });
    }
    for (const { seq, message } of left)
      await this.inner.publish({ ...message, headers: { ...(message.headers ?? {}), [OUTBOX_HEADER]: String(seq) } });
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  async close(): Promise<void> {
    await this.inner.close();
    await this.#release();
  }
}
