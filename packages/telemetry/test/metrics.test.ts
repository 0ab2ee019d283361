import { afterEach, describe, expect, it } from 'vitest';
import { a2aMeter, loadMetricsConfig, startMetrics, type MetricsServer } from '../src/index';

describe('loadMetricsConfig', () => {
  it('is off unless METRICS_PORT is set, on loopback unless METRICS_HOST says otherwise', () => {
    expect(loadMetricsConfig({})).toEqual({ enabled: false, host: '127.0.0.1', port: 0 });
    expect(loadMetricsConfig({ METRICS_PORT: ' ' }).enabled).toBe(false);
    expect(loadMetricsConfig({ METRICS_PORT: '9464' })).toEqual({ enabled: true, host: '127.0.0.1', port: 9464 });
    expect(loadMetricsConfig({ METRICS_PORT: '0', METRICS_HOST: '0.0.0.0' })).toEqual({
      enabled: true,
      host: '0.0.0.0',
      port: 0,
    });
  });

  it('refuses a port that is not one', () => {
    expect(() => loadMetricsConfig({ METRICS_PORT: 'http' })).toThrow('METRICS_PORT must be a port number');
    expect(() => loadMetricsConfig({ METRICS_PORT: '70000' })).toThrow('METRICS_PORT must be a port number');
    expect(() => loadMetricsConfig({ METRICS_PORT: '-1' })).toThrow('METRICS_PORT must be a port number');
  });
});

describe('startMetrics', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('off: no listener, and instruments are no-ops', async () => {
    server = await startMetrics(loadMetricsConfig({}), 'svc');
    expect(server.port).toBe(0);
    expect(() => a2aMeter().createCounter('ignored').add(1)).not.toThrow();
  });

  it('serves what the instruments recorded at GET /metrics in the Prometheus format, JSON 404 elsewhere', async () => {
    server = await startMetrics(loadMetricsConfig({ METRICS_PORT: '0' }), 'a2a-inbound-test');
    a2aMeter().createCounter('test_things', { description: 'things' }).add(3, { kind: 'a' });
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toContain('# TYPE test_things_total counter');
    expect(text).toContain('test_things_total{kind="a"} 3');
    expect(text).toMatch(/process_uptime_seconds\{service="a2a-inbound-test"\} \d/);
    expect(text).toContain('target_info{service_name="a2a-inbound-test"} 1');
    const other = await fetch(`http://127.0.0.1:${server.port}/`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: 'not found: metrics are at GET /metrics' });
  });

  it('close() stops the listener and lets a later start register again', async () => {
    const first = await startMetrics(loadMetricsConfig({ METRICS_PORT: '0' }), 'one');
    await first.close();
    await expect(fetch(`http://127.0.0.1:${first.port}/metrics`)).rejects.toThrow();
    server = await startMetrics(loadMetricsConfig({ METRICS_PORT: '0' }), 'two');
    a2aMeter().createCounter('second_run').add(1);
    expect(await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text()).toContain('second_run_total 1');
  });
});
