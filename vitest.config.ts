import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

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

/**
 * The files that play the most whole stories, longest first (file-seconds measured 2026-12-05 on
 * 2 workers: merge-paths 104, soak 99, decisions 94, scenarios 90, composite-ship 79, portfolio 74,
 * redeliver-restart 67, trust 58, agents-work 56). Started first, so the run does not end with one
 * of them alone on one core while the other waits (a fresh clone has no timings of its own: vitest
 * would order by file size, and the soak, a small file, started 15 minutes in). Only the order
 * comes from this list; a file missing from it still runs.
 */
const HEAVY_FIRST = [
  'test/scenarios/merge-paths.test.ts',
  'test/reliability/soak.test.ts',
  'test/scenarios/decisions.test.ts',
  'test/scenarios/scenarios.test.ts',
  'test/scenarios/composite-ship.test.ts',
  'test/scenarios/portfolio.test.ts',
  'test/reliability/redeliver-restart.test.ts',
  'test/scenarios/trust.test.ts',
  'test/scenarios/agents-work.test.ts',
  'test/scenarios/composite-round.test.ts',
  'test/scenarios/portfolio-halving.test.ts',
  'test/scenarios/agents.test.ts',
];

class HeavyFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const at = HEAVY_FIRST.indexOf(
        f.moduleId
          .slice(f.project.config.root.length + 1)
          .split('\\')
          .join('/'),
      );
      return at < 0 ? HEAVY_FIRST.length : at;
    };
    // Array.prototype.sort is stable: within a rank, vitest's own order stands.
    return (await super.sort(files)).sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}

export default defineConfig({
  test: {
    // Brings a PostgreSQL and a Chromium when the machine has none, and the folder where the scenario
    // runner keeps each run (test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    sequence: { sequencer: HeavyFirst },
    fileParallelism: true,
    // Four files at once on 2 cores. A file of stories spends much of its time waiting (for the app
    // it started, the emulator, PostgreSQL's commits), not computing: two whole runs of `.ci/run`
    // side by side on 2 cores took 882 and 898 s of vitest each, as long as one alone (820 to 880 s;
    // measured 2026-12-05, stories on PostgreSQL). With PGlite stories, three were slower than two.
    maxWorkers: 4,
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
