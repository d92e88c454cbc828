// Linked pull requests that are not candidates (an author without write access, a bot not in
// `trust.agents`): recorded through the executor when one gets its neutral check, and read back
// for the comparison on the Change, which names each and how a maintainer admits it.
import { recordAction } from '../core/actions.ts';
import { notComparedKey, notComparedPrefix } from '../core/keys.ts';
import { NotCompared } from '../core/receipt.ts';
import { OPEN_STATES } from '../core/types.ts';
import { GitHubError } from '../github/errors.ts';
import type { RepoContext } from './context.ts';
import { executePlan } from './execute.ts';

/** At most this many are read back (each costs one read of its pull request's state). */
const READ_AT_MOST = 20;

/** Records that `entry.pr` links `change` but is not compared (the first record of a PR stands). */
export async function recordNotCompared(ctx: RepoContext, change: number, entry: NotCompared): Promise<void> {
  await executePlan(ctx, [recordAction(notComparedKey(ctx.key, change, entry.pr), entry)]);
}

/**
 * The linked pull requests of `change` not compared now: recorded ones that are still open and
 * did not become candidates since (a maintainer admitted them, or their author was trusted).
 */
export async function notComparedOf(
  ctx: Pick<RepoContext, 'key' | 'deps' | 'gh'>,
  change: number,
  compared: ReadonlySet<number>,
): Promise<NotCompared[]> {
  const rows = await ctx.deps.store.listAppliedActions(notComparedPrefix(ctx.key, change), READ_AT_MOST);
  const found: NotCompared[] = [];
  for (const row of rows) {
    const parsed = NotCompared.safeParse(row.result);
    if (!parsed.success || compared.has(parsed.data.pr)) continue;
    const candidate = await ctx.deps.store.getCandidate(ctx.key, parsed.data.pr);
    if (candidate && OPEN_STATES.has(candidate.state)) continue;
    // A pull request closed since names nothing a maintainer could still admit (one that cannot be read stays named).
    const pull = await ctx.gh.pullState(parsed.data.pr).catch((error: unknown) => {
      if (error instanceof GitHubError) return null;
      throw error;
    });
    if (pull !== null && pull.state !== 'open') continue;
    found.push(parsed.data);
  }
  return found;
}
