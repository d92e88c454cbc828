// The executor's write for a `disable-auto-merge` action (workflows/execute.ts): GitHub is asked
// first, and only Arbiter's own auto-merge is turned off.
import type { Action } from '../core/actions.ts';
import { AutoMergeOn } from '../core/plan/auto-merge-off.ts';
import { GitHubError } from '../github/errors.ts';
import type { RepoContext } from './context.ts';

/**
 * Turns off the auto-merge Arbiter enabled, after asking GitHub whether it still stands: one GitHub
 * already disabled (a push by someone without write access), one a person enabled instead, or a
 * pull request merged or closed is left as it is. Then the store's mark of it is taken.
 */
export async function disableOwnAutoMerge(
  ctx: RepoContext,
  action: Extract<Action, { kind: 'disable-auto-merge' }>,
): Promise<unknown> {
  const { gh } = ctx;
  const pull = await gh.pullState(action.pr);
  let result: unknown;
  if (pull.state !== 'open' || pull.merged || !pull.autoMergeBy) result = { already: true };
  else if (pull.autoMergeBy !== gh.botLogin) result = { kept: pull.autoMergeBy };
  else {
    try {
      await gh.disableAutoMerge(pull.nodeId);
      result = { disabled: true };
    } catch (error) {
      // Refused (a GraphQL error in a 200: it went in the meantime): GitHub's whole words are kept.
      if (!(error instanceof GitHubError) || error.transient) throw error;
      result = { refused: error.githubWords };
    }
  }
  await takeMark(ctx, action);
  return result;
}

/** Takes the store's mark only while it still names this auto-merge or queue entry (a later winner's is its own). */
async function takeMark(ctx: RepoContext, action: { marker: string; pr: number; sha: string }): Promise<void> {
  const { store } = ctx.deps;
  const mark = AutoMergeOn.safeParse(await store.getAppliedAction(action.marker));
  if (mark.success && mark.data.pr === action.pr && mark.data.sha === action.sha)
    await store.forgetAppliedAction(action.marker);
}

/**
 * Takes the winner Arbiter queued out of the merge queue, after asking GitHub whether it is still
 * queued; GitHub's refusal (it left meanwhile) is kept as the answer. Then the store's mark is taken.
 */
export async function dequeueOwn(ctx: RepoContext, action: Extract<Action, { kind: 'dequeue' }>): Promise<unknown> {
  const { gh } = ctx;
  // REST does not say whether a pull request is queued: GraphQL's `isInMergeQueue` does.
  const pull = (await gh.readGroup([action.pr])).get(action.pr);
  let result: unknown;
  if (!pull || pull.state !== 'OPEN' || pull.merge?.inMergeQueue === false) result = { already: true };
  else {
    try {
      await gh.dequeue(pull.id);
      result = { dequeued: true };
    } catch (error) {
      if (!(error instanceof GitHubError) || error.transient) throw error;
      result = { refused: error.githubWords };
    }
  }
  await takeMark(ctx, action);
  return result;
}
