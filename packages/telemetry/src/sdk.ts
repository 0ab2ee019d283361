import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

type Env = Readonly<Record<string, string | undefined>>;

export interface TelemetryConfig {
  enabled: boolean;
  serviceName: string;
  /** `otlp` (the default): the OTLP HTTP exporter; anything else is left to the SDK's own env handling. */
  tracesExporter: string;
}

/**
 * Tracing is on only when something would receive the spans: an OTLP endpoint, or an explicit
 * `OTEL_TRACES_EXPORTER` other than `none`. `OTEL_SDK_DISABLED=true` wins over both.
 */
export function loadTelemetryConfig(env: Env, defaults: { serviceName: string }): TelemetryConfig {
  const disabled = (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true';
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  const serviceName = env.OTEL_SERVICE_NAME || defaults.serviceName;
  const enabled = !disabled && exporter !== 'none' && (Boolean(endpoint) || exporter !== '');
  return { enabled, serviceName, tracesExporter: exporter || 'otlp' };
}

export interface TelemetryOptions {
  /** Default of `OTEL_SERVICE_NAME`. */
  serviceName: string;
  env: Env;
  /** Tests: span processors to use instead of the exporter from the environment (turns tracing on). */
  spanProcessors?: SpanProcessor[];
}

export interface Telemetry {
  readonly enabled: boolean;
  /** Ends the SDK: pending spans are flushed to the exporter. Idempotent. */
  shutdown(): Promise<void>;
}

const disabled: Telemetry = { enabled: false, shutdown: async () => undefined };

/**
 * Starts the OpenTelemetry Node SDK with the HTTP, Express, gRPC, KafkaJS, MongoDB and ioredis
 * instrumentations, or does nothing at all (the SDK is not even loaded) when tracing is not configured.
 *
 * Synchronous on purpose: the instrumentations hook `require`, so this must run before express,
 * @grpc/grpc-js, kafkajs, mongodb or ioredis are first required (see each service's `src/instrument.ts`).
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const config = loadTelemetryConfig(options.env, { serviceName: options.serviceName });
  if (!config.enabled && !options.spanProcessors) return disabled;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { GrpcInstrumentation } =
    require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  const { KafkaJsInstrumentation } =
    require('@opentelemetry/instrumentation-kafkajs') as typeof import('@opentelemetry/instrumentation-kafkajs');
  const { MongoDBInstrumentation } =
    require('@opentelemetry/instrumentation-mongodb') as typeof import('@opentelemetry/instrumentation-mongodb');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const probes = new Set(['/healthz', '/readyz']);
  const instrumentations = [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => probes.has((req.url ?? '').split('?')[0] ?? '') }),
    new ExpressInstrumentation(),
    // Health probes (grpc.health.v1 Check/Watch: no other service of ours has these methods) are noise.
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new KafkaJsInstrumentation(),
    // Statements are reported with their values replaced (the default); never the documents.
    new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
    // Redis keys embed ids and key hashes: report the command name only.
    new IORedisInstrumentation({ dbStatementSerializer: (cmd) => cmd }),
  ];
  // Traces only: the SDK would otherwise start OTLP metric and log exporters by default.
  const base = { serviceName: config.serviceName, instrumentations, metricReaders: [], logRecordProcessors: [] };
  let sdk: InstanceType<typeof NodeSDK>;
  if (options.spanProcessors) {
    sdk = new NodeSDK({ ...base, spanProcessors: options.spanProcessors });
  } else if (config.tracesExporter === 'otlp') {
    const { OTLPTraceExporter } =
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    sdk = new NodeSDK({ ...base, traceExporter: new OTLPTraceExporter() });
  } else {
    // console, zipkin…: the SDK reads OTEL_TRACES_EXPORTER itself.
    sdk = new NodeSDK(base);
  }
  sdk.start();
  let closing: Promise<void> | undefined;
  return { enabled: true, shutdown: () => (closing ??= sdk.shutdown().catch(() => undefined)) };
}
