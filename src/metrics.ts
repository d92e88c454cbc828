// What Arbiter spends and decides, as Prometheus metrics (prom-client), and `GET /metrics`, which
// is served only with ARBITER_METRICS_TOKEN, and then only to that bearer token: it shares the
// public webhook port, and its labels name installations.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { rateBudgets } from './github/rate-budget.ts';
import type { QueueCounts } from './jobs/queue.ts';

export const METRICS_PATH = '/metrics';

/** One registry per process: the counters below are shared by every part of the app. */
export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'arbiter_' });

const webhooks = new Counter({
  name: 'arbiter_webhooks_received_total',
  help: 'Webhook deliveries received, by event (before deduplication of redeliveries).',
  labelNames: ['event'] as const,
  registers: [registry],
});

const decisions = new Counter({
  name: 'arbiter_decisions_total',
  help: 'Rounds decided, by verdict (ship, human, repair, ...).',
  labelNames: ['verdict'] as const,
  registers: [registry],
});

const settleToDecision = new Histogram({
  name: 'arbiter_settle_to_decision_seconds',
  help: "Seconds from the arrival of the webhook that settled a round's last candidate to the round's decision.",
  buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900],
  registers: [registry],
});

const githubRequests = new Counter({
  name: 'arbiter_github_requests_total',
  help: 'GitHub API requests, by route (method and path template; token requests included) and status (0: no answer).',
  labelNames: ['route', 'status'] as const,
  registers: [registry],
});

const pacingWait = new Counter({
  name: 'arbiter_github_pacing_wait_seconds_total',
  help: "Seconds GitHub requests waited for their installation's pacing bucket (writes: every write and GraphQL call; content: notifying writes), by installation (`installation-<id>`, `app`) and bucket; waits under 100 ms are the scheduler's own latency and not counted.",
  labelNames: ['installation', 'bucket'] as const,
  registers: [registry],
});

const pacedRequests = new Counter({
  name: 'arbiter_github_paced_requests_total',
  help: 'GitHub requests that went through a pacing bucket, by installation and bucket (waited or not).',
  labelNames: ['installation', 'bucket'] as const,
  registers: [registry],
});

const modelCalls = new Counter({
  name: 'arbiter_model_calls_total',
  help: 'Model calls, by tier and outcome (ok, or the gap: timeout, rate-limited, budget, ...).',
  labelNames: ['tier', 'outcome'] as const,
  registers: [registry],
});

const modelTokens = new Counter({
  name: 'arbiter_model_tokens_total',
  help: 'Model tokens, by tier and direction (input, output), as the API reported them.',
  labelNames: ['tier', 'direction'] as const,
  registers: [registry],
});

new Gauge({
  name: 'arbiter_github_rate_limit_remaining',
  help: "GitHub's x-ratelimit-remaining on the latest answer, by installation (0: the app itself) and resource (core, graphql, ...).",
  labelNames: ['installation', 'resource'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [installation, budgets] of rateBudgets.all())
      for (const b of budgets) this.set({ installation: String(installation), resource: b.resource }, b.remaining);
  },
});

let queueCounts: (() => Promise<QueueCounts>) | null = null;

new Gauge({
  name: 'arbiter_jobs',
  help: 'Jobs in the queue, by state (queued: waiting or waiting to retry; active: running).',
  labelNames: ['state'] as const,
  registers: [registry],
  async collect() {
    if (!queueCounts) return;
    const counts = await queueCounts().catch(() => null);
    if (!counts) return;
    this.set({ state: 'queued' }, counts.queued);
    this.set({ state: 'active' }, counts.active);
  },
});

/** Arrival times (wall clock) of recent deliveries, to time the decision one of them leads to. */
const arrivals = new Map<string, number>();
const MAX_ARRIVALS = 10_000;

export function countWebhook(event: string, deliveryId: string): void {
  webhooks.inc({ event });
  if (!arrivals.has(deliveryId)) arrivals.set(deliveryId, performance.now());
  // Oldest first: a Map iterates in insertion order.
  for (const oldest of arrivals.keys()) {
    if (arrivals.size <= MAX_ARRIVALS) break;
    arrivals.delete(oldest);
  }
}

/**
 * A round was decided by the run that processes delivery `deliveryId` (null: a sweep's run): the
 * delivery that settled the last candidate, so its arrival is when the round became decidable.
 */
export function countDecision(verdict: string, deliveryId: string | null): void {
  decisions.inc({ verdict });
  const arrived = deliveryId === null ? undefined : arrivals.get(deliveryId);
  if (arrived !== undefined) settleToDecision.observe((performance.now() - arrived) / 1000);
}

export function countGithubRequest(route: string, status: number): void {
  githubRequests.inc({ route, status: String(status) });
}

/** A wait shorter than this is the scheduler's own latency, not a wait for a token. */
const PACING_WAIT_FLOOR_SECONDS = 0.1;

export function countPacingWait(installation: string, bucket: string, seconds: number): void {
  pacedRequests.inc({ installation, bucket });
  if (seconds >= PACING_WAIT_FLOOR_SECONDS) pacingWait.inc({ installation, bucket }, seconds);
}

export function countModelCall(tier: string, outcome: string, usage?: { input: number; output: number }): void {
  modelCalls.inc({ tier, outcome });
  if (usage) {
    modelTokens.inc({ tier, direction: 'input' }, usage.input);
    modelTokens.inc({ tier, direction: 'output' }, usage.output);
  }
}

export interface MetricsOptions {
  /** Unset: the path is not served. Set: a request needs `authorization: Bearer <token>`. */
  token: string | undefined;
  counts?: () => Promise<QueueCounts>;
}

const sameSecret = (given: string, token: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** A Probot server handler for GET /metrics; passes every other path on (and this one when off). */
export function metricsHandler(opts: MetricsOptions) {
  if (opts.counts) queueCounts = opts.counts;
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (opts.token === undefined || new URL(req.url ?? '/', 'http://localhost').pathname !== METRICS_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET' }).end('GET only\n');
      return true;
    }
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === undefined || !sameSecret(bearer, opts.token)) {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end('a bearer token is needed\n');
      return true;
    }
    const body = await registry.metrics();
    res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(body);
    return true;
  };
}
