import { defineConfig } from 'vitest/config';

// Two projects: `unit` runs in this process's workers with no child process (fast, `npm run test:unit`);
// `cli` holds every test that spawns the built CLI or another process. Integration tests in both start
// real servers and DuckDB files; two cores, so keep parallelism modest.
export default defineConfig({
  test: {
    // Generous: a CLI test spawns several processes that each open DuckDB; on a loaded machine (load 25 on
    // two cores was seen) one such test took over 60 s. A timeout is a hang detector, not a speed check.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/cli/**'] } },
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'] } },
    ],
  },
});
