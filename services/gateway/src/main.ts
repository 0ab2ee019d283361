import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines, loadEnginesConfig } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { systemClock } from '@a2a-inbound/ports';
import { startGatewayApp } from './app';
import { loadGatewayConfig } from './config';

async function main(): Promise<void> {
  const config = loadGatewayConfig(process.env);
  const engines = loadEnginesConfig(process.env, { engines: 'real', clientId: `gateway-${hostname()}-${process.pid}` });
  const log = createLogger({ service: 'gateway', level: process.env.LOG_LEVEL ?? 'info' });
  const e = await connectEngines(engines, ['cache', 'limiter'], log);
  // Readiness pings Redis (the cache's connection; the rate limiter uses the same server).
  const redis = { name: 'redis', check: () => e.ping() };
  const app = await startGatewayApp(
    { cache: e.cache!, limiter: e.limiter!, clock: systemClock, log, readinessChecks: [redis] },
    config,
  );
  const shutdown = (signal: string): void => {
    log.info({ signal }, 'shutting down: readiness off first, then streams end and the listener closes');
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
  process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
