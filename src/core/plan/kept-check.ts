// A check event on a head no candidate has recorded yet, or one a later delivery on its group reads:
// the event is kept, and taken by whichever run verifies the head (handlers/checks.ts). Planned as
// store records, one per run and time. Pure: the handler decides when to keep and when to take.
import type { Action } from '../actions.ts';
import { keptCheckKey } from '../keys.ts';

/** The head the event names, and the run (its token) that handles the event. */
export interface KeptCheckView {
  repo: string;
  headSha: string;
  token: string;
}

/** Keeps the event on the head. */
export const planKeepCheck = (view: KeptCheckView, now: string): Action[] => [
  {
    kind: 'keep-check',
    key: keptCheckKey(view.repo, view.headSha, now, view.token, 'keep'),
    headSha: view.headSha,
    at: now,
  },
];

/**
 * Takes the head's kept events: this run verifies its candidates, so no later run repeats it.
 * `forGroupOf`: the pull request whose small group this run reads whole (workflows/flow.ts), a take
 * of its own beside the handler's own take of that head in the same run.
 */
export const planTakeKept = (view: KeptCheckView, now: string, forGroupOf?: number): Action[] => [
  {
    kind: 'take-kept-checks',
    key: keptCheckKey(
      view.repo,
      view.headSha,
      now,
      view.token,
      forGroupOf === undefined ? 'take' : `take-for-${forGroupOf}`,
    ),
    headSha: view.headSha,
  },
];
