// Verifying one candidate: gate evidence from its head's checks, then (once every required
// check has concluded) the acceptance check, each shown as Arbiter's own check run. It says
// whether the candidate settled; the job's driver (flow.ts) then runs its group's selection step.
import type { PullState } from '../github/group-query.ts';
import type { CandidateRow } from '../store/types.ts';
import { refreshCheckCriteria, runCandidateAcceptance } from './acceptance.ts';
import { branchRulesOf } from './branch-rules.ts';
import { ensurePatch, recordCandidate } from './candidates.ts';
import { OPEN_STATES } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { criteriaHash, gateFrom, storedAcceptance, storedGate } from './evidence.ts';
import { claimAnswer, executePlan } from './execute.ts';
import { gateConcluded, planAcceptance, planGate, planSettle } from '../core/plan/verify.ts';
import { agentHold, planAgentHold, planHoldCleared } from '../core/plan/agent-hold.ts';
import { shippedOn } from './shipped.ts';
import type { NextStep } from './model.ts';
import { selectStep } from './steps.ts';
import { headBlockers } from './trust.ts';
import { acceptanceKey, claimKey, gateInProgressKey } from '../core/keys.ts';
import { claimAction } from '../core/actions.ts';

/** Whether the candidate settled, and what the driver runs next (its group's selection step, once settled). */
export interface Verified {
  settled: boolean;
  next: NextStep[];
}

export async function verifyCandidate(
  ctx: RepoContext,
  pr: number,
  opts: { state?: PullState; recheck?: string; group?: ReadonlyMap<number, PullState> } = {},
): Promise<Verified> {
  const { store } = ctx.deps;
  const unsettled = (next: NextStep[] = []): Verified => ({ settled: false, next });
  let candidate = await store.getCandidate(ctx.key, pr);
  if (!candidate) return unsettled();
  /** Nothing to verify; but a retry of the run that decided this group finishes that decision (its selection step). */
  const resumeOwn = async (change: number, base: string): Promise<Verified> => {
    const round = await store.currentRound(ctx.key, change, base, nowIso(ctx));
    return unsettled(round.selection === ctx.token && round.decision !== null ? [selectStep(change, base)] : []);
  };
  if (!OPEN_STATES.has(candidate.state)) return resumeOwn(candidate.change, candidate.base);
  const change = await store.getChange(ctx.key, candidate.change);
  if (!change || change.state === 'cancelled') return unsettled();
  if (await shippedOn(ctx, change.number, candidate.base)) return resumeOwn(change.number, candidate.base);
  // One read of the whole group: this candidate's state now, its siblings' for the selection step.
  const group = opts.group ?? (opts.state ? undefined : await readSiblings(ctx, candidate));
  const state = opts.state ?? group?.get(pr);
  // Closed or merged on GitHub before the store knows it: a decided round of this run still finishes.
  if (!state || state.state !== 'OPEN') return resumeOwn(candidate.change, candidate.base);
  const next: NextStep[] = [];
  if (state.headSha !== candidate.headSha) {
    // A push we have not processed yet: record the new head first; its evidence starts afresh.
    const recorded = await recordCandidate(ctx, {
      number: pr,
      draft: state.isDraft,
      state: 'open',
      body: state.body,
      base: state.baseRef,
      headSha: state.headSha,
      author: state.author,
      labels: state.labels,
      closing: state.closing,
    });
    next.push(...recorded.next);
    if (!recorded.candidate) return unsettled(next);
    candidate = recorded.candidate;
  }
  await ensurePatch(ctx, candidate);
  const rules = await branchRulesOf(ctx, candidate.base);
  const gate = gateFrom(
    ctx,
    state,
    await storedGate(ctx, candidate),
    rules.required,
    await headBlockers(ctx, candidate),
  );
  const head = { repo: ctx.key, change: change.number, pr, headSha: candidate.headSha, token: ctx.token };
  // The gate check's first table is written once per head: whether it was is read only while it matters.
  const inProgressShown =
    !gate.settled &&
    gateConcluded(gate) &&
    (await store.getAppliedAction(gateInProgressKey(ctx.key, pr, candidate.headSha))) !== null;
  await executePlan(ctx, planGate({ head, gate, inProgressShown }, nowIso(ctx)));
  // An agent still at work (a [WIP] title), or Actions runs awaiting a maintainer's approval: the
  // candidate says what it waits for, and no acceptance check (no model call) runs on such a head.
  const hold = agentHold({ pr, author: candidate.author, title: state.title, gate });
  if (hold) {
    await executePlan(
      ctx,
      planAgentHold({
        repo: ctx.key,
        change: change.number,
        pr,
        headSha: candidate.headSha,
        hold,
        state: candidate.state,
      }),
    );
    return unsettled(next);
  }
  await executePlan(
    ctx,
    planHoldCleared({
      repo: ctx.key,
      change: change.number,
      pr,
      headSha: candidate.headSha,
      state: candidate.state,
      author: candidate.author,
      reason: candidate.reason,
    }),
  );
  let acceptance = await storedAcceptance(ctx, candidate, change);
  if (!acceptance) {
    // The acceptance check appears with its result: until every required check has concluded the
    // selection check says the candidate waits for its evidence.
    if (!gate.settled) return unsettled(next);
    // One run per head sha and criteria judges acceptance (and a retry of it); the others leave it to that run.
    const judging = claimKey(acceptanceKey(ctx.key, pr, candidate.headSha, criteriaHash(change), opts.recheck));
    const answer = claimAnswer(await executePlan(ctx, [claimAction(judging, ctx.token)]), judging);
    if (answer !== 'new' && answer !== 'mine') return unsettled(next);
    acceptance = await runCandidateAcceptance(ctx, candidate, change, state);
    await executePlan(ctx, planAcceptance(head, { ...acceptance, criteriaHash: criteriaHash(change) }, nowIso(ctx)));
  }
  // `(check: NAME)` criteria follow their checks; the candidate waits for those still running.
  const refreshed = await refreshCheckCriteria(ctx, candidate, change, state, acceptance);
  const stamped = { ...refreshed.evidence, criteriaHash: criteriaHash(change) };
  const pending = refreshed.pending.length > 0;
  await executePlan(
    ctx,
    planSettle(
      { head, state: candidate.state, gate, refreshed: refreshed.evidence !== acceptance ? stamped : null, pending },
      nowIso(ctx),
    ),
  );
  if (pending) return unsettled(next);
  return { settled: true, next: [...next, selectStep(candidate.change, candidate.base, pr, group)] };
}

/** The candidate's open group on GitHub (itself included), in one query. */
async function readSiblings(ctx: RepoContext, candidate: CandidateRow): Promise<Map<number, PullState>> {
  const siblings = (await ctx.deps.store.listCandidates(ctx.key, candidate.change, candidate.base)).filter((c) =>
    OPEN_STATES.has(c.state),
  );
  return ctx.gh.readGroup([...new Set([candidate.pr, ...siblings.map((s) => s.pr)])]);
}
