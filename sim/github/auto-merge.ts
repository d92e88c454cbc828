// GitHub's auto-merge and merge queue: a pull request with auto-merge enabled (or queued) merges
// by itself once its required checks pass, its required approvals are in and it is mergeable.
import { latestRuns } from './check-acts.ts';
import type { Sent } from './issue-acts.ts';
import { rulesFor, type Pull, type Repo } from './model.ts';
import { mergePull, type MergeMethod } from './pull-acts.ts';
import type { World } from './world.ts';

const PASSING = new Set(['success', 'neutral', 'skipped']);

function checksPass(repo: Repo, pull: Pull): boolean {
  const sha = pull.headSha;
  const runs = latestRuns(repo, sha);
  const statuses = new Map<string, string>();
  for (const status of repo.statuses) if (status.sha === sha) statuses.set(status.context, status.state);
  const passed = (name: string): boolean => {
    const run = runs.filter((r) => r.name === name).at(-1);
    if (run) return run.status === 'completed' && run.conclusion !== null && PASSING.has(run.conclusion);
    return statuses.get(name) === 'success';
  };
  const required = rulesFor(repo, pull.base).required ?? [];
  if (required.length > 0) return required.every(passed);
  return (
    runs.every((r) => r.status === 'completed' && r.conclusion !== null && PASSING.has(r.conclusion)) &&
    [...statuses.values()].every((s) => s === 'success')
  );
}

function approved(repo: Repo, pull: Pull): boolean {
  const latest = new Map<string, string>();
  for (const review of repo.reviews)
    if (review.pullNumber === pull.number && review.state !== 'COMMENTED') latest.set(review.user, review.state);
  const states = [...latest.values()];
  return (
    !states.includes('CHANGES_REQUESTED') &&
    states.filter((s) => s === 'APPROVED').length >= (rulesFor(repo, pull.base).requiredReviews ?? 0)
  );
}

/** Whether a pull request could merge now under the branch's rules. */
export function readyToMerge(world: World, repo: Repo, pull: Pull): boolean {
  return (
    !pull.merged &&
    !pull.draft &&
    repo.issues.get(pull.number)?.state === 'open' &&
    checksPass(repo, pull) &&
    approved(repo, pull) &&
    world.mergeable(repo, pull)
  );
}

/** Merges every pull request whose auto-merge or queue entry is now satisfied. */
export function settleAutoMerges(world: World, repo: Repo, out: Sent): void {
  for (const pull of repo.pulls.values()) {
    if ((!pull.autoMerge && !pull.queued) || !readyToMerge(world, repo, pull)) continue;
    const method: MergeMethod = pull.autoMerge
      ? pull.autoMerge.method.toLowerCase() === 'squash'
        ? 'squash'
        : pull.autoMerge.method.toLowerCase() === 'rebase'
          ? 'rebase'
          : 'merge'
      : 'merge';
    mergePull(
      world,
      repo,
      pull.number,
      { sha: pull.headSha, method },
      pull.autoMerge?.enabledBy ?? world.appBot(),
      out,
    );
  }
}
