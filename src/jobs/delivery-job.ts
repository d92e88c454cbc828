// Webhook intake and the `delivery` job: deliveries are recorded by their X-GitHub-Delivery id and
// turned into durable jobs (idempotently, in groups), and the job hands each to src/handlers once.
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { Delivery } from '../handlers/index.ts';
import { storeUnavailable } from '../store/errors.ts';
import type { StoreWithDb } from '../store/store.ts';
import type { Store } from '../store/types.ts';
import { createGroupCommit, type GroupCommit } from './group-commit.ts';
import type { JobHandler, Queue, WorkOptions } from './queue.ts';
import { InstallationBlocks, rateLimitOf, retryLaterOf } from '../github/rate-limit.ts';
import { DELIVERY_QUEUE } from '../deps.ts';

export { DELIVERY_QUEUE };

/** Deliveries committed together at most: bounds one statement's size and the wait of the last in a burst. */
export const MAX_INTAKE_GROUP = 200;

/**
 * Groups committing at once. PGlite runs one statement at a time, so a second group would only
 * wait; PostgreSQL works on a few in parallel (measured: more per second, lower p99, with 3).
 */
export const INTAKE_IN_FLIGHT: Record<'pglite' | 'postgres', number> = { pglite: 1, postgres: 3 };

export type IntakeResult = 'queued' | 'redelivery';

export interface IncomingDelivery {
  id: string;
  name: string;
  payload: unknown;
  /** What the event asks to read again (src/core/check-subject.ts `intakeSubject`), stored with it. */
  subject?: string | null;
  /** The check it concludes (src/core/check-subject.ts `intakeCheckName`), stored with its subject. */
  check?: string | null;
}

/**
 * The key a delivery's job id derives from: the delivery id, and for a re-run (a redelivery of a
 * delivery whose job failed for good) the re-run number, since the failed job keeps its id.
 */
export const deliveryJobKey = (id: string, rerun?: number): string => (rerun ? `${id}#rerun-${rerun}` : id);

/**
 * Records a group of deliveries and inserts their jobs in one transaction: both are durable, or
 * neither is. The job id derives from the delivery id, so a redelivery (also a second copy in the
 * same group) is recorded once and gets one job; a delivery already processed is only
 * acknowledged, and one whose job failed for good runs again (a new job). One result per
 * delivery, in order.
 */
export async function commitDeliveries(
  store: StoreWithDb,
  queue: Queue,
  ds: IncomingDelivery[],
  opts: { checkEventWaitSeconds?: number } = {},
): Promise<IntakeResult[]> {
  if (ds.length === 0) return [];
  const wait = opts.checkEventWaitSeconds ?? 0;
  const subjects = new Set(ds.filter((d) => d.subject).map((d) => d.id));
  await queue.prepare(DELIVERY_QUEUE);
  const recorded = await store.db.transaction(async (tx) => {
    const rows = await store.recordDeliveries(
      ds.map((d) => ({
        id: d.id,
        event: d.name,
        payload: d.payload,
        subject: d.subject ?? null,
        check: d.check ?? null,
      })),
      tx,
    );
    const jobs = rows
      .filter((r) => !r.done)
      .map((r) => ({
        key: deliveryJobKey(r.id, r.rerun),
        data: { id: r.id },
        // A check event waits a moment: one more on its head in that time is read in the same look.
        ...(wait > 0 && subjects.has(r.id) ? { startAfterSeconds: wait } : {}),
      }));
    await queue.insertOnce(DELIVERY_QUEUE, jobs, tx);
    return rows;
  });
  if (recorded.some((r) => !r.done)) queue.wake(DELIVERY_QUEUE);
  if (wait > 0 && recorded.some((r) => !r.done && subjects.has(r.id)))
    setTimeout(() => queue.wake(DELIVERY_QUEUE), wait * 1000 + 20).unref();
  const fresh = new Set(recorded.filter((r) => r.fresh).map((r) => r.id));
  // Only the first copy of a fresh id counts as queued; any later copy is a redelivery.
  return ds.map((d) => (fresh.delete(d.id) ? 'queued' : 'redelivery'));
}

/** Records one delivery and enqueues its job (a group of one). */
export async function intakeDelivery(store: StoreWithDb, queue: Queue, d: IncomingDelivery): Promise<IntakeResult> {
  const [result] = await commitDeliveries(store, queue, [d]);
  if (!result) throw new Error('intake answered nothing for a delivery');
  return result;
}

/**
 * The webhook intake: each delivery is answered once the group that holds it committed.
 * Deliveries that arrive during a commit form the next group.
 */
export function createDeliveryIntake(
  store: StoreWithDb,
  queue: Queue,
  opts: { maxGroup?: number; inFlight?: number; checkEventWaitSeconds?: number } = {},
): GroupCommit<IncomingDelivery, IntakeResult> {
  const commit = (ds: IncomingDelivery[]) =>
    commitDeliveries(store, queue, ds, { checkEventWaitSeconds: opts.checkEventWaitSeconds ?? 0 });
  return createGroupCommit(commit, {
    maxGroup: opts.maxGroup ?? MAX_INTAKE_GROUP,
    inFlight: opts.inFlight ?? INTAKE_IN_FLIGHT[store.db.kind],
  });
}

