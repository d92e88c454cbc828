// Promotion and what follows it: executing a decided plan, then reading the merge's answer.
// Merged: the losers close as lost, PROMOTION receipt, other open siblings close as stale. 409 (the
// head moved): the next round starts, no merge is reported, and the candidate is verified again
// (a step returned to the job's driver). 405 (not mergeable): a person is
// asked, and the losers stay open.
import type { Action } from '../core/actions.ts';
import { LABEL_AWAITING, type SelectionPlan } from '../core/plan/selection.ts';
import { readablePlan } from './recorded-plan.ts';
import type { Receipt } from '../core/receipt.ts';
import { markerFor } from '../core/render/markers.ts';
import type { MergeResult } from '../github/gateway.ts';
import type { ChangeRow, RoundRow } from '../store/types.ts';
import { OPEN_STATES } from '../core/types.ts';
import { completeOwnChecks } from './clean-ends.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import type { NextStep } from './steps.ts';

/** Executes a decided plan and what its merge's answer asks for; returns what the driver runs next. */
export async function executeDecision(
  ctx: RepoContext,
  input: { change: ChangeRow; round: RoundRow; base: string; plan: SelectionPlan },
): Promise<NextStep[]> {
  const { plan, change, round, base } = input;
  const result = await executePlan(ctx, plan.actions);
  if (plan.verdict.kind === 'ship') {
    const winner = plan.verdict.winner;
    const sha =
      plan.actions.find(
        (a): a is Extract<Action, { kind: 'merge' | 'auto-merge' }> => a.kind === 'merge' || a.kind === 'auto-merge',
      )?.sha ?? '';
    // Shadow mode merges nothing, so nothing follows but what the plan would do to the losers.
    if (ctx.config.mode === 'shadow') await executePlan(ctx, plan.afterShip ?? []);
    // Losers close only after the merge succeeded; a merge that ends with a person leaves them open.
    else if (result.merge?.ok && !('queued' in result.merge)) await executePlan(ctx, plan.afterShip ?? []);
    else if (result.merge && !result.merge.ok && result.merge.status !== 409)
      await executePlan(ctx, plan.onRefused ?? []);
    return afterMergeAnswer(ctx, {
      change,
      round,
      base,
      pr: winner,
      sha,
      result: result.merge,
      by: null,
      scope: `${base}/r${round.number}`,
    });
  }
  if (plan.verdict.kind === 'human' || plan.verdict.kind === 'repair') {
    await ctx.deps.store.setChangeState(ctx.key, change.number, plan.verdict.kind === 'human' ? 'human' : 'open');
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
  },
): Promise<NextStep[]> {
  const { change, round, pr, sha, result, by } = input;
  const { store } = ctx.deps;
  const k = (suffix: string): string => `${ctx.key}#${change.number}/${input.scope}/after/${suffix}`;
  if (!result) return [];
  if (result.ok && 'queued' in result) {
    await executePlan(ctx, [
      {
        kind: 'check-run',
        key: k(`check/${pr}`),
        pr,
        headSha: sha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'success',
        title: 'Selected: auto-merge enabled',
        summary: `#${pr} merges once the branch's required reviews or merge queue let it.`,
      },
    ]);
    return [];
  }
  if (result.ok) {
    await afterMerged(ctx, { change, base: input.base, pr, sha, by, round: round.number, scope: input.scope });
    return [];
  }
  if (result.status === 409) {
    // The head moved between the decision and the merge: nothing shipped; the new head is compared afresh.
    await store.openNextRound(ctx.key, change.number, input.base, round.number, nowIso(ctx));
    await store.setCandidateState(ctx.key, pr, 'verifying', 'head moved during promotion');
    await store.addEvent(ctx.key, 'promotion.head-moved', { pr, sha, round: round.number }, nowIso(ctx));
    await executePlan(ctx, [
      {
        kind: 'check-run',
        key: k(`moved/${pr}`),
        pr,
        headSha: sha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: 'Head moved during promotion',
        summary: `GitHub refused the merge of ${sha.slice(0, 7)} because the head moved. Nothing was merged; the new head starts round ${round.number + 1}.`,
      },
    ]);
    // The candidate is verified again next: a new head is recorded and judged afresh. If GitHub's
    // head is in fact unchanged, round n+1 compares it again and its merge is tried once more, but
    // only once per sha: a head that keeps answering 409 waits for its synchronize webhook.
    const once = `reverify:${ctx.key}#${pr}@${sha}`;
    if ((await store.getAppliedAction(once)) !== null) return [];
    await store.recordAppliedAction(once, { round: round.number }, nowIso(ctx));
    return [{ kind: 'verify', pr }];
  }
  const why = `GitHub refused to merge #${pr} (${result.status}: ${result.message || 'not mergeable, for example a conflict'}). Resolve it and approve, or cancel the change.`;
  await store.setChangeState(ctx.key, change.number, 'human');
  await executePlan(ctx, [
    { kind: 'label', key: k(`awaiting/${pr}`), issue: pr, labels: [LABEL_AWAITING] },
    {
      kind: 'comment',
      key: k(`refused/${pr}`),
      issue: pr,
      marker: `refused:${pr}:${input.scope}`,
      body: `${markerFor(`refused:${pr}:${input.scope}`)}\n${why}`,
    },
    {
      kind: 'check-run',
      key: k(`refused-check/${pr}`),
      pr,
      headSha: sha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: 'Not mergeable: a person must act',
      summary: why,
    },
    {
      kind: 'receipt',
      key: k('receipt/human'),
      receipt: {
        kind: 'HUMAN_GATE',
        repo: ctx.key,
        change: change.number,
        round: round.number,
        at: nowIso(ctx),
        data: { candidates: [pr], winner: pr, why: `merge refused (${result.status})` },
      },
    },
  ]);
  return [];
}

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
  const k = (suffix: string): string => `${ctx.key}#${change.number}/shipped/${suffix}`;
  const receipt: Receipt = {
    kind: 'PROMOTION',
    repo: ctx.key,
    change: change.number,
    round: input.round,
    at: nowIso(ctx),
    data: { candidate: pr, headSha: input.sha, by: input.by ?? 'arbiter', method: ctx.config.policy.mergeMethod },
  };
  const actions: Action[] = [
    { kind: 'receipt', key: k('receipt'), receipt },
    {
      kind: 'set-state',
      key: k(`state/${pr}`),
      pr,
      state: 'promoted',
      reason: input.by ? `promoted by @${input.by}` : 'merged',
      observed: true,
    },
  ];
  if (input.sha) {
    actions.push({
      kind: 'check-run',
      key: k(`check/${pr}`),
      pr,
      headSha: input.sha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'success',
      title: input.by ? `Promoted by @${input.by}` : 'Selected: shipped',
      summary: `#${pr} was merged${input.by ? ` on @${input.by}'s word` : ''}.`,
    });
  }
  // A plan this version cannot read was said so on the Change: the merge that happened is handled as not the round's.
  const decided = await readablePlan(ctx, await store.currentRound(ctx.key, change.number, input.base, nowIso(ctx)));
  const ours = decided !== null && decided.verdict.kind === 'ship' && decided.verdict.winner === pr;
  const queued = ours && (await queuedByRound(ctx, decided));
  // An auto-merge landed later: the round's losers close as lost (their reason), before the stale sweep.
  if (queued) await executePlan(ctx, decided.afterShip ?? []);
  // The round's own merge: its claimant closes the losers as lost (its retry, or the sweep under its
  // token, finishes them should it die), so they are neither raced for nor closed as stale here.
  const leftToClaimant = new Set(
    ours && !queued ? (decided.afterShip ?? []).flatMap((a) => (a.kind === 'close' ? [a.pr] : [])) : [],
  );
  const siblings = (await store.listCandidates(ctx.key, change.number, input.base)).filter(
    (c) => c.pr !== pr && OPEN_STATES.has(c.state) && !leftToClaimant.has(c.pr),
  );
  const pulls = siblings.length > 0 ? await ctx.gh.readGroup(siblings.map((s) => s.pr)) : new Map();
  for (const s of siblings) {
    const reason = `Superseded: #${pr} shipped.`;
    actions.push({
      kind: 'check-run',
      key: k(`stale-check/${s.pr}`),
      pr: s.pr,
      headSha: s.headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: reason,
      summary: reason,
    });
    actions.push({
      kind: 'comment',
      key: k(`stale-note/${s.pr}`),
      issue: s.pr,
      marker: `stale:${s.pr}`,
      body: `${markerFor(`stale:${s.pr}`)}\n${reason}`,
    });
    // A sibling that waited before a person carries the awaiting-approval label: it goes too.
    if (pulls.get(s.pr)?.labels.includes(LABEL_AWAITING))
      actions.push({ kind: 'unlabel', key: k(`stale-unlabel/${s.pr}`), issue: s.pr, label: LABEL_AWAITING });
    actions.push({ kind: 'close', key: k(`stale-close/${s.pr}`), pr: s.pr });
    actions.push({ kind: 'set-state', key: k(`stale-state/${s.pr}`), pr: s.pr, state: 'stale', reason });
  }
  await executePlan(ctx, actions);
  for (const s of siblings) await completeOwnChecks(ctx, s, `Superseded: #${pr} shipped`);
  await store.setChangeState(ctx.key, change.number, 'shipped');
}
