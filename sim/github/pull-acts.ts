// Acts on branches and pull requests: push (with synchronize), open, close, ready for review,
// review requests, reviews, merge (with GitHub's compare-and-swap on `sha`), auto-merge, queue.
import type { Change, Commit } from './git-store.ts';
import type { Pull, Repo, Review } from './model.ts';
import { referencedIssues, rulesFor } from './model.ts';
import { approvalsMissing, mergeRefusal } from './merge-rules.ts';
import { iso, reviewJson, userJson } from './payloads.ts';
import { createIssueRecord, setIssueState, type Sent } from './issue-acts.ts';
import { GitHubError, type World } from './world.ts';
import { readyToMerge, settleAutoMerges } from './auto-merge.ts';

function commitEntry(
  world: World,
  repo: Repo,
  commit: Commit,
  parentTree: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const added = Object.keys(commit.tree).filter((p) => !(p in parentTree));
  const removed = Object.keys(parentTree).filter((p) => !(p in commit.tree));
  const modified = Object.keys(commit.tree).filter((p) => p in parentTree && parentTree[p] !== commit.tree[p]);
  const person = { name: commit.author, email: `${commit.author}@users.noreply.github.com`, username: commit.author };
  return {
    id: commit.sha,
    tree_id: commit.treeSha,
    distinct: true,
    message: commit.message,
    timestamp: iso(commit.timestamp),
    url: `${world.urls.html}/${repo.fullName}/commit/${commit.sha}`,
    author: person,
    committer: person,
    added,
    removed,
    modified,
  };
}

/** Sends `push` for a branch that moved from `before` to `after`. */
export function emitPush(
  world: World,
  repo: Repo,
  branch: string,
  before: string | null,
  after: string,
  user: string,
  out: Sent,
): void {
  const commit = repo.git.get(after);
  const fresh: Commit[] = [];
  const known = before ? repo.git.ancestors(before) : new Set<string>();
  for (
    let sha: string | undefined = after;
    sha && !known.has(sha) && fresh.length < 20;
    sha = repo.git.get(sha).parents[0]
  )
    fresh.unshift(repo.git.get(sha));
  const entries = fresh.map((c) => commitEntry(world, repo, c, c.parents[0] ? repo.git.get(c.parents[0]).tree : {}));
  const pusher = { name: user, email: `${user}@users.noreply.github.com` };
  out.push(
    world.emit(
      repo,
      'push',
      {
        ref: `refs/heads/${branch}`,
        before: before ?? '0000000000000000000000000000000000000000',
        after,
        created: before === null,
        deleted: false,
        forced: false,
        base_ref: null,
        compare: `${world.urls.html}/${repo.fullName}/compare/${(before ?? after).slice(0, 12)}...${after.slice(0, 12)}`,
        commits: entries,
        head_commit:
          entries[entries.length - 1] ??
          commitEntry(world, repo, commit, commit.parents[0] ? repo.git.get(commit.parents[0]).tree : {}),
        pusher,
      },
      user,
    ),
  );
}

/** A person (or the app) pushes a change: commit, `push`, and `synchronize` on each open PR of the branch. */
export function pushChange(world: World, repo: Repo, branch: string, change: Change, user: string, out: Sent): string {
  const before = repo.git.branches.get(branch) ?? null;
  const commit = repo.git.commitChange(branch, { author: user, ...change }, user, world.now());
  emitPush(world, repo, branch, before, commit.sha, user, out);
  if (before !== null) synchronizePulls(world, repo, branch, before, commit.sha, user, out);
  return commit.sha;
}

export function synchronizePulls(
  world: World,
  repo: Repo,
  branch: string,
  before: string,
  after: string,
  user: string,
  out: Sent,
): void {
  for (const pull of repo.pulls.values()) {
    const issue = repo.issues.get(pull.number);
    if (pull.head !== branch || !issue || issue.state !== 'open') continue;
    pull.headSha = after;
    // A new head leaves the merge queue. Auto-merge stays on through a push by anyone with write
    // access (the app's own included); a push by anyone else turns it off (GitHub's docs, "About auto-merge").
    pull.queued = false;
    issue.updatedAt = world.now();
    out.push(
      world.emit(
        repo,
        'pull_request',
        { action: 'synchronize', number: pull.number, before, after, pull_request: world.pullJson(repo, pull.number) },
        user,
      ),
    );
    if (pull.autoMerge && !mayWrite(world, repo, user))
      turnOffAutoMerge(world, repo, pull, 'Head branch was pushed to by a user without write access', user, out);
  }
}

