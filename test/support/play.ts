// How a test plays a story: the whole app against the emulator (sim/runner), its store on the
// PostgreSQL the test set-up brought (test/support/global-setup.ts) unless the test asks for the
// embedded PGlite default.
//
// PostgreSQL by default, because it is where the suite's time goes: a story on PGlite spends
// about twice the CPU (PostgreSQL compiled to WebAssembly, in the app's own thread) and a third
// more time than the same story on PostgreSQL (measured on showcase.yml: 4.5 s against 6.3 s, 5 s of
// CPU against 9 s). The embedded default is still played whole: every bundled scenario in
// test/scenarios/scenarios.test.ts, the restarts and the recovery in test/reliability/, the
// README's `npm run simulate` (test/scenarios/cli.test.ts), and every fixture no other file plays
// (test/scenarios/pictures.test.ts). The store's own tests run every query on both backends.
import { runScenario, type RunOptions, type Scenario, type Transcript } from '../../sim/runner/index.ts';
import { TEST_DATABASE_URL } from '../store/backends.ts';

export interface StoryOptions extends RunOptions {
  /** Where the app keeps its state: the test PostgreSQL (default) or the embedded PGlite. */
  store?: 'postgres' | 'pglite';
}

/** Plays the scenario silently (unless `log` is given) on the store the options name. */
export function playStory(s: Scenario, opts: StoryOptions = {}): Promise<Transcript> {
  const { store = 'postgres', ...run } = opts;
  return runScenario(s, {
    log: () => {},
    ...(store === 'postgres' ? { databaseUrl: TEST_DATABASE_URL } : {}),
    ...run,
  });
}
