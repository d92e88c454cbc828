// What a promotion's steps record in the store, as actions (issue 26 item 1): the Change's state a
// decided round or a merge's answer leaves, and the next round a moved or updated head opens (the
// candidate verified again, the event that says why, and for a moved head its one re-verify).
// Pure: workflows/promote.ts reads the decision and the answer and applies these through the
// executor. Each records what happened (a decided round's gate, GitHub's answer), so shadow mode
// keeps it, as it kept these writes before they were actions.
import { recordAction, type Action } from '../actions.ts';
import { branchUpdatedKey, changeActionKey, reverifyKey } from '../keys.ts';

/** The decision the records belong to. */
export interface PromotionRecordsView {
  repo: string;
  change: number;
  base: string;
  round: number;
  /** Names the decision in every key: `base/rN`, or `promote/PR@SHA` (as the merge answer's own actions). */
  scope: string;
  now: string;
}

/** What happened: a round decided for a person or a repair, or the merge's answer for `pr` at `sha`. */
export type PromotionRecord =
  | { what: 'verdict'; verdict: 'human' | 'repair' }
  | { what: 'updated' | 'moved' | 'refused' | 'shipped'; pr: number; sha: string };

const NEXT_ROUND = {
  updated: { reason: 'branch updated: the new head is verified', event: 'promotion.branch-updated' },
  moved: { reason: 'head moved during promotion', event: 'promotion.head-moved' },
} as const;

/** The store records of one promotion step, each keyed so a retry or a redelivery applies it once. */
export function planPromotionRecords(view: PromotionRecordsView & PromotionRecord): Action[] {
  const { repo, change, round, now } = view;
  const k = (...path: (string | number)[]): string => changeActionKey(repo, change, view.scope, 'after', ...path);
  const state = (key: string, to: 'human' | 'open' | 'shipped'): Action => ({
    kind: 'set-change-state',
    key,
    change,
    state: to,
    observed: true,
  });
  switch (view.what) {
    case 'verdict':
      // A person's gate waits for a person; a repair leaves the Change open for the repaired head.
      return [state(k('change-state', view.verdict), view.verdict === 'human' ? 'human' : 'open')];
    case 'refused':
      return [state(k('change-state', view.pr), 'human')];
    case 'shipped':
      // Once per shipped candidate, whichever run (its promoter, the merge's webhook) got here first.
      return [state(changeActionKey(repo, change, 'shipped', 'change-state', view.pr), 'shipped')];
    case 'updated':
    case 'moved': {
      const { pr, sha } = view;
      const next = NEXT_ROUND[view.what];
      const actions: Action[] = [
        { kind: 'open-round', key: k('next-round', view.what, pr), change, base: view.base, from: round, at: now },
        {
          kind: 'set-state',
          key: k('verify', view.what, pr),
          pr,
          state: 'verifying',
          reason: next.reason,
          observed: true,
        },
        { kind: 'event', key: k('event', view.what, pr), event: next.event, data: { pr, sha, round }, at: now },
      ];
      // Arbiter updated this branch once from `sha`: the update's merge commit falling behind again goes to a person.
      if (view.what === 'updated') actions.push(recordAction(branchUpdatedKey(repo, pr, sha), { sha, round }));
      return actions;
    }
  }
}

/**
 * The record that a moved head is verified again once per sha: its action applied now says the
 * step verifies it; recorded before, a head that keeps answering 409 waits for its synchronize webhook.
 * Applied after the answer's own check (planMergeAnswer's `moved` actions).
 */
export const reverifyOnce = (view: Pick<PromotionRecordsView, 'repo' | 'round'>, pr: number, sha: string): Action =>
  recordAction(reverifyKey(view.repo, pr, sha), { round: view.round });
