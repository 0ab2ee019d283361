import { describe, expect, it } from 'vitest';
import { ConfigError } from '@a2a-inbound/config';
import { loadTasksConfig } from '../../src/config';

describe('loadTasksConfig', () => {
  it('reports every problem together in one ConfigError', () => {
    let error: unknown;
    try {
      loadTasksConfig({
        TASKS_GRPC_PORT: '70000',
        SEED_DEMO: 'perhaps',
        RUN_TIMEOUT_MS: '10',
        TASKS_READINESS_INTERVAL_MS: 'x',
        BOOTSTRAP_ADMIN_EMAIL: 'a@b.c',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect((error as ConfigError).problems).toHaveLength(5);
    for (const name of [
      'TASKS_GRPC_PORT',
      'SEED_DEMO',
      'RUN_TIMEOUT_MS',
      'TASKS_READINESS_INTERVAL_MS',
      'BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_TOKEN',
    ])
      expect(problems).toContain(name);
  });

  it('defaults when nothing is set', () => {
    expect(loadTasksConfig({})).toMatchObject({
      grpcHost: '127.0.0.1',
      grpcPort: 50051,
      seedDemo: true,
      sweepIntervalMs: 5_000,
      readinessIntervalMs: 2_000,
      bootstrap: undefined,
    });
  });
});
