// The selection step (DESIGN.md section 2, steps 3-4): wait for every sibling, let the last to
// settle claim the round, rank, break a true tie with the judge, plan and execute the outcome.
import { z } from 'zod';
import { SELECTION_BUTTONS } from '../core/buttons.ts';
import type { SelectionDisplay, SelectionPlan } from '../core/plan/selection.ts';
import { readSelectionPlan, WouldCombineDecision } from '../core/plan-schema.ts';
import { isUnreadable, readablePlan, readRoundPlan } from './recorded-plan.ts';
import { planSelection } from '../core/plan/selection.ts';
import { decide, mergePathOf } from '../core/plan/verdict.ts';
import { rankCandidates, unjudgedChallengers } from '../core/rank.ts';
import type { JudgeOutcome } from '../core/types.ts';
import type { EarlierRound } from '../core/receipt.ts';
import type { PullState } from '../github/group-query.ts';
import { rateBudgets } from '../github/rate-budget.ts';
import { diagnose } from '../judge/diagnostics.ts';
import { judgeTie } from '../judge/judge.ts';
import { countDecision } from '../metrics.ts';
import type { ChangeRow, RoundRow, StoredReceipt } from '../store/types.ts';
import { budgetTaker } from './acceptance.ts';
import { combinedCandidate, combineStep, type Combined } from './combine.ts';
import { deliveryOfToken, nowIso, type RepoContext } from './context.ts';
import { executePlan, repairGranted } from './execute.ts';
import { checkAction, recordAction } from '../core/actions.ts';
import { decidePortfolioRound } from './portfolio-wide.ts';
import { mergeViewOf } from './branch-updated.ts';
import { executeDecision } from './promote.ts';
import { reviewersFor } from './reviewers.ts';
import { shippedOn } from './shipped.ts';
import type { GroupView, NextStep } from './model.ts';
import { claimKey, repairKey as repairKeyOf, roundActKey, roundDoneKey, waitingStaleKey } from '../core/keys.ts';
import type { MergeView } from '../core/plan/merge-path.ts';
import { readGroupView, waitingList } from './group-view.ts';
import { rankSets } from '../core/plan/set-rank.ts';
import { listSetRecords } from './candidate-set-store.ts';
import { notComparedOf } from './not-compared.ts';
import { shipFromRound, webOf } from './set-ship.ts';
import { claimRoundOnce, giveBackRound, recordRoundDecision } from './round-claim.ts';

async function showWaiting(
  ctx: RepoContext,
  view: GroupView,
  settledNow: readonly number[] | undefined,
): Promise<void> {
  const settled = settledNow === undefined ? undefined : new Set(settledNow);
  const list = waitingList(view.pending);
  // The siblings a combined candidate was built from wait for it by name.
  const combined = await combinedCandidate(ctx, view.change.number);
  const combinedPending = combined !== null && view.pending.some((p) => p.pr === combined.pr);
  const waitsForCombined = (pr: number): boolean =>
    combinedPending && combined !== null && combined.sources.includes(pr);
  // A sibling that settled is told at once what it waits for; the others' lists are brought up to
  // date by the next minute sweep (one write per sibling and minute at most, however many settle
  // meanwhile). A step with no settling sibling (the sweep, a sibling withdrawn) rewrites them all,
  // unless the installation is low on GitHub's rate limit: then only the settled one is told now.
  const low = rateBudgets.isLow(ctx.installationId, ctx.deps.clock.now().getTime());
  const everyone = !low && settled === undefined;
  // The mark is taken by the sweep before it reads the group (sweep.ts), so a sibling that settles
  // while the sweep writes marks the group again.
  const stale = waitingStaleKey(ctx.key, view.change.number, view.round.base);
  if (!everyone && view.siblings.some((s) => !settled?.has(s.pr) && s.state !== 'verifying'))
    await executePlan(ctx, [{ kind: 'mark', key: stale, value: { round: view.round.number }, at: nowIso(ctx) }]);
  const refresh = 'It is updated once a minute while siblings settle.';
  // "Waiting: @Copilot is still working on #101" reads as a sentence; "Waiting on #22 (CI running)" names PRs.
  const waitingOn = view.pending.some((p) => p.says !== undefined) ? 'Waiting:' : 'Waiting on';
  for (const s of view.siblings) {
    const justSettled = settled?.has(s.pr) === true;
    if (!everyone && !justSettled) continue;
    // A sibling still verifying says so itself (its gate and acceptance checks); the list is for those that wait.
    if (s.state === 'verifying' && !justSettled) continue;
    const pull = view.pulls.get(s.pr);
    if (!pull || pull.state !== 'OPEN' || pull.headSha !== s.headSha) continue;
    // Asked again before every write: a round claimed or decided meanwhile shows its decision,
    // never a waiting list read before it.
    const now = await ctx.deps.store.getRound(view.round.id);
    if (!now || now.selection !== null || now.decision !== null) return;
    await executePlan(ctx, [
      checkAction(ctx.key, {
        pr: s.pr,
        headSha: s.headSha,
        name: 'Arbiter / selection',
        status: 'in_progress',
        title: (waitsForCombined(s.pr)
          ? `Waiting for the combined candidate #${combined?.pr}`
          : `${waitingOn} ${list}`
        ).slice(0, 200),
        summary: `${waitingSummary(view)}\n\n${waitingOn} ${list}.\n\n${refresh}`,
      }),
    ]);
  }
}

