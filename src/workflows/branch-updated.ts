// Whether Arbiter already brought a winner's head up to date once (update-branch): recorded by PR and
// the head it updated from, so the update's own merge commit (whose first parent is that head) falling
// behind again goes to a person, while a new head the agent pushes later may be updated once more.
import { recordAction } from '../core/actions.ts';
import { branchUpdatedKey } from '../core/keys.ts';
import type { RepoContext } from './context.ts';
import { executePlan } from './execute.ts';

/** True when any of `heads` (the current head and its parents) is a head Arbiter updated from. */
export async function branchUpdatedFrom(ctx: RepoContext, pr: number, heads: string[]): Promise<boolean> {
  const keys = [...new Set(heads)].map((sha) => branchUpdatedKey(ctx.key, pr, sha));
  return (await ctx.deps.store.getAppliedActions(keys)).size > 0;
}

/** Records the update of `pr`'s branch from head `sha` (in round `round`). */
export async function noteBranchUpdated(ctx: RepoContext, pr: number, sha: string, round: number): Promise<void> {
  await executePlan(ctx, [recordAction(branchUpdatedKey(ctx.key, pr, sha), { sha, round })]);
}
