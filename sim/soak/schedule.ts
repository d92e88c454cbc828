// One soak schedule: a bundled fixture and the faults laid over it, all drawn from one seed, so a
// failing schedule is replayed exactly by its seed. Kills and GitHub's error answers are placed on
// writes the fault-free run of the fixture made, so each lands where Arbiter really acts.
import { mulberry32 } from '../runner/prng.ts';
import type { Scenario, Transcript, WriteEntry } from '../runner/index.ts';

type GitHubFault = Scenario['faults']['github'][number];
type RestartFault = Scenario['faults']['restart'][number];

export interface Schedule {
  seed: number;
  /** The fixture's index in the soak's list (the seed picks it). */
  fixture: number;
  scenario: Scenario;
  replicaSeed: number;
  /** One line per fault, for the report of a failure. */
  faults: string[];
}

/** The fixture a seed plays: seeds walk through the list, so consecutive schedules cover every fixture. */
export const fixtureOf = (seed: number, fixtures: number): number => (((seed - 1) % fixtures) + fixtures) % fixtures;

/** `METHOD route [operation]`, as restart and GitHub faults name a request. */
export const requestKey = (w: WriteEntry): string =>
  w.operation ? `${w.method} ${w.route} ${w.operation}` : `${w.method} ${w.route}`;

const ERROR_STATUSES = [500, 502, 503];

/** GitHub's two rate-limit answers: secondary (403 + retry-after) and 429. */
const RATE_LIMITS: Pick<GitHubFault, 'status' | 'headers' | 'body'>[] = [
  {
    status: 403,
    headers: { 'retry-after': '2' },
    body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' },
  },
  { status: 429, headers: { 'retry-after': '1' }, body: { message: 'Too many requests' } },
];

export function drawSchedule(seed: number, fixture: number, scenario: Scenario, baseline: Transcript): Schedule {
  const random = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const faults: string[] = [];
  const applied = baseline.writes.filter((w) => w.status < 300);
  /** The nth occurrence of a write's key among the fault-free run's applied writes. */
  const nthOf = (w: WriteEntry) => applied.filter((x) => x.seq <= w.seq && requestKey(x) === requestKey(w)).length;

  const redeliver =
    scenario.faults.redeliver ?? (random() < 0.5 ? { copies: int(2, 3), seed: int(1, 1_000_000) } : null);
  if (redeliver && !scenario.faults.redeliver)
    faults.push(`redeliver: ${redeliver.copies} copies, seed ${redeliver.seed}`);
  const reorder =
    scenario.faults.reorder ?? (random() < 0.5 ? { seed: int(1, 1_000_000), window: int(2, 6) } : undefined);
  if (reorder && !scenario.faults.reorder) faults.push(`reorder: window ${reorder.window}, seed ${reorder.seed}`);

  const restart: RestartFault[] = [...scenario.faults.restart];
  if (applied.length > 0)
    for (let i = int(1, 2); i > 0; i--) {
      const w = pick(applied);
      restart.push({ after: requestKey(w), nth: nthOf(w) });
      faults.push(`kill a replica after ${requestKey(w)} #${nthOf(w)}`);
    }

  const github: GitHubFault[] = [...scenario.faults.github];
  if (applied.length > 0) {
    for (let i = int(0, 2); i > 0; i--) {
      const w = pick(applied);
      // Before: GitHub refused it. After: GitHub did it and the answer was lost.
      const when = random() < 0.25 ? ('after' as const) : ('before' as const);
      const status = pick(ERROR_STATUSES);
      github.push({ route: requestKey(w), status, times: 1, when });
      faults.push(`GitHub answers ${status} (${when} applying) to ${requestKey(w)}`);
    }
    for (let i = int(0, 1); i > 0; i--) {
      const w = pick(applied);
      const limit = pick(RATE_LIMITS);
      github.push({ route: requestKey(w), times: 1, when: 'before', ...limit });
      faults.push(`GitHub rate-limits ${requestKey(w)} (${limit.status})`);
    }
  }

  const replicaSeed = int(1, 1_000_000);
  return {
    seed,
    fixture,
    replicaSeed,
    faults,
    scenario: {
      ...scenario,
      faults: { ...scenario.faults, redeliver, ...(reorder ? { reorder } : {}), restart, github },
    },
  };
}
