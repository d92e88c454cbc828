// When a known candidate comes back or moves: a rejected candidate returns only with commits that
// answer its repair; a retargeted candidate leaves its old group (base branch), whose round starts again;
// an admitted candidate's unadmitted new head leaves its group.
import type { CandidateRow } from '../store/types.ts';
import { OPEN_STATES } from '../core/types.ts';
import { changeActionKey, rejectionActionKey } from '../core/keys.ts';
import { LABEL_LOST } from '../core/labels.ts';
import { planRetarget, planUnadmittedHead, UNADMITTED_REASON } from '../core/plan/regroup.ts';
import { executePlan } from './execute.ts';
import { ownChecksEnd } from './clean-ends.ts';
import { nowIso, type RepoContext } from './context.ts';
import { repairByRejection } from './repair-trigger.ts';
import type { NextStep } from './model.ts';
import { selectStep } from './steps.ts';
import { showUnadmittedHead } from './trust.ts';

/**
 * A rejected candidate stays out unless it comes back with new commits: a round's loser (Arbiter's
 * act) once a person reopened it, its new head verified like any candidate's; one a person rejected
 * only with commits answering the repair that very rejection granted (of the head it rejected). A
 * repair a round asked for earlier, or one a previous rejection of an older head granted, never
 * brings a person's rejection back. `pull` is open (the caller read it so).
 */
export async function staysRejected(
  ctx: RepoContext,
  existing: CandidateRow | null,
  pull: { headSha: string; labels: string[] },
): Promise<boolean> {
  if (existing?.state !== 'rejected') return false;
  const { headSha } = pull;
  const byPerson = await ctx.deps.store.getAppliedAction(
    rejectionActionKey(ctx.key, existing.change, existing.pr, existing.headSha, 'state'),
  );
  if (byPerson === null && headSha !== existing.headSha) {
    // Back in the running: the label that said it lost comes off.
    if (pull.labels.includes(LABEL_LOST))
      await executePlan(ctx, [
        {
          kind: 'unlabel',
          key: changeActionKey(ctx.key, existing.change, 'back', `${existing.pr}@${headSha}`, 'unlabel-lost'),
          issue: existing.pr,
          label: LABEL_LOST,
        },
      ]);
    return false;
  }
  const repair = await ctx.deps.store.getRepair(ctx.key, existing.change);
  const granted = await repairByRejection(ctx, existing.change);
  const answersThisRejection =
    repair?.pr === existing.pr && granted?.pr === existing.pr && granted.headSha === existing.headSha;
  return !(answersThisRejection && headSha !== existing.headSha);
}

/**
 * Whether a person's closing withdraws the candidate: only one still in its group. A rejected
 * candidate (kept open for its repair) stays rejected, so reopening it never brings it back.
 */
export const closingWithdraws = (candidate: CandidateRow): boolean => OPEN_STATES.has(candidate.state);

/** After the candidate was recorded on its new base: the old group compares what remains, afresh (its selection step is returned). */
export async function leaveOldGroup(
  ctx: RepoContext,
  existing: CandidateRow | null,
  moved: CandidateRow,
): Promise<NextStep[]> {
  if (!existing || existing.base === moved.base) return [];
  const now = nowIso(ctx);
  const round = await ctx.deps.store.currentRound(ctx.key, existing.change, existing.base, now);
  const decided = round.selection !== null || round.decision !== null;
  const view = { repo: ctx.key, change: existing.change, pr: moved.pr, from: existing.base, to: moved.base };
  await executePlan(ctx, planRetarget({ ...view, round: { number: round.number, decided }, token: ctx.token }, now));
  return [selectStep(existing.change, existing.base)];
}

/**
 * An admitted candidate of an untrusted author got a head nobody admitted: it leaves its group
 * (withdrawn), its new head gets the one neutral check saying a maintainer must admit it, and
 * the siblings that waited on it are compared without it (their selection step is returned).
 */
export async function dropUnadmittedHead(
  ctx: RepoContext,
  existing: CandidateRow,
  pull: { number: number; headSha: string; author: string },
): Promise<NextStep[]> {
  await showUnadmittedHead(ctx, pull, existing.change);
  if (!OPEN_STATES.has(existing.state)) return [];
  const view = { repo: ctx.key, change: existing.change, pr: existing.pr, headSha: pull.headSha, token: ctx.token };
  await executePlan(ctx, planUnadmittedHead(view, nowIso(ctx)));
  await executePlan(ctx, await ownChecksEnd(ctx, existing, `Withdrawn: ${UNADMITTED_REASON}`));
  return [selectStep(existing.change, existing.base)];
}
