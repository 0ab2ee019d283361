import { describe, expect, it } from 'vitest';
import { ConfigError } from '@a2a-inbound/config';
import { DEFAULT_BODY_LIMIT_BYTES, loadGatewayConfig } from '../../src/config';

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadGatewayConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadGatewayConfig', () => {
  it('reports every problem together in one ConfigError', () => {
    const problems = problemsOf({
      PORT: 'abc',
      BODY_LIMIT_BYTES: '-1',
      SHUTDOWN_GRACE_MS: 'soon',
      TRUST_PROXY: 'maybe',
      PUBLIC_BASE_URL: 'ftp://x',
    });
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/PORT must be an integer, got "abc"/);
    expect(problems.join('\n')).toMatch(/BODY_LIMIT_BYTES must be >= 1024, got -1/);
    expect(problems.join('\n')).toMatch(/SHUTDOWN_GRACE_MS/);
    expect(problems.join('\n')).toMatch(/TRUST_PROXY/);
    expect(problems.join('\n')).toMatch(/PUBLIC_BASE_URL must be an http\(s\) URL/);
  });

  it('PORT=abc and BODY_LIMIT_BYTES=-1: one error listing both, in its message too', () => {
    expect(() => loadGatewayConfig({ PORT: 'abc', BODY_LIMIT_BYTES: '-1' })).toThrow(/PORT[\s\S]*BODY_LIMIT_BYTES/);
  });

  it('defaults when nothing is set', () => {
    expect(loadGatewayConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      tasksAddress: '127.0.0.1:50051',
      bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
      shutdownGraceMs: 10_000,
      shutdownReadinessDelayMs: 2_000,
      readinessTimeoutMs: 1_500,
      linkerServiceToken: '',
      requestTimeoutMs: 300_000,
      headersTimeoutMs: 20_000,
      keepAliveTimeoutMs: 65_000,
      lingerTimeoutMs: 5_000,
      lingerMaxBytes: 8 * 1024 * 1024,
      maxPendingRequests: 256,
      acceptTimeoutMs: 10_000,
      maxLargeBodies: 4,
    });
  });

  it('push receivers allow-list: PUSH_ALLOW_HOSTS, PUSH_ALLOW_CIDRS (empty: public https only)', () => {
    expect(loadGatewayConfig({}).pushAllowList).toEqual({ hosts: [], cidrs: [] });
    expect(
      loadGatewayConfig({ PUSH_ALLOW_HOSTS: 'Hooks.Internal,*.svc.cluster.local', PUSH_ALLOW_CIDRS: '127.0.0.1/32' })
        .pushAllowList,
    ).toEqual({ hosts: ['hooks.internal', '*.svc.cluster.local'], cidrs: ['127.0.0.1/32'] });
    expect(problemsOf({ PUSH_ALLOW_CIDRS: '0.0.0.0/0,nope' })).toHaveLength(2);
  });

  it('load shedding and large bodies: GATEWAY_MAX_PENDING_REQUESTS, TASKS_ACCEPT_TIMEOUT_MS, GATEWAY_MAX_LARGE_BODIES', () => {
    expect(
      loadGatewayConfig({
        GATEWAY_MAX_PENDING_REQUESTS: '10',
        TASKS_ACCEPT_TIMEOUT_MS: '2000',
        GATEWAY_MAX_LARGE_BODIES: '2',
      }),
    ).toMatchObject({ maxPendingRequests: 10, acceptTimeoutMs: 2_000, maxLargeBodies: 2 });
    expect(
      problemsOf({ GATEWAY_MAX_PENDING_REQUESTS: '0', TASKS_ACCEPT_TIMEOUT_MS: '5', GATEWAY_MAX_LARGE_BODIES: 'x' }),
    ).toHaveLength(3);
  });

  it('HTTP timeouts: read from HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS; never 0 (no timeout), headers within the request timeout', () => {
    expect(
      loadGatewayConfig({
        HTTP_REQUEST_TIMEOUT_MS: '60000',
        HTTP_HEADERS_TIMEOUT_MS: '5000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '10000',
      }),
    ).toMatchObject({ requestTimeoutMs: 60_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 10_000 });
    const problems = problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '0', HTTP_KEEP_ALIVE_TIMEOUT_MS: 'x' });
    expect(problems.join('\n')).toMatch(/HTTP_REQUEST_TIMEOUT_MS must be >= 1000, got 0/);
    expect(problems.join('\n')).toMatch(/HTTP_KEEP_ALIVE_TIMEOUT_MS/);
    expect(problemsOf({ HTTP_REQUEST_TIMEOUT_MS: '5000', HTTP_HEADERS_TIMEOUT_MS: '6000' })).toEqual([
      'HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS',
    ]);
  });

  it('LINKER_SERVICE_TOKEN: 32 to 512 characters when set', () => {
    expect(problemsOf({ LINKER_SERVICE_TOKEN: 'short' }).join('\n')).toMatch(/LINKER_SERVICE_TOKEN must have 32/);
    expect(loadGatewayConfig({ LINKER_SERVICE_TOKEN: 'k'.repeat(32) }).linkerServiceToken).toBe('k'.repeat(32));
  });
});
