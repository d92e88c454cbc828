// Shadow mode in one place: the one filter the executor applies to every plan (selection, a
// person's command, after-merge, sweep), and the one reader of the configured mode outside the
// renderers (test/architecture/shadow-mode.test.ts). Pure: it only drops actions (an `in-repo` action's too).
import { PR_STATE_ACTIONS, type Action } from './actions.ts';

export type Mode = 'live' | 'shadow';

/**
 * What of a plan may run in this mode. Shadow mode keeps comments, check runs and receipts, the
 * claims and budget takes that decide a race between runs (records, no PR-state write), and
 * state changes that record what already happened on GitHub; it drops every PR-state write,
 * every dispatch, every claim of the Change's one repair, every decided state change (no
 * candidate leaves its group on a decision that was not carried out) and the take of an
 * auto-merge's mark that goes with its withdrawal.
 */
export function forMode(actions: readonly Action[], config: { mode: Mode }): Action[] {
  if (config.mode === 'live') return [...actions];
  return actions
    .filter((a) => {
      if (PR_STATE_ACTIONS.has(a.kind) || a.kind === 'claim-repair') return false;
      // Nothing is dispatched, so no refine is awaited and no explore's slot composes.
      if (a.kind === 'record-deep' || a.kind === 'start-portfolio') return false;
      // An auto-merge's mark is taken with its withdrawal, which is kept back: the mark stays with it.
      if (a.kind === 'take-mark') return false;
      if (a.kind === 'set-state' || a.kind === 'set-change-state') return a.observed === true;
      return true;
    })
    .map((a) =>
      // Another repository's actions follow this plan's mode: its PR-state writes are dropped too.
      a.kind === 'in-repo' ? { ...a, actions: a.actions.filter((i) => !PR_STATE_ACTIONS.has(i.kind)) } : a,
    );
}
