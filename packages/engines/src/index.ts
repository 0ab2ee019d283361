import { readFileSync } from 'node:fs';
import {
  EnvReader,
  mongoUrlTls,
  readPlaintextPolicy,
  redisUrlTls,
  refusePlaintext,
  type Env,
} from '@a2a-inbound/config';
import type { Logger } from '@a2a-inbound/logger';
import { a2aMeter, observeConsumerLag, tracedBus } from '@a2a-inbound/telemetry';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  InMemoryRateLimiter,
  type BlobStore,
  type Bus,
  type BusHandler,
  type BusMessage,
  type BusSubscription,
  type SubscribeOptions,
  type Cache,
  type DocumentStore,
  type EventLog,
  type RateLimiter,
} from '@a2a-inbound/ports';

export type EngineKind = 'memory' | 'real';

export interface EnginesConfig {
  store: 'memory' | 'mongo';
  bus: 'memory' | 'kafka';
  eventLog: 'memory' | 'redis';
  cache: 'memory' | 'redis';
  limiter: 'memory' | 'redis';
  mongoUrl: string;
  mongoDb: string;
  kafkaBrokers: string[];
  kafkaPartitions: number;
  /** TLS to the brokers (KAFKA_TLS, or implied by KAFKA_TLS_CA_FILE); `caFile`: a private CA, PEM. */
  kafkaTls: { caFile?: string } | undefined;
  /** SASL authentication to the brokers; the password is never logged. */
  kafkaSasl: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | undefined;
  redisUrl: string;
  /** Namespace of topics, consumer groups and Redis keys (isolates test runs sharing one cluster). */
  namespace: string;
  clientId: string;
  /** Plaintext engine links accepted in production by ALLOW_PLAINTEXT_LINKS: the service logs each at start. */
  warnings: string[];
}

export const TOPICS_OF_THE_SYSTEM = [
  'a2a.run.requested',
  'a2a.run.cancel',
  'a2a.task.events',
  'a2a.task.updates',
] as const;

/**
 * Reads the engine choice. `ENGINES=real` (the default of a standalone service) selects Kafka, MongoDB and
 * Redis; each port can be overridden (STORE_ADAPTER=memory…). Memory adapters in production
 * (NODE_ENV=production) are refused unless ALLOW_MEMORY_ADAPTERS=true: they do not share state across
 * processes.
 */
export function loadEnginesConfig(
  env: Env,
  defaults: { engines: EngineKind; clientId: string; needs?: readonly Need[] },
): EnginesConfig {
  const r = new EnvReader(env);
  const engines = r.oneOf('ENGINES', ['memory', 'real'], defaults.engines);
  const real = engines === 'real';
  const c: EnginesConfig = {
    store: r.oneOf('STORE_ADAPTER', ['memory', 'mongo'], real ? 'mongo' : 'memory'),
    bus: r.oneOf('BUS_ADAPTER', ['memory', 'kafka'], real ? 'kafka' : 'memory'),
    eventLog: r.oneOf('EVENT_LOG_ADAPTER', ['memory', 'redis'], real ? 'redis' : 'memory'),
    cache: r.oneOf('CACHE_ADAPTER', ['memory', 'redis'], real ? 'redis' : 'memory'),
    limiter: r.oneOf('RATE_LIMITER_ADAPTER', ['memory', 'redis'], real ? 'redis' : 'memory'),
    mongoUrl: r.string('MONGO_URL', 'mongodb://127.0.0.1:27017'),
    mongoDb: r.string('MONGO_DB', 'a2a_inbound'),
    kafkaBrokers: r.list('KAFKA_BROKERS', ['127.0.0.1:9092']),
    kafkaPartitions: r.int('KAFKA_TOPIC_PARTITIONS', 6, { min: 1, max: 1000 }),
    kafkaTls: undefined,
    kafkaSasl: undefined,
    redisUrl: r.string('REDIS_URL', 'redis://127.0.0.1:6379'),
    namespace: r.string('NAMESPACE', ''),
    clientId: r.string('SERVICE_INSTANCE_ID', defaults.clientId),
    warnings: [],
  };
  if (c.namespace && !/^[a-z0-9][a-z0-9_-]{0,40}$/.test(c.namespace))
    r.problem('NAMESPACE must be lower-case letters, digits, _ or - (at most 41)');
  // Kafka has no URL to carry TLS and credentials (Redis: rediss://user:pass@…, MongoDB: ?tls=true&authMechanism=…).
  const kafkaCa = r.optionalString('KAFKA_TLS_CA_FILE');
  if (r.bool('KAFKA_TLS', false) || kafkaCa) c.kafkaTls = kafkaCa ? { caFile: kafkaCa } : {};
  const saslMechanism = r.optionalString('KAFKA_SASL_MECHANISM');
  const saslUser = r.optionalString('KAFKA_SASL_USERNAME');
  const saslPassword = r.optionalString('KAFKA_SASL_PASSWORD');
  if (saslMechanism !== undefined) {
    if (saslMechanism !== 'plain' && saslMechanism !== 'scram-sha-256' && saslMechanism !== 'scram-sha-512')
      r.problem('KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512');
    else if (saslUser === undefined || saslPassword === undefined)
      r.problem('KAFKA_SASL_MECHANISM needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD');
    else {
      if (saslMechanism === 'plain' && !c.kafkaTls)
        r.problem('KAFKA_SASL_MECHANISM=plain sends the password in clear: set KAFKA_TLS=true too');
      c.kafkaSasl = { mechanism: saslMechanism, username: saslUser, password: saslPassword };
    }
  } else if (saslUser !== undefined || saslPassword !== undefined)
    r.problem('KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM');
  const production = env.NODE_ENV === 'production';
  const usesMemory = [c.store, c.bus, c.eventLog, c.cache, c.limiter].includes('memory');
  if (production && usesMemory && !r.bool('ALLOW_MEMORY_ADAPTERS', false)) {
    r.problem('in-memory adapters are refused with NODE_ENV=production (set ALLOW_MEMORY_ADAPTERS=true to allow)');
  }
  refusePlaintextEngines(r, c, defaults.needs ?? ['store', 'blobs', 'bus', 'eventLog', 'cache', 'limiter']);
  c.warnings = r.warnings;
  r.done();
  return c;
}

