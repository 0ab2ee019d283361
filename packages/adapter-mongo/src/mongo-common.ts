import { AppError } from '@a2a-inbound/errors';
import { MongoClient, MongoError, MongoNetworkError, MongoServerSelectionError } from 'mongodb';
import type { MongoClientOptions } from 'mongodb';
import { ClientWatchdog } from './client-watchdog';

/** The subset of a pino logger the adapters use; pass the service logger, or nothing for silence. */
export interface AdapterLog {
  debug?(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLog: AdapterLog = { warn: () => undefined, error: () => undefined };

export interface MongoConnectOptions {
  /** `mongodb://host:port[,host:port]/?replicaSet=…` */
  readonly url: string;
  readonly dbName: string;
  readonly log?: AdapterLog;
  /** Extra driver options (pool size, TLS, auth). */
  readonly clientOptions?: MongoClientOptions;
  /** Diagnostics: called with every command sent (turns on the driver's command monitoring). */
  readonly onCommand?: (commandName: string, command: Readonly<Record<string, unknown>>) => void;
}

export interface MongoConnection {
  readonly client: MongoClient;
  /** Reconnects the client when its server monitor is stuck; stop it before closing the client. */
  readonly watchdog: ClientWatchdog;
  /** FerretDB answers buildInfo with `ferretdbVersion`; some guarantees differ (ADR 0003). */
  readonly ferretdb: boolean;
}

/**
 * Connects and checks the server answers. The driver keeps a pool and reconnects by itself (server
 * monitoring); an operation issued while the server is unreachable waits for server selection
 * (5 s here) and then fails, which the adapters turn into UNAVAILABLE.
 */
export async function openMongo(options: MongoConnectOptions, appName: string): Promise<MongoConnection> {
  const client = new MongoClient(options.url, {
    appName,
    serverSelectionTimeoutMS: 5_000,
    connectTimeoutMS: 5_000,
    maxPoolSize: 20,
    // Server monitoring by polling every 2 s: after a FerretDB restart under load, the driver's default
    // monitor (and polling at its default 10 s) was seen to hang in its first heartbeat for minutes, failing
    // every operation with a server-selection error; polling at 2 s recovered within a second every time
    // (test/faults restarts FerretDB under load).
    serverMonitoringMode: 'poll',
    heartbeatFrequencyMS: 2_000,
    ...options.clientOptions,
    ...(options.onCommand ? { monitorCommands: true } : {}),
  });
  const onCommand = options.onCommand;
  if (onCommand) client.on('commandStarted', (e) => onCommand(e.commandName, e.command));
  try {
    await client.connect();
    const info = await client.db('admin').command({ buildInfo: 1 });
    const watchdog = new ClientWatchdog(
      {
        on: (event, listener) => client.on(event, listener),
        probe: () => probeMongo(options.url, options.clientOptions),
        reconnect: async () => {
          await client.close();
          await client.connect();
        },
      },
      { log: options.log ?? silentLog, name: appName },
    ).start();
    return { client, ferretdb: 'ferretdbVersion' in info, watchdog };
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new AppError('UNAVAILABLE', 'cannot connect to MongoDB', { cause: err });
  }
}

/** A fresh connection pings the server within 2 s. */
async function probeMongo(url: string, clientOptions: MongoClientOptions | undefined): Promise<boolean> {
  const probe = new MongoClient(url, {
    ...clientOptions,
    serverSelectionTimeoutMS: 2_000,
    connectTimeoutMS: 2_000,
    maxPoolSize: 1,
  });
  try {
    await probe.connect();
    await probe.db('admin').command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await probe.close().catch(() => undefined);
  }
}

/**
 * Duplicate key: MongoDB's E11000. FerretDB v1 reports a unique violation on update as code 1 with its
 * backend's message: SQLite's "UNIQUE constraint failed", PostgreSQL's SQLSTATE 23505.
 */
export function isDuplicateKey(err: unknown): boolean {
  if (!(err instanceof MongoError)) return false;
  if (err.code === 11000 || err.code === 11001) return true;
  return err.code === 1 && /UNIQUE constraint failed|SQLSTATE 23505/.test(err.message);
}

/** Engine unreachable (or the client closed): UNAVAILABLE, so readiness and callers can tell it apart. */
export function toAppErrorFromMongo(err: unknown, what: string): unknown {
  if (err instanceof AppError) return err;
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) {
    return new AppError('UNAVAILABLE', `${what}: MongoDB unreachable`, { cause: err });
  }
  if (err instanceof MongoError && /client (was|is) closed|Topology is closed/i.test(err.message)) {
    return new AppError('UNAVAILABLE', `${what}: MongoDB client closed`, { cause: err });
  }
  return err;
}
