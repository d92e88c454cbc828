// The durable job queue: pg-boss 10 on the store's database (PGlite or PostgreSQL), with retries
// and backoff, a recorded final failure, graceful stop, recovery of jobs a killed process held,
// and jobs inserted inside a caller's transaction.
import { createHash } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { JobOptions, JobQueue } from '../deps.ts';
import type { Db, Queryable } from '../store/db.ts';

export interface JobContext {
  id: string;
  name: string;
  data: Record<string, unknown>;
  /** Attempts already failed before this one. */
  retryCount: number;
  retryLimit: number;
  /** True on the last attempt pg-boss will make: a throw now is the final failure. */
  final: boolean;
  log: Logger;
}

export type JobHandler = (job: JobContext) => Promise<void>;

export interface WorkOptions {
  /** Parallel workers for this queue (each takes one job at a time). */
  concurrency?: number;
  /** Called once when the last attempt failed, before pg-boss records the failure. */
  onFinalFailure?: (job: JobContext, reason: string) => Promise<void>;
}

export interface QueueCounts {
  /** Jobs waiting: created, or failed and waiting for their retry (deferred jobs not yet due aside). */
  queued: number;
  active: number;
  /** Jobs deferred to a time on the app's clock (a rate limit's wait) that has not come yet. */
  deferred: number;
}

/** The job-data key of a deferred job's due time on the app's clock (ISO). */
export const DUE_AT = 'dueAt';
/**
 * On a manual (scenario) clock pg-boss cannot know when a deferred job is due: it is held this
 * long, and `releaseDue` lets it go once the clock has passed its due time.
 */
const HELD_SECONDS = 365 * 24 * 3600;