/**
 * With NODE_ENV=production, every engine link this service opens (`needs`) must be encrypted beyond loopback:
 * Kafka with KAFKA_TLS, Redis with `rediss://`, MongoDB with `tls=true` (or `mongodb+srv://`), unless
 * ALLOW_PLAINTEXT_LINKS names the link (ADR 0035).
 */
function refusePlaintextEngines(r: EnvReader, c: EnginesConfig, needs: readonly Need[]): void {
  const policy = readPlaintextPolicy(r);
  const uses = (need: Need, adapter: string): boolean => needs.includes(need) && adapter !== 'memory';
  if (uses('bus', c.bus) && !c.kafkaTls)
    refusePlaintext(r, policy, 'kafka', c.kafkaBrokers, 'KAFKA_TLS=true (or KAFKA_TLS_CA_FILE) is required');
  const redis = redisUrlTls(c.redisUrl);
  if ((uses('eventLog', c.eventLog) || uses('cache', c.cache) || uses('limiter', c.limiter)) && !redis.tls)
    refusePlaintext(r, policy, 'redis', redis.hosts, 'REDIS_URL must be rediss:// (TLS)');
  const mongo = mongoUrlTls(c.mongoUrl);
  if ((uses('store', c.store) || uses('blobs', c.store)) && !mongo.tls)
    refusePlaintext(r, policy, 'mongo', mongo.hosts, 'MONGO_URL must turn TLS on (tls=true, or mongodb+srv://)');
}

