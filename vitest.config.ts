import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The pictures test reads the runs every other test file kept (test/scenarios/pictures.test.ts), so it
// runs in a group of its own, after the rest.
const VIEWS = 'test/scenarios/pictures.test.ts';
const LAST = [VIEWS];
const each = { testTimeout: 60_000, hookTimeout: 60_000 };

/**
 * Test files that change what the process shares: nock's interceptors and its net-connect switch,
 * module mocks, spies, stubbed globals or environment, fake timers, process listeners, the metrics
 * registry read for exact counts. Each of these runs in a fresh process of its own. Every other file shares its worker's modules with the
 * files before it (`isolate: false`): the emulator's GitHub schemas and REST contract, compiled on
 * first use (seconds of CPU), and the imports are then paid once per worker instead of once per file
 * (measured on 5 scenario files, one worker: 105 s of CPU shared against 141 s isolated).
 */
const SHARES_STATE =
  /from 'nock'|vi\.(mock|doMock|spyOn|stubGlobal|stubEnv|useFakeTimers)\(|process\.env(\[[^\]]+\]|\.\w+)\s*=(?!=)|delete process\.env|process\.(on|once)\(|globalThis\.\w+\s*=(?!=)|src\/metrics/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path.split('\\').join('/')] : [];
  });
}
const ISOLATED = testFiles('test').filter(
  (file) => !LAST.includes(file) && SHARES_STATE.test(readFileSync(file, 'utf8')),
);

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
        test: {
          ...each,
          name: 'tests',
          include: ['test/**/*.test.ts'],
          exclude: [...LAST, ...ISOLATED],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      { test: { ...each, name: 'isolated', include: ISOLATED, isolate: true, sequence: { groupOrder: 0 } } },
      { test: { ...each, name: 'last', include: LAST, sequence: { groupOrder: 1 } } },
    ],
  },
});
