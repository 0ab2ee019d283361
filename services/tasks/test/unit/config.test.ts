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

  it('OPENAI_BASE_URL seeds a model agent: it needs a model, and a key needs SECRETS_KEY', () => {
    const key = Buffer.alloc(32, 5).toString('base64');
    expect(
      loadTasksConfig({
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
        MODEL: 'llama3.2',
        OPENAI_API_KEY: 'k',
        SECRETS_KEY: key,
      }).seedModel,
    ).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', apiKey: 'k' });
    expect(loadTasksConfig({}).seedModel).toBeUndefined();
    let problems: readonly string[] = [];
    try {
      loadTasksConfig({ OPENAI_BASE_URL: 'localhost:11434', OPENAI_API_KEY: 'k' });
    } catch (err) {
      problems = (err as ConfigError).problems;
    }
    expect(problems).toEqual([
      expect.stringContaining('OPENAI_BASE_URL must be an http(s) URL'),
      expect.stringContaining('needs OPENAI_MODEL'),
      expect.stringContaining('set SECRETS_KEY too'),
    ]);
  });
});
