// The executor's write for a `disable-auto-merge` action (workflows/execute.ts): GitHub is asked
// first, and only Arbiter's own auto-merge is turned off.
import type { Action } from '../core/actions.ts';
import { GitHubError } from '../github/errors.ts';
import type { RepoContext } from './context.ts';

/**
 * Turns off the auto-merge Arbiter enabled, after asking GitHub whether it still stands: one GitHub
 * already disabled (a push by someone without write access), one a person enabled instead, or a
 * pull request merged or closed is left as it is. The plan's next action (`take-mark`) takes the
 * store's mark of it.
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
  return result;
}

/**
 * Takes the winner Arbiter queued out of the merge queue, after asking GitHub whether it is still
 * queued; GitHub's refusal (it left meanwhile) is kept as the answer. The plan's `take-mark` then
 * takes the store's mark.
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
  return result;
}
