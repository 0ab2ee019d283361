import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';

describe('linker loadConfig', () => {
  it('reports every problem together in one ConfigError', () => {
    let error: unknown;
    try {
      loadConfig({
        LINKER_GRPC_PORT: 'abc',
        LINKER_MAX_ARCHIVE_BYTES: '1',
        STORE: 'mongo',
        LINKER_ALLOWED_DIRS: 'relative/dir',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(4);
    for (const name of ['LINKER_GRPC_PORT', 'LINKER_MAX_ARCHIVE_BYTES', 'MONGO_URL is required', 'LINKER_ALLOWED_DIRS'])
      expect(problems.join('\n')).toContain(name);
  });

  it('refuses the memory store in production unless allowed', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/ALLOW_MEMORY_IN_PRODUCTION/);
    expect(loadConfig({ NODE_ENV: 'production', ALLOW_MEMORY_IN_PRODUCTION: 'true' }).store).toBe('memory');
  });

  it('defaults when nothing is set', () => {
    expect(loadConfig({})).toMatchObject({
      grpcHost: '0.0.0.0',
      grpcPort: 50055,
      store: 'memory',
      mongoDb: 'a2a_inbound',
      logLevel: 'info',
      maxArchiveBytes: 50 * 1024 * 1024,
      allowedLocalRoots: [],
    });
  });
});
