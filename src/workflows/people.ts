// What a person can make Arbiter do: promote a candidate (same compare-and-swap merge as the
// automatic path, never past a failed required check), reject one (which starts the one repair),
// cancel a Change, re-run acceptance, re-rank. Each returns a VerbResult for the reply.
import type { VerbResult } from '../commands/types.ts';
import {
  cancelledCandidates,
  planCancel,
  planRejection,
  type RejectionPlan,
  type RepairChance,
} from '../core/plan/person.ts';
import { LABEL_AWAITING } from '../core/plan/selection.ts';
import { readablePlan } from './recorded-plan.ts';
import { planRoundViews } from '../core/plan/views.ts';
import type { CandidateRow, RoundRow } from '../store/types.ts';
import { ownChecksEnd } from './clean-ends.ts';
import { OPEN_STATES } from '../core/types.ts';
import { combinedCandidate } from './combine.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan, repairGranted } from './execute.ts';
import type { Action } from '../core/actions.ts';
import { selectAndFollow, verifyAndSelect } from './flow.ts';
import { withdrawAutoMerge } from './auto-merge-off.ts';
import { recordRepairByRejection, repairByRejection } from './repair-trigger.ts';
import { readGroupView, waitingList } from './group-view.ts';
import { openCandidatesByBase, statusOfChange } from './status.ts';
import { changeActionKey } from '../core/keys.ts';
import { planLeftRound, planRankRound, planRecheck, type PersonRoundView } from '../core/plan/person-rounds.ts';
import { inMode } from '../core/render/mode-words.ts';

const refused = (code: string, message: string): VerbResult => ({ ok: false, code, message });

async function openCandidate(ctx: RepoContext, pr: number): Promise<CandidateRow | null> {
  const c = await ctx.deps.store.getCandidate(ctx.key, pr);
  return c && OPEN_STATES.has(c.state) ? c : null;
}

/** Whether the candidate waits at the human gate (DESIGN.md section 6): the decided round put it before a person. */
export async function isGated(ctx: RepoContext, candidate: CandidateRow): Promise<boolean> {
  const { store } = ctx.deps;
  const round = await store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
  const decided = await readablePlan(ctx, round);
  if (decided?.verdict.kind === 'human' && decided.verdict.before.includes(candidate.pr)) return true;
  // A winner whose merge ended with a person (405, a policy that changed) waits there too.
  const change = await store.getChange(ctx.key, candidate.change);
  return candidate.state === 'selected' && change?.state === 'human';
}

/**
 * A person's rejection: the candidate is out of the running at once, whatever its round's state.
 * A gated candidate gets the Change's one repair (at most one, even when two race) and stays
 * open for it; any other is closed, and the reply says why no repair started.
 */
export async function rejectByPerson(ctx: RepoContext, pr: number, user: string, reason: string): Promise<VerbResult> {
  const { store } = ctx.deps;
  const row = await store.getCandidate(ctx.key, pr);
  const held = row ? await store.getRepair(ctx.key, row.change) : null;
  const byRejection = row ? await repairByRejection(ctx, row.change) : null;
  // Only a repair an earlier rejection of this very head granted is left alone: a second rejection must not
  // close the candidate that repair will fix. A round's repair verdict never outweighs a person's rejection.
  const grantedHere = byRejection?.pr === pr && byRejection.headSha === row?.headSha;
  if (row && held?.pr === pr && grantedHere && (row.state === 'selected' || row.state === 'rejected')) {
    return { ok: true, message: `A repair of #${pr} is already requested; its new commits open the next round.` };
  }
  const candidate = await openCandidate(ctx, pr);
  if (!candidate) return refused('not_open', `#${pr} is not an open candidate.`);
  const round = await store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
  const gated = await isGated(ctx, candidate);
  const combined = await combinedCandidate(ctx, candidate.change);
  // The combined candidate is Arbiter's own build: rejected, it closes, and its sources stay to be chosen.
  const ownBuild = combined?.pr === pr;
  let repair: RepairChance = ownBuild
    ? 'combined'
    : !gated
      ? 'not-gated'
      : !ctx.config.repair.enabled
        ? 'disabled'
        : 'used';
  if (gated && ctx.config.repair.enabled && !ownBuild) {
    const key = changeActionKey(ctx.key, candidate.change, 'reject', `${pr}@${candidate.headSha}`, 'claim-repair');
    const claimed = await executePlan(ctx, [{ kind: 'claim-repair', key, change: candidate.change, pr }]);
    // A claim the executor kept back (shadow mode): the plan says what would happen were the repair free.
    const withheld = claimed.withheld.length > 0;
    const free = held === null || (held.pr === pr && byRejection?.pr === pr);
    if (withheld ? free : repairGranted(claimed, key)) repair = 'granted';
    if (repair === 'granted' && !withheld) await recordRepairByRejection(ctx, candidate.change, pr, candidate.headSha);
  }
  if (repair !== 'granted' && held?.pr === pr) repair = 'spent';
  const plan = await rejectionPlan(ctx, candidate, round, user, reason, repair);
  // A combined candidate holds this candidate's diff: it leaves with it (DESIGN.md section 6).
  const built = combined?.sources.includes(pr) ? await openCandidate(ctx, combined.pr) : null;
  const why = `built from #${pr}, which @${user} rejected`;
  const alongside = built ? await rejectionPlan(ctx, built, round, user, why, 'source-rejected') : null;
  // The rejected candidate's own checks, then the combined one's, complete after the rejection.
  const ends = [
    ...(await ownChecksEnd(ctx, candidate, `Rejected by @${user}`)),
    ...(built ? await ownChecksEnd(ctx, built, `Built from #${pr}, which @${user} rejected`) : []),
  ];
  // An auto-merge Arbiter enabled on the rejected candidate goes before anything else.
  await withdrawAutoMerge(ctx, candidate.change, candidate.base, {
    ending: { candidate: { pr, state: 'rejected' } },
  });
  const result = await executePlan(ctx, [...plan.actions, ...(alongside?.actions ?? []), ...ends]);
  // A candidate that left (closed, rejected) leaves its round to be compared again; one the filter
  // kept in place (shadow mode) did not leave, and the round stays as it was.
  const left = !result.withheld.some((a) => a.kind === 'set-state' && a.pr === pr);
  if (!plan.keptForRepair && left) await afterLeaving(ctx, candidate, round);
  const also = !built
    ? ''
    : inMode(ctx.config, {
        live: ` The combined candidate #${built.pr}, built from #${pr}, was rejected and closed too.`,
        shadow: ` Arbiter would close the combined candidate #${built.pr} too: it was built from #${pr}.`,
      });
  return { ok: true, message: plan.reply + also };
}

