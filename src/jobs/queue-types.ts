// The queue's contract: what a job sees, what the queue offers, its options and its job ids.
import { createHash } from 'node:crypto';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { JobQueue } from '../deps.ts';
import type { Queryable } from '../store/db.ts';

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
export interface Queue extends JobQueue {
  /** Sends a job whose id is derived from `key`: a second send with the same key adds nothing. */
  sendOnce(name: string, data: Record<string, unknown>, key: string): Promise<string | null>;
  /**
   * Creates the queue if it is missing (with `policy`, or updates an existing one to it). `insertOnce`
   * needs it, and runs inside a transaction that must not wait on pg-boss's own statements.
   */
  prepare(name: string, policy?: QueuePolicy): Promise<void>;
  /**
   * Inserts jobs in one statement on `tx`, each with the id `sendOnce` derives from its key, so a
   * key sent before adds nothing; `startAfterSeconds`: the job starts that long after the insert
   * (on the database's clock). The queue must be prepared. Call `wake` once `tx` committed.
   */
  insertOnce(
    name: string,
    jobs: { key: string; data: Record<string, unknown>; startAfterSeconds?: number }[],
    tx: Queryable,
  ): Promise<void>;
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
   * How often an idle worker looks for jobs nobody woke it for. Every send from this process
   * wakes its workers at once, and so does a retry coming due when retries have no backoff
   * (`fast`); the scenario runner sets a longer interval, as its one process sends every job.
   */
  pollingIntervalSeconds?: number;
  /**
   * Return jobs left `active` to the queue at start. Only safe when no other process can be
   * working on them: default true on PGlite (one process owns the folder); the scenario runner
   * (one process at a time) turns it on for PostgreSQL too. Otherwise pg-boss expiry applies.
   */
  recoverActiveAtStart?: boolean;
  /** The app's clock is manual (scenario runs): deferred jobs are held until `releaseDue`. */
  manualClock?: boolean;
}

/** How long after a job ended it counts as over (see `jobState`). */
export const JOB_OVER_GRACE_MS = 10 * 60 * 1000;

/** The pg-boss queue policies Arbiter uses. */
export type QueuePolicy = 'standard' | 'singleton';

/** A stable UUID for a key (name-based, version 5 layout), so a job can be sent idempotently. */
export function jobIdFor(name: string, key: string): string {
  const h = createHash('sha1').update(`arbiter:${name}:${key}`).digest('hex');
  const variant = ((parseInt(h[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
