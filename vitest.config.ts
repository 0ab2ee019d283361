import { defineConfig } from 'vitest/config';

// One config for every workspace: unit, contract (in-memory always, real engines when their URL is set),
// integration and end-to-end suites. Real-engine suites read KAFKA_BROKERS / MONGO_URL / REDIS_URL.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // test/faults restarts the engines: it runs on its own, after the rest (vitest.faults.config.ts).
    exclude: ['**/node_modules/**', '**/dist/**', '**/fixtures/**', 'test/faults/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: process.env.CI ? ['verbose'] : ['default'],
  },
});
