// The soak: bundled fixtures played against several Arbiter processes on one PostgreSQL, behind a
// proxy that spreads deliveries, under faults drawn from one seed per schedule; each schedule is
// checked against the fault-free run of its fixture (sim/soak/invariants.ts).
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadScenarioFile, runScenario, type Scenario, type Transcript } from '../runner/index.ts';
import { changeEnds, violations } from './invariants.ts';
import { drawSchedule, fixtureOf, type Schedule } from './schedule.ts';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/scenarios/', import.meta.url));

/** One wait for quiet may span a kill's job expiry on a busy machine. */
const QUIET_TIMEOUT_MS = 300_000;

export interface SoakOptions {
  databaseUrl: string;
  replicas: number;
  /** The seeds to play, one schedule each. */
  seeds: number[];
  /**
   * Schedules played at once (default 1). Each has its own database and processes; a schedule
   * spends much of its time waiting (a killed replica's jobs expire after 30 s), not computing.
   */
  parallel?: number;
  /** Fixture files (default: every `fixtures/scenarios/*.yml`). */
  fixtures?: string[];
  /** Fault-free runs by fixture file, shared between soaks of the same fixtures (the soak's test plays two). */
  baselines?: Map<string, Transcript>;
  log?: (line: string) => void;
  /**
   * For the soak's own test only (no command-line flag): break the ledger's claim in each
   * faulty run's database, so a soak that still passed would be a soak that cannot fail.
   */
  breakClaim?: boolean;
}

export interface ScheduleResult {
  seed: number;
  fixture: string;
  faults: string[];
  /** Replicas killed in the run (a drawn kill is skipped when its write does not come). */
  kills: number;
  violations: string[];
}

export interface SoakReport {
  schedules: ScheduleResult[];
  /** Fixtures whose fault-free run itself leaves a Change open (the "every Change ends" check cannot apply). */
  endsOpen: string[];
}

export async function bundledFixtures(): Promise<string[]> {
  return (await readdir(FIXTURES_DIR))
    .filter((f) => f.endsWith('.yml'))
    .sort()
    .map((f) => join(FIXTURES_DIR, f));
}

/**
 * The broken claim: the round's claim (`claimRound`, one conditional update of `rounds.selection`
 * from NULL) is let go the moment it is taken, so every run that asks is told it holds the round
 * and no claim is ever kept. Done to the run's database by a trigger, so the app under test is
 * the real one, unchanged.
 */
async function breakClaim(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`
      CREATE FUNCTION soak_drop_claim() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.selection IS NULL AND NEW.decision IS NULL THEN NEW.selection := NULL; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER soak_drop_claim BEFORE UPDATE ON rounds FOR EACH ROW EXECUTE FUNCTION soak_drop_claim();`);
  } finally {
    await client.end();
  }
}

export async function runSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const files = opts.fixtures ?? (await bundledFixtures());
  const scenarios = new Map<number, Scenario>();
  const baselines = new Map<number, Transcript>();
  const report: SoakReport = { schedules: [], endsOpen: [] };

  const prepared = new Map<number, Promise<{ scenario: Scenario; baseline: Transcript }>>();
  /** A fixture and its fault-free run, once per fixture however many schedules play it at once. */
  const fixture = (i: number): Promise<{ scenario: Scenario; baseline: Transcript }> => {
    let ready = prepared.get(i);
    if (!ready) {
      ready = prepare(i);
      prepared.set(i, ready);
      // A failed preparation fails the schedules that wait for it; a later one tries again.
      ready.catch(() => prepared.delete(i));
    }
    return ready;
  };
  const prepare = async (i: number): Promise<{ scenario: Scenario; baseline: Transcript }> => {
    let scenario = scenarios.get(i);
    if (!scenario) {
      scenario = await loadScenarioFile(files[i]);
      scenarios.set(i, scenario);
    }
    let baseline = baselines.get(i) ?? opts.baselines?.get(files[i]);
    if (!baseline) {
      // The fault-free run: one process, the fixture as written.
      baseline = await runScenario(scenario, { databaseUrl: opts.databaseUrl });
      opts.baselines?.set(files[i], baseline);
    }
    if (!baselines.has(i)) {
      baselines.set(i, baseline);
      const open = [...changeEnds(baseline, scenario)].filter(([, end]) => end === 'open');
      if (open.length) report.endsOpen.push(`${basename(files[i])} (${open.map(([c]) => `#${c}`).join(', ')})`);
    }
    return { scenario, baseline };
  };

  const results = new Map<number, ScheduleResult>();
  const play = async (seed: number): Promise<void> => {
    const i = fixtureOf(seed, files.length);
    const name = basename(files[i], '.yml');
    let schedule: Schedule | null = null;
    let found: string[];
    let kills = 0;
    try {
      const { scenario, baseline } = await fixture(i);
      schedule = drawSchedule(seed, i, scenario, baseline);
      const run = await runScenario(schedule.scenario, {
        databaseUrl: opts.databaseUrl,
        replicas: opts.replicas,
        replicaSeed: schedule.replicaSeed,
        // A killed replica's jobs wait for their expiry (30 s) before another takes them.
        quietTimeoutMs: QUIET_TIMEOUT_MS,
        ...(opts.breakClaim ? { onDatabaseReady: breakClaim } : {}),
      });
      kills = run.restarts.length;
      found = violations(scenario, baseline, run);
    } catch (e) {
      // A run that never settles or whose app crashed is a failed schedule too, with its seed.
      const message = e instanceof Error ? e.message : String(e);
      found = [`the run failed: ${message.split('\n')[0]}`];
      // The app's last lines, for the one who replays the seed.
      for (const line of message.split('\n').slice(1)) log(`    | ${line}`);
    }
    const result = { seed, fixture: name, faults: schedule?.faults ?? [], kills, violations: found };
    results.set(seed, result);
    log(
      `schedule seed=${seed} ${name}: ${found.length === 0 ? 'ok' : `${found.length} violation(s)`}, ${kills} kill(s)${result.faults.length ? ` [${result.faults.join('; ')}]` : ''}`,
    );
    for (const v of found) log(`  - ${v}`);
  };

  // A pool of `parallel` players taking the seeds in order; the report lists them in seed order.
  const queue = [...opts.seeds];
  const player = async (): Promise<void> => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) await play(seed);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 1, queue.length)) }, player));
  report.schedules.push(...opts.seeds.flatMap((seed) => results.get(seed) ?? []));
  return report;
}