export interface Queue extends JobQueue {
  /** Sends a job whose id is derived from `key`: a second send with the same key adds nothing. */
  sendOnce(name: string, data: Record<string, unknown>, key: string): Promise<string | null>;
  /** Creates the queue if it is missing. `insertOnce` needs it, and runs inside a transaction that must not wait on pg-boss's own statements. */
  prepare(name: string): Promise<void>;
  /**
   * Inserts jobs in one statement on `tx`, each with the id `sendOnce` derives from its key, so a
   * key sent before adds nothing. The queue must be prepared. Call `wake` once `tx` committed.
   */
  insertOnce(name: string, jobs: { key: string; data: Record<string, unknown> }[], tx: Queryable): Promise<void>;
  /** Wakes this process's workers of the queue now instead of at their next poll. */
  wake(name: string): void;
  work(name: string, handler: JobHandler, opts?: WorkOptions): Promise<void>;
  /** A cron schedule (pg-boss's timekeeper; one job per slot across replicas). */
  schedule(name: string, cron: string, data?: Record<string, unknown>): Promise<void>;
  counts(): Promise<QueueCounts>;
  /**
   * Sends a job that starts once the app's clock reaches `dueAt`. On the system clock pg-boss
   * starts it then (`startAfter`); on a manual clock it waits for `releaseDue`.
   */
  sendAt(name: string, data: Record<string, unknown>, dueAt: Date, now: Date): Promise<string | null>;
  /** Lets every deferred job due at `now` (app clock) start; the number released. */
  releaseDue(now: Date): Promise<number>;
  /** The earliest due time of a deferred job still held, or null. */
  nextDue(): Promise<Date | null>;
  /** Stops taking jobs. Graceful: jobs in flight may finish (up to `timeoutMs`), the rest are failed back to retry. */
  stop(opts?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
  /** Runs pg-boss maintenance now (expiry of jobs whose worker vanished, archiving). */
  maintain(): Promise<void>;
  readonly boss: PgBoss;
  readonly schema: string;
}

export interface QueueOptions {
  log: Logger;
  /** Scenario runs and tests: short polling and retry delays. */
  fast?: boolean;
  /** pg-boss schema; default `pgboss`. */
  schema?: string;
  /** Override any retry/expiry setting (tests). */
  retryLimit?: number;
  retryDelaySeconds?: number;
  expireInSeconds?: number;
  maintenanceIntervalSeconds?: number;
  /**
   * Return jobs left `active` to the queue at start. Only safe when no other process can be
   * working on them: default true on PGlite (one process owns the folder); the scenario runner
   * (one process at a time) turns it on for PostgreSQL too. Otherwise pg-boss expiry applies.
   */
  recoverActiveAtStart?: boolean;
  /** The app's clock is manual (scenario runs): deferred jobs are held until `releaseDue`. */
  manualClock?: boolean;
}

interface Timing {
  retryLimit: number;
  retryDelay: number;
  retryBackoff: boolean;
  expireInSeconds: number;
  pollingIntervalSeconds: number;
  maintenanceIntervalSeconds: number;
}

const TIMING: Record<'live' | 'fast', Timing> = {
  // Live: a model call may take minutes, so a job is presumed dead only after 15 minutes.
  live: { retryLimit: 6, retryDelay: 5, retryBackoff: true, expireInSeconds: 900, pollingIntervalSeconds: 2, maintenanceIntervalSeconds: 60 },
  fast: { retryLimit: 4, retryDelay: 1, retryBackoff: false, expireInSeconds: 60, pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 5 },
};

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A stable UUID for a key (name-based, version 5 layout), so a job can be sent idempotently. */
/** How long after a job ended it counts as over (see `jobState`). */
export const JOB_OVER_GRACE_MS = 10 * 60 * 1000;

/** The pg-boss queue policies Arbiter uses. */
export type QueuePolicy = 'standard' | 'singleton';

export function jobIdFor(name: string, key: string): string {
  const h = createHash('sha1').update(`arbiter:${name}:${key}`).digest('hex');
  const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const JobRow = z.object({
  id: z.string(),
  name: z.string(),
  data: z.record(z.string(), z.unknown()).nullable().catch({}),
  retryCount: z.coerce.number().int().default(0),
  retryLimit: z.coerce.number().int().default(0),
});

const CountRow = z.object({ state: z.string(), n: z.coerce.number().int() });

export const errorReason = (err: unknown): string =>
  (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000);

export async function createQueue(db: Db, opts: QueueOptions): Promise<Queue> {
  const schema = opts.schema ?? 'pgboss';
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid pg-boss schema name ${JSON.stringify(schema)}`);
  const base = TIMING[opts.fast ? 'fast' : 'live'];
  const timing: Timing = {
    ...base,
    retryLimit: opts.retryLimit ?? base.retryLimit,
    retryDelay: opts.retryDelaySeconds ?? base.retryDelay,
    expireInSeconds: opts.expireInSeconds ?? base.expireInSeconds,
    maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? base.maintenanceIntervalSeconds,
  };
  const log = opts.log;
  // PGlite runs every statement on this thread. Workers whose statements follow one another
  // through promise callbacks alone would keep the event loop from reading webhooks for as long
  // as there are jobs: each pg-boss statement and each job first lets pending I/O run.
  const yieldToIo = db.kind === 'pglite' ? () => new Promise<void>((resolve) => setImmediate(resolve)) : async () => undefined;

  // pg-boss completes a finished job without awaiting it; `stop` waits for such statements, so
  // none reaches a store its caller closes right after.
  let inFlight = 0;
  const boss = new PgBoss({
    db: {
      async executeSql(text: string, values?: unknown[]) {
        inFlight++;
        try {
          await yieldToIo();
          return await db.executeSql(text, values);
        } finally {
          inFlight--;
        }
      },
    },
    schema,
    retryLimit: timing.retryLimit,
    retryDelay: timing.retryDelay,
    retryBackoff: timing.retryBackoff,
    expireInSeconds: timing.expireInSeconds,
    maintenanceIntervalSeconds: timing.maintenanceIntervalSeconds,
  });
  boss.on('error', (err) => log.error({ err }, 'job queue error'));
  await boss.start();

  if (opts.recoverActiveAtStart ?? db.kind === 'pglite') {
    // One process owns a PGlite folder, so a job still `active` was held by a process that
    // died: it cannot be running anywhere, and goes back to the queue now.
    const res = await db.query(`UPDATE ${schema}.job SET state = 'retry', start_after = now() WHERE state = 'active'`);
    if (res.rowCount > 0) log.warn({ jobs: res.rowCount }, 'returned jobs left active by a previous process');
  }

  /** Queues this process has made sure of, with the policy it asked for (undefined: any). */
  const known = new Map<string, QueuePolicy | undefined>();
  /**
   * Makes sure the queue exists. `singleton`: at most one of its jobs is active at a time, over
   * every replica; a queue asked for with no policy is created `standard` and an existing one
   * is left as it is (so `work` never undoes what `schedule` set, whichever runs first).
   */
  const ensure = async (name: string, policy?: QueuePolicy): Promise<void> => {
    if (known.has(name) && (policy === undefined || known.get(name) === policy)) return;
    const options = { name, policy: policy ?? 'standard', retryLimit: timing.retryLimit, retryDelay: timing.retryDelay, retryBackoff: timing.retryBackoff, expireInSeconds: timing.expireInSeconds };
    const existing = z.object({ policy: z.string().nullish() }).nullable().catch(null).parse(await boss.getQueue(name));
    if (!existing) {
      try {
        await boss.createQueue(name, options);
      } catch (err) {
        // Another replica created it at the same moment.
        if (!(await boss.getQueue(name))) throw err;
      }
    }
    const now = z.object({ policy: z.string().nullish() }).nullable().catch(null).parse(existing ?? (await boss.getQueue(name)));
    if (policy !== undefined && (now?.policy ?? 'standard') !== policy) await boss.updateQueue(name, options);
    known.set(name, policy ?? known.get(name));
  };

  const workerIds = new Map<string, string[]>();
  const notify = (name: string): void => {
    for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id);
  };

  const queue: Queue = {
    boss,
    schema,
    async send(name, data, o?: JobOptions) {
      await ensure(name);
      const id = await boss.send(name, data, {
        ...(o?.singletonKey ? { singletonKey: o.singletonKey } : {}),
        ...(o?.startAfterSeconds ? { startAfter: o.startAfterSeconds } : {}),
      });
      // Wake a local worker now instead of at its next poll.
      if (id && !o?.startAfterSeconds) notify(name);
      return id;
    },
    async sendOnce(name, data, key) {
      await ensure(name);
      const id = await boss.send(name, data, { id: jobIdFor(name, key) });
      if (id) notify(name);
      return id;
    },
    prepare: ensure,
    async insertOnce(name, jobs, tx) {
      // pg-boss inserts only jobs whose queue exists (it joins the queue table), silently.
      if (!known.has(name)) throw new Error(`queue ${name} is not prepared`);
      if (jobs.length === 0) return;
      // In id order, so transactions inserting the same jobs at once wait on each other in the same order.
      const rows = jobs.map((j) => ({ id: jobIdFor(name, j.key), name, data: j.data })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      await boss.insert(rows, { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) } });
    },
    wake: notify,
    async work(name, handler, wo = {}) {
      await ensure(name);
      const ids: string[] = [];
      for (let i = 0; i < Math.max(1, wo.concurrency ?? 1); i++) {
        const id = await boss.work(
          name,
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: timing.pollingIntervalSeconds },
          async (jobs) => {
            for (const raw of jobs) await runOne(name, raw, handler, wo);
            notify(name); // there may be more waiting
          },
        );
        ids.push(id);
      }
      workerIds.set(name, [...(workerIds.get(name) ?? []), ...ids]);
    },
    async jobState(name, key) {
      const job = z
        .object({ state: z.string(), completedOn: z.coerce.date().nullish() })
        .nullable()
        .catch(null)
        .parse(await boss.getJobById(name, jobIdFor(name, key), { includeArchive: true }));
      if (!job) return 'missing';
      if (job.state === 'created' || job.state === 'retry') return 'pending';
      if (job.state === 'active') return 'active';
      // pg-boss fails a job that outlives its expiry without stopping its handler: until a grace
      // period has passed (real time, as pg-boss keeps it), such a handler may still be at work.
      const ended = job.completedOn?.getTime() ?? 0;
      return Date.now() - ended >= JOB_OVER_GRACE_MS ? 'over' : 'active';
    },
    async schedule(name, cron, data = {}) {
      // A scheduled job (the sweep) never runs twice at once, even when one run outlasts its slot.
      await ensure(name, 'singleton');
      await boss.schedule(name, cron, data, { singletonKey: name });
    },
    async sendAt(name, data, dueAt, now) {
      await ensure(name);
      const wait = Math.max(1, Math.ceil((dueAt.getTime() - now.getTime()) / 1000));
      return boss.send(name, { ...data, [DUE_AT]: dueAt.toISOString() }, { startAfter: opts.manualClock ? HELD_SECONDS : wait });
    },
    async sendOnceAt(name, data, key, dueAt, now) {
      await ensure(name);
      const wait = Math.max(0, Math.ceil((dueAt.getTime() - now.getTime()) / 1000));
      const startAfter = wait === 0 ? 0 : opts.manualClock ? HELD_SECONDS : wait;
      const id = await boss.send(name, { ...data, [DUE_AT]: dueAt.toISOString() }, { id: jobIdFor(name, key), ...(startAfter > 0 ? { startAfter } : {}) });
      if (id && startAfter === 0) notify(name);
      return id;
    },
    async releaseDue(now) {
      const res = await db.query(
        `UPDATE ${schema}.job SET start_after = now() WHERE state = 'created' AND start_after > now()
         AND data ? '${DUE_AT}' AND (data->>'${DUE_AT}')::timestamptz <= $1::timestamptz`,
        [now.toISOString()],
      );
      for (const name of workerIds.keys()) notify(name);
      return res.rowCount;
    },
    async nextDue() {
      const res = await db.query(
        `SELECT min((data->>'${DUE_AT}')::timestamptz) AS due FROM ${schema}.job
         WHERE state = 'created' AND start_after > now() AND data ? '${DUE_AT}'`,
      );
      const due = z.object({ due: z.coerce.date().nullable() }).catch({ due: null }).parse(res.rows[0] ?? {}).due;
      return due;
    },
    async counts() {
      // A deferred job not yet due is no work in progress: it is counted apart.
      const res = await db.query(
        `SELECT (CASE WHEN state = 'created' AND start_after > now() AND data ? '${DUE_AT}' THEN 'deferred' ELSE state::text END) AS state,
                count(*)::int AS n FROM ${schema}.job
         WHERE state IN ('created', 'retry', 'active') GROUP BY 1`,
      );
      const rows = res.rows.flatMap((r) => {
        const p = CountRow.safeParse(r);
        return p.success ? [p.data] : [];
      });
      const n = (s: string) => rows.find((r) => r.state === s)?.n ?? 0;
      return { queued: n('created') + n('retry'), active: n('active'), deferred: n('deferred') };
    },
    async stop(so = {}) {
      await boss.stop({ graceful: so.graceful ?? true, timeout: so.timeoutMs ?? 20_000, close: false, wait: true });
      for (let turns = 0; turns < 2 || (inFlight > 0 && turns < 500); turns++) await new Promise<void>((resolve) => setTimeout(resolve, turns < 2 ? 0 : 10));
    },
    async maintain() {
      await boss.maintain();
    },
  };

  async function runOne(name: string, raw: unknown, handler: JobHandler, wo: WorkOptions): Promise<void> {
    const parsed = JobRow.safeParse(raw);
    if (!parsed.success) throw new Error(`malformed job from pg-boss: ${parsed.error.message}`);
    const j = parsed.data;
    const ctx: JobContext = {
      id: j.id,
      name,
      data: j.data ?? {},
      retryCount: j.retryCount,
      retryLimit: j.retryLimit,
      final: j.retryCount >= j.retryLimit,
      log: log.child({ job: j.id, queue: name }),
    };
    try {
      await yieldToIo();
      await handler(ctx);
    } catch (err) {
      const reason = errorReason(err);
      ctx.log.warn({ err, attempt: j.retryCount + 1, final: ctx.final }, 'job failed');
      if (ctx.final && wo.onFinalFailure) {
        await wo.onFinalFailure(ctx, reason).catch((e: unknown) => ctx.log.error({ err: e }, 'recording the final failure failed'));
      }
      throw err;
    }
  }

  return queue;
}
