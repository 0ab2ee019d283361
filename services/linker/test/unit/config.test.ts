import { describe, expect, it } from 'vitest';
import { ConfigError, linkerEngines, loadLinkerConfig } from '../../src/config';

const TOKEN = 'a'.repeat(40);

describe('linker loadLinkerConfig', () => {
  it('reports every problem together in one ConfigError', () => {
    let error: unknown;
    try {
      loadLinkerConfig({
        LINKER_GRPC_PORT: 'abc',
        LINKER_MAX_ARCHIVE_BYTES: '1',
        STORE: 'mongo',
        LINKER_ALLOWED_DIRS: 'relative/dir',
        LINKER_SERVICE_TOKEN: 'short',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(5);
    for (const name of [
      'LINKER_GRPC_PORT',
      'LINKER_MAX_ARCHIVE_BYTES',
      'MONGO_URL is required',
      'LINKER_ALLOWED_DIRS',
      'LINKER_SERVICE_TOKEN',
    ])
      expect(problems.join('\n')).toContain(name);
  });

  it('gives calls in progress LINKER_SHUTDOWN_GRACE_MS on shutdown (default 5 s)', () => {
    expect(loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN }).shutdownGraceMs).toBe(5_000);
    expect(loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN, LINKER_SHUTDOWN_GRACE_MS: '45000' }).shutdownGraceMs).toBe(
      45_000,
    );
    expect(() => loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN, LINKER_SHUTDOWN_GRACE_MS: '-1' })).toThrow(
      /LINKER_SHUTDOWN_GRACE_MS/,
    );
  });

  it('gives each file LINKER_PARSE_BUDGET_MS of tree-sitter parsing (default 10 s)', () => {
    expect(loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN }).parseBudgetMs).toBe(10_000);
    expect(loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN, LINKER_PARSE_BUDGET_MS: '2500' }).parseBudgetMs).toBe(2_500);
    expect(() => loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN, LINKER_PARSE_BUDGET_MS: '0' })).toThrow(
      /LINKER_PARSE_BUDGET_MS/,
    );
  });

  it('refuses the memory store in production unless allowed', () => {
    expect(() => loadLinkerConfig({ NODE_ENV: 'production', LINKER_SERVICE_TOKEN: TOKEN })).toThrow(
      /ALLOW_MEMORY_IN_PRODUCTION/,
    );
    expect(
      loadLinkerConfig({ NODE_ENV: 'production', ALLOW_MEMORY_IN_PRODUCTION: 'true', LINKER_SERVICE_TOKEN: TOKEN })
        .store,
    ).toBe('memory');
  });

  it('refuses to start without the internal service credential', () => {
    expect(() => loadLinkerConfig({})).toThrow(/LINKER_SERVICE_TOKEN is required/);
    expect(() => loadLinkerConfig({ LINKER_SERVICE_TOKEN: 'x'.repeat(31) })).toThrow(/LINKER_SERVICE_TOKEN/);
    expect(loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN }).serviceToken).toBe(TOKEN);
  });

  it('refuses local directories in production: tenants must not read the server disk', () => {
    expect(() =>
      loadLinkerConfig({
        NODE_ENV: 'production',
        ALLOW_MEMORY_IN_PRODUCTION: 'true',
        LINKER_SERVICE_TOKEN: TOKEN,
        LINKER_ALLOWED_DIRS: '/srv/repos',
      }),
    ).toThrow(/LINKER_ALLOWED_DIRS is refused in production/);
    expect(
      loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN, LINKER_ALLOWED_DIRS: '/srv/repos' }).allowedLocalRoots,
    ).toEqual(['/srv/repos']);
  });

  it('defaults when nothing else is set: the gRPC listener on loopback only', () => {
    expect(loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN })).toMatchObject({
      grpcHost: '127.0.0.1',
      grpcPort: 50055,
      store: 'memory',
      mongoDb: 'a2a_inbound',
      logLevel: 'info',
      maxArchiveBytes: 50 * 1024 * 1024,
      allowedLocalRoots: [],
    });
  });

  it('the store is resolved through the engines package from STORE / MONGO_URL / MONGO_DB only', () => {
    const mongo = loadLinkerConfig({
      LINKER_SERVICE_TOKEN: TOKEN,
      STORE: 'mongo',
      MONGO_URL: 'mongodb://db:27017',
      MONGO_DB: 'links',
    });
    expect(linkerEngines(mongo, 'linker-1')).toMatchObject({
      store: 'mongo',
      mongoUrl: 'mongodb://db:27017',
      mongoDb: 'links',
      namespace: '',
      clientId: 'linker-1',
      // Never connected (the linker asks for the store only), and never a real engine by accident.
      bus: 'memory',
      eventLog: 'memory',
      cache: 'memory',
      limiter: 'memory',
    });
    expect(linkerEngines(loadLinkerConfig({ LINKER_SERVICE_TOKEN: TOKEN }), 'x').store).toBe('memory');
  });
});
