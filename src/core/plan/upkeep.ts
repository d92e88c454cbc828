// What the sweep prunes each minute (workflows/sweep.ts): the records that can no longer matter,
// each once nothing reads it any more. Pure: `now` is the sweep's clock.
import { CHANGE_ISSUE_RECORDS, KEY_NAMESPACES, VERIFY_RUN_RECORDS, withActionClaims } from '../keys.ts';
import type { UpkeepAction } from '../record-actions.ts';

const HOUR_MS = 3_600_000;

/**
 * How long a check event for a head nobody recorded is kept: a head that is a candidate's is
 * recorded within minutes, and the sweep verifies a kept head after a minute.
 */
export const KEPT_CHECK_EVENT_HOURS = 24;

/**
 * How long the records of one run on a head are kept (a verification's evidence and checks, a kept
 * check event's keeping and taking): each key names its run and time, so only that run's own plan
 * reads it, and a job is retried for far less (queue.ts). Kept as long as a kept check event.
 */
export const RUN_RECORD_HOURS = KEPT_CHECK_EVENT_HOURS;

export interface UpkeepView {
  /** The dashboard's per-minute claims and edits (workflows/dashboard.ts), with the executor's claims of those edits. */
  dashboardRuns: readonly string[];
}

const ago = (now: string, hours: number): string => new Date(Date.parse(now) - hours * HOUR_MS).toISOString();

/**
 * The sweep's prune. After an hour: the dashboard's claims (they only keep runs a minute apart, and
 * an edit's key is its minute's), the sweep's takes of a waiting-stale mark (read by that sweep's
 * plan alone) and a branch's rules (read only in their five-minute window, workflows/branch-rules.ts).
 * After RUN_RECORD_HOURS: a kept check event's keeping and taking (by then the event itself is
 * pruned, taken by its head's run or by the sweep long before), a verification's records (a head
 * verified again is another run, under its own keys) and a run's storing of a Change's issue.
 */
export function planUpkeep(view: UpkeepView, now: string): UpkeepAction[] {
  const hourAgo = ago(now, 1);
  const runsAgo = ago(now, RUN_RECORD_HOURS);
  return [
    {
      kind: 'prune',
      keptBefore: ago(now, KEPT_CHECK_EVENT_HOURS),
      ledger: [
        ...view.dashboardRuns.map((prefix) => ({ prefix, before: hourAgo })),
        ...withActionClaims(KEY_NAMESPACES.waitingTaken).map((prefix) => ({ prefix, before: hourAgo })),
        ...withActionClaims(KEY_NAMESPACES.branchRules).map((prefix) => ({ prefix, before: hourAgo })),
        ...withActionClaims(KEY_NAMESPACES.keptCheck).map((prefix) => ({ prefix, before: runsAgo })),
        { pattern: VERIFY_RUN_RECORDS, before: runsAgo },
        { pattern: CHANGE_ISSUE_RECORDS, before: runsAgo },
      ],
    },
  ];
}