/**
 * How long a webhook waits for its intake commit before it is answered 503: the database does not
 * answer (a PostgreSQL that is unreachable or stalled, a PGlite held by a long statement or
 * closed). GitHub then records the delivery as failed and the hook-deliveries recovery
 * (src/workflows/recover-deliveries.ts) asks for it again. A commit that lands after the answer
 * loses nothing: the delivery is recorded and processed, and the recovery skips what is recorded.
 */
export const INTAKE_DEADLINE_MS = 500;

/** The intake's answer when the database does not answer: Probot's middleware answers `status`. */
export class IntakeUnavailable extends Error {
  override readonly name = 'IntakeUnavailable';
  readonly status = 503;
}

/** Submits a delivery to the intake; no answer within `deadlineMs`, or a database that does not answer, is an IntakeUnavailable. */
export async function submitWithin(
  intake: Pick<GroupCommit<IncomingDelivery, IntakeResult>, 'submit'>,
  d: IncomingDelivery,
  deadlineMs = INTAKE_DEADLINE_MS,
): Promise<IntakeResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new IntakeUnavailable(`the database did not answer within ${deadlineMs} ms`)),
      deadlineMs,
    );
  });
  const committed = intake.submit(d).catch((err: unknown) => {
    if (storeUnavailable(err))
      throw new IntakeUnavailable(`the database does not answer: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    throw err;
  });
  committed.catch(() => undefined); // answered 503 already when it fails after the deadline
  try {
    return await Promise.race([committed, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** At start: every recorded delivery not yet done gets its job (a no-op for those that have one). */
export async function requeuePendingDeliveries(store: Store, queue: Queue, limit = 10_000): Promise<number> {
  const pending = await store.listPendingDeliveries(limit);
  let added = 0;
  for (const p of pending)
    if (await queue.sendOnce(DELIVERY_QUEUE, { id: p.id }, deliveryJobKey(p.id, p.rerun))) added++;
  return added;
}

const JobData = z.object({ id: z.string().min(1) });
const Installation = z.object({ installation: z.object({ id: z.number().int() }) });
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

/** How the delivery job waits out a rate limit: a job of the delivery that starts at `until` (app clock). */
export type DeferDelivery = (id: string, until: Date) => Promise<void>;

export const deferDeliveryOn =
  (queue: Pick<Queue, 'sendAt'>, deps: Pick<Deps, 'clock'>): DeferDelivery =>
  async (id, until) => {
    await queue.sendAt(DELIVERY_QUEUE, { id }, until, deps.clock.now());
  };

export interface DeliveryJobOptions {
  /** Without it, a rate limit fails the attempt like any error (pg-boss retries it). */
  defer?: DeferDelivery;
  blocks?: InstallationBlocks;
}

/**
 * The `delivery` job: loads the recorded delivery and processes it, then marks it done. While
 * its installation waits out a rate limit, or when GitHub answers it with one, the delivery is
 * deferred to the end of the wait (a new job; the claims it made carry over, same token).
 */
export function deliveryJob(
  deps: Deps,
  handle: HandleDelivery,
  jo: DeliveryJobOptions = {},
): { handler: JobHandler; options: WorkOptions } {
  const blocks = jo.blocks ?? new InstallationBlocks();
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
    const installation = Installation.safeParse(payload.data);
    const installationId = installation.success ? installation.data.installation.id : null;
    if (jo.defer && installationId !== null) {
      const until = blocks.blockedUntil(installationId, deps.clock.now());
      if (until) {
        log.info({ until: until.toISOString() }, 'installation waits out a rate limit: delivery deferred');
        await jo.defer(d.id, until);
        return;
      }
    }
    try {
      await handle({ ...deps, log }, { id: d.id, name: d.event, payload: payload.data });
    } catch (error) {
      const later = retryLaterOf(error);
      if (later && jo.defer) {
        const until = new Date(deps.clock.now().getTime() + later.seconds * 1000);
        log.info({ until: until.toISOString(), reason: later.message }, 'delivery deferred: to be tried again');
        await jo.defer(d.id, until);
        return;
      }
      const limit = rateLimitOf(error);
      if (!limit || !jo.defer || installationId === null) throw error;
      const until = blocks.block(installationId, deps.clock.now(), limit.retryAfter ?? 0);
      log.warn(
        { status: limit.status, operation: limit.operation, until: until.toISOString() },
        'GitHub rate limit: delivery deferred',
      );
      await jo.defer(d.id, until);
      return;
    }
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
        data: {
          delivery: data.data.id,
          event: d?.event ?? null,
          pr: where.pr ?? null,
          attempts: job.retryCount + 1,
          reason,
        },
        at: deps.clock.now().toISOString(),
      });
    },
  };
  return { handler, options };
}