/** Prefixes topic and group names: several systems (test runs) share one Kafka without seeing each other. */
class NamespacedBus implements Bus {
  constructor(
    private readonly inner: Bus,
    private readonly ns: string,
  ) {}
  publish(m: BusMessage): Promise<void> {
    return this.inner.publish({ ...m, topic: `${this.ns}.${m.topic}` });
  }
  subscribe(topic: string, group: string, handler: BusHandler, options?: SubscribeOptions): Promise<BusSubscription> {
    return this.inner.subscribe(`${this.ns}.${topic}`, `${this.ns}.${group}`, (m) => handler({ ...m, topic }), options);
  }
  ping(): Promise<void> {
    return this.inner.ping();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Tells `onPublish` of each message's topic (the system's name, before any namespace). */
function countedBus(inner: Bus, onPublish: (topic: string) => void): Bus {
  return {
    publish: (m) => {
      onPublish(m.topic);
      return inner.publish(m);
    },
    subscribe: (topic, group, handler, options) => inner.subscribe(topic, group, handler, options),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
}

export interface ConnectedEngines {
  store?: DocumentStore;
  blobs?: BlobStore;
  bus?: Bus;
  eventLog?: EventLog;
  cache?: Cache;
  limiter?: RateLimiter;
  /** Readiness: resolves when every connected engine answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type Need = 'store' | 'blobs' | 'bus' | 'eventLog' | 'cache' | 'limiter';

const adapterLog = (log: Logger) => ({
  debug: (o: object, m?: string) => log.debug(o, m),
  warn: (o: object, m?: string) => log.warn(o, m),
  error: (o: object, m?: string) => log.error(o, m),
});

/** Connects the adapters a service needs; heavy client libraries load only when chosen. */
export async function connectEngines(c: EnginesConfig, needs: readonly Need[], log: Logger): Promise<ConnectedEngines> {
  const out: ConnectedEngines = { ping: async () => undefined, close: async () => undefined };
  const closers: (() => Promise<void>)[] = [];
  const pings: (() => Promise<void>)[] = [];
  const ns = c.namespace;
  const prefix = ns ? `${ns}:` : '';
  try {
    if (needs.includes('store')) {
      if (c.store === 'mongo') {
        const { MongoDocumentStore } = await import('@a2a-inbound/adapter-mongo');
        // `a2a_store_operations_total{collection,command}`: the bench reads it per send (issue 23).
        const operations = a2aMeter().createCounter('a2a_store_operations', {
          description: 'Document store driver commands, by collection and command',
        });
        out.store = await MongoDocumentStore.connect({
          url: c.mongoUrl,
          dbName: ns ? `${c.mongoDb}_${ns}` : c.mongoDb,
          log: adapterLog(log),
          onOperation: (collection, command) => operations.add(1, { collection, command }),
        });
      } else out.store = new InMemoryDocumentStore();
      const s = out.store;
      closers.push(() => s.close());
      pings.push(() => s.ping());
    }
    if (needs.includes('blobs')) {
      if (c.store === 'mongo') {
        const { MongoBlobStore } = await import('@a2a-inbound/adapter-mongo');
        out.blobs = await MongoBlobStore.connect({
          url: c.mongoUrl,
          dbName: ns ? `${c.mongoDb}_${ns}` : c.mongoDb,
          log: adapterLog(log),
        });
      } else out.blobs = new InMemoryBlobStore();
      const b = out.blobs;
      closers.push(() => b.close());
    }
    if (needs.includes('bus')) {
      let bus: Bus;
      if (c.bus === 'kafka') {
        const { KafkaBus } = await import('@a2a-inbound/adapter-kafka');
        const kafka = await KafkaBus.connect({
          brokers: c.kafkaBrokers,
          clientId: c.clientId,
          ...(c.kafkaTls ? { ssl: c.kafkaTls.caFile ? { ca: [readFileSync(c.kafkaTls.caFile, 'utf8')] } : true } : {}),
          ...(c.kafkaSasl ? { sasl: c.kafkaSasl } : {}),
          topics: TOPICS_OF_THE_SYSTEM.map((t) => ({ name: ns ? `${ns}.${t}` : t, partitions: c.kafkaPartitions })),
          defaultPartitions: c.kafkaPartitions,
          log: adapterLog(log),
        });
        observeConsumerLag(() => kafka.consumerLag(), log);
        bus = kafka;
      } else {
        const memory = new InMemoryBus();
        observeConsumerLag(async () => memory.consumerLag(), log);
        bus = memory;
      }
      // Outermost, so that spans carry the topic names of the system, not the namespaced ones.
      // `a2a_bus_messages_total{topic}`: messages published, the bench reads it per send (issue 23).
      const messages = a2aMeter().createCounter('a2a_bus_messages', {
        description: 'Bus messages published, by topic',
      });
      out.bus = tracedBus(countedBus(ns ? new NamespacedBus(bus, ns) : bus, (topic) => messages.add(1, { topic })));
      const b = out.bus;
      closers.push(() => b.close());
      pings.push(() => b.ping());
    }
    if (needs.includes('eventLog')) {
      if (c.eventLog === 'redis') {
        const { RedisEventLog } = await import('@a2a-inbound/adapter-redis');
        // `a2a_event_log_operations_total{command}`: the log's Redis commands, read per send by the bench.
        const operations = a2aMeter().createCounter('a2a_event_log_operations', {
          description: 'Event log engine commands, by command',
        });
        out.eventLog = await RedisEventLog.connect({
          url: c.redisUrl,
          prefix: `${prefix}a2a:ev:`,
          connectionName: `${c.clientId}:eventlog`,
          log: adapterLog(log),
          onOperation: (command) => operations.add(1, { command }),
        });
      } else out.eventLog = new InMemoryEventLog();
      const e = out.eventLog;
      closers.push(() => e.close());
      pings.push(() => e.ping());
    }
    if (needs.includes('cache')) {
      if (c.cache === 'redis') {
        const { RedisCache } = await import('@a2a-inbound/adapter-redis');
        out.cache = await RedisCache.connect({
          url: c.redisUrl,
          prefix: `${prefix}a2a:cache:`,
          connectionName: `${c.clientId}:cache`,
          log: adapterLog(log),
        });
      } else out.cache = new InMemoryCache();
      const x = out.cache;
      closers.push(() => x.close());
      pings.push(async () => {
        await x.get('readiness-probe');
      });
    }
    if (needs.includes('limiter')) {
      if (c.limiter === 'redis') {
        const { RedisRateLimiter } = await import('@a2a-inbound/adapter-redis');
        out.limiter = await RedisRateLimiter.connect({
          url: c.redisUrl,
          prefix: `${prefix}a2a:rl:`,
          connectionName: `${c.clientId}:ratelimit`,
          log: adapterLog(log),
        });
      } else out.limiter = new InMemoryRateLimiter();
      const l = out.limiter;
      closers.push(() => l.close());
    }
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    throw err;
  }
  let closing: Promise<void> | undefined;
  out.ping = async () => {
    await Promise.all(pings.map((p) => p()));
  };
  out.close = () =>
    (closing ??= (async () => {
      for (const close of [...closers].reverse()) {
        try {
          await close();
        } catch (err) {
          log.warn({ err }, 'engine close failed');
        }
      }
    })());
  return out;
}
