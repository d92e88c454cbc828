// The Probot app: builds Deps, records every webhook by its delivery id and turns it into a
// durable job, starts the workers, the sweep and the recovery of lost webhooks, and mounts health
// (and whatever extra routes the process that starts it adds).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApplicationFunction, Probot } from 'probot';
import { z } from 'zod';
import type { Clock } from './clock.ts';
import { intakeCheckName, intakeSubject } from './core/check-subject.ts';
import { SWEEP_QUEUE, type Deps } from './deps.ts';
import { handleDelivery } from './handlers/index.ts';
import { healthHandler, pathOf } from './health.ts';
import { verifyWebhookSignature } from './webhook-signature.ts';
import {
  createDeliveryIntake,
  deferDeliveryOn,
  DELIVERY_QUEUE,
  deliveryJob,
  requeuePendingDeliveries,
  submitWithin,
  type HandleDelivery,
} from './jobs/delivery-job.ts';
import type { Queue, QueueCounts } from './jobs/queue.ts';
import { DASHBOARD_QUEUE, dashboardJob } from './jobs/dashboard-job.ts';
import {
  RECOVERY_INTERVAL_MS,
  RECOVERY_QUEUE,
  recoveryJob,
  scheduleRecovery,
  sendRecovery,
  type RunRecovery,
} from './jobs/recovery-job.ts';
import { scheduleSweep, sweepJob, type RunSweep } from './jobs/sweep-job.ts';
import { InstallationBlocks } from './github/rate-limit.ts';
import { GitHubAppHooks } from './github/gateway.ts';
import type { LlmClient } from './llm/types.ts';
import { countWebhook } from './metrics.ts';
import type { StoreWithDb } from './store/store.ts';
import { recoverDeliveries } from './workflows/recover-deliveries.ts';
import { runSweep } from './workflows/sweep.ts';

export const WEBHOOK_PATH = '/api/github/webhooks';

export interface ArbiterAppOptions {
  store: StoreWithDb;
  queue: Queue;
  clock: Clock;
  llm: LlmClient;
  /**
   * Known slug (ARBITER_APP_SLUG); else asked of GitHub (`GET /app`) in the background, retried
   * until GitHub answers: webhooks are recorded meanwhile, and processed once it is known.
   */
  appSlug?: string;
  /** First wait between two tries of `GET /app` (doubling up to 30 s); tests shorten it. */
  slugRetryMs?: number;
  /** How long a webhook waits for its intake commit before it is answered 503 (INTAKE_DEADLINE_MS). */
  intakeDeadlineMs?: number;
  /** Seconds a check event's job waits (`ARBITER_CHECK_EVENT_WAIT`); default 0. */
  checkEventWaitSeconds?: number;
  /** Parallel delivery workers. */
  workers?: number;
  /** False: no repository gets a dashboard issue (ARBITER_DASHBOARD=0). Default true. */
  dashboards?: boolean;
  /** Agents trusted in every repository besides its `trust.agents` (ARBITER_TRUST_AGENTS). */
  trustedAgents?: readonly string[];
  /** Live mode: the sweep runs every minute, the webhook-delivery recovery every five, from pg-boss schedules. */
  scheduleSweep?: boolean;
  /** Extra routes, mounted beside health (the scenario runner mounts its clock control here). */
  routes?: (controls: AppControls) => RouteHandler;
  /**
   * The webhook secret: a delivery's signature is checked as its body streams in, and a bad one is
   * answered 400 in one log line without its body (src/webhook-signature.ts). Unset: Probot checks it.
   */
  webhookSecret?: string;
  /** Overridable for tests; default: src/handlers and src/workflows/sweep.ts. */
  handle?: HandleDelivery;
  sweep?: RunSweep;
  /** Default: a pass of src/workflows/recover-deliveries.ts as the app (its JWT). */
  recover?: RunRecovery;
}

