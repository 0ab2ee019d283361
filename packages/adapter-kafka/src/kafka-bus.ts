import { AppError } from '@a2a-inbound/errors';
import type { Bus, BusHandler, BusMessage, BusSubscription, SubscribeOptions } from '@a2a-inbound/ports';
import { Kafka, Partitioners, logLevel } from 'kafkajs';
import type { Admin, SASLOptions, Consumer, EachMessagePayload, IHeaders, LogEntry, Message, Producer } from 'kafkajs';
import { fixKafkajsIdleTimerLoop } from './request-queue-fix';

/** The subset of a pino logger the adapter uses; pass the service logger, or nothing for silence. */
export interface AdapterLog {
  debug?(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silentLog: AdapterLog = { warn: () => undefined, error: () => undefined };

export interface TopicSpec {
  readonly name: string;
  readonly partitions: number;
}

export interface KafkaBusOptions {
  /** `host:port` list (or one comma-separated string). */
  readonly brokers: readonly string[] | string;
  readonly clientId: string;
  /** TLS to the brokers: `true` with the system CAs, or the CA(s) to trust. */
  readonly ssl?: true | { readonly ca: string[] };
  /** SASL authentication (with TLS: `plain` would otherwise send the password in clear). */
  readonly sasl?: {
    readonly mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
    readonly username: string;
    readonly password: string;
  };
  /** Partition counts of known topics; any other topic gets `defaultPartitions`. */
  readonly topics?: readonly TopicSpec[];
  readonly defaultPartitions?: number;
  readonly replicationFactor?: number;
  readonly log?: AdapterLog;
  /** Consumer group session: a member silent for this long is removed and its partitions reassigned. */
  readonly sessionTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  /** How long a member may take to rejoin during a rebalance. */
  readonly rebalanceTimeoutMs?: number;
  /** Longest wait of an idle fetch; also bounds how fast an idle member notices a rebalance. */
  readonly maxWaitTimeMs?: number;
  /** Partitions handled in parallel per subscription (order is per partition, hence per key). */
  readonly partitionsConsumedConcurrently?: number;
  /** Handler attempts per message and group before `onDeadLetter` and moving on (like the in-memory bus). */
  readonly maxAttempts?: number;
  /** First delay before a failed message is redelivered; doubles per attempt up to `maxRetryDelayMs`. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  readonly onDeadLetter?: (message: BusMessage, group: string, error: unknown) => void;
  /** Publishes accepted but not yet acknowledged by Kafka; publish fails with UNAVAILABLE beyond it. */
  readonly maxPendingPublishes?: number;
  /** How long subscribe() waits for the consumer to join its group. */
  readonly joinTimeoutMs?: number;
  /**
   * Largest message (key + value + headers) publish() accepts; larger ones fail at once with INTERNAL (a
   * design error, never retried as an outage). Default 900 KB, under the broker's 1 MB `message.max.bytes`.
   */
  readonly maxMessageBytes?: number;
  /** A send batch is cut at this many bytes (the broker limits a partition's record batch, not a message). */
  readonly maxBatchBytes?: number;
  /**
   * A send that has not settled after this long is failed (UNAVAILABLE) and its producer replaced: kafkajs
   * can leave a send pending forever after a broker restart, and one stuck send would hold every later
   * publish of the process. Default 90 s, above the longest send its retries allow in practice.
   */
  readonly sendTimeoutMs?: number;
  /**
   * A consumer that has neither fetched nor run a handler for this long is replaced by a new member of its
   * group (kafkajs can stop fetching after a broker restart without reporting a crash). Default 60 s, above a
   * rebalance's `rebalanceTimeoutMs`.
   */
  readonly consumerStallMs?: number;
  /** @internal Tests: wraps each producer the bus creates (to inject a broker's answer). */
  readonly wrapProducer?: (producer: Producer) => Producer;
  /** @internal Tests: sees each consumer the bus creates (to stop one as a stuck kafkajs would). */
  readonly onConsumer?: (consumer: Consumer) => void;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 900 * 1024;
const DEFAULT_MAX_BATCH_BYTES = 900 * 1024;

interface Pending {
  readonly topic: string;
  readonly message: Message;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

function toLogger(log: AdapterLog) {
  // kafkajs' logCreator: route its records to our logger, never to the console.
  return () =>
    ({ level, log: entry }: LogEntry): void => {
      const { message, ...rest } = entry;
      // We bound the idempotent producer's retries on purpose (at-least-once bus): not worth a warning each start.
      if (message.startsWith('Limiting retries for the idempotent producer')) return;
      const obj = { ...rest, component: 'kafkajs' };
      // Every start after the first gets "already exists" for each topic, which #ensureTopic treats as
      // success; a real failure rejects createTopics and is reported by the caller. Not an error line.
      // Likewise a heartbeat answered "rebalancing" during a normal rebalance (the consumer rejoins; kafkajs
      // logs that itself as a warning).
      const rebalancing = message.startsWith('Response Heartbeat') && String(rest.error ?? '').includes('rebalancing');
      if (message.startsWith('Response CreateTopics') || rebalancing) {
        log.debug?.(obj, message);
        return;
      }
      if (level === logLevel.ERROR || level === logLevel.NOTHING) log.error(obj, message);
      else if (level === logLevel.WARN) log.warn(obj, message);
      else log.debug?.(obj, message);
    };
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) out[name] = first.toString();
  }
  return out;
}

function messageBytes(m: BusMessage): number {
  let n = Buffer.byteLength(m.key) + m.value.byteLength;
  for (const [k, v] of Object.entries(m.headers ?? {})) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/** How many queued publishes go in the next send: at most 500 and `maxBytes` (always at least one). */
export function batchLength(queue: readonly { bytes: number }[], maxBytes: number): number {
  let n = 0;
  let bytes = 0;
  while (n < queue.length && n < 500) {
    const next = queue[n]!.bytes;
    if (n > 0 && bytes + next > maxBytes) break;
    bytes += next;
    n += 1;
  }
  return n;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError('UNAVAILABLE', message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function newProducer(kafka: Kafka, options: KafkaBusOptions): Producer {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    // Bounded (default for idempotent is unbounded): a publish during an outage fails within ~30 s.
    retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 5_000 },
  });
  return options.wrapProducer ? options.wrapProducer(producer) : producer;
}

/**
 * Bus port on Apache Kafka with kafkajs 2.2.4 (ADR 0002).
 *
 * - Topics are created by the adapter (explicit partition count) before the first publish or subscribe.
 * - Messages are keyed; the Java-compatible murmur2 partitioner maps a key to one partition, so one key's
 *   messages keep their order for every consumer group.
 * - The producer is idempotent (acks=all, one request in flight); publishes issued while a send is in flight
 *   are sent together in the next batch, in call order.
 * - One kafkajs consumer per subscribe(topic, group), Kafka group id `<group>:<topic>` (kafkajs assigns every
 *   subscribed topic's partitions across all members of a group, so each group id must mean one topic).
 *   A new group starts at the earliest offset, so a subscribe racing a publish misses nothing.
 * - An offset is committed only after its handler resolved (in the background, coalesced per partition;
 *   close() waits for the commits). A handler that throws
 *   is retried: the partition is paused, the consumer seeks back to the message and resumes after a backoff
 *   (later messages of that partition wait: per-key order holds). After `maxAttempts` the message goes to
 *   `onDeadLetter` and is committed.
 */
export class KafkaBus implements Bus {
  readonly #kafka: Kafka;
  readonly #admin: Admin;
  #producer: Producer;
  /** Set while a replacement producer connects; the next send waits for it. */
  #producerReady: Promise<void> | undefined;
  readonly #log: AdapterLog;
  readonly #options: KafkaBusOptions;
  readonly #partitions: Map<string, number>;
  readonly #topics = new Map<string, Promise<void>>();
  readonly #subscriptions = new Set<KafkaSubscription>();
  readonly #queue: Pending[] = [];
  #sending: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  private constructor(kafka: Kafka, admin: Admin, producer: Producer, options: KafkaBusOptions) {
    this.#kafka = kafka;
    this.#admin = admin;
    this.#producer = producer;
    this.#options = options;
    this.#log = options.log ?? silentLog;
    this.#partitions = new Map((options.topics ?? []).map((t) => [t.name, t.partitions]));
  }

  static async connect(options: KafkaBusOptions): Promise<KafkaBus> {
    const brokers =
      typeof options.brokers === 'string' ? options.brokers.split(',').map((b) => b.trim()) : [...options.brokers];
    fixKafkajsIdleTimerLoop();
    const kafka = new Kafka({
      clientId: options.clientId,
      brokers: brokers.filter(Boolean),
      ...(options.ssl ? { ssl: options.ssl === true ? true : { ca: [...options.ssl.ca] } } : {}),
      ...(options.sasl ? { sasl: { ...options.sasl } as SASLOptions } : {}),
      logLevel: logLevel.WARN,
      logCreator: toLogger(options.log ?? silentLog),
      connectionTimeout: 3_000,
      requestTimeout: 15_000,
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 3_000 },
    });
    const admin = kafka.admin();
    const producer = newProducer(kafka, options);
    try {
      await admin.connect();
      await producer.connect();
    } catch (err) {
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
      throw new AppError('UNAVAILABLE', 'cannot connect to Kafka', { cause: err });
    }
    const bus = new KafkaBus(kafka, admin, producer, options);
    try {
      // One at a time: concurrent CreateTopics on a fresh broker race with metadata propagation.
      for (const t of options.topics ?? []) await bus.#ensureTopic(t.name);
    } catch (err) {
      await bus.close();
      throw err;
    }
    return bus;
  }

