// Promotion and what follows it: executing a decided plan, then reading the merge's answer.
// Merged: the losers close as lost, PROMOTION receipt, other open siblings close as stale. 409 (the
// head moved): the next round starts, no merge is reported, and the candidate is verified again
// (a step returned to the job's driver). 405 (not mergeable): a person is
// asked, and the losers stay open.
import type { Action } from '../core/actions.ts';
import { LABEL_AWAITING, type SelectionPlan } from '../core/plan/selection.ts';
import { readablePlan } from './recorded-plan.ts';
import { noneLeftRecordKey, planNoneLeftShipped } from '../core/plan/none-left.ts';
import { planMergeAnswer, planShipped, rejectedToRecheck, staleSiblings } from '../core/plan/after-merge.ts';
import { planRoundViews } from '../core/plan/views.ts';
import type { MergeResult } from '../github/gateway.ts';
import { MergeResult as MergeResultSchema } from '../github/port.ts';
import type { PullState } from '../github/group-query.ts';
import type { ChangeRow, RoundRow } from '../store/types.ts';
import { ownChecksEnd } from './clean-ends.ts';
import { combinedCandidate } from './combine.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan, mergeWithheld, type ExecuteOptions } from './execute.ts';
import { noteAutoMerge, withdrawAutoMerge } from './auto-merge-off.ts';
import type { NextStep } from './model.ts';
import { roundDoneKey } from '../core/keys.ts';
import { branchUpdatedFrom } from './branch-updated.ts';
import { planPromotionRecords, reverifyOnce } from '../core/plan/promotion-records.ts';

/** Executes a decided plan and what its merge's answer asks for; returns what the driver runs next. */
export async function executeDecision(
  ctx: RepoContext,
  input: {
    change: ChangeRow;
    round: RoundRow;
    base: string;
    plan: SelectionPlan;
    /** The group as this job read it for the decision (absent when resumed from the store alone). */
    group?: ReadonlyMap<number, PullState>;
  },
): Promise<NextStep[]> {
  const { plan, change, round, base } = input;
  // One lookup of comment markers for the decision and whichever plan follows its merge.
  const opts = {
    group: input.group,
    comments: { ahead: [...(plan.afterShip ?? []), ...(plan.onRefused ?? []), ...(plan.onUpdated ?? [])], found: null },
  };
  // An auto-merge Arbiter enabled before on a head this decision does not ship goes first.
  await withdrawAutoMerge(ctx, change.number, base, { pulls: input.group, round: { number: round.number, plan } });
  const result = await executePlan(ctx, plan.actions, opts);
  // The auto-merge it enabled (now, or in the run this one resumes) is marked, to be withdrawn when
  // its head loses its place.
  const auto = plan.actions.find((a) => a.kind === 'auto-merge');
  const enabled = auto ? MergeResultSchema.safeParse(result.results.get(auto.key)).data : undefined;
  if (auto?.kind === 'auto-merge' && enabled?.ok && enabled.queued === true)
    await noteAutoMerge(
      ctx,
      change.number,
      base,
      {
        pr: auto.pr,
        sha: auto.sha,
        round: round.number,
        ...(auto.queue ? { queue: true } : {}),
      },
      auto.key,
    );
  if (plan.verdict.kind === 'ship') {
    const winner = plan.verdict.winner;
    const sha =
      plan.actions.find(
        (a): a is Extract<Action, { kind: 'merge' | 'auto-merge' | 'update-branch' }> =>
          a.kind === 'merge' || a.kind === 'auto-merge' || a.kind === 'update-branch',
      )?.sha ?? '';
    const scope = `${base}/r${round.number}`;
    if (result.merge && !result.merge.ok && cleanStatus(result.merge)) {
      // Another path: GitHub refused auto-merge because the winner can merge now; it merges with the same sha.
      const now = planMergeAnswer({
        repo: ctx.key,
        change: change.number,
        round: round.number,
        pr: winner,
        sha,
        scope,
        result: result.merge,
        method: ctx.config.policy.mergeMethod,
        now: nowIso(ctx),
      });
      if (now.kind === 'merge-now') result.merge = (await executePlan(ctx, now.actions, opts)).merge;
    }
    // The filter held the merge back (shadow mode): nothing follows but what the plan would do to the losers.
    const withheld = mergeWithheld(result);
    if (withheld) await executePlan(ctx, plan.afterShip ?? [], opts);
    // Losers close only after the merge succeeded; a merge that ends with a person leaves them open.
    else if (result.merge?.ok && !('queued' in result.merge) && !('updated' in result.merge))
      await executePlan(ctx, plan.afterShip ?? [], opts);
    return afterMergeAnswer(ctx, {
      change,
      round,
      base,
      pr: winner,
      sha,
      result: result.merge,
      by: null,
      scope,
      text: winnerCheckOf(plan, winner)?.text,
      parents: input.group?.get(winner)?.headParents,
      // The comparison as it reads when the merge ends with a person, or waits for an updated branch.
      followUps: withheld ? undefined : { refused: plan.onRefused ?? [], updated: plan.onUpdated ?? [], opts },
    });
  }
  if (plan.verdict.kind === 'human' || plan.verdict.kind === 'repair') {
    const view = { repo: ctx.key, change: change.number, base, round: round.number, now: nowIso(ctx) };
    const scope = `${base}/r${round.number}`;
    await executePlan(ctx, planPromotionRecords({ ...view, scope, what: 'verdict', verdict: plan.verdict.kind }));
  }
  return [];
}

