import { describe, expect, it } from 'vitest';
import { ConfigError } from '@a2a-inbound/config';
import { loadWebhooksConfig } from '../../src/config';

describe('loadWebhooksConfig', () => {
  it('reports the problem in a ConfigError', () => {
    expect(() => loadWebhooksConfig({ WEBHOOKS_GRPC_PORT: 'http' })).toThrow(ConfigError);
    expect(() => loadWebhooksConfig({ WEBHOOKS_GRPC_PORT: 'http' })).toThrow(
      /WEBHOOKS_GRPC_PORT must be an integer, got "http"/,
    );
  });

  it('defaults when nothing is set', () => {
    expect(loadWebhooksConfig({})).toEqual({
      grpcHost: '127.0.0.1',
      grpcPort: 50053,
      tasksAddress: '127.0.0.1:50051',
      retryBaseMs: 1_000,
      retryMaxDelayMs: 30_000,
      concurrency: 64,
      pushAllowList: { hosts: [], cidrs: [] },
      warnings: [],
    });
  });

  it('reads the push receivers allow-list and refuses a bad entry', () => {
    expect(
      loadWebhooksConfig({ PUSH_ALLOW_CIDRS: '127.0.0.1/32', PUSH_ALLOW_HOSTS: 'hooks.internal' }).pushAllowList,
    ).toEqual({
      hosts: ['hooks.internal'],
      cidrs: ['127.0.0.1/32'],
    });
    expect(() => loadWebhooksConfig({ PUSH_ALLOW_CIDRS: '0.0.0.0/0' })).toThrow(
      /PUSH_ALLOW_CIDRS: "0.0.0.0\/0" allows every address/,
    );
  });
});
