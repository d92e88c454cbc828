// A round's claim, its release and its decision, applied by the executor like any action
// (src/core/round-actions.ts): each returns what the store answered this run, read from the
// executor's result, the way a gate's answer is read (executeGated).
import { parseRecorded } from '../core/plan-schema.ts';
import {
  claimRoundAction,
  recordDecisionAction,
  releaseRoundAction,
  RoundChanged,
  RoundClaim,
  type RoundRef,
} from '../core/round-actions.ts';
import type { Action } from '../core/actions.ts';
import type { ClaimResult } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';

/** Applies one action and returns its answer (every round action is answered: none is kept back in shadow mode). */
async function answerOf(ctx: RepoContext, action: Action): Promise<unknown> {
  return (await executePlan(ctx, [action])).results.get(action.key);
}

/** Claims `round` for this run: `claimed`, `mine` (this run's token held it already) or `taken`. */
export async function claimRoundOnce(ctx: RepoContext, round: RoundRef): Promise<ClaimResult> {
  const answer = await answerOf(ctx, claimRoundAction(round));
  return parseRecorded(RoundClaim, answer, `the claim of round ${round.id}`).claim;
}

/** Gives back this run's claim of `round` while it is undecided; true when it did. */
export async function giveBackRound(ctx: RepoContext, round: RoundRef): Promise<boolean> {
  const answer = await answerOf(ctx, releaseRoundAction(round));
  return parseRecorded(RoundChanged, answer, `the release of round ${round.id}`).changed;
}

/** Records `decision` for `round` when it has none and this run holds it; true when it did. */
export async function recordRoundDecision(ctx: RepoContext, round: RoundRef, decision: unknown): Promise<boolean> {
  const answer = await answerOf(ctx, recordDecisionAction(round, decision, nowIso(ctx)));
  return parseRecorded(RoundChanged, answer, `the decision of round ${round.id}`).changed;
}
