// What GitHub enforces on a merge, from both sources of branch rules (rulesets and classic
// protection): required checks, required approvals, "up to date before merging" (strict); and what
// it reports of a pull request because of them: GraphQL `mergeStateStatus`, REST `mergeable_state`,
// and the REST merge's 405 refusals in GitHub's words.
import { latestRuns } from './check-acts.ts';
import { rulesFor, type Pull, type Repo } from './model.ts';
import type { World } from './world.ts';

const PASSING = new Set(['success', 'neutral', 'skipped']);

/** The checks a branch requires: its rulesets' and its classic protection's, each named once. */
export function requiredChecksOf(repo: Repo, base: string): string[] {
  const rules = rulesFor(repo, base);
  return [...new Set([...(rules.required ?? []), ...(rules.protection?.required ?? [])])];
}

/** Whether either source requires the branch to be up to date before merging. */
export function strictOf(repo: Repo, base: string): boolean {
  const rules = rulesFor(repo, base);
  return rules.strict === true || rules.protection?.strict === true;
}

type CheckState = 'pass' | 'fail' | 'pending';

/** A check's state on a head: the latest run of that name (any app), else the latest commit status. */
export function checkState(repo: Repo, sha: string, name: string): CheckState {
  const run = latestRuns(repo, sha)
    .filter((r) => r.name === name)
    .at(-1);
  if (run) {
    if (run.status !== 'completed' || run.conclusion === null) return 'pending';
    return PASSING.has(run.conclusion) ? 'pass' : 'fail';
  }
  let status: string | undefined;
  for (const s of repo.statuses) if (s.sha === sha && s.context === name) status = s.state;
  if (status === undefined || status === 'pending') return 'pending';
  return status === 'success' ? 'pass' : 'fail';
}

/** Approvals the branch still needs (the latest review per person counts; a change request blocks). */
export function approvalsMissing(repo: Repo, pull: Pull): number {
  const latest = new Map<string, string>();
  for (const review of repo.reviews)
    if (review.pullNumber === pull.number && review.state !== 'COMMENTED') latest.set(review.user, review.state);
  const states = [...latest.values()];
  const required = rulesFor(repo, pull.base).requiredReviews ?? 0;
  if (required > 0 && states.includes('CHANGES_REQUESTED')) return required;
  return Math.max(0, required - states.filter((s) => s === 'APPROVED').length);
}

/** The base branch's head is not in the pull request's history. */
export function isBehind(world: World, repo: Repo, pull: Pull): boolean {
  const base = world.resolveSha(repo, pull.base);
  return !repo.git.ancestors(pull.headSha).has(base);
}

export type MergeStateStatus = 'DRAFT' | 'DIRTY' | 'BEHIND' | 'BLOCKED' | 'UNSTABLE' | 'CLEAN';

/** GitHub's `mergeStateStatus` of an open pull request (REST `mergeable_state` is its lower case). */
export function mergeStateStatus(world: World, repo: Repo, pull: Pull): MergeStateStatus {
  if (pull.draft) return 'DRAFT';
  if (!world.mergeable(repo, pull)) return 'DIRTY';
  const required = requiredChecksOf(repo, pull.base);
  if (strictOf(repo, pull.base) && isBehind(world, repo, pull)) return 'BEHIND';
  if (required.some((name) => checkState(repo, pull.headSha, name) !== 'pass') || approvalsMissing(repo, pull) > 0)
    return 'BLOCKED';
  const others = [
    ...latestRuns(repo, pull.headSha).map((r) => r.name),
    ...repo.statuses.filter((s) => s.sha === pull.headSha).map((s) => s.context),
  ].filter((name) => !required.includes(name));
  if (others.some((name) => checkState(repo, pull.headSha, name) !== 'pass')) return 'UNSTABLE';
  return 'CLEAN';
}

/** Ruleset refusals start with this line on GitHub; classic protection's do not. */
const RULESET = 'Repository rule violations found\n\n';

/**
 * Why GitHub's REST merge refuses an open, mergeable, ready pull request under the branch's
 * rules (405), in its words; null when it may merge.
 */
export function mergeRefusal(world: World, repo: Repo, pull: Pull): string | null {
  const rules = rulesFor(repo, pull.base);
  if (rules.mergeQueue) return 'Changes must be made through the merge queue';
  const prefix = (fromRuleset: boolean): string => (fromRuleset ? RULESET : '');
  const required = requiredChecksOf(repo, pull.base);
  const behind = strictOf(repo, pull.base) && isBehind(world, repo, pull);
  // Behind a strict branch, GitHub reports the required checks as expected, whatever they say on the head.
  const waiting = required.filter((name) => behind || checkState(repo, pull.headSha, name) !== 'pass');
  if (waiting.length > 0) {
    const fromRuleset = waiting.some((name) => (rules.required ?? []).includes(name));
    const failing = !behind && waiting.every((name) => checkState(repo, pull.headSha, name) === 'fail');
    const words =
      waiting.length === 1
        ? `Required status check "${waiting[0]}" is ${failing ? 'failing' : 'expected'}.`
        : `${waiting.length} of ${required.length} required status checks are ${failing ? 'failing' : 'expected'}.`;
    return `${prefix(fromRuleset)}${words}`;
  }
  const missing = approvalsMissing(repo, pull);
  if (missing > 0) {
    const n = rules.requiredReviews ?? 1;
    return `${prefix(true)}At least ${n} approving review${n === 1 ? ' is' : 's are'} required by reviewers with write access.`;
  }
  return null;
}