/** The group as if `pr` had never been in it. */
function withoutCandidate(view: GroupView, pr: number): GroupView {
  const keep = <V>(map: Map<number, V>): Map<number, V> => new Map([...map].filter(([n]) => n !== pr));
  return {
    ...view,
    siblings: view.siblings.filter((s) => s.pr !== pr),
    pulls: keep(view.pulls),
    evidence: keep(view.evidence),
  };
}

function waitingSummary(view: GroupView): string {
  const n = view.siblings.length;
  const what =
    n === 1
      ? 'Arbiter decides on this candidate once its checks and acceptance have settled'
      : `Arbiter compares the ${n} candidates once every one has settled`;
  return `Round ${view.round.number} of #${view.change.number}: ${what}.`;
}

/** The Change's earlier rounds, from their selection receipts: each round's headline. */
export function earlierRounds(receipts: StoredReceipt[], current: number): EarlierRound[] {
  const byRound = new Map<number, string>();
  for (const r of receipts) {
    if (r.kind !== 'CANDIDATE_SELECTION' || r.round >= current) continue;
    const data = r.receipt?.kind === 'CANDIDATE_SELECTION' ? r.receipt.data : null;
    byRound.set(
      r.round,
      data ? (data.headline ?? `decided: ${data.verdict}`) : 'decided (the receipt was recorded by an older version)',
    );
  }
  return [...byRound].map(([round, summary]) => ({ round, summary }));
}

async function displayOf(ctx: RepoContext, view: GroupView): Promise<SelectionDisplay> {
  const titles: Record<string, string> = {};
  for (const [pr, pull] of view.pulls) titles[pr] = pull.title;
  const receipts = await ctx.deps.store.listReceipts(ctx.key, view.change.number);
  const compared = new Set([...view.evidence.keys(), ...view.siblings.map((c) => c.pr)]);
  const notCompared = await notComparedOf(ctx, view.change.number, compared);
  return {
    repoUrl: ctx.repoUrl ?? null,
    titles,
    earlier: earlierRounds(receipts, view.round.number),
    ...(notCompared.length > 0 ? { notCompared } : {}),
  };
}

/**
 * What GitHub said of merging each promotable sibling now, from the decision's own group read
 * (no request per candidate), with the branch's strict policy and whether Arbiter already updated
 * its branch once. A reader that did not ask (a test's fake) gives none: the path then follows the rules alone.
 */
async function mergeViews(ctx: RepoContext, view: GroupView): Promise<Record<string, MergeView> | undefined> {
  const views: Record<string, MergeView> = {};
  for (const [pr, e] of view.evidence) {
    const merge = e.gate.promotable ? await mergeViewOf(ctx, view, pr) : undefined;
    if (merge) views[String(pr)] = merge;
  }
  return Object.keys(views).length > 0 ? views : undefined;
}

