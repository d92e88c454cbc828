// Whether Arbiter already brought a winner's head up to date once (update-branch): recorded by PR and
// the head it updated from, so the update's own merge commit (whose first parent is that head) falling
// behind again goes to a person, while a new head the agent pushes later may be updated once more.
import { branchUpdatedKey } from '../core/keys.ts';
import type { MergeView } from '../core/merge-view.ts';
import type { RepoContext } from './context.ts';
import type { GroupView } from './model.ts';

/** True when any of `heads` (the current head and its parents) is a head Arbiter updated from. */
export async function branchUpdatedFrom(ctx: RepoContext, pr: number, heads: string[]): Promise<boolean> {
  const keys = [...new Set(heads)].map((sha) => branchUpdatedKey(ctx.key, pr, sha));
  return (await ctx.deps.store.getAppliedActions(keys)).size > 0;
}

/**
 * What GitHub said of merging `pr` now, from the group read (no request of its own), with the
 * branch's strict policy and whether Arbiter already updated its branch once; undefined when the
 * reader did not ask (a test's fake): the merge path then follows the rules alone.
 */
export async function mergeViewOf(
  ctx: RepoContext,
  view: Pick<GroupView, 'pulls' | 'branch'>,
  pr: number,
): Promise<MergeView | undefined> {
  const pull = view.pulls.get(pr);
  if (!pull?.merge) return undefined;
  const updated = await branchUpdatedFrom(ctx, pr, [pull.headSha, ...(pull.headParents ?? [])]);
  return { ...pull.merge, strict: view.branch.strict === true, branchUpdated: updated };
}
