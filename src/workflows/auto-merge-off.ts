// Withdrawing the auto-merge Arbiter enabled on a group's winner once that head lost its place: a
// push by someone with write access leaves GitHub's auto-merge on, so without this GitHub would merge
// a head Arbiter never verified. Reads the store's mark, GitHub's pull request and the current round,
// plans with planAutoMergeOff (core/plan/auto-merge-off.ts) and hands the plan to the executor.
import type { Action } from '../core/actions.ts';
import { AutoMergeOn, planAutoMergeOff } from '../core/plan/auto-merge-off.ts';
import type { SelectionPlan } from '../core/plan/selection.ts';
import { autoMergeMarkKey, autoMergeOnKey } from '../core/keys.ts';
import type { PullState } from '../github/group-query.ts';
import type { CandidateState, ChangeState } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { readablePlan } from './recorded-plan.ts';

/** The winner a plan promotes and the head its promotion names, or null when it ships nothing. */
export function shipsOf(plan: SelectionPlan | null): { pr: number; sha: string } | null {
  if (!plan || plan.verdict.kind !== 'ship') return null;
  const winner = plan.verdict.winner;
  const step = plan.actions.find(
    (a): a is Extract<Action, { kind: 'merge' | 'auto-merge' | 'update-branch' }> =>
      (a.kind === 'merge' || a.kind === 'auto-merge' || a.kind === 'update-branch') && a.pr === winner,
  );
  return step ? { pr: winner, sha: step.sha } : null;
}

export interface WithdrawOptions {
  /** The group as this job read it moments before (else the winner is read alone). */
  pulls?: ReadonlyMap<number, PullState>;
  /** The round about to be carried out, in place of the stored current round (a decision being executed). */
  round?: { number: number; plan: SelectionPlan | null };
  /** A person's promotion about to ship this head: whatever else Arbiter enabled in the group goes first. */
  promoting?: { pr: number; sha: string };
  /** What is about to end (before the plan that ends it runs): the Change cancelled, or a candidate leaving. */
  ending?: { change?: ChangeState; candidate?: { pr: number; state: CandidateState } };
}

/**
 * Disables the auto-merge Arbiter enabled in the Change's group on `base` when its head is no longer
 * the one the current round ships. Costs nothing (one store read) while Arbiter enabled none.
 */
export async function withdrawAutoMerge(
  ctx: RepoContext,
  change: number,
  base: string,
  opts: WithdrawOptions = {},
): Promise<void> {
  const { store } = ctx.deps;
  const mark = AutoMergeOn.safeParse(await store.getAppliedAction(autoMergeOnKey(ctx.key, change, base)));
  if (!mark.success) return;
  const on = mark.data;
  const known = opts.pulls?.get(on.pr);
  const pull = known?.autoMergeBy !== undefined ? known : (await ctx.gh.readGroup([on.pr])).get(on.pr);
  let round = opts.round;
  if (!round) {
    const row = await store.currentRound(ctx.key, change, base, nowIso(ctx));
    round = { number: row.number, plan: await readablePlan(ctx, row) };
  }
  const actions = planAutoMergeOff({
    repo: ctx.key,
    change,
    base,
    on,
    live: pull
      ? {
          open: pull.state === 'OPEN',
          headSha: pull.headSha,
          autoMergeBy: pull.autoMergeBy ?? null,
          ...(pull.merge ? { inMergeQueue: pull.merge.inMergeQueue } : {}),
        }
      : null,
    bot: ctx.gh.botLogin,
    changeState: opts.ending?.change ?? (await store.getChange(ctx.key, change))?.state ?? null,
    candidateState:
      opts.ending?.candidate?.pr === on.pr
        ? opts.ending.candidate.state
        : ((await store.getCandidate(ctx.key, on.pr))?.state ?? null),
    round: { number: round.number, ships: opts.promoting ?? shipsOf(round.plan) },
  });
  if (actions.length === 0) return;
  for (const a of actions)
    if (a.kind === 'disable-auto-merge' || a.kind === 'dequeue')
      ctx.log.info({ pr: a.pr, why: a.why, queue: a.kind === 'dequeue' }, 'auto-merge withdrawn');
  await executePlan(ctx, actions);
}

/**
 * Records the auto-merge Arbiter just enabled on a winner (by the action keyed `enabledBy`): the mark
 * `withdrawAutoMerge` reads. One per group: a winner's new auto-merge replaces the mark of one
 * withdrawn before it.
 */
export async function noteAutoMerge(
  ctx: RepoContext,
  change: number,
  base: string,
  on: AutoMergeOn,
  enabledBy: string,
): Promise<void> {
  const record = autoMergeOnKey(ctx.key, change, base);
  const key = autoMergeMarkKey(enabledBy, nowIso(ctx), ctx.token);
  await executePlan(ctx, [{ kind: 'put-record', key, record, value: on, replace: true }]);
}