/** Reads the merge's answer and plans what follows, each action applied once; a 409 returns the re-verify step. */
export async function afterMergeAnswer(
  ctx: RepoContext,
  input: {
    change: ChangeRow;
    round: RoundRow;
    base: string;
    pr: number;
    sha: string;
    result: MergeResult | null;
    by: string | null;
    scope: string;
    /** The decision's ranking text, for the check that answers the round's own merge. */
    text?: string;
    /** The parents of the head `sha` as the job read them: an update's merge commit names the head it updated. */
    parents?: string[];
    /** What the decision writes when its merge ends with a person, or its branch was updated (applied before the answer's own plan). */
    followUps?: { refused: Action[]; updated: Action[]; opts: ExecuteOptions };
  },
): Promise<NextStep[]> {
  const { change, round, pr, sha, result, by } = input;
  if (!result) return [];
  const plan = planMergeAnswer({
    repo: ctx.key,
    change: change.number,
    round: round.number,
    pr,
    sha,
    scope: input.scope,
    result: result.ok ? { ok: true, queued: 'queued' in result, updated: 'updated' in result } : result,
    method: ctx.config.policy.mergeMethod,
    branchUpdated: await branchUpdatedFrom(ctx, pr, [sha, ...(input.parents ?? [])]),
    text: input.text,
    now: nowIso(ctx),
  });
  if (plan.kind === 'update') {
    // Refused as behind a base it must be up to date with: the branch is updated once, and that answer planned in turn.
    const updated = (await executePlan(ctx, plan.actions)).merge;
    return updated ? afterMergeAnswer(ctx, { ...input, result: updated }) : [];
  }
  if (plan.kind === 'merge-now') {
    // GitHub said it can merge now (executeDecision merges the round's own winner before this):
    // the merge with the same sha, and its answer planned in turn (once: its key).
    const again = (await executePlan(ctx, plan.actions)).merge;
    if (!again || cleanStatus(again)) return [];
    return afterMergeAnswer(ctx, { ...input, result: again });
  }
  // The store records of the answer (a next round, the Change's state), planned with the answer's view.
  const records = { repo: ctx.key, change: change.number, base: input.base, round: round.number, scope: input.scope };
  const recorded = (what: 'updated' | 'moved' | 'refused'): Action[] =>
    planPromotionRecords({ ...records, now: nowIso(ctx), what, pr, sha });
  if (plan.kind === 'updated') {
    // The branch was brought up to date: nothing merged. The new head (its synchronize webhook)
    // is verified afresh and compared in the next round; its merge path is chosen again then.
    await executePlan(ctx, recorded('updated'));
    if (input.followUps) await executePlan(ctx, input.followUps.updated, input.followUps.opts);
    await executePlan(ctx, plan.actions);
    return [];
  }
  if (plan.kind === 'queued') {
    await executePlan(ctx, plan.actions);
    return [];
  }
  if (plan.kind === 'merged') {
    await afterMerged(ctx, { change, base: input.base, pr, sha, by, round: round.number, scope: input.scope });
    return [];
  }
  if (plan.kind === 'moved') {
    // The head moved between the decision and the merge: nothing shipped; the new head is compared afresh.
    // The candidate is verified again next: a new head is recorded and judged afresh. If GitHub's
    // head is in fact unchanged, round n+1 compares it again and its merge is tried once more, but
    // only once per sha: a head that keeps answering 409 waits for its synchronize webhook.
    const once = reverifyOnce(records, pr, sha);
    const moved = await executePlan(ctx, [...recorded('moved'), ...plan.actions, once]);
    return moved.applied.includes(once.key) ? [{ kind: 'verify', pr }] : [];
  }
  if (input.followUps) await executePlan(ctx, input.followUps.refused, input.followUps.opts);
  await executePlan(ctx, [...recorded('refused'), ...plan.actions]);
  return [];
}

