// GitHub turned off the auto-merge Arbiter enabled on a winner, or took the winner it queued out of
// the merge queue (`pull_request.auto_merge_disabled` / `dequeued`). Reads the store's mark, the group
// as GitHub reports it now and the current round, plans with planAutoMergeLost
// (core/plan/auto-merge-lost.ts) and hands the plan to the executor; a merge path taken again is
// answered like the decision's own (afterMergeAnswer).
import { actedAgainKeys, planAutoMergeLost } from '../core/plan/auto-merge-lost.ts';
import { AutoMergeOn } from '../core/plan/auto-merge-off.ts';
import { autoMergeOnKey } from '../core/keys.ts';
import { isBotAccount } from '../core/trust.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { readGroupView } from './group-view.ts';
import type { NextStep } from './model.ts';
import { afterMergeAnswer } from './promote.ts';
import { readablePlan } from './recorded-plan.ts';
import { resolveReviewers } from './reviewers.ts';
import { noteAutoMerge, shipsOf } from './auto-merge-off.ts';
import { trustOfLogin } from './trust.ts';
import { branchUpdatedFrom } from './branch-updated.ts';

export interface AutoMergeLost {
  pr: number;
  lost: 'auto-merge' | 'queue';
  /** GitHub's reason from the webhook: words for a person only. */
  reason: string;
  sender: { login: string; type?: string };
}

/** Plans and carries out what follows GitHub ending the winner's auto-merge or queue entry; never silent. */
export async function onAutoMergeLost(ctx: RepoContext, input: AutoMergeLost): Promise<NextStep[]> {
  const { store } = ctx.deps;
  const candidate = await store.getCandidate(ctx.key, input.pr);
  if (!candidate) return [];
  const { change: number, base } = candidate;
  const mark = AutoMergeOn.safeParse(await store.getAppliedAction(autoMergeOnKey(ctx.key, number, base)));
  // Nothing of Arbiter's was on (or Arbiter withdrew it itself): no read at all.
  if (!mark.success || mark.data.pr !== input.pr) return [];
  const on = mark.data;
  const view = await readGroupView(ctx, number, base);
  if (!view) return [];
  const pull = view.pulls.get(input.pr) ?? (await ctx.gh.readGroup([input.pr])).get(input.pr);
  const plan = await readablePlan(ctx, view.round);
  const byPerson =
    !isBotAccount(input.sender) &&
    input.sender.login !== ctx.gh.botLogin &&
    (await trustOfLogin(ctx, input.sender.login, false)).trusted;
  const evidence = view.evidence.get(input.pr) ?? null;
  const acted = await Promise.all(
    actedAgainKeys(ctx.key, number, base, input.pr, on.sha).map((k) => store.getAppliedAction(k)),
  );
  const updated = await branchUpdatedFrom(ctx, input.pr, [on.sha, ...(pull?.headParents ?? [])]);
  const planned = planAutoMergeLost({
    repo: ctx.key,
    change: { number, criteria: view.change.criteria },
    base,
    pr: input.pr,
    lost: input.lost,
    on,
    reason: input.reason,
    by: input.sender.login,
    byPerson,
    live: pull
      ? {
          open: pull.state === 'OPEN',
          headSha: pull.headSha,
          baseRef: pull.baseRef,
          autoMergeBy: pull.autoMergeBy ?? null,
          inMergeQueue: pull.merge?.inMergeQueue === true,
          merge: pull.merge ? { ...pull.merge, strict: view.branch.strict === true, branchUpdated: updated } : null,
        }
      : null,
    bot: ctx.gh.botLogin,
    changeState: view.change.state,
    candidateState: candidate.state,
    round: { number: view.round.number, ships: shipsOf(plan) },
    actedBefore: acted.some((a) => a !== null),
    method: ctx.config.policy.mergeMethod,
    branch: view.branch,
    prefix: ctx.config.commands.prefix,
    evidence,
    repoUrl: ctx.repoUrl ?? null,
    reviewers: await resolveReviewers(ctx, evidence?.changedPaths ?? [], [evidence?.author ?? '']),
    now: nowIso(ctx),
  });
  ctx.log.info(
    { pr: input.pr, lost: input.lost, reason: input.reason, plan: planned.kind, why: planned.why },
    'merge path ended by GitHub',
  );
  if (planned.kind === 'none') return [];
  const result = await executePlan(ctx, planned.actions, { group: view.pulls });
  if (planned.kind === 'person' || !result.merge) return [];
  // Taken again: its answer is planned like the decision's own (merged, queued, refused, moved).
  const auto = planned.actions.find((a) => a.kind === 'auto-merge');
  if (auto?.kind === 'auto-merge' && result.merge.ok && 'queued' in result.merge)
    await noteAutoMerge(
      ctx,
      number,
      base,
      {
        pr: on.pr,
        sha: on.sha,
        round: view.round.number,
        ...(auto.queue ? { queue: true } : {}),
      },
      auto.key,
    );
  return afterMergeAnswer(ctx, {
    change: view.change,
    round: view.round,
    base,
    pr: input.pr,
    sha: on.sha,
    result: result.merge,
    by: null,
    scope: `${base}/r${view.round.number}/again/${input.pr}@${on.sha.slice(0, 12)}`,
    parents: pull?.headParents,
  });
}
