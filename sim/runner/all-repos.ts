// The scenario's further repositories (`repos:`): seeded beside its own at time 0, and one
// transcript over every repository. PRs and issues of the scenario's repository keep their plain
// number as key (as before); those of a further repository are keyed `owner/name#N`.
import type { GitHubEmulator } from '../github/index.ts';
import { baseBranches, type Scenario } from '../scenario-schema.ts';

/** Creates each further repository with its files, `.github/arbiter.yml`, rules, people and settings. */
export function createFurtherRepos(gh: GitHubEmulator, scenario: Scenario): void {
  for (const r of scenario.repos) {
    const [owner, name] = r.repo.split('/');
    gh.createRepo({
      owner: owner!,
      name: name!,
      defaultBranch: r.defaultBranch,
      files: { ...r.files, ...(r.config !== undefined ? { '.github/arbiter.yml': r.config } : {}) },
      users: r.users,
      ...(r.branch ? { rules: r.branch } : {}),
      allowAutoMerge: r.allowAutoMerge,
      mergeMethods: r.mergeMethods,
    });
    for (const base of baseBranches(scenario, r.repo)) gh.createBranch(r.repo, base, r.defaultBranch);
  }
}

type State = ReturnType<GitHubEmulator['state']>;

/** The final state of every repository: the scenario's own first, then each of `repos` with prefixed keys. */
export function stateOfAll(
  gh: GitHubEmulator,
  scenario: Scenario,
): {
  prs: Record<string, State['prs'][number]>;
  issues: Record<string, State['issues'][number]>;
  dispatches: State['dispatches'];
} {
  const own = gh.state(scenario.repo);
  const prs: Record<string, State['prs'][number]> = { ...own.prs };
  const issues: Record<string, State['issues'][number]> = { ...own.issues };
  const dispatches = [...own.dispatches];
  for (const r of scenario.repos) {
    const more = gh.state(r.repo);
    for (const [n, pr] of Object.entries(more.prs)) prs[`${r.repo}#${n}`] = pr;
    for (const [n, issue] of Object.entries(more.issues)) issues[`${r.repo}#${n}`] = issue;
    dispatches.push(...more.dispatches);
  }
  return { prs, issues, dispatches };
}
