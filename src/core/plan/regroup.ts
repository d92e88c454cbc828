// A known candidate leaves its group, planned (pure): retargeted to another base, its old group's
// round starts again; or an untrusted author's admitted candidate got a head nobody admitted, and
// it is withdrawn. workflows/regroup.ts reads the round and applies these through the executor.
import type { Action } from '../actions.ts';
import { changeActionKey } from '../keys.ts';

/** A candidate that moved from base `from` to `to`; `round`: the old group's current round. */
export interface RetargetView {
  repo: string;
  change: number;
  pr: number;
  from: string;
  to: string;
  /** `decided`: a selection claimed it or a decision was recorded, so it makes way for the next. */
  round: { number: number; decided: boolean };
  token: string;
}

/** The old group compares what remains afresh: its decided round makes way for the next; the move is logged. */
export function planRetarget(view: RetargetView, now: string): Action[] {
  const k = (what: string): string =>
    changeActionKey(view.repo, view.change, 'retarget', view.token, `${view.pr}@${view.from}`, what);
  const { change, from: base } = view;
  return [
    ...(view.round.decided
      ? [{ kind: 'open-round' as const, key: k('next-round'), change, base, from: view.round.number, at: now }]
      : []),
    {
      kind: 'event',
      key: k('event'),
      event: 'candidate.retargeted',
      data: { pr: view.pr, from: view.from, to: view.to },
      at: now,
    },
  ];
}

/** An open candidate whose new head `headSha` no maintainer admitted. */
export interface UnadmittedHeadView {
  repo: string;
  change: number;
  pr: number;
  headSha: string;
  token: string;
}

export const UNADMITTED_REASON = 'a new head that no maintainer admitted';

/**
 * The candidate leaves its group (withdrawn), which is logged. Recorded in both modes (`observed`):
 * a head nobody admitted is never compared, whatever the mode.
 */
export function planUnadmittedHead(view: UnadmittedHeadView, now: string): Action[] {
  const k = (what: string): string =>
    changeActionKey(view.repo, view.change, 'unadmitted', view.token, `${view.pr}@${view.headSha}`, what);
  return [
    { kind: 'set-state', key: k('state'), pr: view.pr, state: 'withdrawn', reason: UNADMITTED_REASON, observed: true },
    {
      kind: 'event',
      key: k('event'),
      event: 'candidate.unadmitted-head',
      data: { pr: view.pr, headSha: view.headSha },
      at: now,
    },
  ];
}
