import { defineConfig } from 'vitest/config';

// The fault suite (`npm run faults`, and the last step of `npm test`): it restarts the real engines, so it runs
// on its own, after every other suite, one file at a time.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 240_000,
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    fileParallelism: false,
    reporters: ['verbose'],
  },
});
