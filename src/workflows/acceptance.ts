// Running the acceptance check for one candidate head: gather the context (patch first, then
// head files, in at most two GraphQL queries), judge it within budget, and show the result as
// the `Arbiter / acceptance` check run.
import { buildAcceptanceContext } from '../acceptance/context.ts';
import { gatherHeadFiles } from '../acceptance/gather.ts';
import { renderAcceptanceCheck } from '../acceptance/render.ts';
import { pendingCriterionChecks, rejudgeByChecks, runAcceptance } from '../acceptance/run.ts';
import type { AcceptanceEvidence } from '../core/types.ts';
import type { PullState } from '../github/group-query.ts';
import type { CandidateRow, ChangeRow } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { z } from 'zod';
import { checkAction, type Action } from '../core/actions.ts';
import { modelBudgetKey, verifyActionKey } from '../core/keys.ts';

const Taken = z.boolean();

/** Takes one model call from the Change's budget and the installation's daily cap, through the executor. */
export function budgetTaker(ctx: RepoContext, change: number): () => Promise<boolean> {
  return async () => {
    const day = nowIso(ctx).slice(0, 10);
    const { perChange, dailyPerInstallation } = ctx.config.acceptance.budget;
    const take: Action = {
      kind: 'take-budget',
      key: modelBudgetKey(ctx.key, change, day),
      change,
      day,
      calls: 1,
      limits: { perChange, dailyPerInstallation },
    };
    return Taken.safeParse((await executePlan(ctx, [take])).results.get(take.key)).data === true;
  };
}

export async function runCandidateAcceptance(
  ctx: RepoContext,
  candidate: CandidateRow,
  change: ChangeRow,
  state: PullState,
): Promise<AcceptanceEvidence> {
  const { store } = ctx.deps;
  const { criteria } = change;
  const base = { pr: candidate.pr, headSha: candidate.headSha, name: 'Arbiter / acceptance' as const };
  const patch = await store.getPatch(ctx.key, candidate.pr, candidate.headSha);
  if (criteria.length === 0 || !patch) {
    const evidence: AcceptanceEvidence = {
      status: 'none',
      results: [],
      truncated: false,
      modelCalls: { small: 0, large: 0 },
    };
    const shown = renderAcceptanceCheck(evidence, criteria, {});
    await executePlan(ctx, [
      checkAction(ctx.key, {
        ...base,
        status: 'completed',
        conclusion: 'neutral',
        title: shown.title,
        summary: shown.summary,
        text: shown.text,
      }),
    ]);
    return evidence;
  }
  // The check is written once, with its result: the selection check says the candidate waits for
  // its evidence while the model judges.
  const modelCriteria = criteria.filter((c) => c.check === null).length;
  const headFiles =
    modelCriteria > 0
      ? await gatherHeadFiles((input) => ctx.gh.readHead(input), {
          sha: candidate.headSha,
          patch,
          config: ctx.config.acceptance,
        })
      : new Map();
  const context = buildAcceptanceContext({ patch, headFiles, config: ctx.config.acceptance });
  const evidence = await runAcceptance({
    candidate: candidate.pr,
    criteria,
    context,
    changeTitle: change.title,
    checks: state.checks,
    config: ctx.config.acceptance,
    llm: ctx.deps.llm,
    takeBudget: budgetTaker(ctx, change.number),
  });
  const at = nowIso(ctx);
  // The check, then the receipt of what was judged: one per run and time, as each run judges anew.
  await executePlan(ctx, [
    judgedCheck(ctx, candidate, evidence, criteria),
    {
      kind: 'receipt',
      key: verifyActionKey(
        ctx.key,
        change.number,
        candidate.pr,
        candidate.headSha,
        at,
        ctx.token,
        'acceptance-receipt',
      ),
      receipt: {
        kind: 'ACCEPTANCE',
        repo: ctx.key,
        change: change.number,
        round: 0,
        at,
        data: {
          candidate: candidate.pr,
          headSha: candidate.headSha,
          status: evidence.status,
          results: evidence.results.map((r) => ({ id: r.id, status: r.status, source: r.source })),
          modelCalls: evidence.modelCalls,
          truncated: evidence.truncated,
        },
      },
    },
  ]);
  return evidence;
}

/** The acceptance check showing judged evidence on the candidate's head, its quotes linked to that head's files. */
function judgedCheck(
  ctx: RepoContext,
  candidate: CandidateRow,
  evidence: AcceptanceEvidence,
  criteria: ChangeRow['criteria'],
): Action {
  const shown = renderAcceptanceCheck(evidence, criteria, {
    head: { owner: ctx.owner, repo: ctx.repo, sha: candidate.headSha, repoUrl: ctx.repoUrl },
  });
  return checkAction(ctx.key, {
    pr: candidate.pr,
    headSha: candidate.headSha,
    name: 'Arbiter / acceptance',
    status: 'completed',
    conclusion: shown.conclusion,
    title: shown.title,
    summary: shown.summary,
    text: shown.text,
    annotations: shown.annotations,
  });
}

/**
 * `(check: NAME)` criteria are judged again from the head's checks each time the candidate is
 * evaluated (no model call): when a result changed, the evidence and the check run are rewritten.
 * Returns the evidence now, and the criterion checks still pending while `selection.siblingTimeout`
 * has not passed since the head was seen (the candidate is not settled while there are any).
 */
export async function refreshCheckCriteria(
  ctx: RepoContext,
  candidate: CandidateRow,
  change: ChangeRow,
  state: PullState,
  evidence: AcceptanceEvidence,
): Promise<{ evidence: AcceptanceEvidence; pending: string[] }> {
  const fresh = rejudgeByChecks(evidence, change.criteria, state.checks);
  if (fresh !== null) await executePlan(ctx, [judgedCheck(ctx, candidate, fresh, change.criteria)]);
  return { evidence: fresh ?? evidence, pending: awaitedCriterionChecks(ctx, candidate, change, state) };
}

/** The `(check: NAME)` checks still pending on the head, within `selection.siblingTimeout` of the head being seen. */
export function awaitedCriterionChecks(
  ctx: RepoContext,
  candidate: CandidateRow,
  change: ChangeRow,
  state: PullState,
): string[] {
  const waited = ctx.deps.clock.now().getTime() - Date.parse(candidate.headSeenAt);
  if (waited >= ctx.config.selection.siblingTimeout * 1000) return [];
  return pendingCriterionChecks(change.criteria, state.checks);
}
