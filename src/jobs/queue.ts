// The durable job queue: pg-boss 10 on the store's database (PGlite or PostgreSQL), with retries
// and backoff, a recorded final failure, graceful stop, recovery of jobs a killed process held,
// and jobs inserted inside a caller's transaction.
import { createRequire } from 'node:module';
import PgBoss from 'pg-boss';
import { z } from 'zod';
import type { JobOptions } from '../deps.ts';
import type { Db } from '../store/db.ts';
import {
  DUE_AT,
  JOB_OVER_GRACE_MS,
  jobIdFor,
  type JobContext,
  type JobHandler,
  type Queue,
  type QueueOptions,
  type QueuePolicy,
  type WorkOptions,
} from './queue-types.ts';

export * from './queue-types.ts';

/**
 * On a manual (scenario) clock pg-boss cannot know when a deferred job is due: it is held this
 * long, and `releaseDue` lets it go once the clock has passed its due time.
 */
const HELD_SECONDS = 365 * 24 * 3600;

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
  live: {
    retryLimit: 6,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 900,
    pollingIntervalSeconds: 2,
    maintenanceIntervalSeconds: 60,
  },
  fast: {
    retryLimit: 4,
    retryDelay: 1,
    retryBackoff: false,
    expireInSeconds: 60,
    pollingIntervalSeconds: 0.5,
    maintenanceIntervalSeconds: 5,
  },
};

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

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

const bossPlans: unknown = createRequire(import.meta.url)('pg-boss/src/plans.js');

/**
 * The statements pg-boss sends without awaiting them (a worker's completion and failure of its
 * job, manager.js), so a database error there must never surface as a rejection.
 */
