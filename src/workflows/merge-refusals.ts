// What the merge path's writes answer when GitHub refuses: a 405 on the merge (asked again, then
// tried again on the app's clock, or an answer naming GitHub's mergeable_state), and any other
// refusal as an answer with GitHub's whole words. The caller's planner names what follows.
import { recordAction, type Action } from '../core/actions.ts';
import type { GitHubError } from '../github/errors.ts';
import type { MergeResult } from '../github/port.ts';
import { RetryLater } from '../github/rate-limit.ts';
import { mergeRetryKey } from '../core/keys.ts';
import type { RepoContext } from './context.ts';

/** A 405 is tried again this many times, MERGE_RETRY_SECONDS apart on the app's clock. */
export const MERGE_RETRIES = 3;
export const MERGE_RETRY_SECONDS = 10;
/** What GitHub reports of a pull request that cannot merge until a person acts. */
const NOT_MERGEABLE = new Set(['dirty', 'blocked']);
/** Behind a base the branch must be up to date with: not a wait, another path (the branch is updated; planMergeAnswer). */
const BEHIND = 'behind';

/**
 * A 405 on the merge. A merge that landed before the run died reads as 405 on its retry, so
 * GitHub is asked again. A PR GitHub reports not mergeable (`dirty`, `blocked`) goes to a person
 * with that reason; otherwise (the base just moved, `mergeable` still being computed) the merge
 * is tried again after a wait on the app's clock, up to MERGE_RETRIES times, each try recorded
 * by a plan `execute` applies.
 */
export async function mergeRefused(
  ctx: RepoContext,
  action: Extract<Action, { kind: 'merge' }>,
  result: Extract<MergeResult, { ok: false }>,
  execute: (actions: Action[]) => Promise<unknown>,
): Promise<MergeResult> {
  const pull = await ctx.gh.pullState(action.pr);
  if (pull.merged && pull.headSha === action.sha) return { ok: true, sha: null };
  const state = pull.mergeableState ?? 'unknown';
  if (
    pull.mergeable === false ||
    NOT_MERGEABLE.has(state) ||
    state === BEHIND ||
    pull.merged ||
    pull.state !== 'open'
  ) {
    return { ok: false, status: 405, message: `${result.message} (mergeable_state: ${state})` };
  }
  const tries = Array.from({ length: MERGE_RETRIES }, (_, i) => mergeRetryKey(action.key, i + 1));
  const done = await ctx.deps.store.getAppliedActions(tries);
  const next = tries.find((k) => !done.has(k));
  if (next === undefined)
    return { ok: false, status: 405, message: `${result.message} (still refused after ${MERGE_RETRIES} more tries)` };
  // Recorded by the executor that applies the merge (`execute`: its own plan, which this module cannot import).
  await execute([recordAction(next, { message: result.message, mergeableState: pull.mergeableState })]);
  ctx.log.info(
    { pr: action.pr, status: 405, mergeableState: pull.mergeableState, attempt: tries.indexOf(next) + 1 },
    'merge refused for now; tried again shortly',
  );
  throw new RetryLater(
    MERGE_RETRY_SECONDS,
    `merge of #${action.pr} refused (${result.message}); GitHub reports mergeable_state ${state}`,
  );
}

/** A refused write of the merge path as an answer, with GitHub's whole words (every GraphQL error). */
export const refusalOf = (error: GitHubError): MergeResult => ({
  ok: false,
  status: error.status === 405 || error.status === 409 ? error.status : 422,
  message: error.githubWords,
});
