// A person's promote, by `/arbiter promote`, the check run's button or an approving review: the
// candidate as it stands (open in its group, a round's loser brought back, or rejected by a person),
// one promotion plan, the executor, and what follows the merge's answer. Out of people.ts for its size.
// What a person can make Arbiter do: promote a candidate (same compare-and-swap merge as the
// automatic path, never past a failed required check), reject one (which starts the one repair),
// cancel a Change, re-run acceptance, re-rank. Each returns a VerbResult for the reply.
import type { VerbResult } from '../commands/types.ts';
import type { Action } from '../core/actions.ts';
import { planPromotion, type Standing } from '../core/plan/promotion.ts';
import { planReviewAnswer } from '../core/plan/review-answer.ts';
import { readablePlan } from './recorded-plan.ts';
import { planRoundViews } from '../core/plan/views.ts';
import type { CandidateRow } from '../store/types.ts';
import { OPEN_STATES } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { withdrawAutoMerge } from './auto-merge-off.ts';
import { executePlan, mergeWithheld } from './execute.ts';
import { runSteps } from './flow.ts';
import { afterMergeAnswer } from './promote.ts';
import { readGroupView, waitingList } from './group-view.ts';
import { rejectionActionKey } from '../core/keys.ts';
import { shippedOn } from './shipped.ts';
import { mergeViewOf } from './branch-updated.ts';
import { reviewersFor } from './reviewers.ts';

const refused = (code: string, message: string): VerbResult => ({ ok: false, code, message });

/** The reply to a promotion GitHub merges later: through the merge queue, or by auto-merge once reviewed. */
function queuedWords(pr: number, sha: string, actions: Action[]): string {
  const at = `Promoted #${pr} at ${sha.slice(0, 7)}`;
  const auto = actions.find((a) => a.kind === 'auto-merge');
  if (auto?.kind === 'auto-merge' && !auto.queue) {
    const asked = actions.find((a) => a.kind === 'request-review');
    const who =
      asked?.kind === 'request-review'
        ? [...asked.reviewers.map((u) => `@${u}`), ...asked.teams.map((t) => `team ${t}`)].join(', ')
        : '';
    return `${at}: the branch requires an approving review, so auto-merge is on; GitHub merges it once the review is in${who ? ` (requested from ${who})` : ''}.`;
  }
  return `${at}: it is in the merge queue; GitHub merges it.`;
}

/**
 * The candidate a person promotes and how it stands: open in its group, or `rejected`, which is
 * either a round's loss (Arbiter closed it; a person may bring it back) or a person's rejection
 * (its rejection's recorded state change at that head), which stands. Null: no candidate, or one
 * that left otherwise (withdrawn, stale, shipped).
 */
async function promotedCandidate(
  ctx: RepoContext,
  pr: number,
): Promise<{ row: CandidateRow; kind: 'open' | 'lost' | 'rejected' } | null> {
  const { store } = ctx.deps;
  const row = await store.getCandidate(ctx.key, pr);
  if (!row) return null;
  if (OPEN_STATES.has(row.state)) return { row, kind: 'open' };
  if (row.state !== 'rejected') return null;
  const byPerson = await store.getAppliedAction(rejectionActionKey(ctx.key, row.change, pr, row.headSha, 'state'));
  return { row, kind: byPerson === null ? 'lost' : 'rejected' };
}

/** A promotion's answer; `withheld`: the executor kept the merge back (shadow mode), so nothing shipped. */
export type PromotionAnswer = VerbResult & { withheld?: { change: number; sha: string } };