/** GitHub refused auto-merge because the PR can merge now: another path (a merge), not a person. */
const cleanStatus = (result: MergeResult): boolean =>
  !result.ok && result.status === 422 && /clean status/i.test(result.message);

type CheckAction = Extract<Action, { kind: 'check-run' }>;
const isWinnerCheck =
  (winner: number) =>
  (a: Action): a is CheckAction =>
    a.kind === 'check-run' && a.pr === winner && a.name === 'Arbiter / selection';

/** The winner's selection check the plan writes (after its merge, or before it in an older plan). */
const winnerCheckOf = (plan: SelectionPlan, winner: number): CheckAction | undefined =>
  [...(plan.afterShip ?? []), ...plan.actions].find(isWinnerCheck(winner));

/** Whether the round's promotion was an auto-merge GitHub queued (then the merge lands later, and its webhook finishes the round). */
async function queuedByRound(ctx: RepoContext, plan: SelectionPlan): Promise<boolean> {
  const auto = plan.actions.find((a) => a.kind === 'auto-merge');
  if (!auto) return false;
  const recorded = await ctx.deps.store.getAppliedAction(auto.key);
  return typeof recorded === 'object' && recorded !== null && 'queued' in recorded;
}

/** A candidate shipped: PROMOTION receipt, its state, and its open siblings closed as stale. */
export async function afterMerged(
  ctx: RepoContext,
  input: { change: ChangeRow; base: string; pr: number; sha: string; by: string | null; round: number; scope: string },
): Promise<void> {
  const { store } = ctx.deps;
  const { change, pr } = input;
  const now = nowIso(ctx);
  const at = { repo: ctx.key, change: change.number, base: input.base, round: input.round, scope: input.scope, now };
  // A plan this version cannot read was said so on the Change: the merge that happened is handled as not the round's.
  const roundRow = await store.currentRound(ctx.key, change.number, input.base, now);
  const round = await readablePlan(ctx, roundRow);
  const decided = round !== null && round.verdict.kind === 'ship' && round.verdict.winner === pr ? round : null;
  const queued = decided !== null && (await queuedByRound(ctx, decided));
  // The claimant finished its run without this merge (GitHub refused it, and a person promoted the
  // winner later): nobody else closes the round's losers.
  const claimantDone = decided !== null && (await store.getAppliedAction(roundDoneKey(roundRow.id))) !== null;
  // An auto-merge landed later, or the winner was promoted after the claimant's run: the round's
  // losers close as lost (their reason), before the stale sweep. The decision's read of their
  // labels is old by now: each label is added or removed on its own. (Keyed actions: a plan that
  // ran them already adds nothing.)
  if (decided && (queued || claimantDone)) await executePlan(ctx, decided.afterShip ?? []);
  // The round's own merge: its claimant closes the losers as lost (its retry, or the sweep under its
  // token, finishes them should it die), so they are neither raced for nor closed as stale here.
  const group = {
    candidates: await store.listCandidates(ctx.key, change.number, input.base),
    winner: pr,
    decided,
    queued: queued || claimantDone,
  };
  const open = staleSiblings(group);
  const rejected = rejectedToRecheck(group);
  const read = [...open, ...rejected].map((s) => s.pr);
  const pulls: ReadonlyMap<number, PullState> = read.length > 0 ? await ctx.gh.readGroup(read) : new Map();
  // A rejected candidate a person reopened is closed as stale with the open siblings.
  const reopened = rejected.filter((c) => pulls.get(c.pr)?.state === 'OPEN');
  const siblings = [...open, ...reopened];
  // A person's promotion GitHub merged later (auto-merge, the queue) is still that person's.
  const promoter = input.by ?? (decided === null ? await promotedBy(ctx, change.number, pr) : null);
  const actions = planShipped({
    repo: ctx.key,
    change: change.number,
    round: input.round,
    pr,
    sha: input.sha,
    by: promoter,
    method: ctx.config.policy.mergeMethod,
    // Arbiter's own merge of the round: its plan's `afterShip` writes the winner's check (the
    // claimant, its retry or the sweep; or the queued branch above), with the decision's text.
    winnerCheck: !(promoter === null && decided !== null && (decided.afterShip ?? []).some(isWinnerCheck(pr))),
    stale: siblings.map((s) => ({
      pr: s.pr,
      headSha: s.headSha,
      awaiting: pulls.get(s.pr)?.labels.includes(LABEL_AWAITING) === true,
      rejected: reopened.includes(s),
    })),
    combined: await combinedCandidate(ctx, change.number),
    now,
  });
  // The stale siblings' own checks complete after they closed.
  const ends: Action[] = [];
  for (const s of open) ends.push(...(await ownChecksEnd(ctx, s, `Superseded: #${pr} shipped`)));
  const shippedState = planPromotionRecords({ ...at, what: 'shipped', pr, sha: input.sha });
  await executePlan(ctx, [...actions, ...ends, ...shippedState], { group: pulls });
  // The round's views say what happened: "merged", with the merge commit (issue 25).
  if (round) {
    const mergeCommit = await mergeCommitOf(ctx, decided, pr);
    // Who promoted it, as the first run to record the merge said (a person's promote and the merge's own webhook both get here).
    const reason = (await store.getCandidate(ctx.key, pr))?.reason ?? '';
    const by = promoter ?? /^promoted by @(\S+)$/.exec(reason)?.[1] ?? null;
    const end = { kind: 'merged' as const, pr, mergeCommit, by };
    const repair = await store.getRepair(ctx.key, change.number);
    await executePlan(ctx, planRoundViews({ decided: round, end, prefix: ctx.config.commands.prefix, repair }));
    // "No candidate remains open" was said on the Change before this one came back: it says what shipped now.
    if ((await store.getAppliedAction(noneLeftRecordKey(ctx.key, change.number, input.base))) !== null)
      await executePlan(
        ctx,
        planNoneLeftShipped({ repo: ctx.key, change: change.number, base: input.base, pr, mergeCommit, by }),
      );
  }
}

