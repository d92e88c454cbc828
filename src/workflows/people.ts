// What a person can make Arbiter do: promote a candidate (same compare-and-swap merge as the
// automatic path, never past a failed required check), reject one (which starts the one repair),
// cancel a Change, re-run acceptance, re-rank. Each returns a VerbResult for the reply.
import type { VerbResult } from '../commands/types.ts';
import type { Action } from '../core/actions.ts';
import { LABEL_AWAITING } from '../core/plan.ts';
import { markerFor } from '../github/markers.ts';
import type { CandidateRow } from '../store/types.ts';
import { OPEN_STATES } from './candidates.ts';
import { claimOnce, nowIso, type RepoContext } from './context.ts';
import { evaluateCandidate } from './evaluate.ts';
import { executePlan } from './execute.ts';
import { afterMergeAnswer } from './promote.ts';
import { readGroupView, selectionStep, waitingList } from './select.ts';

const refused = (code: string, message: string): VerbResult => ({ ok: false, code, message });

async function openCandidate(ctx: RepoContext, pr: number): Promise<CandidateRow | null> {
  const c = await ctx.deps.store.getCandidate(ctx.key, pr);
  return c && OPEN_STATES.has(c.state) ? c : null;
}

export async function promoteByPerson(ctx: RepoContext, pr: number, user: string, source: string): Promise<VerbResult> {
  const candidate = await openCandidate(ctx, pr);
  if (!candidate) return refused('not_open', `#${pr} is not an open candidate.`);
  const view = await readGroupView(ctx, candidate.change, candidate.base);
  if (!view) return refused('not_a_candidate', `#${pr} is not linked to a Change Arbiter knows.`);
  if (view.pending.length > 0) return refused('selection_pending', `Siblings are still pending: waiting on ${waitingList(view.pending)}.`);
  const evidence = view.evidence.get(pr);
  if (!evidence) return refused('selection_pending', `#${pr} has new commits that are not verified yet.`);
  if (!evidence.gate.promotable) return refused('failed_required_check', `#${pr} cannot ship: ${evidence.gate.reason}.`);
  if (ctx.config.mode === 'shadow') return { ok: true, message: `Shadow mode: #${pr} would be promoted now; no pull request was changed.` };
  const sha = evidence.headSha;
  const k = (suffix: string): string => `${ctx.key}#${candidate.change}/promote/${pr}@${sha}/${suffix}`;
  const pull = view.pulls.get(pr);
  const actions: Action[] = [
    { kind: 'receipt', key: k('receipt'), receipt: { kind: 'HUMAN_GATE', repo: ctx.key, change: candidate.change, round: view.round.number, at: nowIso(ctx), data: { candidates: [pr], winner: pr, decision: 'promoted by a person', by: user, source } } },
    { kind: 'unlabel', key: k('unlabel'), issue: pr, label: LABEL_AWAITING },
  ];
  if (pull?.isDraft) actions.push({ kind: 'mark-ready', key: k('ready'), pr });
  actions.push({ kind: 'merge', key: k('merge'), pr, sha, method: ctx.config.policy.mergeMethod });
  const result = await executePlan(ctx, actions);
  await afterMergeAnswer(ctx, { change: view.change, round: view.round, base: candidate.base, pr, sha, result: result.merge, by: user, scope: `promote/${pr}@${sha}` });
  if (result.merge?.ok) return { ok: true, message: `Promoted #${pr} at ${sha.slice(0, 7)}: merged.` };
  if (result.merge && !result.merge.ok && result.merge.status === 409) return refused('head_moved', `The head of #${pr} moved; nothing was merged. The new head is verified in the next round.`);
  return refused('not_mergeable', `GitHub refused to merge #${pr}; a person must resolve it.`);
}

