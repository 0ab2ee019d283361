import { describe, expect, it } from 'vitest';
import { loadTelemetryConfig, startTelemetry, tracedBus } from '../src';
import { InMemoryBus, type BusMessage } from '@a2a-inbound/ports';

describe('telemetry configuration', () => {
  const on = (env: Record<string, string>) => loadTelemetryConfig(env, { serviceName: 'svc' }).enabled;

  it('is off unless an OTLP endpoint or a traces exporter is configured', () => {
    expect(on({})).toBe(false);
    expect(on({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    expect(on({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(on({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(false);
    expect(on({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(false);
  });

  it('OTEL_SERVICE_NAME overrides the per-service default', () => {
    expect(loadTelemetryConfig({}, { serviceName: 'a2a-inbound-tasks' }).serviceName).toBe('a2a-inbound-tasks');
    expect(loadTelemetryConfig({ OTEL_SERVICE_NAME: 'x' }, { serviceName: 'y' }).serviceName).toBe('x');
  });

  it('when off: the SDK is not loaded and the bus messages get no headers', async () => {
    const t = startTelemetry({ serviceName: 'svc', env: {} });
    expect(t.enabled).toBe(false);
    await t.shutdown();
    expect(Object.keys(require.cache).some((k) => k.includes('@opentelemetry/sdk-node'))).toBe(false);
    const inner = new InMemoryBus();
    const got = new Promise<BusMessage>((resolve) => void inner.subscribe('t', 'g', async (m) => resolve(m)));
    await tracedBus(inner).publish({ topic: 't', key: 'k', value: new Uint8Array([1]) });
    expect((await got).headers ?? {}).toEqual({});
    await inner.close();
  });
});
