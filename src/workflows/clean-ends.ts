// Clean ends: a candidate that leaves (withdrawn, stale, rejected, cancelled) gets its own checks
// that are still in progress completed, neutral, with the reason; and the awaiting-approval label
// goes when its reason ends (a push moved the candidate on).
import { LABEL_AWAITING } from '../core/labels.ts';
import type { CandidateRow } from '../store/types.ts';
import type { RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { storedGate } from './evidence.ts';
import { changeActionKey, checkIdKey } from '../core/keys.ts';

/** Completes this head's `Arbiter / gate` and `Arbiter / acceptance` checks that were left in progress. */
export async function completeOwnChecks(ctx: RepoContext, c: CandidateRow, reason: string): Promise<void> {
  const gate = await storedGate(ctx, c);
  // No gate evidence: the head was never evaluated, so neither check was started.
  if (!gate) return;
  const acceptance = await ctx.deps.store.getEvidence(ctx.key, c.pr, c.headSha, 'acceptance');
  // Only a check that was shown is completed: the gate check appears once a required check
  // concluded, the acceptance check with its result (an older version showed it waiting).
  const shown = await ctx.deps.store.getAppliedActions([
    checkIdKey(ctx.key, c.headSha, 'Arbiter / gate'),
    checkIdKey(ctx.key, c.headSha, 'Arbiter / acceptance'),
  ]);
  const gateShown = shown.has(checkIdKey(ctx.key, c.headSha, 'Arbiter / gate'));
  const acceptanceShown = shown.has(checkIdKey(ctx.key, c.headSha, 'Arbiter / acceptance'));
  const summary = `${reason}: this candidate left the comparison before the check finished.`;
  const k = (name: string): string => changeActionKey(ctx.key, c.change, 'ends', `${c.pr}@${c.headSha}`, name);
  const base = {
    pr: c.pr,
    headSha: c.headSha,
    status: 'completed',
    conclusion: 'neutral',
    title: `Not finished: ${reason}`,
    summary,
  } as const;
  await executePlan(ctx, [
    ...(gate.settled || !gateShown
      ? []
      : [{ kind: 'check-run' as const, key: k('gate'), name: 'Arbiter / gate' as const, ...base }]),
    ...(acceptance !== null || !acceptanceShown
      ? []
      : [{ kind: 'check-run' as const, key: k('acceptance'), name: 'Arbiter / acceptance' as const, ...base }]),
  ]);
}

/** A candidate that waited before a person moved on (new commits): the label's reason ended. */
export async function dropStaleAwaiting(
  ctx: RepoContext,
  previous: CandidateRow | null,
  labels: string[],
  headSha: string,
): Promise<void> {
  if (!previous || previous.headSha === headSha || !labels.includes(LABEL_AWAITING)) return;
  await executePlan(ctx, [
    {
      kind: 'unlabel',
      key: changeActionKey(ctx.key, previous.change, 'ends', `${previous.pr}@${headSha}`, 'unlabel'),
      issue: previous.pr,
      label: LABEL_AWAITING,
    },
  ]);
}
