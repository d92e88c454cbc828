// The recovery of lost webhooks: GitHub never redelivers on its own, so at start and every few
// minutes Arbiter reads its webhook's recent delivery attempts, and asks GitHub to deliver again
// each webhook that failed (the app answered 4xx/5xx, or not at all) and that the store never
// recorded; src/core/redelivery.ts decides which, oldest first and bounded.
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { failedDeliveries, planRedeliveries, RECOVERY_LIMITS, type RecoveryLimits } from '../core/redelivery.ts';
import type { AppHooksPort } from '../github/port.ts';
import type { Store } from '../store/types.ts';

export interface RecoveryInput {
  hooks: AppHooksPort;
  store: Pick<Store, 'knownDeliveries'>;
  clock: Clock;
  log: Logger;
}

export interface RecoveryPass {
  /** Attempts read within the lookback. */
  listed: number;
  /** Webhooks no attempt of which succeeded. */
  failed: number;
  /** GUIDs GitHub was asked to deliver again, oldest first. */
  asked: string[];
  /** GUIDs whose redelivery GitHub refused (logged; the next pass tries again). */
  refused: string[];
}

export async function recoverDeliveries(
  input: RecoveryInput,
  limits: RecoveryLimits = RECOVERY_LIMITS,
): Promise<RecoveryPass> {
  const now = input.clock.now();
  const since = new Date(now.getTime() - limits.lookbackHours * 3_600_000);
  const attempts = await input.hooks.listDeliveries(since, limits.maxPages);
  const failed = failedDeliveries(attempts);
  const recorded = failed.length > 0 ? await input.store.knownDeliveries(failed.map((f) => f.guid)) : new Set<string>();
  const plan = planRedeliveries(failed, recorded, now, limits);
  const asked: string[] = [];
  const refused: string[] = [];
  for (const r of plan) {
    try {
      await input.hooks.redeliver(r.id);
      asked.push(r.guid);
    } catch (err) {
      refused.push(r.guid);
      input.log.warn({ delivery: r.guid, attempt: r.id, err }, 'GitHub refused to redeliver a lost webhook');
    }
  }
  if (asked.length > 0 || refused.length > 0) {
    input.log.info(
      { listed: attempts.length, failed: failed.length, asked, refused },
      'asked GitHub to redeliver webhooks it could not deliver',
    );
  }
  return { listed: attempts.length, failed: failed.length, asked, refused };
}