/** A person's rejection: starts the Change's one repair (at most one, even when two race). */
export async function rejectByPerson(ctx: RepoContext, pr: number, user: string, reason: string): Promise<VerbResult> {
  const { store } = ctx.deps;
  const candidate = await openCandidate(ctx, pr);
  if (!candidate) return refused('not_open', `#${pr} is not an open candidate.`);
  const k = (suffix: string): string => `${ctx.key}#${candidate.change}/reject/${pr}@${candidate.headSha}/${suffix}`;
  // A retry of the run that took the repair still holds it (claimRepair inserts only once).
  const mine = ctx.config.repair.enabled && (await claimOnce(ctx, `repair:${ctx.key}#${candidate.change}`));
  const canRepair = mine && ((await store.claimRepair(ctx.key, candidate.change, pr, nowIso(ctx))) || (await store.getRepair(ctx.key, candidate.change))?.pr === pr);
  if (!canRepair) {
    // A second rejection while this very head's repair is pending must not close the candidate the repair will fix.
    const held = await store.getRepair(ctx.key, candidate.change);
    if (held?.pr === pr && Date.parse(candidate.headSeenAt) <= Date.parse(held.at)) {
      return { ok: true, message: `A repair of #${pr} is already requested; its new commits open the next round.` };
    }
  }
  const round = await store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
  const text = `Rejected by @${user}: ${reason}`;
  const actions: Action[] = [
    { kind: 'unlabel', key: k('unlabel'), issue: pr, label: LABEL_AWAITING },
    { kind: 'check-run', key: k('check'), pr, headSha: candidate.headSha, name: 'Arbiter / selection', status: 'completed', conclusion: 'neutral', title: canRepair ? 'Rejected: repair requested' : 'Rejected', summary: text },
  ];
  if (canRepair) {
    actions.push(
      { kind: 'receipt', key: k('receipt'), receipt: { kind: 'ACCEPTANCE_REPAIR', repo: ctx.key, change: candidate.change, round: round.number, at: nowIso(ctx), data: { candidate: pr, headSha: candidate.headSha, objective: reason.slice(0, 500), trigger: 'rejection', by: user } } },
      { kind: 'dispatch', key: `${ctx.key}#${candidate.change}/repair-by-rejection`, eventType: 'arbiter.repair', payload: { change: candidate.change, candidate: pr, base: candidate.base, head_sha: candidate.headSha, objective: reason.slice(0, 500), reason: text.slice(0, 500), round: round.number, by: user } },
      { kind: 'comment', key: k('note'), issue: candidate.change, marker: `repair:${candidate.change}`, body: `${markerFor(`repair:${candidate.change}`)}\n@${user} rejected #${pr} (${reason.slice(0, 300)}). Arbiter requested one repair; if nothing arrives within ${Math.round(ctx.config.repair.timeout / 60)} minutes, the change goes to a person.` },
    );
  } else {
    actions.push(
      { kind: 'comment', key: k('note'), issue: pr, marker: `rejected:${pr}`, body: `${markerFor(`rejected:${pr}`)}\n${text}. The change's one repair is already used, so this candidate is closed.` },
      { kind: 'close', key: k('close'), pr },
      { kind: 'set-state', key: k('state'), pr, state: 'rejected', reason: text },
    );
  }
  await executePlan(ctx, ctx.config.mode === 'shadow' ? actions.filter((a) => a.kind === 'check-run' || a.kind === 'comment' || a.kind === 'receipt') : actions);
  if (canRepair) await store.setChangeState(ctx.key, candidate.change, 'open');
  return { ok: true, message: canRepair ? `Rejected #${pr}; one repair was requested (${reason.slice(0, 200)}).` : `Rejected and closed #${pr}; the repair for #${candidate.change} was already used.` };
}

