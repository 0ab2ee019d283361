import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Meter, metrics } from '@opentelemetry/api';

type Env = Readonly<Record<string, string | undefined>>;

export interface MetricsConfig {
  /** Off when `METRICS_PORT` is unset or empty. */
  enabled: boolean;
  host: string;
  /** 0 = any free port. */
  port: number;
}

/** `METRICS_PORT` (0–65535; unset = no metrics endpoint) and `METRICS_HOST` (default loopback). */
export function loadMetricsConfig(env: Env): MetricsConfig {
  const rawPort = (env.METRICS_PORT ?? '').trim();
  const host = (env.METRICS_HOST ?? '').trim() || '127.0.0.1';
  if (rawPort === '') return { enabled: false, host, port: 0 };
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535)
    throw new Error(`METRICS_PORT must be a port number (0-65535), not "${rawPort}"`);
  return { enabled: true, host, port };
}

/** The meter every instrument of this codebase is created on (a no-op until {@link startMetrics} ran). */
export function a2aMeter(): Meter {
  return metrics.getMeter('@a2a-inbound');
}

export interface MetricsServer {
  /** The port `/metrics` is served on (0 when metrics are off). */
  readonly port: number;
  close(): Promise<void>;
}

const off: MetricsServer = { port: 0, close: async () => undefined };

/**
 * OpenTelemetry metrics exported for Prometheus: a MeterProvider with the Prometheus exporter becomes the global
 * one (so `a2aMeter()` instruments record), and `GET /metrics` is served on its own listener, apart from any
 * public port. Node's process metrics (event loop delay, heap, CPU) come from `collectDefault`. Does nothing
 * when metrics are off.
 */
export async function startMetrics(config: MetricsConfig, serviceName: string): Promise<MetricsServer> {
  if (!config.enabled) return off;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when metrics are on */
  const { MeterProvider } = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  const { PrometheusExporter } =
    require('@opentelemetry/exporter-prometheus') as typeof import('@opentelemetry/exporter-prometheus');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    readers: [exporter],
  });
  metrics.setGlobalMeterProvider(provider);
  registerProcessMetrics(serviceName);
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === '/metrics') {
      exporter.getMetricsRequestHandler(req, res);
      return;
    }
    res.statusCode = 404;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ error: 'not found: metrics are at GET /metrics' }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await provider.shutdown().catch(() => undefined);
        metrics.disable();
      })()),
  };
}

function registerProcessMetrics(serviceName: string): void {
  const meter = a2aMeter();
  const started = Date.now();
  meter
    .createObservableGauge('process_uptime_seconds', { description: 'Seconds since the process started', unit: 's' })
    .addCallback((r) => r.observe((Date.now() - started) / 1000, { service: serviceName }));
  meter
    .createObservableGauge('nodejs_heap_used_bytes', { description: 'V8 heap in use', unit: 'By' })
    .addCallback((r) => r.observe(process.memoryUsage().heapUsed, { service: serviceName }));
  meter
    .createObservableGauge('process_resident_memory_bytes', { description: 'Resident set size', unit: 'By' })
    .addCallback((r) => r.observe(process.memoryUsage().rss, { service: serviceName }));
}

/**
 * `a2a_bus_consumer_lag{group,topic}`: messages not yet handled by this process's consumer groups, read at
 * each scrape (a no-op unless metrics are on: startMetrics must run before the engines connect). Kafka's lag
 * is after the committed offsets; the in-memory bus's (embedded mode) is what it accepted and not yet handled.
 * A slow or unreachable engine leaves the gauge out of that scrape instead of holding /metrics.
 */
export function observeConsumerLag(
  read: () => Promise<{ group: string; topic: string; lag: number }[]>,
  log: { warn(obj: object, msg: string): void },
): void {
  a2aMeter()
    .createObservableGauge('a2a_bus_consumer_lag', {
      description: 'Bus messages after the committed offsets of each consumer group of this process',
    })
    .addCallback(async (r) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const lags = await Promise.race([
          read(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('the bus did not answer within 2 s')), 2_000);
          }),
        ]);
        for (const l of lags) r.observe(l.lag, { group: l.group, topic: l.topic });
      } catch (err) {
        log.warn({ err }, 'consumer lag unavailable');
      } finally {
        clearTimeout(timer);
      }
    });
}
