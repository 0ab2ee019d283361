import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines, loadEnginesConfig } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { systemClock } from '@a2a-inbound/ports';
import { startRunnerApp } from './app';
import { loadRunnerConfig } from './config';

async function main(): Promise<void> {
  const instance = `runner-${hostname()}-${process.pid}`;
  const config = loadRunnerConfig(process.env, instance);
  const engines = loadEnginesConfig(process.env, { engines: 'real', clientId: config.instanceId });
  const log = createLogger({ service: 'runner', level: process.env.LOG_LEVEL ?? 'info' });
  const e = await connectEngines(engines, ['bus', 'cache', 'blobs'], log);
  const app = await startRunnerApp({ bus: e.bus!, cache: e.cache!, blobs: e.blobs!, clock: systemClock, log }, config);
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'shutting down: draining runs');
    void app
      .close()
      .then(() => e.close())
      .then(() => telemetry.shutdown())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`runner failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