async function rejectionPlan(
  ctx: RepoContext,
  candidate: CandidateRow,
  round: RoundRow,
  user: string,
  reason: string,
  repair: RepairChance,
): Promise<RejectionPlan> {
  return planRejection({
    repo: ctx.key,
    change: candidate.change,
    pr: candidate.pr,
    headSha: candidate.headSha,
    base: candidate.base,
    round: round.number,
    user,
    reason,
    repair,
    awaiting: (await ctx.gh.pullState(candidate.pr)).labels.includes(LABEL_AWAITING),
    config: ctx.config,
    repairTimeout: ctx.config.repair.timeout,
    now: nowIso(ctx),
  });
}

/**
 * A candidate left a round (rejected and closed): an undecided round may now be complete; a
 * decided one compares the siblings that remain again, so the Change never waits on a candidate
 * that is gone.
 */
async function afterLeaving(ctx: RepoContext, candidate: CandidateRow, round: RoundRow): Promise<void> {
  const remaining = (await ctx.deps.store.listCandidates(ctx.key, candidate.change, candidate.base)).filter((c) =>
    OPEN_STATES.has(c.state),
  );
  const plan = planLeftRound({
    ...roundView(ctx, candidate, round),
    remaining: remaining.length,
    prefix: ctx.config.commands.prefix,
  });
  await executePlan(ctx, plan.actions);
  if (plan.select) await selectAndFollow(ctx, candidate.change, candidate.base);
}

/** The round and the candidate a person's command is about, as its planner reads them. */
const roundView = (ctx: RepoContext, candidate: CandidateRow, round: RoundRow): PersonRoundView => ({
  repo: ctx.key,
  change: candidate.change,
  base: candidate.base,
  round: { number: round.number, decided: round.decision !== null, claimed: round.selection !== null },
  pr: candidate.pr,
  headSha: candidate.headSha,
  now: nowIso(ctx),
});

/**
 * Cancels a Change: every open candidate is closed (live mode) with its checks completed. `how`
 * says what cancelled it (default: the person's `cancel` command). Keyed by the run, so a Change
 * reopened and cancelled again is cancelled again.
 */