/** The person whose promotion of `pr` was recorded last (its HUMAN_GATE receipt), or null. */
async function promotedBy(ctx: RepoContext, change: number, pr: number): Promise<string | null> {
  let by: string | null = null;
  for (const r of await ctx.deps.store.listReceipts(ctx.key, change)) {
    const data = r.receipt?.kind === 'HUMAN_GATE' ? r.receipt.data : null;
    if (data?.decision === 'promoted by a person' && data.winner === pr && data.by) by = data.by;
  }
  return by;
}

/**
 * The merge commit of `pr`: the round's own merge answered it (GitHub's answer to the merge carries
 * it, recorded under the merge action's key), else it is read. A merge by a person, the queue or
 * auto-merge, or a retry that found the pull request merged already, has no recorded commit.
 */
async function mergeCommitOf(ctx: RepoContext, decided: SelectionPlan | null, pr: number): Promise<string | null> {
  const merge = decided?.actions.find((a) => a.kind === 'merge' && a.pr === pr);
  if (merge) {
    const answer = MergeResultSchema.safeParse(await ctx.deps.store.getAppliedAction(merge.key));
    if (answer.success && answer.data.ok && answer.data.sha) return answer.data.sha;
  }
  return (await ctx.gh.pullState(pr)).mergeCommitSha ?? null;
}
