import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { systemClock } from '@a2a-inbound/ports';
import { type RunningProcess, runMain, warnAcceptedPlaintext } from '@a2a-inbound/runtime';
import { loadMetricsConfig, startMetrics } from '@a2a-inbound/telemetry';
import { startLinkerApp } from './app';
import { linkerEngines, loadLinkerConfig } from './config';

async function main(): Promise<RunningProcess> {
  const config = loadLinkerConfig(process.env);
  const log = createLogger({ service: 'linker', level: config.logLevel });
  warnAcceptedPlaintext(log, config.warnings);
  // Before anything creates an instrument (the engines' consumer lag, the gateway's request metrics).
  const metricsServer = await startMetrics(loadMetricsConfig(process.env), 'a2a-inbound-linker');
  const e = await connectEngines(linkerEngines(config, `linker-${hostname()}-${process.pid}`), ['store'], log);
  const app = await startLinkerApp({ store: e.store!, clock: systemClock, log }, config);
  return {
    log,
    stopMessage: 'linker stopping',
    shutdown: [() => app.close(), () => e.close(), () => metricsServer.close(), () => telemetry.shutdown()],
  };
}

void runMain('linker', main);
