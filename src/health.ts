// GET /arbiter/health: the store answers a query and the queue can be counted, each within a
// second → 200 with the counts (status `degraded`, with the reason, while GitHub has not answered
// at start); otherwise 503 with what failed. Used by load balancers and the scenario runner.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateBudgets, type RateBudget } from './github/rate-budget.ts';
import type { QueueCounts } from './jobs/queue.ts';
import type { Db } from './store/db.ts';

export const HEALTH_PATH = '/arbiter/health';

export interface HealthSources {
  db: Pick<Db, 'query' | 'kind'>;
  counts(): Promise<QueueCounts>;
  /** False while the process is shutting down. */
  accepting(): boolean;
  /** Why the app works only in part (GitHub unreachable: webhooks recorded, not processed), or null. */
  degraded?(): string | null;
}

export interface HealthReport {
  ok: boolean;
  store: 'ok' | string;
  backend: 'pglite' | 'postgres';
  queue: QueueCounts | string;
  shuttingDown: boolean;
  /** GitHub's rate limit left, by installation id and resource (`core`, `graphql`), as the latest answers reported it. */
  github: Record<string, Record<string, RateBudget>>;
  /** `degraded`: serving and recording webhooks, but not processing them yet (see `reason`). */
  status: 'ok' | 'degraded' | 'failing';
  reason: string | null;
}

/** A store that does not answer this fast is reported failing (a stalled database never answers at all). */
export const HEALTH_DEADLINE_MS = 1_000;

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export async function checkHealth(src: HealthSources, deadlineMs = HEALTH_DEADLINE_MS): Promise<HealthReport> {
  const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 300);
  const store = await within(src.db.query('SELECT 1 AS ok'), deadlineMs).then(
    () => 'ok',
    (err: unknown) => `failed: ${reason(err)}`,
  );
  const queue = await within(src.counts(), deadlineMs).catch((err: unknown) => `failed: ${reason(err)}`);
  const shuttingDown = !src.accepting();
  const ok = store === 'ok' && typeof queue !== 'string' && !shuttingDown;
  const degraded = src.degraded?.() ?? null;
  const status = !ok ? 'failing' : degraded ? 'degraded' : 'ok';
  const why = !ok
    ? store !== 'ok'
      ? `store ${store}`
      : typeof queue === 'string'
        ? `queue ${queue}`
        : 'shutting down'
    : degraded;
  return {
    ok,
    store,
    backend: src.db.kind,
    queue,
    shuttingDown,
    status,
    reason: why,
    github: Object.fromEntries(
      rateBudgets.all().map(([id, budgets]) => [id, Object.fromEntries(budgets.map((b) => [b.resource, b]))]),
    ),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export const pathOf = (req: IncomingMessage): string => new URL(req.url ?? '/', 'http://localhost').pathname;

/** A Probot server handler: answers the health path, passes on everything else. */
export function healthHandler(src: HealthSources) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (pathOf(req) !== HEALTH_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'GET only' });
      return true;
    }
    const report = await checkHealth(src);
    sendJson(res, report.ok ? 200 : 503, report);
    return true;
  };
}
