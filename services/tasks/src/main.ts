import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines, loadEnginesConfig } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { randomIds, systemClock } from '@a2a-inbound/ports';
import { type RunningProcess, runMain, warnAcceptedPlaintext } from '@a2a-inbound/runtime';
import { loadMetricsConfig, startMetrics } from '@a2a-inbound/telemetry';
import { startTasksApp } from './app';
import { loadTasksConfig } from './config';

/** The tasks service alone (distributed mode): the only file that reads the environment (signals: runMain). */
async function main(): Promise<RunningProcess> {
  const config = loadTasksConfig(process.env);
  const needs = ['store', 'blobs', 'bus', 'eventLog', 'cache', 'limiter'] as const;
  const engines = loadEnginesConfig(process.env, {
    engines: 'real',
    clientId: `tasks-${hostname()}-${process.pid}`,
    needs,
  });
  const log = createLogger({ service: 'tasks', level: process.env.LOG_LEVEL ?? 'info' });
  warnAcceptedPlaintext(log, config.warnings, engines.warnings);
  // Before anything creates an instrument (the engines' consumer lag, the gateway's request metrics).
  const metricsServer = await startMetrics(loadMetricsConfig(process.env), 'a2a-inbound-tasks');
  const e = await connectEngines(engines, needs, log);
  const app = await startTasksApp(
    {
      store: e.store!,
      blobs: e.blobs!,
      bus: e.bus!,
      eventLog: e.eventLog!,
      cache: e.cache!,
      limiter: e.limiter!,
      clock: systemClock,
      ids: randomIds,
      log,
    },
    config,
  );
  const creds = app.seed?.credentials;
  if (creds) {
    // Shown once, when created: the demo credentials are stored only as hashes.
    process.stdout.write(
      `\nDemo data created (deployment ${app.seed.deploymentId}). Demo credentials, shown once:\n` +
        `  a2a key:        ${creds.a2aKey}\n  invoke key:     ${creds.invokeKey}\n` +
        `  admin token:    ${creds.adminToken}\n  operator token: ${creds.operatorToken}\n\n`,
    );
  }
  return {
    log,
    shutdown: [() => app.close(), () => e.close(), () => metricsServer.close(), () => telemetry.shutdown()],
  };
}

void runMain('tasks', main);