/** Whether a login may push with write access: the app itself, or a collaborator with write or more. */
function mayWrite(world: World, repo: Repo, login: string): boolean {
  return login === world.appBot() || ['write', 'maintain', 'admin'].includes(world.permissionOf(repo, login));
}

/** Auto-merge goes off, and GitHub sends `auto_merge_disabled` with its reason. */
function turnOffAutoMerge(world: World, repo: Repo, pull: Pull, reason: string, user: string, out: Sent): void {
  pull.autoMerge = null;
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: 'auto_merge_disabled', number: pull.number, reason, pull_request: world.pullJson(repo, pull.number) },
      user,
    ),
  );
}

/**
 * Auto-merge goes off as GitHub turns it off by itself, with its `reason` (a scenario's `autoMergeOff`
 * event): `user` is the sender GitHub names. An error when the pull request has none.
 */
export function autoMergeOff(world: World, repo: Repo, number: number, reason: string, user: string, out: Sent): void {
  const { issue, pull } = world.pull(repo, number);
  if (pull.merged || issue.state !== 'open') throw new GitHubError(422, 'Pull request is closed');
  if (!pull.autoMerge) throw new GitHubError(422, 'Pull request auto merge is not enabled');
  turnOffAutoMerge(world, repo, pull, reason, user, out);
}

/**
 * A pull request leaves the merge queue: `dequeuePullRequest` (reason MANUAL), or GitHub removing it
 * (a scenario's `dequeue` event, e.g. the merge group's checks failed): `pull_request.dequeued` with the reason.
 */
export function dequeuePull(world: World, repo: Repo, number: number, reason: string, user: string, out: Sent): void {
  const { issue, pull } = world.pull(repo, number);
  if (pull.merged || issue.state !== 'open') throw new GitHubError(422, 'Pull request is closed');
  if (!pull.queued) throw new GitHubError(422, 'Pull request is not in the merge queue');
  pull.queued = false;
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: 'dequeued', number, reason, pull_request: world.pullJson(repo, number) },
      user,
    ),
  );
}

/** `disablePullRequestAutoMerge`: turns a pull request's auto-merge off; an error when it has none. */
export function disableAutoMerge(world: World, repo: Repo, number: number, user: string, out: Sent): void {
  const { issue, pull } = world.pull(repo, number);
  if (pull.merged || issue.state !== 'open') throw new GitHubError(422, 'Pull request is closed');
  if (!pull.autoMerge) throw new GitHubError(422, 'Pull request auto merge is not enabled');
  turnOffAutoMerge(world, repo, pull, '', user, out);
}

export function openPull(
  world: World,
  repo: Repo,
  input: {
    number?: number;
    head: string;
    base?: string;
    title: string;
    body: string;
    user: string;
    draft?: boolean;
    labels?: string[];
    fork?: boolean;
  },
  out: Sent,
): Pull {
  const headSha = repo.git.branches.get(input.head);
  const base = input.base ?? repo.defaultBranch;
  if (!headSha) throw new GitHubError(422, `head branch ${input.head} does not exist`);
  if (!repo.git.branches.has(base)) throw new GitHubError(422, `base branch ${base} does not exist`);
  const issue = createIssueRecord(world, repo, input);
  issue.labels = [...new Set(input.labels ?? [])];
  const pull: Pull = {
    number: issue.number,
    id: world.ids.take(),
    head: input.head,
    headSha,
    base,
    draft: input.draft ?? false,
    merged: false,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    requestedReviewers: [],
    autoMerge: null,
    queued: false,
    fork: input.fork ?? false,
  };
  repo.pulls.set(pull.number, pull);
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: 'opened', number: pull.number, pull_request: world.pullJson(repo, pull.number) },
      input.user,
    ),
  );
  return pull;
}

