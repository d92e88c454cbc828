// A Change's rounds start again, planned (pure): a person reopened the cancelled Change, or its
// criteria changed. Each base whose round was claimed makes way for the next round, and every open
// candidate is verified again. workflows/change-state.ts reads the rounds and candidates, applies
// these through the executor, and verifies each candidate right after its own state is set.
import type { Action } from '../actions.ts';
import { changeActionKey } from '../keys.ts';

/** What a restart reads: the run (its token keys the actions), each base's round, the open candidates. */
export interface RoundsAgainView {
  repo: string;
  change: number;
  token: string;
  /** The current round of each base that starts again; `claimed`: a selection holds it. */
  rounds: { base: string; number: number; claimed: boolean }[];
  /** The open candidates, in the order they are verified again. */
  candidates: number[];
}

/** The actions before any verification, then each candidate's own (set before it is verified). */
export interface RoundsAgainPlan {
  actions: Action[];
  verify: { pr: number; actions: Action[] }[];
}

type Why = 'reopen' | 'criteria';

/** The key of one action of the restart: the Change, why, the run, then what it does. */
const keyOf =
  (view: RoundsAgainView, why: Why) =>
  (...what: (string | number)[]): string =>
    changeActionKey(view.repo, view.change, why, view.token, ...what);

function planRounds(view: RoundsAgainView, why: Why, now: string): RoundsAgainPlan {
  const k = keyOf(view, why);
  // Whatever was decided before does not stand: a claimed round makes way for the next.
  const actions: Action[] = view.rounds
    .filter((r) => r.claimed)
    .map((r) => ({
      kind: 'open-round',
      key: k(r.base, 'next-round'),
      change: view.change,
      base: r.base,
      from: r.number,
      at: now,
    }));
  const reason = why === 'reopen' ? 'change reopened' : 'criteria changed';
  // What happens in both modes: the candidate is verified again (its check says so).
  const verify = view.candidates.map((pr) => ({
    pr,
    actions: [{ kind: 'set-state', key: k(pr, 'verifying'), pr, state: 'verifying', reason, observed: true } as const],
  }));
  return { actions, verify };
}

/**
 * A trusted person reopened the cancelled Change: it is open again (shipped, when a candidate
 * shipped), which is logged, and its rounds resume. What a person did on GitHub, so it stands in
 * shadow mode too (`observed`).
 */
export function planReopen(view: RoundsAgainView & { shipped: boolean }, now: string): RoundsAgainPlan {
  const k = keyOf(view, 'reopen');
  const rounds = planRounds(view, 'reopen', now);
  const state = view.shipped ? 'shipped' : 'open';
  const first: Action[] = [
    { kind: 'set-change-state', key: k('change-state'), change: view.change, state, observed: true },
    { kind: 'event', key: k('event'), event: 'change.reopened', data: { change: view.change }, at: now },
  ];
  return { actions: [...first, ...rounds.actions], verify: rounds.verify };
}

/** The Change's criteria changed: its open candidates are judged again, in a fresh round per base (`rounds`: the bases that did not ship). */
export const planJudgeAgain = (view: RoundsAgainView, now: string): RoundsAgainPlan =>
  planRounds(view, 'criteria', now);
