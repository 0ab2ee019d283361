import { telemetry } from './instrument';
import { hostname } from 'node:os';
import { connectEngines, loadEnginesConfig } from '@a2a-inbound/engines';
import { createLogger } from '@a2a-inbound/logger';
import { systemClock } from '@a2a-inbound/ports';
import { type RunningProcess, runMain, warnAcceptedPlaintext } from '@a2a-inbound/runtime';
import { loadMetricsConfig, startMetrics } from '@a2a-inbound/telemetry';
import { startGatewayApp } from './app';
import { loadGatewayConfig } from './config';

async function main(): Promise<RunningProcess> {
  const config = loadGatewayConfig(process.env);
  const needs = ['cache', 'limiter', 'blobs'] as const;
  const engines = loadEnginesConfig(process.env, {
    engines: 'real',
    clientId: `gateway-${hostname()}-${process.pid}`,
    needs,
  });
  const log = createLogger({ service: 'gateway', level: process.env.LOG_LEVEL ?? 'info' });
  warnAcceptedPlaintext(log, config.warnings, engines.warnings);
  // Before anything creates an instrument (the engines' consumer lag, the gateway's request metrics).
  const metricsServer = await startMetrics(loadMetricsConfig(process.env), 'a2a-inbound-gateway');
  // The blob store (GridFS): file bytes of a send are streamed there as the body arrives (ADR 0031).
  const e = await connectEngines(engines, needs, log);
  // Readiness pings Redis (the cache's connection; the rate limiter uses the same server).
  const redis = { name: 'redis', check: () => e.ping() };
  const app = await startGatewayApp(
    { cache: e.cache!, limiter: e.limiter!, blobs: e.blobs!, clock: systemClock, log, readinessChecks: [redis] },
    config,
  );
  return {
    log,
    stopMessage: 'shutting down: readiness off first, then streams end and the listener closes',
    shutdown: [() => app.close(), () => e.close(), () => metricsServer.close(), () => telemetry.shutdown()],
  };
}

void runMain('gateway', main);