export function setPullState(
  world: World,
  repo: Repo,
  number: number,
  state: 'open' | 'closed',
  user: string,
  out: Sent,
): void {
  const { issue, pull } = world.pull(repo, number);
  if (issue.state === state) return;
  if (pull.merged) throw new GitHubError(422, 'Cannot change the state of a merged pull request');
  const now = world.now();
  issue.state = state;
  issue.updatedAt = now;
  issue.closedAt = state === 'closed' ? now : null;
  issue.closedBy = state === 'closed' ? user : null;
  if (state === 'closed') {
    pull.autoMerge = null;
    pull.queued = false;
  }
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: state === 'closed' ? 'closed' : 'reopened', number, pull_request: world.pullJson(repo, number) },
      user,
    ),
  );
}

export function markReady(world: World, repo: Repo, number: number, user: string, out: Sent): void {
  const { pull } = world.pull(repo, number);
  if (!pull.draft) return;
  pull.draft = false;
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: 'ready_for_review', number, pull_request: world.pullJson(repo, number) },
      user,
    ),
  );
}

export function requestReviewers(
  world: World,
  repo: Repo,
  number: number,
  reviewers: string[],
  user: string,
  out: Sent,
): void {
  const { issue, pull } = world.pull(repo, number);
  for (const login of reviewers) {
    if (login === issue.user) throw new GitHubError(422, 'Review cannot be requested from pull request author.');
    if (pull.requestedReviewers.includes(login)) continue;
    pull.requestedReviewers.push(login);
    out.push(
      world.emit(
        repo,
        'pull_request',
        {
          action: 'review_requested',
          number,
          requested_reviewer: userJson(world.urls, login),
          pull_request: world.pullJson(repo, number),
        },
        user,
      ),
    );
  }
}

export function submitReview(
  world: World,
  repo: Repo,
  number: number,
  user: string,
  state: Review['state'],
  body: string,
  out: Sent,
): Review {
  const { pull } = world.pull(repo, number);
  const review: Review = {
    id: world.ids.take(),
    pullNumber: number,
    user,
    state,
    body,
    commitId: pull.headSha,
    submittedAt: world.now(),
  };
  repo.reviews.push(review);
  pull.requestedReviewers = pull.requestedReviewers.filter((r) => r !== user);
  // reviews carry the simple pull request shape, without merge state and counts
  const pullRequest = Object.fromEntries(
    Object.entries(world.pullJson(repo, number)).filter(([key]) => !FULL_PULL_ONLY.has(key)),
  );
  out.push(
    world.emit(
      repo,
      'pull_request_review',
      { action: 'submitted', review: reviewJson(world.urls, repo, review), pull_request: pullRequest },
      user,
    ),
  );
  settleAutoMerges(world, repo, out);
  return review;
}

const FULL_PULL_ONLY = new Set([
  'merged',
  'mergeable',
  'rebaseable',
  'mergeable_state',
  'merged_by',
  'comments',
  'review_comments',
  'maintainer_can_modify',
  'commits',
  'additions',
  'deletions',
  'changed_files',
]);

export type MergeMethod = 'merge' | 'squash' | 'rebase';

const METHOD_REFUSED: Record<MergeMethod, string> = {
  merge: 'Merge commits are not allowed on this repository.',
  squash: 'Squash merges are not allowed on this repository.',
  rebase: 'Rebase merges are not allowed on this repository.',
};

/**
 * Merges like GitHub: 409 when `sha` is not the head, 405 when draft, closed or conflicting;
 * `enforce` (the REST merge): also 405 for a method the repository does not allow and under the
 * branch rules, in GitHub's words (merge-rules.ts). Auto-merge and the queue merge once the rules are met.
 */
