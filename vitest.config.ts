import { defineConfig } from 'vitest/config';

// Integration tests start real servers and DuckDB files; two cores, so keep parallelism modest.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a CLI test spawns several processes that each open DuckDB; on a loaded machine (load 25 on
    // two cores was seen) one such test took over 60 s. A timeout is a hang detector, not a speed check.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
