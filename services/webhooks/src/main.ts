import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines, loadEnginesConfig } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { type RunningProcess, runMain, warnAcceptedPlaintext } from '@a2a-inbound/runtime';
import { loadMetricsConfig, startMetrics } from '@a2a-inbound/telemetry';
import { grpcPushSource, grpcUserVerifier, startWebhooksApp, webhooksAuthPolicy } from './app';
import { loadWebhooksConfig } from './config';

async function main(): Promise<RunningProcess> {
  const config = loadWebhooksConfig(process.env);
  const needs = ['bus', 'store'] as const;
  const engines = loadEnginesConfig(process.env, {
    engines: 'real',
    clientId: `webhooks-${hostname()}-${process.pid}`,
    needs,
  });
  const log = createLogger({ service: 'webhooks', level: process.env.LOG_LEVEL ?? 'info' });
  warnAcceptedPlaintext(log, config.warnings, engines.warnings);
  // Before anything creates an instrument (the engines' consumer lag, the gateway's request metrics).
  const metricsServer = await startMetrics(loadMetricsConfig(process.env), 'a2a-inbound-webhooks');
  const e = await connectEngines(engines, needs, log);
  const source = grpcPushSource(config.tasksAddress, config.grpcTls);
  const users = grpcUserVerifier(config.tasksAddress, config.grpcTls);
  // With mutual TLS every caller is authenticated (ADR 0032); plaintext development layouts trust the network.
  const auth = config.grpcTls ? webhooksAuthPolicy((token) => users.verify(token)) : undefined;
  const app = await startWebhooksApp({ bus: e.bus!, store: e.store!, source, log, ...(auth ? { auth } : {}) }, config);
  return {
    log,
    shutdown: [
      () => app.close(),
      () => source.close(),
      () => users.close(),
      () => e.close(),
      () => metricsServer.close(),
      () => telemetry.shutdown(),
    ],
  };
}

void runMain('webhooks', main);