/** A route that answers the request and returns true, or returns false to pass it on. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/** What extra routes can see and do: the queue's state and a tick on the app's clock. */
export interface AppControls {
  /**
   * Starts the deferred jobs due by now on the app's clock (a rate limit's wait), runs the sweep
   * (unless `sweep: false`: a driver that moves the clock more often than production's minute
   * schedule sweeps only on its minutes), and queues a pass of the webhook-delivery recovery once
   * five minutes passed since the last.
   */
  tick(opts?: { sweep?: boolean }): Promise<void>;
  counts(): Promise<QueueCounts>;
  /** The earliest due time of a deferred job, or null. */
  nextDue(): Promise<Date | null>;
  /** Webhook requests received and not yet answered. */
  inflight(): number;
  /** Every decision receipt the store holds, oldest first, as recorded (a route can replay them). */
  receipts(): Promise<{ id: number; recorded: unknown }[]>;
}

export interface ArbiterApp {
  appFn: ApplicationFunction;
  /** Resolves with the Deps once the workers run (the app slug is known). */
  ready: Promise<Deps>;
  /** Resolves once the routes (intake, health) are mounted: the server can take webhooks. */
  serving: Promise<void>;
  /** Why the app is degraded (GitHub unreachable at start), or null. */
  degraded(): string | null;
  /** Webhook requests received and not yet answered. */
  inflight(): number;
  /** Stops taking webhooks and jobs; jobs in flight finish or return to the queue. */
  shutdown(opts?: { timeoutMs?: number }): Promise<void>;
}

const AppInfo = z.object({ slug: z.string().min(1) });

async function resolveSlug(app: Probot): Promise<string> {
  const octokit = await app.auth();
  const res = await octokit.request('GET /app');
  const info = AppInfo.safeParse(res.data);
  if (!info.success) throw new Error('GET /app answered without a slug; set ARBITER_APP_SLUG');
  return info.data.slug;
}

