import type { Logger } from '@a2a-inbound/logger';
import { InMemoryBus } from '@a2a-inbound/ports';
import type { EmbeddedConfig } from './config';
import { DataDir } from './data-dir';
import { durableEngines, inMemoryEngines, type DurableEngines, type Engines } from './system';

export interface EmbeddedEngines {
  engines: Engines;
  /** The in-memory bus under the engines (its consumer lag is a metric). */
  bus: InMemoryBus;
  /** The data directory, locked by this process (durable mode only). */
  dataDir: DataDir | undefined;
  /** Settings the services need for this data: the secrets key beside the data unless configured. */
  env: Record<string, string>;
}

/**
 * The engines `npm start` runs on: durable in DATA_DIR (lock taken, database opened, the task-update outbox on
 * the bus), or in memory with STORE=memory. A message the bus gives up on is logged and settled in the outbox.
 */
export async function openEmbeddedEngines(
  config: EmbeddedConfig,
  log: Logger,
  configured: Record<string, string | undefined>,
): Promise<EmbeddedEngines> {
  // The outbox is made on the bus: it is known once the durable engines are open.
  const durable: { outbox?: DurableEngines['outbox'] } = {};
  const bus = new InMemoryBus({
    onDeadLetter: (m, group, err) => {
      const fields = { err, topic: m.topic, key: m.key, group };
      // No error: no consumer took it (the process is starting or stopping), not a handler that failed.
      const giveUp = (): void =>
        err === undefined
          ? log.warn(fields, 'bus message given up: no consumer (starting or stopping)')
          : log.error(fields, 'bus message given up after its attempts');
      if (!durable.outbox) {
        giveUp();
        return;
      }
      // Stopping: the outbox keeps a task update nobody consumes any more for the next start (not an error).
      durable.outbox.deadLettered(m, group).then(
        (outcome) =>
          outcome === 'kept'
            ? log.info(fields, 'bus message kept in the outbox for the next start (stopping)')
            : giveUp(),
        (e: unknown) => log.warn({ err: e }, 'outbox settle failed'),
      );
    },
  });
  if (config.store !== 'durable')
    return { engines: inMemoryEngines(undefined, bus, config.memoryRetained), bus, dataDir: undefined, env: {} };
  const dataDir = DataDir.open(config.dataDir);
  const engines = await durableEngines(dataDir.databaseDir, {
    durability: config.sync,
    syncIntervalMs: config.syncIntervalMs,
    writemap: config.writemap,
    bus,
  });
  durable.outbox = engines.outbox;
  // Secrets stored by an earlier start must still open: the key lives beside the data (unless configured).
  return { engines, bus, dataDir, env: configured.SECRETS_KEY ? {} : { SECRETS_KEY: dataDir.secretsKey() } };
}
