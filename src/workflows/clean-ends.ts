// Clean ends: what a leaving candidate's own checks show, read for planOwnChecksEnd (which completes
// those still in progress, in the plan of the step that ends the candidate); and the awaiting-approval label goes when its reason ends (a push moved
// the candidate on).
import { LABEL_AWAITING } from '../core/labels.ts';
import type { Action } from '../core/actions.ts';
import { planOwnChecksEnd, type OwnChecksView } from '../core/plan/own-checks-end.ts';
import { planWithdrawn } from '../core/plan/withdrawn.ts';
import type { CandidateRow } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { storedGate } from './evidence.ts';
import { changeActionKey, checkIdKey } from '../core/keys.ts';

/** What is stored and shown of `c`'s own checks, for planOwnChecksEnd. */
export async function readOwnChecks(ctx: RepoContext, c: CandidateRow): Promise<OwnChecksView> {
  const view = { pr: c.pr, headSha: c.headSha, change: c.change };
  const gate = await storedGate(ctx, c);
  // No gate evidence: the head was never evaluated, so neither check was started.
  if (!gate)
    return { ...view, gate: 'unevaluated', acceptanceRecorded: false, shown: { gate: false, acceptance: false } };
  const acceptance = await ctx.deps.store.getEvidence(ctx.key, c.pr, c.headSha, 'acceptance');
  const gateKey = checkIdKey(ctx.key, c.headSha, 'Arbiter / gate');
  const acceptanceKey = checkIdKey(ctx.key, c.headSha, 'Arbiter / acceptance');
  const shown = await ctx.deps.store.getAppliedActions([gateKey, acceptanceKey]);
  return {
    ...view,
    gate: gate.settled ? 'settled' : 'open',
    acceptanceRecorded: acceptance !== null,
    shown: { gate: shown.has(gateKey), acceptance: shown.has(acceptanceKey) },
  };
}

/** The completions of `c`'s own checks still in progress as it leaves with `reason`: read, then planned. */
export async function ownChecksEnd(ctx: RepoContext, c: CandidateRow, reason: string): Promise<Action[]> {
  return planOwnChecksEnd(await readOwnChecks(ctx, c), reason, ctx.key);
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

/** A person closed the candidate's pull request: it is withdrawn, and its own checks still running end. */
export async function withdrawClosed(ctx: RepoContext, c: CandidateRow, by: string): Promise<void> {
  const ownChecks = await readOwnChecks(ctx, c);
  await executePlan(ctx, planWithdrawn({ repo: ctx.key, candidate: c, by, ownChecks }, nowIso(ctx)));
}
