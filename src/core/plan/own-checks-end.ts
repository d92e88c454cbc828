// A candidate that leaves (withdrawn, stale, rejected, cancelled) before its own checks finished:
// each of `Arbiter / gate` and `Arbiter / acceptance` that was shown and is still in progress is
// completed, neutral, with the reason. Pure: the shell reads what was stored and shown.
import type { Action } from '../actions.ts';
import { changeActionKey } from '../keys.ts';

/** What the shell read of a leaving candidate's own checks. */
export interface OwnChecksView {
  pr: number;
  headSha: string;
  change: number;
  /** `unevaluated`: no gate evidence, so neither check was started; `settled`: the gate check concluded. */
  gate: 'unevaluated' | 'open' | 'settled';
  /** Acceptance evidence is stored for this head: the acceptance check concluded with it. */
  acceptanceRecorded: boolean;
  /** Which checks were shown on the head (the gate once a required check concluded, acceptance with its result). */
  shown: { gate: boolean; acceptance: boolean };
}

/** The completions of the view's checks still in progress, keyed per head, with `reason` in title and summary. */
export function planOwnChecksEnd(view: OwnChecksView, reason: string, repo: string): Action[] {
  if (view.gate === 'unevaluated') return [];
  const k = (name: string): string => changeActionKey(repo, view.change, 'ends', `${view.pr}@${view.headSha}`, name);
  const base = {
    pr: view.pr,
    headSha: view.headSha,
    status: 'completed',
    conclusion: 'neutral',
    title: `Not finished: ${reason}`,
    summary: `${reason}: this candidate left the comparison before the check finished.`,
  } as const;
  return [
    ...(view.gate === 'settled' || !view.shown.gate
      ? []
      : [{ kind: 'check-run' as const, key: k('gate'), name: 'Arbiter / gate' as const, ...base }]),
    ...(view.acceptanceRecorded || !view.shown.acceptance
      ? []
      : [{ kind: 'check-run' as const, key: k('acceptance'), name: 'Arbiter / acceptance' as const, ...base }]),
  ];
}
