// Verifying one candidate: gate evidence from its head's checks, then (once every required
// check has concluded) the acceptance check, each shown as Arbiter's own check run. When the
// candidate has settled, the selection step runs for its group.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { computeGate, timeOutGate } from '../core/gate.ts';
import { AcceptanceEvidence, GateEvidence, type CandidateState } from '../core/types.ts';
import { gateTitle, renderGateTable } from '../core/render/check-text.ts';
import type { PullState } from '../github/group-query.ts';
import type { CandidateRow, ChangeRow } from '../store/types.ts';
import { refreshCheckCriteria, runCandidateAcceptance } from './acceptance.ts';
import { ensurePatch, recordCandidate } from './candidates.ts';
import { OPEN_STATES } from '../core/types.ts';
import { claimOnce, nowIso, type RepoContext } from './context.ts';
import { criteriaHash, gateFrom, storedAcceptance, storedGate } from './evidence.ts';
import { writeCheck } from './execute.ts';
import { resumeOwnDecision, selectionStep } from './select.ts';
import { shippedOn } from './shipped.ts';
import { headBlockers } from './trust.ts';

export async function evaluateCandidate(ctx: RepoContext, pr: number, opts: { state?: PullState; recheck?: string } = {}): Promise<void> {
  const { store } = ctx.deps;
  let candidate = await store.getCandidate(ctx.key, pr);
  if (!candidate) return;
  // Nothing to verify; but a retry of the run that decided this group finishes that decision.
  if (!OPEN_STATES.has(candidate.state)) return resumeOwnDecision(ctx, candidate.change, candidate.base);
  const change = await store.getChange(ctx.key, candidate.change);
  if (!change || change.state === 'cancelled') return;
  if (await shippedOn(ctx, change.number, candidate.base)) return resumeOwnDecision(ctx, change.number, candidate.base);
  const state = opts.state ?? (await ctx.gh.readGroup([pr])).get(pr);
  // Closed or merged on GitHub before the store knows it: a decided round of this run still finishes.
  if (!state || state.state !== 'OPEN') return resumeOwnDecision(ctx, candidate.change, candidate.base);
  if (state.headSha !== candidate.headSha) {
    // A push we have not processed yet: record the new head first; its evidence starts afresh.
    candidate = await recordCandidate(ctx, { number: pr, draft: state.isDraft, state: 'open', body: state.body, base: state.baseRef, headSha: state.headSha, author: state.author, labels: state.labels });
    if (!candidate) return;
  }
  await ensurePatch(ctx, candidate);
  const rules = await ctx.gh.branchRules(candidate.base);
  const gate = gateFrom(ctx, state, await storedGate(ctx, candidate), rules.required, await headBlockers(ctx, candidate));
  await store.putEvidence(ctx.key, pr, candidate.headSha, 'gate', gate);
  await writeCheck(ctx, {
    pr,
    headSha: candidate.headSha,
    name: 'Arbiter / gate',
    status: gate.settled ? 'completed' : 'in_progress',
    conclusion: gate.settled ? (gate.promotable ? 'success' : 'failure') : undefined,
    title: gateTitle(gate),
    summary: renderGateTable(gate),
  });
  let acceptance = await storedAcceptance(ctx, candidate, change);
  if (!acceptance) {
    if (!gate.settled) {
      await writeCheck(ctx, {
        pr,
        headSha: candidate.headSha,
        name: 'Arbiter / acceptance',
        status: 'in_progress',
        title: 'Waiting for the required checks',
        summary: `The acceptance check runs once every required check has concluded (${gate.reason}).`,
      });
      return;
    }
    // One run per head sha and criteria judges acceptance; the others leave it to that run.
    if (!(await claimOnce(ctx, `acceptance:${ctx.key}#${pr}@${candidate.headSha}/${criteriaHash(change)}${opts.recheck ? `/recheck:${opts.recheck}` : ''}`))) return;
    acceptance = await runCandidateAcceptance(ctx, candidate, change, state);
    await store.putEvidence(ctx.key, pr, candidate.headSha, 'acceptance', { ...acceptance, criteriaHash: criteriaHash(change) });
  }
  // `(check: NAME)` criteria follow their checks; the candidate waits for those still running.
  const refreshed = await refreshCheckCriteria(ctx, candidate, change, state, acceptance);
  if (refreshed.evidence !== acceptance) await store.putEvidence(ctx.key, pr, candidate.headSha, 'acceptance', { ...refreshed.evidence, criteriaHash: criteriaHash(change) });
  if (refreshed.pending.length > 0) return;
  if (candidate.state === 'verifying') {
    const settledState: CandidateState = gate.promotable ? 'verified' : 'unpromotable';
    await store.setCandidateState(ctx.key, pr, settledState, gate.reason);
  }
  await store.addEvent(ctx.key, 'candidate.settled', { pr, headSha: candidate.headSha, promotable: gate.promotable }, nowIso(ctx));
  await selectionStep(ctx, candidate.change, candidate.base, { settled: pr });
}
