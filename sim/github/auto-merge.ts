// GitHub's auto-merge and merge queue: a pull request with auto-merge enabled (or queued) merges
// by itself once its required checks pass, its required approvals are in and it is mergeable.
import { latestRuns } from './check-acts.ts';
import type { Sent } from './issue-acts.ts';
import type { Pull, Repo } from './model.ts';
import { approvalsMissing, checkState, isBehind, requiredChecksOf, strictOf } from './merge-rules.ts';
import { mergePull, type MergeMethod } from './pull-acts.ts';
import type { World } from './world.ts';

function checksPass(repo: Repo, pull: Pull): boolean {
  const required = requiredChecksOf(repo, pull.base);
  if (required.length > 0) return required.every((name) => checkState(repo, pull.headSha, name) === 'pass');
  const names = [
    ...latestRuns(repo, pull.headSha).map((r) => r.name),
    ...repo.statuses.filter((s) => s.sha === pull.headSha).map((s) => s.context),
  ];
  return names.every((name) => checkState(repo, pull.headSha, name) === 'pass');
}

/** Whether a pull request could merge now under the branch's rules. */
export function readyToMerge(world: World, repo: Repo, pull: Pull): boolean {
  return (
    !pull.merged &&
    !pull.draft &&
    repo.issues.get(pull.number)?.state === 'open' &&
    checksPass(repo, pull) &&
    approvalsMissing(repo, pull) === 0 &&
    !(strictOf(repo, pull.base) && isBehind(world, repo, pull)) &&
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