async function computePlan(
  ctx: RepoContext,
  view: GroupView,
  combine: { notes: string[]; combined: Combined },
): Promise<SelectionPlan> {
  const evidence = [...view.evidence.values()];
  const ranking = rankCandidates(evidence);
  let judge: JudgeOutcome | null = null;
  // The judge breaks a true tie only; with unjudged siblings that could outrank it, a person decides.
  if (ranking.tiedAtTop && unjudgedChallengers(ranking).length === 0) {
    const tied = evidence.filter((e) => ranking.top.includes(e.pr));
    judge = await judgeTie({
      tied,
      deterministicOrder: ranking.top,
      criteria: view.change.criteria,
      config: ctx.config.judge,
      llm: ctx.deps.llm,
      takeBudget: budgetTaker(ctx, view.change.number),
      scoreCheck: ctx.config.gate.score,
    });
  }
  // The Change's candidate sets (members in other repositories) are candidates of the round too.
  const changeRef = { repo: ctx.key, number: view.change.number };
  const web = webOf(ctx);
  const records = await listSetRecords(ctx, changeRef);
  const base = {
    repo: ctx.key,
    change: { number: view.change.number, title: view.change.title, criteria: view.change.criteria },
    round: view.round.number,
    base: view.siblings[0]?.base ?? 'main',
    siblings: evidence,
    ranking,
    judge,
    diagnostics: diagnose({ evidence, judge }),
    config: ctx.config,
    reviewers: { users: [], teams: [] as string[] },
    branch: { requiredReviews: view.branch.requiredReviews, mergeQueue: view.branch.mergeQueue },
    merge: await mergeViews(ctx, view),
    drafts: [...view.pulls.values()].filter((p) => p.isDraft).map((p) => p.number),
    now: nowIso(ctx),
    buttons: [...SELECTION_BUTTONS],
    display: await displayOf(ctx, view),
    notes: combine.notes,
    combined: combine.combined,
    ...(records.length > 0 ? { sets: { records, web, order: ctx.config.composite.order } } : {}),
  };
  const repairAvailable = await repairAvailableFor(ctx, view, rankSets(records, ranking));
  // Everything the plan reads is read first (the repair taken, the reviewers), so it is planned
  // once: the verdict alone (`decide`, pure) says whether a repair is claimed and who is asked.
  const first = decide({ ...base, repairAvailable });
  const granted = first.kind !== 'repair' || (await takeRepair(ctx, view, base.base, first.target));
  const verdict = granted ? first : decide({ ...base, repairAvailable: false });
  // A winner whose merge waits for required reviews (auto-merge) has them requested too.
  const autoMerge = (winner: number): boolean =>
    mergePathOf({ ...base, repairAvailable }, winner).kind === 'auto-merge';
  const reviewsFor =
    verdict.kind === 'human'
      ? verdict.before
      : verdict.kind === 'ship' && autoMerge(verdict.winner)
        ? [verdict.winner]
        : [];
  if (reviewsFor.length === 0) return planSelection({ ...base, repairAvailable: granted && repairAvailable });
  const reviewers = await reviewersFor(ctx, view, reviewsFor);
  // A person's verdict is recorded with the repair unavailable, as before the reviewers were read first.
  return planSelection({ ...base, reviewers, repairAvailable: verdict.kind === 'ship' && repairAvailable });
}

/**
 * Whether the Change's one repair is free for this round: not taken (or taken by this run before it
 * died: same token, still this run's to send on retry), and no set at the top or tied there (a person decides).
 */
async function repairAvailableFor(
  ctx: RepoContext,
  view: GroupView,
  sets: { winner: unknown; tied: unknown },
): Promise<boolean> {
  if (sets.winner !== null || sets.tied !== null || !ctx.config.repair.enabled) return false;
  const { store } = ctx.deps;
  if ((await store.getRepair(ctx.key, view.change.number)) === null) return true;
  const holder = z
    .object({ token: z.string() })
    .safeParse(await store.getAppliedAction(claimKey(repairKeyOf(ctx.key, view.change.number))));
  return holder.success && holder.data.token === ctx.token;
}

