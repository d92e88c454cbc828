// Which lost webhook deliveries to ask GitHub for again, decided from GitHub's list of delivery
// attempts (`GET /app/hook/deliveries`) and the delivery ids the store has recorded. Pure: the
// workflow (src/workflows/recover-deliveries.ts) reads both and sends what this plans.

/** One attempt GitHub made to deliver a webhook to the app. */
export interface HookDeliveryAttempt {
  /** The attempt's own id: what a redelivery names. */
  id: number;
  /** The webhook's X-GitHub-Delivery, the same for every attempt of it. */
  guid: string;
  /** ISO time on GitHub's clock. */
  deliveredAt: string;
  redelivery: boolean;
  /** "OK" when the app answered 2xx; else what went wrong, e.g. "Invalid HTTP Response: 503". */
  status: string;
  /** The app's HTTP answer; 0 when there was none (no connection, a timeout). */
  statusCode: number;
  event: string;
  action: string | null;
}

export interface RecoveryLimits {
  /** Attempts older than this are not looked at (GitHub redelivers up to three days back). */
  lookbackHours: number;
  /** Pages of 100 attempts read at most per pass, newest first. */
  maxPages: number;
  /** Redeliveries asked at most per pass; the rest wait for the next pass. */
  maxPerPass: number;
  /**
   * A webhook whose redelivery failed again is asked for again only after a wait that doubles
   * with each failed attempt, starting here: a delivery the app can never take (a bad signature
   * after a secret change) does not take every pass's budget for three days.
   */
  backoffMinutes: number;
}

export const RECOVERY_LIMITS: RecoveryLimits = { lookbackHours: 72, maxPages: 20, maxPerPass: 50, backoffMinutes: 5 };

export const attemptFailed = (a: HookDeliveryAttempt): boolean => a.statusCode >= 400 || a.status !== 'OK';

/** A webhook none of whose attempts succeeded. */
export interface FailedDelivery {
  guid: string;
  event: string;
  action: string | null;
  /** The latest attempt (the one a redelivery names). */
  latest: HookDeliveryAttempt;
  /** When it was first attempted (the order of recovery: oldest first). */
  firstAt: string;
  failures: number;
}

const time = (iso: string): number => {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : 0;
};

/** Webhooks every attempt of which failed, oldest first. */
export function failedDeliveries(attempts: readonly HookDeliveryAttempt[]): FailedDelivery[] {
  const byGuid = new Map<string, HookDeliveryAttempt[]>();
  for (const a of attempts) byGuid.set(a.guid, [...(byGuid.get(a.guid) ?? []), a]);
  const failed: FailedDelivery[] = [];
  for (const [guid, list] of byGuid) {
    if (list.some((a) => !attemptFailed(a))) continue;
    const sorted = [...list].sort((x, y) => time(x.deliveredAt) - time(y.deliveredAt) || x.id - y.id);
    const first = sorted[0];
    const latest = sorted[sorted.length - 1];
    if (!first || !latest) continue;
    failed.push({
      guid,
      event: latest.event,
      action: latest.action,
      latest,
      firstAt: first.deliveredAt,
      failures: sorted.length,
    });
  }
  return failed.sort((x, y) => time(x.firstAt) - time(y.firstAt) || (x.guid < y.guid ? -1 : x.guid > y.guid ? 1 : 0));
}

/** Whether a failed webhook is due for another ask: at once after one failure, then after a doubling wait. */
export function redeliveryDue(f: FailedDelivery, now: Date, limits: RecoveryLimits = RECOVERY_LIMITS): boolean {
  if (f.failures <= 1) return true;
  const wait = limits.backoffMinutes * 60_000 * 2 ** (f.failures - 2);
  return now.getTime() - time(f.latest.deliveredAt) >= wait;
}

export interface PlannedRedelivery {
  /** The attempt to redeliver. */
  id: number;
  guid: string;
  event: string;
  action: string | null;
}

/**
 * One pass: the failed webhooks the store has not recorded (a failed answer whose commit still
 * landed is not lost), that are due, oldest first, each once, at most `maxPerPass`.
 */
export function planRedeliveries(
  failed: readonly FailedDelivery[],
  recorded: ReadonlySet<string>,
  now: Date,
  limits: RecoveryLimits = RECOVERY_LIMITS,
): PlannedRedelivery[] {
  const seen = new Set<string>();
  const plan: PlannedRedelivery[] = [];
  for (const f of failed) {
    if (plan.length >= limits.maxPerPass) break;
    if (recorded.has(f.guid) || seen.has(f.guid) || !redeliveryDue(f, now, limits)) continue;
    seen.add(f.guid);
    plan.push({ id: f.latest.id, guid: f.guid, event: f.event, action: f.action });
  }
  return plan;
}
