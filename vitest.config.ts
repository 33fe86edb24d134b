import { defineConfig } from 'vitest/config';

// Two projects: `unit` runs in this process's workers with no child process (fast, `npm run test:unit`);
// `cli` holds every test that spawns the built CLI or another process. Integration tests in both start
// real servers and DuckDB files.
export default defineConfig({
  test: {
    // A timeout is a hang detector, not a speed check, so one generous value for every test and hook (no test
    // sets a shorter one): a CLI test spawns the CLI up to 25 times, seconds of CPU each, and beside other
    // work (load 14-21 on two cores) single tests took 120-240 s and failed on their 120-240 s timeouts.
    testTimeout: 900_000,
    hookTimeout: 900_000,
    pool: 'forks',
    globalSetup: ['test/support/temp-root.ts'],
    // Three workers on two cores: many files wait (back-offs, rate pacing, token expiry, servers' answers), and two
    // such files side by side left a core idle (115 % of 200 % for 40 s). Interleaved pairs of whole runs: 308.7 vs
    // 326.0 s and 343.6 vs 363.8 s (-5.5 %), with less CPU in all.
    maxWorkers: 3,
    projects: [
      // The unit files share their workers' module graph (isolate: false): re-importing DuckDB, zod and our modules
      // for each of ~80 files cost a minute of CPU; no unit test changes process state another could see.
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/cli/**'], isolate: false },
      },
      // The CLI files too: none changes process state (environment, working folder, mocks) another could see,
      // and each re-importing the module graph cost ~1 s.
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'], isolate: false } },
    ],
  },
});
