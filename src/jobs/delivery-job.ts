// Webhook intake and the `delivery` job: a delivery is recorded by its X-GitHub-Delivery id and
// turned into a durable job (idempotently), and the job hands it to src/handlers once.
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { Delivery } from '../handlers/index.ts';
import type { Store } from '../store/types.ts';
import type { JobHandler, Queue, WorkOptions } from './queue.ts';

export const DELIVERY_QUEUE = 'delivery';

export type IntakeResult = 'queued' | 'redelivery';

/**
 * Records the delivery and enqueues its job. The job id derives from the delivery id, so a
 * redelivery, or a retry after a crash between the two steps, adds no second job; a delivery
 * already processed is only acknowledged.
 */
export async function intakeDelivery(
  store: Store,
  queue: Queue,
  d: { id: string; name: string; payload: unknown },
): Promise<IntakeResult> {
  const fresh = await store.recordDelivery(d.id, d.name, d.payload);
  if (!fresh) {
    const seen = await store.getDelivery(d.id);
    if (seen?.doneAt) return 'redelivery';
  }
  await queue.sendOnce(DELIVERY_QUEUE, { id: d.id }, d.id);
  return fresh ? 'queued' : 'redelivery';
}

/** At start: every recorded delivery not yet done gets its job (a no-op for those that have one). */
export async function requeuePendingDeliveries(store: Store, queue: Queue, limit = 10_000): Promise<number> {
  const ids = await store.listPendingDeliveries(limit);
  let added = 0;
  for (const id of ids) if (await queue.sendOnce(DELIVERY_QUEUE, { id }, id)) added++;
  return added;
}

const JobData = z.object({ id: z.string().min(1) });
const Payload = z.record(z.string(), z.unknown());
const Where = z.object({
  repository: z.object({ full_name: z.string() }).optional(),
  pull_request: z.object({ number: z.number() }).optional(),
  issue: z.object({ number: z.number() }).optional(),
  check_suite: z.object({ pull_requests: z.array(z.object({ number: z.number() })).optional() }).optional(),
  check_run: z.object({ pull_requests: z.array(z.object({ number: z.number() })).optional() }).optional(),
});

/** Repo and PR of a payload, where known, for log lines and events. */
export function whereOf(payload: unknown): { repo?: string; pr?: number } {
  const w = Where.safeParse(payload);
  if (!w.success) return {};
  const pr =
    w.data.pull_request?.number ??
    w.data.issue?.number ??
    w.data.check_run?.pull_requests?.[0]?.number ??
    w.data.check_suite?.pull_requests?.[0]?.number;
  return { ...(w.data.repository ? { repo: w.data.repository.full_name } : {}), ...(pr !== undefined ? { pr } : {}) };
}

export type HandleDelivery = (deps: Deps, delivery: Delivery) => Promise<void>;

/** The `delivery` job: loads the recorded delivery and processes it, then marks it done. */
export function deliveryJob(deps: Deps, handle: HandleDelivery): { handler: JobHandler; options: WorkOptions } {
  const handler: JobHandler = async (job) => {
    const data = JobData.safeParse(job.data);
    if (!data.success) {
      job.log.error({ data: job.data }, 'delivery job without a delivery id: dropped');
      return;
    }
    const d = await deps.store.getDelivery(data.data.id);
    if (!d) {
      job.log.error({ delivery: data.data.id }, 'delivery job for an unknown delivery: dropped');
      return;
    }
    if (d.doneAt) return; // processed before (a duplicate job after a restart)
    const payload = Payload.safeParse(d.payload);
    if (!payload.success) {
      await deps.store.markDeliveryDone(d.id, 'payload is not an object');
      return;
    }
    const log = job.log.child({ delivery: d.id, event: d.event, ...whereOf(payload.data) });
    await handle({ ...deps, log }, { id: d.id, name: d.event, payload: payload.data });
    await deps.store.markDeliveryDone(d.id);
  };
  const options: WorkOptions = {
    async onFinalFailure(job, reason) {
      const data = JobData.safeParse(job.data);
      if (!data.success) return;
      const d = await deps.store.getDelivery(data.data.id);
      const where = whereOf(d?.payload);
      await deps.store.failDelivery(data.data.id, reason, {
        repo: where.repo ?? '',
        data: { delivery: data.data.id, event: d?.event ?? null, pr: where.pr ?? null, attempts: job.retryCount + 1, reason },
        at: deps.clock.now().toISOString(),
      });
    },
  };
  return { handler, options };
}
