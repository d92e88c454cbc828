// The `hook-recovery` job: one pass of src/workflows/recover-deliveries.ts. Sent once at start
// and, in live mode, every five minutes from a pg-boss cron schedule (one replica per slot); on
// a scenario clock the app sends it whenever the clock has moved five minutes past the last one.
import type { JobHandler, Queue } from './queue.ts';

export const RECOVERY_QUEUE = 'hook-recovery';
export const RECOVERY_CRON = '*/5 * * * *';
export const RECOVERY_INTERVAL_MS = 5 * 60_000;

export type RunRecovery = () => Promise<unknown>;

/**
 * A pass that fails (GitHub unreachable) is logged, not retried: the next pass comes in five
 * minutes anyway, and retries would only add requests to a GitHub that is struggling.
 */
export const recoveryJob =
  (run: RunRecovery): JobHandler =>
  async (job) => {
    try {
      await run();
    } catch (err) {
      job.log.warn({ err }, 'the webhook-delivery recovery pass failed; the next pass tries again');
    }
  };

/** Queues a pass now (one at a time: a pass queued and not started takes the place of another). */
export async function sendRecovery(queue: Pick<Queue, 'send'>): Promise<void> {
  await queue.send(RECOVERY_QUEUE, {}, { singletonKey: RECOVERY_QUEUE });
}

export async function scheduleRecovery(queue: Queue): Promise<void> {
  await queue.schedule(RECOVERY_QUEUE, RECOVERY_CRON);
}