export async function cancelChange(ctx: RepoContext, change: number, user: string): Promise<VerbResult> {
  const { store } = ctx.deps;
  const candidates = (await store.listCandidatesOfChange(ctx.key, change)).filter((c) => OPEN_STATES.has(c.state));
  const text = `Cancelled by @${user}.`;
  const k = (suffix: string): string => `${ctx.key}#${change}/cancel/${suffix}`;
  const actions: Action[] = [{ kind: 'receipt', key: k('receipt'), receipt: { kind: 'CANCEL', repo: ctx.key, change, round: 0, at: nowIso(ctx), data: { by: user, closed: candidates.map((c) => c.pr) } } }];
  for (const c of candidates) {
    actions.push(
      { kind: 'check-run', key: k(`check/${c.pr}`), pr: c.pr, headSha: c.headSha, name: 'Arbiter / selection', status: 'completed', conclusion: 'neutral', title: 'Change cancelled', summary: text },
      { kind: 'comment', key: k(`note/${c.pr}`), issue: c.pr, marker: `cancel:${c.pr}`, body: `${markerFor(`cancel:${c.pr}`)}\n${text} The change #${change} will not ship.` },
      ...(c.state === 'selected' ? [{ kind: 'unlabel' as const, key: k(`unlabel/${c.pr}`), issue: c.pr, label: LABEL_AWAITING }] : []),
      { kind: 'close', key: k(`close/${c.pr}`), pr: c.pr },
      { kind: 'set-state', key: k(`state/${c.pr}`), pr: c.pr, state: 'withdrawn', reason: text },
    );
  }
  await executePlan(ctx, ctx.config.mode === 'shadow' ? actions.filter((a) => a.kind !== 'close' && a.kind !== 'set-state') : actions);
  if (ctx.config.mode !== 'shadow') await store.setChangeState(ctx.key, change, 'cancelled');
  return { ok: true, message: candidates.length > 0 ? `Cancelled #${change}: closed ${candidates.map((c) => `#${c.pr}`).join(', ')}.` : `Cancelled #${change}; it had no open candidates.` };
}

export async function statusOf(ctx: RepoContext, pr: number): Promise<VerbResult> {
  const candidate = await ctx.deps.store.getCandidate(ctx.key, pr);
  if (!candidate) return refused('not_a_candidate', `#${pr} is not a candidate.`);
  const view = await readGroupView(ctx, candidate.change, candidate.base);
  if (!view) return refused('not_a_candidate', `#${pr} is not linked to a Change Arbiter knows.`);
  const rows = [...view.evidence.values()].map((e) => {
    const results = e.acceptance?.results ?? [];
    const met = results.filter((r) => r.status === 'met').length;
    return `| #${e.pr} | ${e.gate.promotable ? '✅' : e.gate.settled ? '❌' : '⏳'} ${e.gate.reason} | ${e.acceptance ? `${met} of ${view.change.criteria.length} met` : 'pending'} |`;
  });
  const waiting = view.pending.length > 0 ? `Waiting on ${waitingList(view.pending)}.` : view.round.decision ? `Round ${view.round.number} is decided.` : 'Every sibling has settled.';
  return { ok: true, message: [`Candidates for #${view.change.number}, round ${view.round.number}. ${waiting}`, '', '| candidate | gate | acceptance |', '| --- | --- | --- |', ...rows].join('\n') };
}

export async function rankNow(ctx: RepoContext, pr: number): Promise<VerbResult> {
  const candidate = await openCandidate(ctx, pr);
  if (!candidate) return refused('not_open', `#${pr} is not an open candidate.`);
  const view = await readGroupView(ctx, candidate.change, candidate.base);
  if (!view) return refused('not_a_candidate', `#${pr} is not linked to a Change Arbiter knows.`);
  if (view.pending.length > 0) return refused('selection_pending', `Not every sibling has settled: waiting on ${waitingList(view.pending)}.`);
  if (view.round.selection !== null) await ctx.deps.store.openNextRound(ctx.key, candidate.change, candidate.base, view.round.number, nowIso(ctx));
  await selectionStep(ctx, candidate.change, candidate.base);
  const round = await ctx.deps.store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
  return { ok: true, message: `Ranked the candidates for #${candidate.change} (round ${round.number}); see the comparison on #${candidate.change}.` };
}

export async function recheckCandidate(ctx: RepoContext, pr: number): Promise<VerbResult> {
  const candidate = await openCandidate(ctx, pr);
  if (!candidate) return refused('not_open', `#${pr} is not an open candidate.`);
  const { store } = ctx.deps;
  await store.putEvidence(ctx.key, pr, candidate.headSha, 'acceptance', null);
  const round = await store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
  if (round.selection !== null) await store.openNextRound(ctx.key, candidate.change, candidate.base, round.number, nowIso(ctx));
  await store.setCandidateState(ctx.key, pr, 'verifying', 'acceptance re-run on request');
  await evaluateCandidate(ctx, pr, { recheck: ctx.token });
  return { ok: true, message: `Re-ran the acceptance check on #${pr} (head ${candidate.headSha.slice(0, 7)}).` };
}
