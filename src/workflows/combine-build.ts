// Builds the combined candidate on GitHub, for the executor's `combine` action: a branch at the
// base head, each side's head merged into it, a draft PR from it. Each step is recorded in the
// store, and GitHub is asked before one is repeated (a restart between the merge and the PR
// finds the branch and its merges, and opens the PR once).
import { z } from 'zod';
import type { Action } from '../core/actions.ts';
import type { CombineOutcome } from '../core/combine.ts';
import { GitHubError } from '../github/errors.ts';
import type { OpenedPull } from '../github/port.ts';
import { nowIso, type RepoContext } from './context.ts';
import { withRetry } from './retry.ts';

type CombineAction = Extract<Action, { kind: 'combine' }>;

const Sha = z.object({ sha: z.string() });
const Merge = z.object({ pr: z.number().int(), sha: z.string().nullable() });

/** A GitHub answer that will not change on a retry (a transient one is thrown on). */
const refusal = (error: unknown): GitHubError | null =>
  error instanceof GitHubError && !error.transient ? error : null;

/** GitHub's own words, without the `operation: status` a GitHubError's message starts with. */
const said = (error: GitHubError): string => error.message.replace(/^[^:]*: \d+ /, '');

function opened(pull: OpenedPull, baseSha: string, merges: z.infer<typeof Merge>[]): CombineOutcome {
  return { outcome: 'opened', pr: pull.number, headSha: pull.headSha, baseSha, merges };
}

export async function buildCombined(ctx: RepoContext, action: CombineAction): Promise<CombineOutcome> {
  const { store } = ctx.deps;
  const { gh } = ctx;
  const step = (name: string): string => `${action.key}/step/${name}`;
  const record = (name: string, value: unknown): Promise<void> =>
    store.recordAppliedAction(step(name), value, nowIso(ctx));
  const known = await store.getAppliedActions([step('branch'), ...action.sides.map((s) => step(`merge/${s.pr}`))]);

  // 1. The branch, at the base head. One that exists already is this build's, from before a restart.
  let baseSha = Sha.safeParse(known.get(step('branch'))).data?.sha ?? null;
  if (baseSha === null) {
    const existing = await withRetry(ctx, 'read combined branch', () => gh.branches.readBranchHead(action.branch));
    if (existing !== null) {
      baseSha = existing;
    } else {
      const head = await withRetry(ctx, 'read base branch', () => gh.branches.readBranchHead(action.base));
      if (head === null) {
        const message = `the base branch ${action.base} does not exist`;
        return { outcome: 'refused', step: 'branch', status: 404, message };
      }
      try {
        await withRetry(ctx, 'create combined branch', () => gh.branches.createBranch(action.branch, head));
      } catch (error) {
        const refused = refusal(error);
        if (!refused) throw error;
        // 422 "Reference already exists": a creation whose answer was lost; anything else is a no.
        if (refused.status !== 422 || (await gh.branches.readBranchHead(action.branch)) === null) {
          return { outcome: 'refused', step: 'branch', status: refused.status, message: said(refused) };
        }
      }
      baseSha = head;
    }
    await record('branch', { sha: baseSha });
  }

  // 2. Each side's head, in order. A merge that landed before a restart answers 204 (nothing to merge).
  const merges: z.infer<typeof Merge>[] = [];
  for (const side of action.sides) {
    const done = Merge.safeParse(known.get(step(`merge/${side.pr}`)));
    if (done.success) {
      merges.push(done.data);
      continue;
    }
    const message = `Combine #${side.pr} (${side.sha.slice(0, 7)}) for #${action.change}`;
    const answer = await withRetry(ctx, 'merge into combined branch', () =>
      gh.branches.mergeIntoBranch(action.branch, side.sha, message),
    );
    if (!answer.ok) {
      await withRetry(ctx, 'delete combined branch', () => gh.branches.deleteBranch(action.branch));
      if (answer.status === 409) return { outcome: 'conflict', with: side.pr, baseSha, message: answer.message };
      return { outcome: 'refused', step: 'merge', status: answer.status, message: answer.message };
    }
    const sha =
      answer.sha ?? (await withRetry(ctx, 'read combined branch', () => gh.branches.readBranchHead(action.branch)));
    const merge = { pr: side.pr, sha };
    await record(`merge/${side.pr}`, merge);
    merges.push(merge);
  }

  // 3. The draft PR, opened once: look for it first (a restart may follow its creation).
  const found = await withRetry(ctx, 'find combined pull request', () =>
    gh.branches.findPullFrom(action.branch, action.base),
  );
  if (found !== null) {
    if (found.state === 'open') return opened(found, baseSha, merges);
    const message = `the combined pull request #${found.number} from ${action.branch} is closed`;
    return { outcome: 'refused', step: 'pull', status: 422, message };
  }
  try {
    const pull = await withRetry(ctx, 'open combined pull request', () =>
      gh.branches.openDraftPull({ branch: action.branch, base: action.base, title: action.title, body: action.body }),
    );
    return opened(pull, baseSha, merges);
  } catch (error) {
    const refused = refusal(error);
    if (!refused) throw error;
    // 422 "A pull request already exists": a creation whose answer was lost.
    const again = refused.status === 422 ? await gh.branches.findPullFrom(action.branch, action.base) : null;
    if (again !== null && again.state === 'open') return opened(again, baseSha, merges);
    await withRetry(ctx, 'delete combined branch', () => gh.branches.deleteBranch(action.branch));
    return { outcome: 'refused', step: 'pull', status: refused.status, message: said(refused) };
  }
}
