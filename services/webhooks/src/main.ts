import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines, loadEnginesConfig } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { grpcPushSource, startWebhooksApp } from './app';
import { loadWebhooksConfig } from './config';

async function main(): Promise<void> {
  const config = loadWebhooksConfig(process.env);
  const engines = loadEnginesConfig(process.env, {
    engines: 'real',
    clientId: `webhooks-${hostname()}-${process.pid}`,
  });
  const log = createLogger({ service: 'webhooks', level: process.env.LOG_LEVEL ?? 'info' });
  const e = await connectEngines(engines, ['bus', 'store'], log);
  const source = grpcPushSource(config.tasksAddress);
  const app = await startWebhooksApp({ bus: e.bus!, store: e.store!, source, log }, config);
  const shutdown = (): void => {
    void app
      .close()
      .then(() => source.close())
      .then(() => e.close())
      .then(() => telemetry.shutdown())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`webhooks failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