export function createArbiterApp(opts: ArbiterAppOptions): ArbiterApp {
  let inflight = 0;
  let accepting = true;
  let resolveReady!: (d: Deps) => void;
  let rejectReady!: (e: unknown) => void;
  const ready = new Promise<Deps>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  ready.catch(() => undefined); // the caller awaits it or the app function's own rejection
  let markServing!: () => void;
  const serving = new Promise<void>((res) => (markServing = res));
  let degraded: string | null = null;
  let retryTimer: NodeJS.Timeout | undefined;
  const { store, queue } = opts;
  const handle = opts.handle ?? handleDelivery;
  const sweep = opts.sweep ?? runSweep;

  const appFn: ApplicationFunction = async (app, { addHandler }) => {
    try {
      /** Everything that needs the slug: Deps, the workers, the sweep. Once. */
      const startWorkers = async (appSlug: string): Promise<void> => {
        const deps: Deps = {
          store,
          queue,
          clock: opts.clock,
          llm: opts.llm,
          log: app.log,
          octokitFor: (installationId) => app.auth(installationId),
          appSlug,
          dashboards: opts.dashboards ?? true,
          trustedAgents: opts.trustedAgents ?? [],
        };
        current = deps;
        const requeued = await requeuePendingDeliveries(store, queue);
        if (requeued > 0) app.log.info({ deliveries: requeued }, 're-enqueued deliveries recorded before a restart');
        // One record of installations waiting out a rate limit, for every job of this app.
        const blocks = new InstallationBlocks();
        const job = deliveryJob(deps, handle, { defer: deferDeliveryOn(queue, deps), blocks });
        await queue.work(DELIVERY_QUEUE, job.handler, { ...job.options, concurrency: opts.workers ?? 4 });
        // Without the schedule (a driver's manual clock), every clock move sweeps (`tick`), on each
        // process in turn: a sweep job (one sent for the end of a rate limit's wait) would be a second
        // sweep beside it, which production's one-at-a-time schedule queue never runs. There the job
        // is only the due time that moves the driver's clock, and the move's own sweep does the work.
        await queue.work(SWEEP_QUEUE, sweepJob(deps, opts.scheduleSweep ? sweep : async () => {}));
        await queue.work(DASHBOARD_QUEUE, dashboardJob(deps, blocks));
        const recover =
          opts.recover ??
          (async () =>
            recoverDeliveries({ hooks: new GitHubAppHooks(await app.auth()), store, clock: opts.clock, log: app.log }));
        await queue.work(RECOVERY_QUEUE, recoveryJob(recover));
        if (opts.scheduleSweep) {
          await scheduleSweep(queue);
          await scheduleRecovery(queue);
        }
        // Webhooks GitHub could not deliver while this process was down: asked for again now.
        await sendRecovery(queue);
        lastRecoveryMs = opts.clock.now().getTime();
        resolveReady(deps);
      };
      let current: Deps | null = null;
      let lastRecoveryMs = 0;

      // Counts webhook requests from arrival to answer (extra routes can read it); passes them on.
      addHandler((req: IncomingMessage, res: ServerResponse) => {
        if (pathOf(req) !== WEBHOOK_PATH) return false;
        if (!accepting) {
          res.writeHead(503, { 'retry-after': '5' }).end('shutting down');
          return true;
        }
        inflight++;
        res.once('close', () => inflight--);
        return false;
      });
      if (opts.webhookSecret !== undefined) {
        const verify = verifyWebhookSignature(opts.webhookSecret, app.log);
        addHandler((req: IncomingMessage, res: ServerResponse) => pathOf(req) === WEBHOOK_PATH && verify(req, res));
      }
      addHandler(
        healthHandler({
          db: store.db,
          counts: () => queue.counts(),
          accepting: () => accepting,
          degraded: () => degraded,
        }),
      );
      if (opts.routes) {
        const tick = async (o: { sweep?: boolean } = {}) => {
          await queue.releaseDue(opts.clock.now());
          if (current && o.sweep !== false) await sweep(current);
          // The recovery's five-minute schedule, on the app's clock (a manual one has no cron).
          if (current && opts.clock.now().getTime() - lastRecoveryMs >= RECOVERY_INTERVAL_MS) {
            lastRecoveryMs = opts.clock.now().getTime();
            await sendRecovery(queue);
          }
        };
        addHandler(
          opts.routes({
            tick,
            counts: () => queue.counts(),
            nextDue: () => queue.nextDue(),
            inflight: () => inflight,
            receipts: async () => (await store.readReceipts({})).map((r) => ({ id: r.id, recorded: r.recorded })),
          }),
        );
      }

      // Intake: record, enqueue, answer. Nothing else happens inside the request. Deliveries that
      // arrive together commit together; when a commit fails, every webhook in it is answered 500
      // (GitHub shows it failed, to be redelivered): none is acknowledged before it is stored.
      // A database that does not answer within the deadline gets 503, long before Probot's own
      // 202 after 9 s would acknowledge what was never stored.
      const intake = createDeliveryIntake(store, queue, { checkEventWaitSeconds: opts.checkEventWaitSeconds ?? 0 });
      app.onAny(async (context) => {
        countWebhook(context.name, context.id);
        const result = await submitWithin(
          intake,
          {
            id: context.id,
            name: context.name,
            payload: context.payload,
            subject: intakeSubject(context.name, context.payload, current?.appSlug),
            check: intakeCheckName(context.name, context.payload, current?.appSlug),
          },
          opts.intakeDeadlineMs,
        );
        app.log.debug({ delivery: context.id, event: context.name, result }, 'webhook recorded');
      });
      markServing();

      if (opts.appSlug) {
        await startWorkers(opts.appSlug);
        return;
      }
      // GitHub may be unreachable at start: serve and record webhooks meanwhile, and ask again.
      let wait = opts.slugRetryMs ?? 1000;
      const attempt = async (): Promise<void> => {
        retryTimer = undefined;
        if (!accepting) return;
        let slug: string;
        try {
          slug = await resolveSlug(app);
        } catch (err) {
          degraded = `GitHub did not answer GET /app (the app slug; set ARBITER_APP_SLUG to skip it): ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
          app.log.warn({ retryInMs: wait }, degraded);
          retryTimer = setTimeout(() => void attempt(), wait);
          wait = Math.min(wait * 2, 30_000);
          return;
        }
        degraded = null;
        await startWorkers(slug).catch((err: unknown) => {
          degraded = `the workers did not start: ${err instanceof Error ? err.message : String(err)}`;
          app.log.error({ err }, degraded);
          rejectReady(err);
        });
      };
      await attempt();
    } catch (err) {
      markServing();
      rejectReady(err);
      throw err;
    }
  };

  return {
    appFn,
    ready,
    serving,
    degraded: () => degraded,
    inflight: () => inflight,
    async shutdown(so = {}) {
      accepting = false;
      if (retryTimer) clearTimeout(retryTimer);
      await queue.stop({ graceful: true, timeoutMs: so.timeoutMs ?? 20_000 });
    },
  };
}