/**
 * Claims the Change's one repair for `target`. The claim is an action like any other, so shadow mode
 * (which never claims) drops it: kept back, the plan stands as it would be were the repair taken.
 */
async function takeRepair(ctx: RepoContext, view: GroupView, base: string, target: number): Promise<boolean> {
  const key = roundActKey(ctx.key, view.change.number, base, view.round.number, 'claim-repair');
  const claimed = await executePlan(ctx, [{ kind: 'claim-repair', key, change: view.change.number, pr: target }]);
  return claimed.withheld.length > 0 || repairGranted(claimed, key);
}

/**
 * The Change shipped while this run's decided round was still being carried out (the merge's own
 * webhook marks it shipped, and may have done so while this run was killed after the merge): the
 * rest of the decision (the losers' checks, notes and closures) is this run's to finish, since
 * every other run leaves the actions this one claimed to it. A round whose winner is not the
 * candidate that shipped has nothing left to do: it is marked done.
 */
async function resumeShipped(ctx: RepoContext, change: ChangeRow, round: RoundRow): Promise<NextStep[]> {
  if (round.selection !== ctx.token) return [];
  const { store } = ctx.deps;
  const plan = await readablePlan(ctx, round);
  const winner = plan?.verdict.kind === 'ship' ? plan.verdict.winner : null;
  const shipped = winner !== null && (await store.getCandidate(ctx.key, winner))?.state === 'promoted';
  const next = plan !== null && shipped ? await executeDecision(ctx, { change, round, base: round.base, plan }) : [];
  await recordDone(ctx, round, shipped ? {} : { superseded: true });
  return next;
}

/**
 * Runs the selection step for a group. Every sibling settled: claim the round (one conditional
 * update); the claimant (or its retry) decides, records the plan, and executes it. Otherwise the
 * waiting list is shown: on every sibling, or (in a large group) on `opts.settled` only, the
 * sibling whose settling ran this step. Returns what the driver runs next (a 409's re-verify).
 */
