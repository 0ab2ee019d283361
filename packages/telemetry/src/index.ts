// Only @opentelemetry/api is imported here: the SDK and the instrumentations load inside startTelemetry,
// and only when tracing is configured.
export {
  loadTelemetryConfig,
  startTelemetry,
  type Telemetry,
  type TelemetryConfig,
  type TelemetryOptions,
} from './sdk';
export { tracedBus } from './bus';
export { setActiveSpanAttribute, withSpan } from './spans';
export {
  a2aMeter,
  loadMetricsConfig,
  observeConsumerLag,
  startMetrics,
  type MetricsConfig,
  type MetricsServer,
} from './metrics';
