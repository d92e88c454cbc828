// The executor's writes to the combined candidate's branch: its creation, a head merged into it,
// the draft PR from it, its deletion (core/plan/combine-build.ts plans a build's steps, and
// core/plan/combine-rebuild.ts a parent's new head). Applied once under their keys by executePlan
// (execute.ts), like every action; each answers with GitHub's answer, its whole message kept on a
// refusal, for the planner to decide what follows. GitHub is asked before a write is repeated.
import type { Action } from '../core/actions.ts';
import type { BranchAnswer, PullAnswer } from '../core/plan/combine-build.ts';
import { GitHubError } from '../github/errors.ts';
import type { OpenedPull } from '../github/port.ts';
import type { RepoContext } from './context.ts';
import { withRetry } from './retry.ts';

const COMBINE_KINDS = ['combine-branch', 'combine-merge', 'combine-pull', 'combine-delete'] as const;

export type CombineWrite = Extract<Action, { kind: (typeof COMBINE_KINDS)[number] }>;

const combineKinds: ReadonlySet<string> = new Set(COMBINE_KINDS);

export const isCombineWrite = (action: Action): action is CombineWrite => combineKinds.has(action.kind);

/** A GitHub answer that will not change on a retry (a transient one is thrown on). */
const refusal = (error: unknown): GitHubError | null =>
  error instanceof GitHubError && !error.transient ? error : null;

const refused = (error: GitHubError): { ok: false; status: number; message: string } => ({
  ok: false,
  status: error.status,
  message: error.githubWords,
});

/** Applies one write to the combined branch; what it returns is recorded as the action's answer. */
export async function applyCombine(ctx: RepoContext, action: CombineWrite): Promise<unknown> {
  const { branches } = ctx.gh;
  switch (action.kind) {
    case 'combine-branch':
      return createBranch(ctx, action);
    case 'combine-merge': {
      // A retry after a lost answer gets 204 "nothing to merge" from GitHub itself.
      const message = `Combine #${action.source} (${action.sha.slice(0, 7)}) for #${action.change}`;
      const answer = await withRetry(ctx, 'merge into combined branch', () =>
        branches.mergeIntoBranch(action.branch, action.sha, message),
      );
      if (!answer.ok || answer.sha !== null || !action.readHead) return answer;
      const head = await withRetry(ctx, 'read combined branch', () => branches.readBranchHead(action.branch));
      return { ok: true, sha: head };
    }
    case 'combine-pull':
      return openPull(ctx, action);
    case 'combine-delete':
      await withRetry(ctx, 'delete combined branch', () => branches.deleteBranch(action.branch));
      return { deleted: true };
  }
}

/** The branch at the base head. One that exists already is this build's, from before a restart. */
async function createBranch(
  ctx: RepoContext,
  action: Extract<Action, { kind: 'combine-branch' }>,
): Promise<BranchAnswer> {
  const { branches } = ctx.gh;
  const existing = await withRetry(ctx, 'read combined branch', () => branches.readBranchHead(action.branch));
  if (existing !== null) return { ok: true, sha: existing };
  const head = await withRetry(ctx, 'read base branch', () => branches.readBranchHead(action.base));
  if (head === null) return { ok: false, status: 404, message: `the base branch ${action.base} does not exist` };
  try {
    await withRetry(ctx, 'create combined branch', () => branches.createBranch(action.branch, head));
  } catch (error) {
    const no = refusal(error);
    if (!no) throw error;
    // 422 "Reference already exists": a creation whose answer was lost; anything else is a no.
    if (no.status !== 422 || (await branches.readBranchHead(action.branch)) === null) return refused(no);
  }
  return { ok: true, sha: head };
}

const found = (pull: OpenedPull): PullAnswer => ({
  ok: true,
  pr: pull.number,
  headSha: pull.headSha,
  open: pull.state === 'open',
});

/** The draft PR, opened once: looked for first (a restart may follow its creation). */
async function openPull(ctx: RepoContext, action: Extract<Action, { kind: 'combine-pull' }>): Promise<PullAnswer> {
  const { branches } = ctx.gh;
  const { branch, base, title, body } = action;
  const before = await withRetry(ctx, 'find combined pull request', () => branches.findPullFrom(branch, base));
  if (before !== null) return found(before);
  try {
    const opened = await withRetry(ctx, 'open combined pull request', () =>
      branches.openDraftPull({ branch, base, title, body }),
    );
    return { ok: true, pr: opened.number, headSha: opened.headSha, open: true };
  } catch (error) {
    const no = refusal(error);
    if (!no) throw error;
    // 422 "A pull request already exists": a creation whose answer was lost.
    const again = no.status === 422 ? await branches.findPullFrom(branch, base) : null;
    return again !== null && again.state === 'open' ? found(again) : refused(no);
  }
}
