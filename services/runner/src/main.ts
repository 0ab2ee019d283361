import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines, loadEnginesConfig } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { systemClock } from '@a2a-inbound/ports';
import { type RunningProcess, runMain, warnAcceptedPlaintext } from '@a2a-inbound/runtime';
import { loadMetricsConfig, startMetrics } from '@a2a-inbound/telemetry';
import { startRunnerApp } from './app';
import { loadRunnerConfig } from './config';

async function main(): Promise<RunningProcess> {
  const instance = `runner-${hostname()}-${process.pid}`;
  const config = loadRunnerConfig(process.env, instance);
  const needs = ['bus', 'cache', 'blobs'] as const;
  const engines = loadEnginesConfig(process.env, { engines: 'real', clientId: config.instanceId, needs });
  const log = createLogger({ service: 'runner', level: process.env.LOG_LEVEL ?? 'info' });
  warnAcceptedPlaintext(log, config.warnings, engines.warnings);
  // Before anything creates an instrument (the engines' consumer lag, the gateway's request metrics).
  const metricsServer = await startMetrics(loadMetricsConfig(process.env), 'a2a-inbound-runner');
  const e = await connectEngines(engines, needs, log);
  const app = await startRunnerApp({ bus: e.bus!, cache: e.cache!, blobs: e.blobs!, clock: systemClock, log }, config);
  return {
    log,
    stopMessage: 'shutting down: draining runs',
    shutdown: [() => app.close(), () => e.close(), () => metricsServer.close(), () => telemetry.shutdown()],
  };
}

void runMain('runner', main);