export function unawaitedCommands(schema: string): Set<string> {
  const out = new Set<string>();
  for (const name of ['completeJobs', 'failJobsById']) {
    const plan: unknown = typeof bossPlans === 'object' && bossPlans !== null ? Reflect.get(bossPlans, name) : null;
    if (typeof plan === 'function') out.add(String(plan(schema)));
  }
  return out;
}

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
    pollingIntervalSeconds: opts.pollingIntervalSeconds ?? base.pollingIntervalSeconds,
  };
  const log = opts.log;
  // PGlite runs every statement on this thread. Workers whose statements follow one another
  // through promise callbacks alone would keep the event loop from reading webhooks for as long
  // as there are jobs: each pg-boss statement and each job first lets pending I/O run.
  const yieldToIo =
    db.kind === 'pglite' ? () => new Promise<void>((resolve) => setImmediate(resolve)) : async () => undefined;

  // pg-boss completes a finished job without awaiting it; `stop` waits for such statements, so
  // none reaches a store its caller closes right after.
  let inFlight = 0;
  const unawaited = unawaitedCommands(schema);
  const boss = new PgBoss({
    db: {
      async executeSql(text: string, values?: unknown[]) {
        inFlight++;
        try {
          await yieldToIo();
          const result = await db.executeSql(text, values);
          // pg-boss reads `rows[0].count` of these without a check.
          if (unawaited.has(text) && result.rows.length === 0) return { rows: [{ count: '0' }] };
          return result;
        } catch (err) {
          if (!unawaited.has(text)) throw err;
          // pg-boss completes or fails a job without awaiting it: a throw here would be an
          // unhandled rejection, which ends the process. The job stays active, expires and runs
          // again; every job is idempotent (a processed delivery is only acknowledged).
          log.warn({ err }, 'job queue: a job could not be marked done or failed; it runs again once it expires');
          return { rows: [{ count: '0' }] };
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
    const options = {
      name,
      policy: policy ?? 'standard',
      retryLimit: timing.retryLimit,
      retryDelay: timing.retryDelay,
      retryBackoff: timing.retryBackoff,
      expireInSeconds: timing.expireInSeconds,
    };
    const existing = z
      .object({ policy: z.string().nullish() })
      .nullable()
      .catch(null)
      .parse(await boss.getQueue(name));
    if (!existing) {
      try {
        await boss.createQueue(name, options);
      } catch (err) {
        // Another replica created it at the same moment.
        if (!(await boss.getQueue(name))) throw err;
      }
    }
    const now = z
      .object({ policy: z.string().nullish() })
      .nullable()
      .catch(null)
      .parse(existing ?? (await boss.getQueue(name)));
    if (policy !== undefined && (now?.policy ?? 'standard') !== policy) await boss.updateQueue(name, options);
    known.set(name, policy ?? known.get(name));
  };

  // This process's workers per queue. A wake goes to one worker not running a job: each query is
  // one more turn of PGlite's single thread, and a worker that takes a job wakes the next one
  // (there may be more), while one that finishes a job looks again at once.
  const workers = new Map<string, { id: string; busy: boolean }[]>();
  const notify = (name: string): void => {
    const idle = workers.get(name)?.find((w) => w.id && !w.busy);
    if (idle) boss.notifyWorker(idle.id);
  };

  // Without backoff a failed job's retry is due `retryDelay` seconds after pg-boss records the
  // failure (right after the handler threw): wake the workers then, and once more a little
  // later in case recording it took a while, instead of leaving it to the next poll.
  const retryTimers = new Set<NodeJS.Timeout>();
  const wakeForRetry = (name: string): void => {
    if (timing.retryBackoff) return;
    for (const extraMs of [100, 1000]) {
      const timer = setTimeout(
        () => {
          retryTimers.delete(timer);
          notify(name);
        },
        timing.retryDelay * 1000 + extraMs,
      );
      timer.unref();
      retryTimers.add(timer);
    }
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
      const rows = jobs
        .map((j) => ({
          id: jobIdFor(name, j.key),
          name,
          data: j.data,
          ...(j.startAfterSeconds ? { startAfter: `${j.startAfterSeconds} seconds` } : {}),
        }))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      await boss.insert(rows, { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values) } });
    },
    wake: notify,
    async work(name, handler, wo = {}) {
      await ensure(name);
      const list = workers.get(name) ?? [];
      workers.set(name, list);
      for (let i = 0; i < Math.max(1, wo.concurrency ?? 1); i++) {
        // Registered before pg-boss starts the worker (its id comes back from `work`).
        const self = { id: '', busy: false };
        list.push(self);
        self.id = await boss.work(
          name,
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: timing.pollingIntervalSeconds },
          async (jobs) => {
            self.busy = true;
            notify(name);
            try {
              for (const raw of jobs) await runOne(name, raw, handler, wo);
            } catch (err) {
              wakeForRetry(name);
              throw err;
            } finally {
              self.busy = false;
              if (self.id) boss.notifyWorker(self.id);
            }
          },
        );
      }
    },
    async jobState(name, key) {
      // pg-boss expires a job without stopping its handler, which may run on for a grace period of
      // real time: measured on the database's clock, which stamped the end (not the app's clock).
      const row = `SELECT state::text AS state, completed_on IS NULL OR now() - completed_on >= $3::float8 * interval '1 millisecond' AS over`;
      const res = await db.query(
        `${row} FROM ${schema}.job WHERE name = $1 AND id = $2
         UNION ALL ${row} FROM ${schema}.archive WHERE name = $1 AND id = $2 LIMIT 1`,
        [name, jobIdFor(name, key), JOB_OVER_GRACE_MS],
      );
      const job = z
        .object({ state: z.string(), over: z.boolean() })
        .nullable()
        .catch(null)
        .parse(res.rows[0] ?? null);
      if (!job) return 'missing';
      if (job.state === 'created' || job.state === 'retry') return 'pending';
      return job.state === 'active' || !job.over ? 'active' : 'over';
    },
    async schedule(name, cron, data = {}) {
      // A scheduled job (the sweep) never runs twice at once, even when one run outlasts its slot.
      await ensure(name, 'singleton');
      await boss.schedule(name, cron, data, { singletonKey: name });
    },
    async sendAt(name, data, dueAt, now) {
      await ensure(name);
      const wait = Math.max(1, Math.ceil((dueAt.getTime() - now.getTime()) / 1000));
      return boss.send(
        name,
        { ...data, [DUE_AT]: dueAt.toISOString() },
        { startAfter: opts.manualClock ? HELD_SECONDS : wait },
      );
    },
    async sendOnceAt(name, data, key, dueAt, now) {
      await ensure(name);
      const wait = Math.max(0, Math.ceil((dueAt.getTime() - now.getTime()) / 1000));
      const startAfter = wait === 0 ? 0 : opts.manualClock ? HELD_SECONDS : wait;
      const id = await boss.send(
        name,
        { ...data, [DUE_AT]: dueAt.toISOString() },
        { id: jobIdFor(name, key), ...(startAfter > 0 ? { startAfter } : {}) },
      );
      if (id && startAfter === 0) notify(name);
      return id;
    },
    async releaseDue(now) {
      const res = await db.query(
        `UPDATE ${schema}.job SET start_after = now() WHERE state = 'created' AND start_after > now()
         AND data ? '${DUE_AT}' AND (data->>'${DUE_AT}')::timestamptz <= $1::timestamptz`,
        [now.toISOString()],
      );
      for (const name of workers.keys()) notify(name);
      return res.rowCount;
    },
    async nextDue() {
      const res = await db.query(
        `SELECT min((data->>'${DUE_AT}')::timestamptz) AS due FROM ${schema}.job
         WHERE state = 'created' AND start_after > now() AND data ? '${DUE_AT}'`,
      );
      const due = z
        .object({ due: z.coerce.date().nullable() })
        .catch({ due: null })
        .parse(res.rows[0] ?? {}).due;
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
      for (const timer of retryTimers) clearTimeout(timer);
      retryTimers.clear();
      await boss.stop({ graceful: so.graceful ?? true, timeout: so.timeoutMs ?? 20_000, close: false, wait: true });
      for (let turns = 0; turns < 2 || (inFlight > 0 && turns < 500); turns++)
        await new Promise<void>((resolve) => setTimeout(resolve, turns < 2 ? 0 : 10));
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
        await wo
          .onFinalFailure(ctx, reason)
          .catch((e: unknown) => ctx.log.error({ err: e }, 'recording the final failure failed'));
      }
      throw err;
    }
  }

  return queue;
}
