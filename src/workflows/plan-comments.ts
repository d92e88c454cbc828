// The executor's comment lookup: one read finds the markers of every comment a plan still has to
// write, and the plan's view is kept current as comments are written (workflows/execute.ts).
import type { Action } from '../core/actions.ts';
import { commentText, type OwnComment } from '../github/comment-lookup.ts';
import { GitHubError } from '../github/errors.ts';
import type { RepoContext } from './context.ts';
import { withRetry } from './retry.ts';

/** Arbiter's comments per issue, as a plan's comment actions found them (an issue left out is listed alone). */
export type PlanComments = Map<number, OwnComment[]>;

/**
 * Looks for the markers of every comment the plan still has to write with one read (not one per
 * comment), so a lost store never repeats a comment. If that read fails, each comment looks alone.
 */
export async function findPlanComments(
  ctx: RepoContext,
  actions: Action[],
  recorded: Map<string, unknown>,
): Promise<PlanComments> {
  const issues = new Set<number>();
  for (const action of actions) if (action.kind === 'comment' && !recorded.has(action.key)) issues.add(action.issue);
  if (issues.size === 0) return new Map();
  try {
    return await withRetry(ctx, 'find comments', () => ctx.gh.findOwnComments([...issues]));
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    ctx.log.warn({ status: error.status, error: error.message }, 'comment lookup failed; each comment lists its issue');
    return new Map();
  }
}

/** Keeps the plan's view current, so a second comment with the same marker edits the first. */
export function rememberComment(
  comments: PlanComments,
  action: Extract<Action, { kind: 'comment' }>,
  id: number,
): void {
  const ours = comments.get(action.issue);
  if (!ours) return;
  const written = { id, body: commentText(action.marker, action.body) };
  const at = ours.findIndex((c) => c.id === id);
  if (at === -1) ours.push(written);
  else ours[at] = written;
}