export async function promoteByPerson(
  ctx: RepoContext,
  pr: number,
  user: string,
  source: string,
): Promise<PromotionAnswer> {
  const found = await promotedCandidate(ctx, pr);
  const candidate = found?.row ?? null;
  const lost = found?.kind === 'lost';
  const view =
    candidate && found?.kind !== 'rejected'
      ? await readGroupView(ctx, candidate.change, candidate.base, undefined, lost ? pr : undefined)
      : null;
  const shipped = lost ? await shippedOn(ctx, candidate!.change, candidate!.base) : null;
  const standing: Standing | undefined = !found
    ? undefined
    : found.kind === 'rejected'
      ? { kind: 'rejected', reason: found.row.reason }
      : found.kind === 'lost'
        ? { kind: 'lost', reopened: view?.pulls.get(pr)?.state === 'OPEN', shipped: shipped?.pr ?? null }
        : { kind: 'open' };
  const evidence = view?.evidence.get(pr);
  // The candidate brought back is no sibling the round waits on: its own new commits are its own refusal.
  const pending = view?.pending.filter((p) => p.pr !== pr || !lost) ?? [];
  // The merge path a decision would take for it (auto-merge, the queue, a person), from the same group read.
  const merge = view && evidence?.gate.promotable ? await mergeViewOf(ctx, view, pr) : undefined;
  const reviewNeeded = merge?.reviewDecision === 'REVIEW_REQUIRED' && !view?.branch.mergeQueue;
  const plan = planPromotion({
    repo: ctx.key,
    pr,
    user,
    source,
    method: ctx.config.policy.mergeMethod,
    ...(view ? { branch: { requiredReviews: view.branch.requiredReviews, mergeQueue: view.branch.mergeQueue } } : {}),
    ...(merge ? { merge } : {}),
    ...(view && reviewNeeded ? { reviewers: await reviewersFor(ctx, view, [pr]) } : {}),
    candidate: candidate && { change: candidate.change, standing },
    prefix: ctx.config.commands.prefix,
    group: view && {
      round: view.round.number,
      waiting: pending.length > 0 ? waitingList(pending) : null,
      evidence: evidence ?? null,
      isDraft: view.pulls.get(pr)?.isDraft === true,
    },
    now: nowIso(ctx),
  });
  if ('refused' in plan) return refused(plan.refused.code, plan.refused.message);
  // The plan refuses unless both were read.
  const [{ base }, { change, round }] = [candidate!, view!];
  const { actions, sha } = plan;
  // The round's winner may still hold Arbiter's auto-merge or merge-queue entry: it goes first, so two
  // pull requests of one Change are never set to merge at once.
  await withdrawAutoMerge(ctx, change.number, base, { pulls: view!.pulls, promoting: { pr, sha } });
  // The group read the plan came from names the draft's node id: marking it ready needs no read of its own.
  const result = await executePlan(ctx, actions, { group: view!.pulls });
  if (mergeWithheld(result))
    return {
      ok: true,
      message: `Shadow mode: #${pr} would be promoted now; no pull request was changed.`,
      withheld: { change: change.number, sha },
    };
  const next = await afterMergeAnswer(ctx, {
    change,
    round,
    base,
    pr,
    sha,
    result: result.merge,
    by: user,
    scope: `promote/${pr}@${sha}`,
    parents: view!.pulls.get(pr)?.headParents,
  });
  await runSteps(ctx, next);
  // Queued for GitHub to merge: the round's views say who promoted it and what it waits for (issue 25).
  const decided = result.merge?.ok && 'queued' in result.merge ? await readablePlan(ctx, round) : null;
  if (decided) {
    const end = { kind: 'promoted' as const, pr, by: user };
    await executePlan(ctx, planRoundViews({ decided, end, prefix: ctx.config.commands.prefix }));
  }
  if (result.merge?.ok && 'queued' in result.merge) return { ok: true, message: queuedWords(pr, sha, actions) };
  if (result.merge?.ok && 'updated' in result.merge)
    return {
      ok: true,
      message: `#${pr} was behind its base branch, which must be up to date before merging: Arbiter brought it up to date once. Its new head is verified and compared again.`,
    };
  if (result.merge?.ok) return { ok: true, message: `Promoted #${pr} at ${sha.slice(0, 7)}: merged.` };
  if (result.merge && !result.merge.ok && result.merge.status === 409)
    return refused(
      'head_moved',
      `The head of #${pr} moved; nothing was merged. The new head is verified in the next round.`,
    );
  return refused('not_mergeable', `GitHub refused to merge #${pr}; a person must resolve it.`);
}

/**
 * A person's approving review of a candidate at the human gate: the same promotion as `promote`.
 * Its merge is its answer; a merge the executor kept back (shadow mode) is answered in words, the
 * words `promote` answers with.
 */
export async function approveByReview(ctx: RepoContext, pr: number, user: string): Promise<VerbResult> {
  const answer = await promoteByPerson(ctx, pr, user, 'review');
  if (answer.withheld) {
    const { change, sha } = answer.withheld;
    await executePlan(ctx, planReviewAnswer({ repo: ctx.key, change, pr, sha, user, message: answer.message }));
  }
  return answer;
}
