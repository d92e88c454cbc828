import { defineConfig } from 'vitest/config';

// The pictures test reads the runs every other test file kept (test/scenarios/pictures.test.ts), so it
// runs in a group of its own, after the rest.
const VIEWS = 'test/scenarios/pictures.test.ts';
const LAST = [VIEWS];
const each = { testTimeout: 60_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    // Brings a PostgreSQL and a Chromium when the machine has none, and the folder where the scenario
    // runner keeps each run (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    fileParallelism: true,
    // Two files at once on 2 cores: three were slower (measured 2026-12-04, a fresh clone's .ci/run).
    maxWorkers: 2,
    projects: [
      {
        test: { ...each, name: 'tests', include: ['test/**/*.test.ts'], exclude: LAST, sequence: { groupOrder: 0 } },
      },
      { test: { ...each, name: 'last', include: LAST, sequence: { groupOrder: 1 } } },
    ],
  },
});