  /** Creates the topic once per process (idempotent across processes: "already exists" is success). */
  #ensureTopic(topic: string): Promise<void> {
    if (!/^[A-Za-z0-9._-]{1,249}$/.test(topic)) {
      // A programming error, not an outage: Kafka topic names are [A-Za-z0-9._-], at most 249 characters.
      return Promise.reject(new AppError('INTERNAL', `invalid Kafka topic name: ${JSON.stringify(topic)}`));
    }
    let ready = this.#topics.get(topic);
    if (!ready) {
      const numPartitions = this.#partitions.get(topic) ?? this.#options.defaultPartitions ?? 6;
      ready = (async () => {
        // On a busy broker, waiting for the new topic's leaders can fail with a retriable "does not host
        // this topic-partition": try again (a second CreateTopics answers "exists"), for up to ~30 s.
        let created = false;
        for (let attempt = 0; ; attempt++) {
          try {
            created = await this.#admin.createTopics({
              topics: [{ topic, numPartitions, replicationFactor: this.#options.replicationFactor ?? 1 }],
              waitForLeaders: true,
              timeout: 10_000,
            });
            break;
          } catch (err) {
            if (attempt >= 30) throw err;
            this.#log.warn({ topic, attempt, err }, 'kafka topic not ready yet; retrying');
            await new Promise((r) => setTimeout(r, 500));
          }
        }
        if (!created) {
          // Just created by another process: its metadata may lag for a moment ("does not host this
          // topic-partition"), so ask again briefly before giving up.
          let meta: Awaited<ReturnType<Admin['fetchTopicMetadata']>> | undefined;
          for (let attempt = 0; ; attempt++) {
            try {
              meta = await this.#admin.fetchTopicMetadata({ topics: [topic] });
              break;
            } catch (err) {
              if (attempt >= 60) throw err;
              await new Promise((r) => setTimeout(r, 500));
            }
          }
          const actual = meta.topics[0]?.partitions.length ?? 0;
          if (actual !== numPartitions) {
            // Not changed automatically: more partitions would move keys to other partitions mid-stream.
            this.#log.warn(
              { topic, actual, configured: numPartitions },
              'kafka topic exists with a different partition count',
            );
          }
        }
      })();
      this.#topics.set(topic, ready);
      ready.catch(() => this.#topics.delete(topic)); // let the next call try again
    }
    return ready.catch((err: unknown) => {
      throw new AppError('UNAVAILABLE', `cannot create Kafka topic ${topic}`, { cause: err });
    });
  }

  async publish(message: BusMessage): Promise<void> {
    this.#assertOpen();
    if (this.#queue.length >= (this.#options.maxPendingPublishes ?? 10_000)) {
      throw new AppError('UNAVAILABLE', 'bus is saturated (too many pending publishes)');
    }
    const bytes = messageBytes(message);
    const max = this.#options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (bytes > max) {
      // Alone or in a batch, the broker would refuse it (MESSAGE_TOO_LARGE) and take its batch-mates down
      // with it. Large payloads travel as blob references (ADR 0013); reaching this is a bug, said clearly.
      throw new AppError('INTERNAL', `bus message of ${bytes} bytes on ${message.topic} exceeds ${max} bytes`);
    }
    // Copy now: the caller may reuse its buffer once publish() resolved (or even before).
    const kafkaMessage: Message = { key: message.key, value: Buffer.from(message.value) };
    if (message.headers) kafkaMessage.headers = { ...message.headers };
    await this.#ensureTopic(message.topic);
    this.#assertOpen();
    await new Promise<void>((resolve, reject) => {
      this.#queue.push({ topic: message.topic, message: kafkaMessage, bytes, resolve, reject });
      this.#pump();
    });
  }

  /** One send in flight; whatever queued meanwhile goes in the next batch, in order. */
  #pump(): void {
    if (this.#sending || this.#queue.length === 0) return;
    const batch = this.#queue.splice(
      0,
      batchLength(this.#queue, this.#options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES),
    );
    const byTopic = new Map<string, Message[]>();
    for (const p of batch) {
      let list = byTopic.get(p.topic);
      if (!list) byTopic.set(p.topic, (list = []));
      list.push(p.message);
    }
    const producer = this.#producer;
    const topicMessages = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    const send = (this.#producerReady ?? Promise.resolve()).then(() => producer.sendBatch({ acks: -1, topicMessages }));
    this.#sending = withTimeout(send, this.#options.sendTimeoutMs ?? 90_000, 'Kafka did not answer the send in time')
      .then(
        () => batch.forEach((p) => p.resolve()),
        (err: unknown) => {
          const error = new AppError('UNAVAILABLE', 'Kafka did not accept the message', { cause: err });
          batch.forEach((p) => p.reject(error));
          this.#replaceProducer(producer, err);
        },
      )
      .finally(() => {
        this.#sending = undefined;
        this.#pump();
      });
  }

  /**
   * After a failed send the producer is replaced: an idempotent producer whose sequence the broker no longer
   * accepts (OUT_OF_ORDER_SEQUENCE_NUMBER or UNKNOWN_PRODUCER_ID after a broker restart) fails every later
   * send, and kafkajs never resets it; a stuck send never settles. A new producer gets a new producer id. A
   * message the old one still delivers late is a duplicate, which every consumer tolerates (at-least-once).
   */
  #replaceProducer(failed: Producer, err: unknown): void {
    if (this.#producer !== failed || this.#closing) return;
    const cause = err instanceof AppError && err.cause ? err.cause : err;
    this.#log.warn({ err: cause }, 'kafka send failed: producer replaced');
    const next = newProducer(this.#kafka, this.#options);
    this.#producer = next;
    const ready = next.connect().finally(() => {
      if (this.#producerReady === ready) this.#producerReady = undefined;
    });
    this.#producerReady = ready;
    ready.catch(() => undefined); // the next send reports it (and replaces this one in turn)
    void withTimeout(failed.disconnect(), 10_000, 'old producer did not disconnect').catch(() => undefined);
  }

  /** @internal A consumer for `group` on `topic` (one per subscription; a stalled one is replaced). */
  newConsumer(topic: string, group: string): Consumer {
    const o = this.#options;
    const consumer = this.#kafka.consumer({
      groupId: `${group}:${topic}`,
      sessionTimeout: o.sessionTimeoutMs ?? 10_000,
      heartbeatInterval: o.heartbeatIntervalMs ?? 1_000,
      rebalanceTimeout: o.rebalanceTimeoutMs ?? 30_000,
      maxWaitTimeInMs: o.maxWaitTimeMs ?? 250,
      allowAutoTopicCreation: false,
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 3_000 },
    });
    o.onConsumer?.(consumer);
    return consumer;
  }

  async subscribe(
    topic: string,
    group: string,
    handler: BusHandler,
    subscribeOptions: SubscribeOptions = {},
  ): Promise<BusSubscription> {
    this.#assertOpen();
    await this.#ensureTopic(topic);
    this.#assertOpen();
    const o = this.#options;
    const consumer = this.newConsumer(topic, group);
    const concurrency = Math.max(1, Math.floor(subscribeOptions.concurrency ?? 1));
    const isTransient = subscribeOptions.isTransient ?? (() => false);
    const sub = new KafkaSubscription(this, consumer, topic, group, handler, o, this.#log, concurrency, isTransient);
    this.#subscriptions.add(sub);
    try {
      await sub.start(o.joinTimeoutMs ?? 30_000);
    } catch (err) {
      await sub.close();
      throw err instanceof AppError ? err : new AppError('UNAVAILABLE', `cannot subscribe to ${topic}`, { cause: err });
    }
    return sub;
  }

  /**
   * The consumer lag of this process's subscriptions: per consumer group and topic, the messages after the
   * group's committed offsets (summed over partitions; a partition without a commit counts from its start).
   */
  async consumerLag(): Promise<{ group: string; topic: string; lag: number }[]> {
    const out: { group: string; topic: string; lag: number }[] = [];
    for (const sub of [...this.#subscriptions]) {
      const { group, topic } = sub.identity;
      const [committed, latest] = await Promise.all([
        this.#admin.fetchOffsets({ groupId: `${group}:${topic}`, topics: [topic] }),
        this.#admin.fetchTopicOffsets(topic),
      ]);
      const done = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
      let lag = 0n;
      for (const p of latest) {
        const at = done.get(p.partition) ?? -1n;
        const from = at >= 0n ? at : BigInt(p.low);
        if (BigInt(p.high) > from) lag += BigInt(p.high) - from;
      }
      out.push({ group, topic, lag: Number(lag) });
    }
    return out;
  }

  /** @internal */
  forget(sub: KafkaSubscription): void {
    this.#subscriptions.delete(sub);
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    try {
      await withTimeout(this.#admin.describeCluster(), 5_000, 'Kafka did not answer in time');
    } catch (err) {
      throw err instanceof AppError ? err : new AppError('UNAVAILABLE', 'Kafka did not answer', { cause: err });
    }
  }

  /** Stops consumers (in-flight handlers finish and commit), flushes pending publishes, then disconnects. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#subscriptions].map((s) => s.close()));
      while (this.#sending) await this.#sending;
      await this.#producerReady?.catch(() => undefined);
      await Promise.allSettled([this.#producer.disconnect(), this.#admin.disconnect()]);
    })();
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closing) throw new AppError('UNAVAILABLE', 'bus is closed');
  }
}

class KafkaSubscription implements BusSubscription {
  readonly #inflight = new Set<Promise<void>>();
  readonly #toCommit = new Map<number, bigint>();
  #committing: Promise<void> | undefined;
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Retry waits to cut short when the subscription closes. */
  readonly #wakeOnClose = new Set<() => void>();
  /** Failed attempts of the message currently retried, per partition: `${partition}` → {offset, n}. */
  readonly #attempts = new Map<number, { offset: string; n: number }>();
  #closing: Promise<void> | undefined;

  /** Replaced by a new member of the group when it stalls or crashes for good. */
  private consumer: Consumer;
  /** When the current consumer last started a fetch, or a handler call (eachMessage) began or ended. */
  #lastProgress = Date.now();
  /** eachMessage calls in progress (a handler, or a wait for a free slot): the consumer is not stuck then. */
  #inEachMessage = 0;
  #watchdog: NodeJS.Timeout | undefined;
  #replacing: Promise<void> | undefined;

  constructor(
    private readonly bus: KafkaBus,
    consumer: Consumer,
    private readonly topic: string,
    private readonly group: string,
    private readonly handler: BusHandler,
    private readonly options: KafkaBusOptions,
    private readonly log: AdapterLog,
    private readonly concurrency: number,
    private readonly isTransient: (error: unknown) => boolean,
  ) {
    this.consumer = consumer;
  }

  get identity(): { group: string; topic: string } {
    return { group: this.group, topic: this.topic };
  }

  async start(joinTimeoutMs: number): Promise<void> {
    await this.#run(this.consumer, joinTimeoutMs);
    const stallMs = this.options.consumerStallMs ?? 60_000;
    this.#watchdog = setInterval(
      () => {
        if (this.#closing || this.#replacing || this.#inEachMessage > 0) return;
        if (Date.now() - this.#lastProgress > stallMs) this.#replace('no fetch for too long');
      },
      Math.max(100, Math.min(5_000, stallMs / 4)),
    );
    this.#watchdog.unref();
  }

  /** Connects `consumer`, subscribes and runs it; resolves once it joined its group. */
  async #run(consumer: Consumer, joinTimeoutMs: number): Promise<void> {
    const { GROUP_JOIN, CRASH, FETCH_START } = consumer.events;
    let joined!: () => void;
    const hasJoined = new Promise<void>((resolve) => (joined = resolve));
    const offJoin = consumer.on(GROUP_JOIN, () => joined());
    // Messages still tracked for partitions this member no longer owns are the new owner's now.
    consumer.on(GROUP_JOIN, (event) => {
      this.#lastProgress = Date.now();
      const owned = new Set(event.payload.memberAssignment[this.topic] ?? []);
      for (const p of this.#tracked.keys()) if (!owned.has(p)) this.#tracked.delete(p);
    });
    consumer.on(FETCH_START, () => {
      if (consumer === this.consumer) this.#lastProgress = Date.now();
    });
    consumer.on(CRASH, (event) => {
      const { error, restart } = event.payload;
      this.log[restart ? 'warn' : 'error'](
        { err: error, topic: this.topic, group: this.group, restart },
        'kafka consumer crashed',
      );
      // kafkajs gives up for good on an error it deems not retriable: a new member takes over.
      if (!restart && consumer === this.consumer) this.#replace('crashed without restart');
    });
    try {
      await consumer.connect();
      // fromBeginning applies only to a group without committed offsets: a new group reads from the start.
      await consumer.subscribe({ topics: [this.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3,
        eachMessage: async (payload) => {
          this.#inEachMessage += 1;
          try {
            await (this.concurrency > 1 ? this.#dispatch(payload) : this.#track(this.#handle(payload)));
          } finally {
            this.#inEachMessage -= 1;
            this.#lastProgress = Date.now();
          }
        },
      });
      // run() resolves after the first join attempt; wait for an actual join so that the subscription
      // is live (and the group stable) when subscribe() resolves.
      await withTimeout(hasJoined, joinTimeoutMs, `consumer group ${this.group} did not join in time`);
    } finally {
      offJoin();
    }
  }

  /**
   * Replaces the consumer by a new member of the same group (kafkajs issue 659: a consumer can stop fetching
   * after a broker restart and never say so). Handlers still running finish; their messages may be
   * delivered again to the new member, which every handler tolerates (at-least-once). Tried again at the
   * next watchdog tick if the new one cannot start (the broker is still away).
   */
  #replace(reason: string): void {
    if (this.#replacing || this.#closing) return;
    this.log.warn({ topic: this.topic, group: this.group, reason }, 'kafka consumer replaced');
    const old = this.consumer;
    this.#replacing = (async () => {
      await withTimeout(old.disconnect(), 10_000, 'stuck consumer did not disconnect').catch(() => undefined);
      if (this.#closing) return;
      this.#tracked.clear();
      this.#toCommit.clear();
      this.#attempts.clear();
      const next = this.bus.newConsumer(this.topic, this.group);
      this.consumer = next;
      this.#lastProgress = Date.now();
      try {
        await this.#run(next, this.options.joinTimeoutMs ?? 30_000);
      } catch (err) {
        this.log.warn({ err, topic: this.topic, group: this.group }, 'replacement kafka consumer did not start');
        this.#lastProgress = 0; // the watchdog tries again at once
      }
    })().finally(() => {
      this.#replacing = undefined;
    });
  }

  // ---- concurrent mode (concurrency > 1): per-key order, commits at the settled watermark -------------

  /** Offsets fetched and not yet committed, per partition, in fetch order; `done` once settled. */
  readonly #tracked = new Map<number, { offset: bigint; done: boolean }[]>();
  /** Per-key chains: the promise of the key's latest message (one key's messages run in order). */
  readonly #keys = new Map<string, Promise<void>>();
  #slotsUsed = 0;
  readonly #slotWaiters: (() => void)[] = [];

  /**
   * eachMessage in concurrent mode: takes a slot (waiting while `concurrency` handlers run, heartbeating),
   * chains the message behind its key's previous message and returns at once, so the partition's next
   * messages are fetched while this one runs.
   */
  async #dispatch(payload: EachMessagePayload): Promise<void> {
    const { topic, partition, message } = payload;
    const offset = BigInt(message.offset);
    let list = this.#tracked.get(partition);
    if (!list) this.#tracked.set(partition, (list = []));
    // Re-fetched after a rebalance while still running here: the running copy will settle and commit it.
    const last = list.at(-1);
    if (last && offset <= last.offset) return;
    if (this.#closing) {
      this.#seekBack(topic, partition, message.offset);
      payload.pause();
      return;
    }
    if (this.#slotsUsed >= this.concurrency) {
      const beat = setInterval(() => {
        payload.heartbeat().catch(() => undefined);
      }, this.options.heartbeatIntervalMs ?? 1_000);
      try {
        await new Promise<void>((resolve) => this.#slotWaiters.push(resolve));
      } finally {
        clearInterval(beat);
      }
      if (this.#closing) {
        this.#seekBack(topic, partition, message.offset);
        payload.pause();
        return;
      }
    }
    this.#slotsUsed += 1;
    const entry = { offset, done: false };
    list.push(entry);
    const busMessage: BusMessage = {
      topic,
      key: message.key?.toString('utf8') ?? '',
      value: new Uint8Array(message.value ?? Buffer.alloc(0)),
      headers: decodeHeaders(message.headers),
    };
    const previous = this.#keys.get(busMessage.key) ?? Promise.resolve();
    const work = previous
      .then(() => this.#runWithRetries(busMessage, partition, message.offset))
      .then((settled) => {
        if (!settled) return; // closing: left uncommitted for the next owner
        entry.done = true;
        this.#advance(partition);
      })
      .finally(() => {
        this.#slotsUsed -= 1;
        this.#slotWaiters.shift()?.();
        if (this.#keys.get(busMessage.key) === work) this.#keys.delete(busMessage.key);
      });
    this.#keys.set(busMessage.key, work);
    void this.#track(work);
  }

  /** Rewinds the partition to `offset` (nothing to do when the consumer was replaced meanwhile: the new one
   * starts from the committed offset). */
  #seekBack(topic: string, partition: number, offset: string): void {
    try {
      this.consumer.seek({ topic, partition, offset });
    } catch (err) {
      this.log.warn({ err, topic, partition, offset, group: this.group }, 'kafka seek failed');
    }
  }

  /** Handles one message with in-place retries; resolves true once settled (handled or dead-lettered). */
  async #runWithRetries(message: BusMessage, partition: number, offset: string): Promise<boolean> {
    const maxAttempts = this.options.maxAttempts ?? 10;
    let failures = 0;
    for (let n = 1; ; n++) {
      if (this.#closing) return false;
      try {
        await this.handler(message);
        return true;
      } catch (err) {
        if (!this.isTransient(err)) failures += 1;
        if (this.#closing) {
          this.log.warn(
            { err, topic: this.topic, partition, offset, group: this.group },
            'bus handler failed while closing: not committed, will be redelivered',
          );
          return false;
        }
        if (failures >= maxAttempts) {
          this.log.error(
            { err, topic: this.topic, partition, offset, group: this.group, attempts: n },
            'bus handler failed too often: dead-lettered',
          );
          try {
            this.options.onDeadLetter?.(message, this.group, err);
          } catch (e) {
            this.log.error({ err: e }, 'onDeadLetter threw');
          }
          return true;
        }
        const base = this.options.retryDelayMs ?? 100;
        const delay = Math.min(base * 2 ** (n - 1), this.options.maxRetryDelayMs ?? 5_000);
        this.log.warn(
          { err, topic: this.topic, partition, offset, group: this.group, attempt: n, delayMs: delay },
          'bus handler failed, will retry',
        );
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            clearTimeout(timer);
            this.#timers.delete(timer);
            this.#wakeOnClose.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, delay);
          this.#timers.add(timer);
          this.#wakeOnClose.add(wake);
        });
      }
    }
  }

  /** Commits up to the first unsettled offset of the partition. */
  #advance(partition: number): void {
    const list = this.#tracked.get(partition);
    if (!list) return; // revoked meanwhile: the new owner redelivers
    let next: bigint | undefined;
    while (list.length > 0 && list[0]!.done) next = list.shift()!.offset + 1n;
    if (next !== undefined) this.#commitAfter(partition, next);
  }

  #track(work: Promise<void>): Promise<void> {
    this.#inflight.add(work);
    return work.finally(() => this.#inflight.delete(work));
  }

  async #handle(payload: EachMessagePayload): Promise<void> {
    const { topic, partition, message } = payload;
    // The consumer that fetched it: a handler that outlives a replacement must not commit through the new
    // member, whose group may have committed past this offset already (that would rewind the group).
    const fetchedBy = this.consumer;
    if (this.#closing) {
      // Closing: leave it uncommitted for whoever owns the partition next.
      this.#seekBack(topic, partition, message.offset);
      payload.pause();
      return;
    }
    const busMessage: BusMessage = {
      topic,
      key: message.key?.toString('utf8') ?? '',
      value: new Uint8Array(message.value ?? Buffer.alloc(0)),
      headers: decodeHeaders(message.headers),
    };
    // kafkajs heartbeats only between messages: keep the membership alive during a long handler.
    const beat = setInterval(() => {
      payload.heartbeat().catch(() => undefined); // a rebalance shows up again after the handler, via the commit
    }, this.options.heartbeatIntervalMs ?? 1_000);
    let failure: unknown;
    let failed = false;
    try {
      await this.handler(busMessage);
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      clearInterval(beat);
    }
    if (failed) {
      const previous = this.#attempts.get(partition);
      const maxAttempts = this.options.maxAttempts ?? 10;
      // A transient failure (outage) is retried for as long as it lasts: it never counts toward dead-lettering.
      const before = previous?.offset === message.offset ? previous.n : 0;
      const n = this.isTransient(failure) ? Math.min(Math.max(before, 1), maxAttempts - 1) : before + 1;
      if (n < maxAttempts && !this.#closing) {
        this.#attempts.set(partition, { offset: message.offset, n });
        const base = this.options.retryDelayMs ?? 100;
        const delay = Math.min(base * 2 ** (n - 1), this.options.maxRetryDelayMs ?? 5_000);
        this.log.warn(
          { err: failure, topic, partition, offset: message.offset, group: this.group, attempt: n, delayMs: delay },
          'bus handler failed, will redeliver',
        );
        // Not committed; rewind and hold the partition (so later messages of its keys wait), then resume.
        const resume = payload.pause();
        this.#seekBack(topic, partition, message.offset);
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          if (!this.#closing) resume();
        }, delay);
        this.#timers.add(timer);
        return;
      }
      if (this.#closing) {
        // Closing: not committed, so the group hands the message to another member (e.g. a run handed back).
        this.log.warn(
          { err: failure, topic, partition, offset: message.offset, group: this.group },
          'bus handler failed while closing: not committed, will be redelivered',
        );
        return;
      }
      this.log.error(
        { err: failure, topic, partition, offset: message.offset, group: this.group, attempts: n },
        'bus handler failed too often: dead-lettered',
      );
      try {
        this.options.onDeadLetter?.(busMessage, this.group, failure);
      } catch (err) {
        this.log.error({ err }, 'onDeadLetter threw');
      }
    }
    if (fetchedBy !== this.consumer) return; // replaced meanwhile: the new member redelivers it
    this.#attempts.delete(partition);
    this.#commitAfter(partition, BigInt(message.offset) + 1n);
  }

  /**
   * Records a settled message for commit. Commits run one at a time in the background and carry the
   * highest settled offset of every partition, so a busy partition commits once per round trip instead
   * of once per message. Only offsets whose handlers settled are ever committed; a crash loses at most
   * the commits still pending, and those messages are redelivered (at-least-once).
   */
  #commitAfter(partition: number, next: bigint): void {
    const current = this.#toCommit.get(partition);
    if (current === undefined || next > current) this.#toCommit.set(partition, next);
    this.#kickCommits();
  }

  #kickCommits(): void {
    if (this.#committing || this.#toCommit.size === 0) return;
    const offsets = [...this.#toCommit].map(([partition, offset]) => ({
      topic: this.topic,
      partition,
      offset: offset.toString(),
    }));
    this.#toCommit.clear();
    this.#committing = this.consumer
      .commitOffsets(offsets)
      .catch((err: unknown) => {
        // Lost the partition in a rebalance (or the broker is gone): the new owner sees those messages again.
        this.log.warn(
          { err, topic: this.topic, group: this.group, offsets },
          'offset commit failed; messages may be redelivered',
        );
      })
      .finally(() => {
        this.#committing = undefined;
        this.#kickCommits();
      });
  }

  /** Resolves when every settled message so far has been committed (or its commit failed). */
  async #commitsSettled(): Promise<void> {
    while (this.#committing) await this.#committing;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#watchdog);
      await this.#replacing;
      for (const timer of this.#timers) clearTimeout(timer);
      this.#timers.clear();
      for (const wake of this.#wakeOnClose) wake();
      this.#wakeOnClose.clear();
      for (const wake of this.#slotWaiters.splice(0)) wake();
      try {
        // Take no new messages, let the running handlers finish and commit while the consumer still runs.
        this.consumer.pause([{ topic: this.topic }]);
      } catch {
        // not running (start failed): nothing in flight
      }
      await Promise.allSettled([...this.#inflight]);
      await this.#commitsSettled();
      await this.consumer
        .disconnect()
        .catch((err: unknown) => this.log.warn({ err, group: this.group }, 'kafka consumer disconnect failed'));
      this.bus.forget(this);
    })();
    return this.#closing;
  }
}
