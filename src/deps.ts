// What every workflow and handler is given: the store, the queue, the clock, the model client
// and a way to get an installation's GitHub client. Built once in src/app.ts.
import type { Logger } from 'pino';
import type { ProbotOctokit } from 'probot';
import type { Clock } from './clock.ts';
import type { LlmClient } from './llm/types.ts';
import type { Store } from './store/types.ts';

export type Octokit = InstanceType<typeof ProbotOctokit>;

export interface JobOptions {
  /** At most one queued job with this key at a time. */
  singletonKey?: string;
  startAfterSeconds?: number;
}

/**
 * Where a job stands: waiting (or waiting to retry), running, over (done, failed or cancelled, a
 * grace period ago, so a handler that outlived its expiry has stopped too), or gone.
 */
export type JobState = 'pending' | 'active' | 'over' | 'missing';

/** The queue of webhook deliveries' jobs (src/jobs/delivery-job.ts); the sweep asks after a delivery's job in it. */
export const DELIVERY_QUEUE = 'delivery';

/** The sweep's queue (src/jobs/sweep-job.ts): its minute schedule, and a sweep sent for the end of a rate limit's wait. */
export const SWEEP_QUEUE = 'sweep';

export interface JobQueue {
  send(name: string, data: Record<string, unknown>, opts?: JobOptions): Promise<string | null>;
  /** The state of the job sent once under `key` (`sendOnce`). */
  jobState(name: string, key: string): Promise<JobState>;
  /**
   * Sends a job, once per `key` (a second send adds nothing), that starts when the app's clock
   * reaches `dueAt`: debounced work such as the dashboard's refresh.
   */
  sendOnceAt(name: string, data: Record<string, unknown>, key: string, dueAt: Date, now: Date): Promise<string | null>;
}

export interface Deps {
  store: Store;
  queue: JobQueue;
  clock: Clock;
  llm: LlmClient;
  log: Logger;
  octokitFor(installationId: number): Promise<Octokit>;
  /** The app's slug; its bot login is `${appSlug}[bot]`, used to recognise Arbiter's own acts. */
  appSlug: string;
  /** False: no repository gets a dashboard issue, whatever its config (ARBITER_DASHBOARD=0; scenario runs by default). */
  dashboards?: boolean;
  /**
   * Agents trusted in every repository besides its `trust.agents` (ARBITER_TRUST_AGENTS): names or
   * logins. The scenario runner lists its default candidate author here.
   */
  trustedAgents?: readonly string[];
}
