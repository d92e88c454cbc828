// What a person's command records of its Change's rounds, as actions (issue 26 item 1): a rejected
// candidate that left its round (the next round, or the note that none is left and the Change before
// a person), a `rank` that compares again, and a `recheck` that judges acceptance again. Pure:
// workflows/people.ts reads the round and the candidates and applies these through the executor.
import type { Action } from '../actions.ts';
import { changeActionKey, rejectionActionKey } from '../keys.ts';
import { planNoneLeft } from './none-left.ts';

/** A round and the candidate a person's command is about. */
export interface PersonRoundView {
  repo: string;
  change: number;
  base: string;
  /** The round as the command read it: its number, and whether it was decided or claimed. */
  round: { number: number; decided: boolean; claimed: boolean };
  pr: number;
  headSha: string;
  now: string;
}

const openRound = (view: PersonRoundView, key: string): Action => ({
  kind: 'open-round',
  key,
  change: view.change,
  base: view.base,
  from: view.round.number,
  at: view.now,
});

/**
 * The rejected candidate left its round (closed): `remaining` open candidates on its base. With some
 * left, a decided round makes way for the next (the Change open again) and the step selects again;
 * with none left, the Change says so and waits for a person. Keyed by the rejection of that head.
 */
export function planLeftRound(view: PersonRoundView & { remaining: number; prefix: string }): {
  actions: Action[];
  select: boolean;
} {
  const k = (what: string): string => rejectionActionKey(view.repo, view.change, view.pr, view.headSha, what);
  const state = (to: 'open' | 'human'): Action => ({
    kind: 'set-change-state',
    key: k(`change-state/${to}`),
    change: view.change,
    state: to,
  });
  if (view.remaining > 0)
    return { actions: view.round.decided ? [openRound(view, k('next-round')), state('open')] : [], select: true };
  const { repo, change, base, pr, headSha, prefix } = view;
  return { actions: [...planNoneLeft({ repo, change, base, pr, headSha, prefix }), state('human')], select: false };
}

/** `rank`: a round already claimed makes way for the next one, which the step then compares. Keyed by the command's run. */
export function planRankRound(view: PersonRoundView & { token: string }): Action[] {
  const key = changeActionKey(view.repo, view.change, 'rank', view.token, view.base, 'next-round');
  return view.round.claimed ? [openRound(view, key)] : [];
}

/**
 * `recheck`: the head's acceptance is forgotten and judged again, in the next round when this one
 * was claimed, and the candidate is verifying meanwhile. Keyed by the command's run, so a later
 * recheck of the same head judges again. Kept in shadow mode, which re-runs acceptance too.
 */
export function planRecheck(view: PersonRoundView & { token: string }): Action[] {
  const k = (what: string): string => changeActionKey(view.repo, view.change, 'recheck', view.token, view.pr, what);
  return [
    { kind: 'forget-evidence', key: k('acceptance'), pr: view.pr, headSha: view.headSha, evidence: 'acceptance' },
    ...(view.round.claimed ? [openRound(view, k('next-round'))] : []),
    {
      kind: 'set-state',
      key: k('verifying'),
      pr: view.pr,
      state: 'verifying',
      reason: 'acceptance re-run on request',
      // What happens in both modes: acceptance is judged again (the candidate's check says so).
      observed: true,
    },
  ];
}
