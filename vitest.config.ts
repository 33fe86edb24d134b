import { defineConfig } from 'vitest/config';

// Integration tests start real servers and DuckDB files; two cores, so keep parallelism modest.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