export async function selectionStep(
  ctx: RepoContext,
  changeNumber: number,
  base: string,
  opts: { settled?: number | readonly number[]; pulls?: ReadonlyMap<number, PullState> } = {},
): Promise<NextStep[]> {
  const { store } = ctx.deps;
  const change = await store.getChange(ctx.key, changeNumber);
  if (!change || change.state === 'cancelled') return [];
  let round = await store.currentRound(ctx.key, changeNumber, base, nowIso(ctx));
  if (round.selection !== null && round.selection !== ctx.token) return [];
  // The claimant already carried this round's decision through to the end.
  if (round.selection !== null && (await store.getAppliedAction(roundDoneKey(round.id))) !== null) return [];
  if (await shippedOn(ctx, changeNumber, base)) return resumeShipped(ctx, change, round);
  // This run decided the round and stopped while carrying it out (killed, or deferred by a rate
  // limit): it finishes its recorded decision whatever the group reads now. A lone winner it merged
  // reads as closed, so the group would hold nothing to compare, the merge's webhook leaves the
  // winner's check to this run, and the check would stay in progress for good.
  if (round.selection === ctx.token && round.decision !== null) {
    const recorded = await readRoundPlan(ctx, round);
    if (isUnreadable(recorded)) return leaveUnreadable(ctx, round);
    if (recorded !== null) return carryOut(ctx, { change, round, base, plan: recorded });
  }
  const view = await readGroupView(ctx, changeNumber, base, opts.pulls);
  if (!view || view.siblings.length === 0) return [];
  if (view.round.id !== round.id) return [];
  if (round.decision === null && view.pending.length > 0) {
    const current = await store.getRound(round.id);
    if (current?.selection === ctx.token && current.decision === null) {
      // This run claimed the round and stopped before deciding, and a sibling is pending again
      // (new commits): the claim goes back, so the last sibling to settle claims the round.
      // Not given back: a run under this token decided meanwhile, and its outcome stands.
      if (!(await giveBackRound(ctx, round))) return [];
    } else if (current?.selection !== null) {
      // The view may be older than a claim made meanwhile (a closed loser looks "pending"): a
      // waiting list must never cover the claimant's decision.
      return [];
    }
    await showWaiting(ctx, view, opts.settled === undefined ? undefined : [opts.settled].flat());
    return [];
  }
  // Every sibling left out (an agent still at work past its time): nothing to compare yet.
  if (view.evidence.size === 0) return [];
  const claim = await claimRoundOnce(ctx, round);
  if (claim === 'taken') return [];
  if (await decidePortfolioRound(ctx, view, round)) return [];
  round = (await store.getRound(round.id)) ?? round;
  const recorded = await readRoundPlan(ctx, round);
  if (isUnreadable(recorded)) return leaveUnreadable(ctx, round);
  let plan = recorded;
  if (plan === null) {
    // Before a repair or a person: two siblings that each meet part of the criteria may be combined.
    const combine = await combineStep(ctx, view, rankCandidates([...view.evidence.values()]));
    if (combine.handedOver && !combine.decided) {
      // The combined candidate opened the next round, which compares the three.
      await recordDone(ctx, round, { combined: true });
      return combine.next;
    }
    // Shadow mode builds nothing: what live mode would do (combine, and ship it if it passes) is the decision.
    const decision = combine.handedOver
      ? combine.decided!
      : await computePlan(ctx, combine.without === undefined ? view : withoutCandidate(view, combine.without), combine);
    await recordRoundDecision(ctx, round, decision);
    // The first decision recorded stands, should two runs of this claim have decided at once;
    // none is recorded when the claim was given back meanwhile: then this run stops here.
    round = (await store.getRound(round.id)) ?? round;
    plan = readSelectionPlan(round.decision);
    const would = WouldCombineDecision.safeParse(round.decision);
    const verdict = plan?.verdict.kind ?? (would.success ? would.data.verdict.kind : null);
    if (verdict === null) return [];
    countDecision(verdict, deliveryOfToken(ctx.token));
    const data = { change: changeNumber, round: round.number, verdict };
    const decided = { kind: 'event' as const, key: roundActKey(ctx.key, changeNumber, base, round.number, 'decided') };
    await executePlan(ctx, [
      { ...decided, event: 'round.decided', data, at: nowIso(ctx) },
      ...(would.data?.actions ?? []),
    ]);
  }
  return carryOut(ctx, { change: view.change, round, base, plan, group: view.pulls });
}

/** Decided, but not readable by this version: said on the Change (readRoundPlan); the round is left to a person. */
async function leaveUnreadable(ctx: RepoContext, round: RoundRow): Promise<NextStep[]> {
  await recordDone(ctx, round, { unreadable: true });
  return [];
}

/** The claimant carries out its round's decision to the end, and records the round done. */
async function carryOut(
  ctx: RepoContext,
  input: {
    change: ChangeRow;
    round: RoundRow;
    base: string;
    /** Null for a decision the step carried out itself (shadow mode's would-combine). */
    plan: SelectionPlan | null;
    group?: ReadonlyMap<number, PullState>;
  },
): Promise<NextStep[]> {
  const { round, plan } = input;
  // The job's group read, when it has one, goes with the plan: the winner's node id and the losers' labels need no read of their own.
  const next = plan ? await executeDecision(ctx, { ...input, plan }) : [];
  // A winning candidate set: its members merge in order, one at a time (workflows/set-ship.ts).
  if (plan) await shipFromRound(ctx, { change: input.change.number, base: input.base, round: round.number, plan });
  await recordDone(ctx, round, {});
  return next;
}

/** Round `round` carried through by this run (`how`: superseded, handed to a combined candidate, unreadable). */
async function recordDone(ctx: RepoContext, round: RoundRow, how: Record<string, true>): Promise<void> {
  await executePlan(ctx, [recordAction(roundDoneKey(round.id), { token: ctx.token, ...how })]);
}
