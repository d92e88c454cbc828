// The `sweep` job: runs the periodic sweep (sibling timeouts, overdue repairs) once a minute in
// live mode, as a pg-boss cron schedule, so one replica runs each slot.
import { SWEEP_QUEUE, type Deps } from '../deps.ts';
import type { JobHandler, Queue } from './queue.ts';

export const SWEEP_CRON = '* * * * *';

export type RunSweep = (deps: Deps) => Promise<void>;

export const sweepJob =
  (deps: Deps, sweep: RunSweep): JobHandler =>
  async (job) => {
    await sweep({ ...deps, log: job.log });
  };

export async function scheduleSweep(queue: Queue): Promise<void> {
  await queue.schedule(SWEEP_QUEUE, SWEEP_CRON);
}