export function mergePull(
  world: World,
  repo: Repo,
  number: number,
  input: { sha?: string; method?: MergeMethod; title?: string; enforce?: boolean },
  user: string,
  out: Sent,
): string {
  const { issue, pull } = world.pull(repo, number);
  if (pull.merged || issue.state !== 'open') throw new GitHubError(405, 'Pull Request is not mergeable');
  if (input.sha !== undefined && input.sha !== pull.headSha)
    throw new GitHubError(409, 'Head branch was modified. Review and try the merge again.');
  if (pull.draft) throw new GitHubError(405, 'Pull Request is still a draft');
  const baseSha = world.resolveSha(repo, pull.base);
  const mergeBase = repo.git.mergeBase(baseSha, pull.headSha);
  const tree = mergeBase === null ? null : repo.git.mergeTrees(mergeBase, baseSha, pull.headSha);
  if (tree === null) throw new GitHubError(405, 'Pull Request is not mergeable');
  const method = input.method ?? 'merge';
  if (input.enforce) {
    if (!repo.settings.mergeMethods.includes(method)) throw new GitHubError(405, METHOD_REFUSED[method]);
    const refusal = mergeRefusal(world, repo, pull);
    if (refusal !== null) throw new GitHubError(405, refusal);
  }
  const title =
    input.title ??
    (method === 'merge'
      ? `Merge pull request #${number} from ${repo.owner}/${pull.head}`
      : `${issue.title} (#${number})`);
  const parents = method === 'merge' ? [baseSha, pull.headSha] : [baseSha];
  const commit = repo.git.addCommit(
    tree,
    parents,
    method === 'merge' ? `${title}\n\n${issue.title}` : title,
    user,
    world.now(),
  );
  repo.git.branches.set(pull.base, commit.sha);
  const now = world.now();
  pull.merged = true;
  pull.mergedAt = now;
  pull.mergedBy = user;
  pull.mergeCommitSha = commit.sha;
  pull.autoMerge = null;
  pull.queued = false;
  issue.state = 'closed';
  issue.closedAt = now;
  issue.closedBy = user;
  issue.updatedAt = now;
  out.push(
    world.emit(repo, 'pull_request', { action: 'closed', number, pull_request: world.pullJson(repo, number) }, user),
  );
  emitPush(world, repo, pull.base, baseSha, commit.sha, user, out);
  if (pull.base === repo.defaultBranch) {
    // GitHub closes what its closing list holds: the body's keywords and the sidebar's links.
    for (const ref of new Set([...referencedIssues(issue.body, repo.fullName), ...(pull.links ?? [])])) {
      const target = repo.issues.get(ref);
      if (target && !repo.pulls.has(ref)) setIssueState(world, repo, target, 'closed', user, out, 'completed');
    }
  }
  return commit.sha;
}

export function enableAutoMerge(
  world: World,
  repo: Repo,
  number: number,
  input: { expectedHeadOid?: string; method: 'MERGE' | 'SQUASH' | 'REBASE' },
  user: string,
  out: Sent,
): void {
  const { issue, pull } = world.pull(repo, number);
  if (issue.state !== 'open') throw new GitHubError(422, 'Pull request is closed');
  if (input.expectedHeadOid !== undefined && input.expectedHeadOid !== pull.headSha)
    throw new GitHubError(422, 'Head sha did not match expected head oid');
  if (pull.draft) throw new GitHubError(422, 'Pull request is in draft state');
  if (!repo.settings.allowAutoMerge)
    throw new GitHubError(422, 'Pull request Auto merge is not allowed for this repository');
  // GitHub refuses auto-merge on a pull request that could merge right now
  if (readyToMerge(world, repo, pull)) throw new GitHubError(422, 'Pull request is in clean status');
  pull.autoMerge = { method: input.method, enabledBy: user };
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: 'auto_merge_enabled', number, reason: '', pull_request: world.pullJson(repo, number) },
      user,
    ),
  );
  settleAutoMerges(world, repo, out);
}

