// The GitHub calls the combined candidate makes, beside the gateway: a branch ref read, created
// and deleted, a head merged into it (`POST /merges`), and a draft pull request opened from it.
// Every Octokit error becomes a GitHubError here; the answers a caller decides on are values.
import { z } from 'zod';
import { GitHubError, wrapGitHubError } from './errors.ts';
import type { Octokit } from '../deps.ts';
import type { BranchWrites, MergeAnswer, OpenedPull } from './port.ts';

/** The client and the repository the calls go to. */
interface RepoOctokit {
  octokit: Octokit;
  owner: string;
  repo: string;
}

const Ref = z.object({ object: z.object({ sha: z.string() }) });
const Pull = z.object({
  number: z.number().int(),
  state: z.string(),
  draft: z.boolean().optional(),
  body: z.string().nullable().optional(),
  head: z.object({ sha: z.string(), ref: z.string() }),
  base: z.object({ ref: z.string() }),
  user: z.object({ login: z.string() }).nullable(),
});

const pullOf = (data: z.infer<typeof Pull>): OpenedPull => ({
  number: data.number,
  state: data.state,
  headSha: data.head.sha,
  draft: data.draft ?? false,
  body: data.body ?? null,
  author: data.user?.login ?? '',
});

/** The sha a branch points at, or null when there is no such branch. */
export async function readBranchHead(gh: RepoOctokit, branch: string): Promise<string | null> {
  try {
    const { data } = await gh.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
      owner: gh.owner,
      repo: gh.repo,
      ref: `heads/${branch}`,
    });
    const parsed = Ref.safeParse(data);
    if (!parsed.success) throw new GitHubError('read branch', 0, 'the answer has no object sha', null);
    return parsed.data.object.sha;
  } catch (error) {
    const wrapped = wrapGitHubError('read branch', error);
    if (wrapped.status === 404) return null;
    throw wrapped;
  }
}

/** Creates `refs/heads/<branch>` at `sha`. Throws GitHubError (422 when it exists, 403 when refused). */
export async function createBranch(gh: RepoOctokit, branch: string, sha: string): Promise<void> {
  try {
    await gh.octokit.request('POST /repos/{owner}/{repo}/git/refs', {
      owner: gh.owner,
      repo: gh.repo,
      ref: `refs/heads/${branch}`,
      sha,
    });
  } catch (error) {
    throw wrapGitHubError('create branch', error);
  }
}

/** Deletes a branch; one that is already gone (422 or 404) counts as deleted. */
export async function deleteBranch(gh: RepoOctokit, branch: string): Promise<void> {
  try {
    await gh.octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', {
      owner: gh.owner,
      repo: gh.repo,
      ref: `heads/${branch}`,
    });
  } catch (error) {
    const wrapped = wrapGitHubError('delete branch', error);
    if (wrapped.status !== 404 && wrapped.status !== 422) throw wrapped;
  }
}

/**
 * Merges `head` (a sha) into `branch`. 201: the merge commit's sha; 204: the branch already holds
 * it (sha null). 409 (conflict), 404 (a side is missing) and 403/422 are answers, not throws.
 */
export async function mergeIntoBranch(
  gh: RepoOctokit,
  branch: string,
  head: string,
  message: string,
): Promise<MergeAnswer> {
  try {
    const response = await gh.octokit.request('POST /repos/{owner}/{repo}/merges', {
      owner: gh.owner,
      repo: gh.repo,
      base: branch,
      head,
      commit_message: message,
    });
    // GitHub answers 204 with no body when the branch already holds the head (Octokit's types know only 201).
    const status: number = response.status;
    if (status === 204) return { ok: true, sha: null };
    const parsed = z.object({ sha: z.string() }).safeParse(response.data);
    return { ok: true, sha: parsed.success ? parsed.data.sha : null };
  } catch (error) {
    const wrapped = wrapGitHubError('merge into branch', error);
    if (wrapped.transient || ![403, 404, 409, 422].includes(wrapped.status)) throw wrapped;
    // GitHub's own words, without the `operation: status` the wrapped message starts with.
    return { ok: false, status: wrapped.status, message: wrapped.message.replace(/^[^:]*: \d+ /, '') };
  }
}

/** The newest pull request (any state) whose head is `branch` of this repository, or null. */
export async function findPullFrom(
  gh: RepoOctokit,
  branch: string,
  base: string,
  author: string,
): Promise<OpenedPull | null> {
  try {
    const { data } = await gh.octokit.request('GET /repos/{owner}/{repo}/pulls', {
      owner: gh.owner,
      repo: gh.repo,
      head: `${gh.owner}:${branch}`,
      state: 'all',
      per_page: 10,
    });
    const parsed = z.array(Pull).safeParse(data);
    if (!parsed.success) return null;
    // Only Arbiter's own pull request into the expected base: anyone may open one from a branch.
    const mine = parsed.data
      .filter((p) => p.head.ref === branch && p.base.ref === base && p.user?.login === author)
      .sort((a, b) => b.number - a.number);
    return mine.length > 0 ? pullOf(mine[0]) : null;
  } catch (error) {
    throw wrapGitHubError('find pull request', error);
  }
}

/** Opens a draft pull request from `branch` into `base`. Throws GitHubError (422 when one exists). */
export async function openDraftPull(
  gh: RepoOctokit,
  input: { branch: string; base: string; title: string; body: string },
): Promise<OpenedPull> {
  try {
    const { data } = await gh.octokit.request('POST /repos/{owner}/{repo}/pulls', {
      owner: gh.owner,
      repo: gh.repo,
      head: input.branch,
      base: input.base,
      title: input.title,
      body: input.body,
      draft: true,
    });
    const parsed = Pull.safeParse(data);
    if (!parsed.success) throw new GitHubError('open pull request', 0, 'the answer is not a pull request', null);
    return pullOf(parsed.data);
  } catch (error) {
    throw wrapGitHubError('open pull request', error);
  }
}

/** The combined candidate's writes over one repository, as the GitHub port offers them. */
export function branchWrites(gh: RepoOctokit, botLogin: string): BranchWrites {
  return {
    readBranchHead: (branch) => readBranchHead(gh, branch),
    createBranch: (branch, sha) => createBranch(gh, branch, sha),
    deleteBranch: (branch) => deleteBranch(gh, branch),
    mergeIntoBranch: (branch, head, message) => mergeIntoBranch(gh, branch, head, message),
    findPullFrom: (branch, base) => findPullFrom(gh, branch, base, botLogin),
    openDraftPull: (input) => openDraftPull(gh, input),
  };
}
