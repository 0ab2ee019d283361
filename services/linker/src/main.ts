import { telemetry } from './instrument.js';
import { createLogger } from '@a2a-inbound/logger';
import { type DocumentStore, InMemoryDocumentStore, systemClock } from '@a2a-inbound/ports';
import { createLinkerApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    process.stderr.write(`${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(1);
  }
  const log = createLogger({ service: 'linker', level: config.logLevel });
  let store: DocumentStore;
  if (config.store === 'mongo') {
    const { MongoDocumentStore } = await import('@a2a-inbound/adapter-mongo');
    store = await MongoDocumentStore.connect({ url: config.mongoUrl!, dbName: config.mongoDb });
  } else store = new InMemoryDocumentStore();
  const app = await createLinkerApp({
    store,
    clock: systemClock,
    log,
    grpcHost: config.grpcHost,
    grpcPort: config.grpcPort,
    maxArchiveBytes: config.maxArchiveBytes,
    allowedLocalRoots: config.allowedLocalRoots,
    serviceToken: config.serviceToken,
  });
  await app.start();
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'linker stopping');
    app
      .close()
      .then(() => store.close())
      .then(() => telemetry.shutdown())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`linker failed to start: ${String(err)}\n`);
  process.exit(1);
});
