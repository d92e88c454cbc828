// The Arbiter process the scenario runner starts (compiled to dist-sim/runner/app-entry.js on a fresh
// build, else `node --import tsx sim/runner/app-entry.ts`):
// the same `startArbiter` as `npm start`, from the compiled build when it is up to date (else the
// sources), on a manual clock the runner moves, with the runner's control routes mounted and
// quick queue timing. The product (src/) knows nothing of any of this.
import { pathToFileURL } from 'node:url';
import { readEnv } from '../../src/env.ts';
import { ManualClock } from '../../src/clock.ts';
import { distIsFresh, DIST_MAIN } from '../../scripts/dist.mjs';
import { simControlHandler } from './sim-control.ts';

type MainModule = typeof import('../../src/main.ts');

/** Scenarios run the production pacing a hundred times faster (their clock is virtual). */
const DEFAULT_SIM_PACING_SCALE = 0.01;

/** Replicas: a job held by a killed process runs again this soon (production waits 15 minutes). */
const REPLICA_EXPIRY = { expireInSeconds: 30, maintenanceIntervalSeconds: 1 };

/**
 * The built app unless it is stale or ARBITER_SIM_APP=source asks for the sources; compiled to
 * JavaScript (sim/runner/compiled-entry.ts), this file is only started on a fresh build and cannot
 * load TypeScript, so it always takes the build.
 */
async function loadMain(): Promise<MainModule> {
  const compiled = import.meta.url.endsWith('.js');
  const useDist = compiled || (process.env['ARBITER_SIM_APP'] !== 'source' && distIsFresh());
  const entry = useDist ? pathToFileURL(DIST_MAIN).href : new URL('../../src/main.ts', import.meta.url).href;
  const loaded: MainModule = await import(entry);
  return loaded;
}

async function start(): Promise<void> {
  const { startArbiter, stopOnSignals } = await loadMain();
  const env = readEnv();
  // Where the virtual clock starts (ms since the epoch) until the runner sets it.
  const startMs = Number(process.env['ARBITER_SIM_START_MS'] ?? 0);
  if (!Number.isSafeInteger(startMs) || startMs < 0)
    throw new Error(`ARBITER_SIM_START_MS must be ms since the epoch, not ${process.env['ARBITER_SIM_START_MS']}`);
  const clock = new ManualClock(startMs);
  // The production client and its pacing. Its buckets run on real time, the scenario's clock is
  // virtual: scenarios compress the pacing (ARBITER_SIM_PACING_SCALE, default 0.01: a token every
  // 4 ms instead of 403 ms); the end-to-end bench sets 1 and runs production's pacing. A rate-limit
  // answer is deferred on the virtual clock either way (src/github/rate-limit.ts).
  const pacingScale = Number(process.env['ARBITER_SIM_PACING_SCALE'] ?? DEFAULT_SIM_PACING_SCALE);
  if (!(pacingScale > 0 && pacingScale <= 1))
    throw new Error(`ARBITER_SIM_PACING_SCALE must be in (0, 1], not ${process.env['ARBITER_SIM_PACING_SCALE']}`);
  const replica = process.env['ARBITER_SIM_REPLICA'] === '1';
  const running = await startArbiter(env, {
    clock,
    pacingScale,
    // Exactly one Arbiter process runs at a time under the runner, so jobs a killed process left
    // active can be taken back at start on PostgreSQL too; deferred jobs wait for the moved clock.
    // That process sends every job and wakes its own workers, so an idle worker polls only every
    // 2 s (each poll is a query on PGlite's one thread).
    // Replicas (the soak, ARBITER_SIM_REPLICA=1): other processes may hold active jobs, so none is
    // taken back at start; a killed replica's jobs come back by pg-boss expiry, as in production,
    // only sooner, and every replica polls often since another one may have sent the job.
    queue: replica
      ? { fast: true, recoverActiveAtStart: false, manualClock: true, pollingIntervalSeconds: 0.5, ...REPLICA_EXPIRY }
      : { fast: true, recoverActiveAtStart: true, manualClock: true, pollingIntervalSeconds: 2 },
    scheduleSweep: false,
    routes: (controls) => simControlHandler({ ...controls, clock }),
    // The runner's webhooks meet a machine busy with the emulator and other runs: a commit slower
    // than production's 500 ms would be answered 503 although it lands, a failure no scenario asked for.
    intakeDeadlineMs: 5_000,
    // Scenarios play one webhook at a time: a check event's wait would only slow each one down.
    // The end-to-end bench sets ARBITER_CHECK_EVENT_WAIT to run as production does.
    checkEventWaitSeconds: process.env['ARBITER_CHECK_EVENT_WAIT'] === undefined ? 0 : env.ARBITER_CHECK_EVENT_WAIT,
  });
  stopOnSignals(running);
}

start().catch((err: unknown) => {
  process.stderr.write(
    `arbiter: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