export async function cancelChange(
  ctx: RepoContext,
  change: number,
  user: string,
  how = `Cancelled by @${user}.`,
): Promise<VerbResult> {
  const { store } = ctx.deps;
  // A rejected candidate kept open for its repair is closed too.
  const repair = await store.getRepair(ctx.key, change);
  const candidates = cancelledCandidates(await store.listCandidatesOfChange(ctx.key, change), repair?.pr ?? null);
  // The awaiting-approval label's reason ends with the Change: removed wherever GitHub shows it.
  const pulls = candidates.length > 0 ? await ctx.gh.readGroup(candidates.map((c) => c.pr)) : new Map();
  const plan = planCancel({
    repo: ctx.key,
    change,
    token: ctx.token,
    user,
    how,
    candidates: candidates.map((c) => ({
      pr: c.pr,
      headSha: c.headSha,
      awaiting: pulls.get(c.pr)?.labels.includes(LABEL_AWAITING) === true,
    })),
    config: ctx.config,
    now: nowIso(ctx),
  });
  // The auto-merge Arbiter enabled on a winner goes before its candidates close.
  for (const base of new Set(candidates.map((c) => c.base)))
    await withdrawAutoMerge(ctx, change, base, { pulls, ending: { change: 'cancelled' } });
  const result = await executePlan(ctx, plan.actions);
  // The filter kept the cancellation back (shadow mode): nothing was cancelled, so nothing follows it.
  if (result.withheld.some((a) => a.kind === 'set-change-state')) return { ok: true, message: plan.reply };
  const ends: Action[] = [];
  for (const c of candidates) ends.push(...(await ownChecksEnd(ctx, c, 'Change cancelled')));
  await executePlan(ctx, ends);
  // Each base's comparison and gate comments say it was cancelled (issue 25).
  const bases = new Set((await store.listCandidatesOfChange(ctx.key, change)).map((c) => c.base));
  for (const base of bases) {
    const decided = await readablePlan(ctx, await store.currentRound(ctx.key, change, base, nowIso(ctx)));
    if (!decided) continue;
    const end = { kind: 'cancelled' as const, how };
    const views = planRoundViews({ decided, end, prefix: ctx.config.commands.prefix, repair });
    await executePlan(ctx, views);
  }
  return { ok: true, message: plan.reply };
}

export async function statusOf(ctx: RepoContext, pr: number): Promise<VerbResult> {
  const candidate = await ctx.deps.store.getCandidate(ctx.key, pr);
  // On the Change issue itself: every candidate it had, by base.
  if (!candidate && (await ctx.deps.store.getChange(ctx.key, pr))) return statusOfChange(ctx, pr);
  if (!candidate) return refused('not_a_candidate', `#${pr} is not a candidate.`);
  const view = await readGroupView(ctx, candidate.change, candidate.base);
  if (!view) return refused('not_a_candidate', `#${pr} is not linked to a Change Arbiter knows.`);
  const rows = [...view.evidence.values()].map((e) => {
    const results = e.acceptance?.results ?? [];
    const met = results.filter((r) => r.status === 'met').length;
    return `| #${e.pr} | ${e.gate.promotable ? '✅' : e.gate.settled ? '❌' : '⏳'} ${e.gate.reason} | ${e.acceptance ? `${met} of ${view.change.criteria.length} met` : 'pending'} |`;
  });
  const waiting =
    view.pending.length > 0
      ? `Waiting on ${waitingList(view.pending)}.`
      : view.round.decision
        ? `Round ${view.round.number} is decided.`
        : 'Every sibling has settled.';
  return {
    ok: true,
    message: [
      `Candidates for #${view.change.number}, round ${view.round.number}. ${waiting}`,
      '',
      '| candidate | gate | acceptance |',
      '| --- | --- | --- |',
      ...rows,
    ].join('\n'),
  };
}

export async function rankNow(ctx: RepoContext, pr: number): Promise<VerbResult> {
  // On the Change issue: rank each base's group, as `rank` on one of its open candidates would.
  if (!(await ctx.deps.store.getCandidate(ctx.key, pr)) && (await ctx.deps.store.getChange(ctx.key, pr))) {
    const groups = await openCandidatesByBase(ctx, pr);
    if (groups.length === 0) return refused('not_open', `#${pr} has no open candidate to rank.`);
    const answers: VerbResult[] = [];
    for (const one of groups) answers.push(await rankNow(ctx, one.pr));
    const failed = answers.find((a) => !a.ok);
    return failed ?? { ok: true, message: answers.map((a) => a.message).join('\n') };
  }
  const candidate = await openCandidate(ctx, pr);
  if (!candidate) return refused('not_open', `#${pr} is not an open candidate.`);
  const view = await readGroupView(ctx, candidate.change, candidate.base);
  if (!view) return refused('not_a_candidate', `#${pr} is not linked to a Change Arbiter knows.`);
  if (view.pending.length > 0)
    return refused('selection_pending', `Not every sibling has settled: waiting on ${waitingList(view.pending)}.`);
  await executePlan(ctx, planRankRound({ ...roundView(ctx, candidate, view.round), token: ctx.token }));
  await selectAndFollow(ctx, candidate.change, candidate.base);
  const round = await ctx.deps.store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
  return {
    ok: true,
    message: `Ranked the candidates for #${candidate.change} (round ${round.number}); see the comparison on #${candidate.change}.`,
  };
}

export async function recheckCandidate(ctx: RepoContext, pr: number): Promise<VerbResult> {
  const candidate = await openCandidate(ctx, pr);
  if (!candidate) return refused('not_open', `#${pr} is not an open candidate.`);
  const round = await ctx.deps.store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
  await executePlan(ctx, planRecheck({ ...roundView(ctx, candidate, round), token: ctx.token }));
  await verifyAndSelect(ctx, pr, { recheck: ctx.token });
  return { ok: true, message: `Re-ran the acceptance check on #${pr} (head ${candidate.headSha.slice(0, 7)}).` };
}