export function enqueuePull(
  world: World,
  repo: Repo,
  number: number,
  expectedHeadOid: string | undefined,
  user: string,
  out: Sent,
): void {
  const { issue, pull } = world.pull(repo, number);
  if (issue.state !== 'open') throw new GitHubError(422, 'Pull request is closed');
  if (expectedHeadOid !== undefined && expectedHeadOid !== pull.headSha)
    throw new GitHubError(422, 'Head sha did not match expected head oid');
  if (pull.draft) throw new GitHubError(422, 'Pull request is in draft state');
  // The queue takes only a pull request whose required reviews are in.
  const missing = approvalsMissing(repo, pull);
  if (missing > 0) {
    const n = rulesFor(repo, pull.base).requiredReviews ?? 1;
    throw new GitHubError(
      422,
      `Pull request At least ${n} approving review${n === 1 ? ' is' : 's are'} required by reviewers with write access.`,
    );
  }
  pull.queued = true;
  out.push(
    world.emit(repo, 'pull_request', { action: 'enqueued', number, pull_request: world.pullJson(repo, number) }, user),
  );
  settleAutoMerges(world, repo, out);
}

/**
 * `PUT …/pulls/{n}/update-branch`: merges the base into the head branch (a merge commit), then
 * `push` and `synchronize` as for any push. 422 when the head is not `expectedHeadSha`, when the
 * base has nothing new, or on a conflict.
 */
export function updatePullBranch(
  world: World,
  repo: Repo,
  number: number,
  expectedHeadSha: string | undefined,
  user: string,
  out: Sent,
): string {
  const { issue, pull } = world.pull(repo, number);
  if (pull.merged || issue.state !== 'open') throw new GitHubError(422, 'Pull request is closed');
  if (expectedHeadSha !== undefined && expectedHeadSha !== pull.headSha)
    throw new GitHubError(422, "expected head sha didn't match current head ref.");
  const baseSha = world.resolveSha(repo, pull.base);
  if (repo.git.ancestors(pull.headSha).has(baseSha))
    throw new GitHubError(422, 'There are no new commits on the base branch.');
  const mergeBase = repo.git.mergeBase(baseSha, pull.headSha);
  const tree = mergeBase === null ? null : repo.git.mergeTrees(mergeBase, pull.headSha, baseSha);
  if (tree === null) throw new GitHubError(422, 'merge conflict between base and head');
  const before = pull.headSha;
  const commit = repo.git.addCommit(
    tree,
    [before, baseSha],
    `Merge branch '${pull.base}' into ${pull.head}`,
    user,
    world.now(),
  );
  repo.git.branches.set(pull.head, commit.sha);
  emitPush(world, repo, pull.head, before, commit.sha, user, out);
  synchronizePulls(world, repo, pull.head, before, commit.sha, user, out);
  return commit.sha;
}

/** A person changes a pull request's base branch: `edited` with `changes.base`, as GitHub sends it. */
export function retargetPull(world: World, repo: Repo, number: number, base: string, user: string, out: Sent): void {
  const { pull } = world.pull(repo, number);
  if (!repo.git.branches.has(base)) throw new GitHubError(422, `base branch ${base} does not exist`);
  if (pull.base === base) return;
  const from = { ref: { from: pull.base }, sha: { from: world.resolveSha(repo, pull.base) } };
  pull.base = base;
  // A new base leaves the merge queue.
  pull.queued = false;
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: 'edited', number, changes: { base: from }, pull_request: world.pullJson(repo, number) },
      user,
    ),
  );
  // Switched by anyone without write access, auto-merge goes off (GitHub's docs, "About auto-merge").
  if (pull.autoMerge && !mayWrite(world, repo, user))
    turnOffAutoMerge(world, repo, pull, 'Base branch was changed by a user without write access', user, out);
}

/** A person converts a pull request back to a draft. */
export function convertToDraft(world: World, repo: Repo, number: number, user: string, out: Sent): void {
  const { pull } = world.pull(repo, number);
  if (pull.draft) return;
  pull.draft = true;
  const hadAutoMerge = pull.autoMerge;
  pull.autoMerge = null;
  out.push(
    world.emit(
      repo,
      'pull_request',
      { action: 'converted_to_draft', number, pull_request: world.pullJson(repo, number) },
      user,
    ),
  );
  // A draft cannot merge: its auto-merge goes off, and GitHub says so.
  if (hadAutoMerge) turnOffAutoMerge(world, repo, pull, 'Pull request was converted to draft', user, out);
}
