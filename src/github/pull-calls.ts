// A pull request's own calls, beside the gateway: its state read, closed (with its labels set), marked ready, merged
// (compare-and-swap on the head), auto-merge enabled, enqueued or disabled, and reviewers requested.
// Every Octokit error becomes a GitHubError here; the merge answers a caller decides on are values.
import { z } from 'zod';
import type { Octokit } from '../deps.ts';
import { callGitHub, wrapGitHubError } from './errors.ts';
import type { MergeResult, PullSnapshot } from './port.ts';

/** The client and the repository the calls go to. */
interface RepoOctokit {
  octokit: Octokit;
  owner: string;
  repo: string;
}

export async function closePull(gh: RepoOctokit, pr: number): Promise<void> {
  await callGitHub('close pull request', () =>
    gh.octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: gh.owner,
      repo: gh.repo,
      pull_number: pr,
      state: 'closed',
    }),
  );
}

/**
 * Closes a pull request and sets its whole label list in one request (the Issues API takes both
 * on a PR): GitHub sends `labeled`/`unlabeled` for each change and `closed`.
 */
export async function closeWithLabels(gh: RepoOctokit, pr: number, labels: string[]): Promise<void> {
  await callGitHub('close pull request and set labels', () =>
    gh.octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', {
      owner: gh.owner,
      repo: gh.repo,
      issue_number: pr,
      state: 'closed',
      labels,
    }),
  );
}

export async function pullState(gh: RepoOctokit, pr: number): Promise<PullSnapshot> {
  const { data } = await callGitHub('get pull request', () =>
    gh.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      owner: gh.owner,
      repo: gh.repo,
      pull_number: pr,
    }),
  );
  const parsed = z
    .object({
      state: z.string(),
      merged: z.boolean().nullable().optional(),
      draft: z.boolean().optional(),
      head: z.object({ sha: z.string() }),
      node_id: z.string(),
      labels: z.array(z.object({ name: z.string() })).optional(),
      mergeable: z.boolean().nullable().optional(),
      mergeable_state: z.string().nullable().optional(),
      merge_commit_sha: z.string().nullable().optional(),
      auto_merge: z
        .object({ enabled_by: z.object({ login: z.string() }).nullable().optional() })
        .nullable()
        .optional(),
    })
    .parse(data);
  return {
    state: parsed.state,
    merged: parsed.merged ?? false,
    draft: parsed.draft ?? false,
    headSha: parsed.head.sha,
    nodeId: parsed.node_id,
    labels: (parsed.labels ?? []).map((l) => l.name),
    mergeable: parsed.mergeable ?? null,
    mergeableState: parsed.mergeable_state ?? null,
    mergeCommitSha: parsed.merge_commit_sha ?? null,
    // Who enabled its auto-merge (REST names an app `name[bot]`); an auto-merge whose author GitHub hides is ''.
    autoMergeBy: parsed.auto_merge ? (parsed.auto_merge.enabled_by?.login ?? '') : null,
  };
}

export async function markReady(gh: RepoOctokit, nodeId: string): Promise<void> {
  await callGitHub('mark ready for review', () =>
    gh.octokit.graphql(
      `mutation ArbiterReady($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }`,
      { id: nodeId },
    ),
  );
}

/** Merge with GitHub's compare-and-swap: it fails with 409 when the head moved. */
export async function merge(
  gh: RepoOctokit,
  pr: number,
  sha: string,
  method: 'merge' | 'squash' | 'rebase',
): Promise<MergeResult> {
  try {
    const { data } = await gh.octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
      owner: gh.owner,
      repo: gh.repo,
      pull_number: pr,
      sha,
      merge_method: method,
    });
    return {
      ok: true,
      sha: z.object({ sha: z.string().nullable().optional() }).catch({ sha: null }).parse(data).sha ?? null,
    };
  } catch (error) {
    const wrapped = wrapGitHubError('merge', error);
    if (wrapped.status === 405 || wrapped.status === 409 || wrapped.status === 422)
      return { ok: false, status: wrapped.status, message: wrapped.message };
    throw wrapped;
  }
}

export async function enableAutoMerge(
  gh: RepoOctokit,
  nodeId: string,
  sha: string,
  method: 'merge' | 'squash' | 'rebase',
  queue: boolean,
): Promise<void> {
  if (queue) {
    await callGitHub('enqueue', () =>
      gh.octokit.graphql(
        `mutation ArbiterEnqueue($id: ID!, $oid: GitObjectID) { enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: $oid }) { clientMutationId } }`,
        { id: nodeId, oid: sha },
      ),
    );
    return;
  }
  await callGitHub('enable auto-merge', () =>
    gh.octokit.graphql(
      `mutation ArbiterAutoMerge($id: ID!, $oid: GitObjectID, $mergeMethod: PullRequestMergeMethod) { enablePullRequestAutoMerge(input: { pullRequestId: $id, expectedHeadOid: $oid, mergeMethod: $mergeMethod }) { clientMutationId } }`,
      // Octokit reserves `method` as an option name, so the variable is `mergeMethod`.
      { id: nodeId, oid: sha, mergeMethod: method.toUpperCase() },
    ),
  );
}

/** Turns a pull request's auto-merge off (GitHub sends `auto_merge_disabled`); there is no REST route for it. */
export async function disableAutoMerge(gh: RepoOctokit, nodeId: string): Promise<void> {
  await callGitHub('disable auto-merge', () =>
    gh.octokit.graphql(
      `mutation ArbiterAutoMergeOff($id: ID!) { disablePullRequestAutoMerge(input: { pullRequestId: $id }) { clientMutationId } }`,
      { id: nodeId },
    ),
  );
}

/** `dequeuePullRequest`: takes a pull request out of the merge queue. */
export async function dequeue(gh: RepoOctokit, nodeId: string): Promise<void> {
  await callGitHub('dequeue', () =>
    gh.octokit.graphql(
      `mutation ArbiterDequeue($id: ID!) { dequeuePullRequest(input: { id: $id }) { clientMutationId } }`,
      { id: nodeId },
    ),
  );
}

/** `PUT …/pulls/{n}/update-branch`: GitHub merges the base into the head branch (202, done in the background). */
export async function updateBranch(gh: RepoOctokit, pr: number, expectedHeadSha: string): Promise<void> {
  await callGitHub('update branch', () =>
    gh.octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch', {
      owner: gh.owner,
      repo: gh.repo,
      pull_number: pr,
      expected_head_sha: expectedHeadSha,
    }),
  );
}

export async function requestReviewers(
  gh: RepoOctokit,
  pr: number,
  reviewers: string[],
  teams: string[],
): Promise<void> {
  await callGitHub('request reviewers', () =>
    gh.octokit.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', {
      owner: gh.owner,
      repo: gh.repo,
      pull_number: pr,
      reviewers,
      team_reviewers: teams,
    }),
  );
}
