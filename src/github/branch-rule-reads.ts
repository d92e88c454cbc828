// The reads behind a branch's rules: its rulesets (`GET /rules/branches/{b}`), classic protection as
// `GET /branches/{b}` shows it to the app, and, when that leaves `strict` out, the protection
// endpoint's `required_status_checks`. mergeBranchRules (branch-protection.ts) joins them.
import type { Octokit } from '../deps.ts';
import { mergeBranchRules } from './branch-protection.ts';
import { callGitHub, propertyOf } from './errors.ts';
import type { BranchRules } from './port.ts';

/** An answer's fields, to copy with one changed. */
const entriesOf = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value)) : {};

/** The client and the repository the reads go to. */
interface RepoOctokit {
  octokit: Octokit;
  owner: string;
  repo: string;
}

/**
 * The branch's rules from both sources. A check pinned to an app (a ruleset's `integration_id`,
 * classic `checks[].app_id`) is required as `name@<app id>`.
 */
export async function readBranchRules(gh: RepoOctokit, branch: string): Promise<BranchRules> {
  const [rulesets, classic] = await Promise.all([readRulesets(gh, branch), readClassic(gh, branch)]);
  return mergeBranchRules(rulesets, await withClassicStrict(gh, branch, classic));
}

function readRulesets(gh: RepoOctokit, branch: string): Promise<unknown> {
  return callGitHub('get branch rules', async () => {
    try {
      const { data } = await gh.octokit.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', {
        owner: gh.owner,
        repo: gh.repo,
        branch,
        per_page: 100,
      });
      return data as unknown;
    } catch (error) {
      if (propertyOf(error, 'status') === 404) return [];
      throw error;
    }
  });
}

/** Classic protection as `GET /branches/{b}` shows it to the app (no admin read needed); 404: none. */
function readClassic(gh: RepoOctokit, branch: string): Promise<unknown> {
  return callGitHub('get branch protection', async () => {
    try {
      const { data } = await gh.octokit.request('GET /repos/{owner}/{repo}/branches/{branch}', {
        owner: gh.owner,
        repo: gh.repo,
        branch,
      });
      return data as unknown;
    } catch (error) {
      if (propertyOf(error, 'status') === 404) return null;
      throw error;
    }
  });
}

/**
 * `GET /branches/{b}` may leave `strict` out of classic protection's required checks for an app
 * token; the protection endpoint's `required_status_checks` states it. Read only then; a refusal
 * (403 without administration read, 404) leaves it unknown, counted as not strict (the rulesets'
 * strict policy still counts, and GitHub's merge refusal "behind" still leads to one update).
 */
async function withClassicStrict(gh: RepoOctokit, branch: string, classic: unknown): Promise<unknown> {
  // An unprotected branch requires nothing (GitHub lists its empty, switched-off checks all the same).
  if (propertyOf(classic, 'protected') !== true) return classic;
  const protection = propertyOf(classic, 'protection');
  const checks = propertyOf(protection, 'required_status_checks');
  if (typeof checks !== 'object' || checks === null || propertyOf(checks, 'strict') !== undefined) return classic;
  const strict = await callGitHub('get required status checks protection', async () => {
    try {
      const { data } = await gh.octokit.request(
        'GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks',
        { owner: gh.owner, repo: gh.repo, branch },
      );
      return propertyOf(data, 'strict');
    } catch (error) {
      const status = propertyOf(error, 'status');
      if (status === 403 || status === 404) return undefined;
      throw error;
    }
  });
  if (typeof strict !== 'boolean') return classic;
  return {
    ...entriesOf(classic),
    protection: { ...entriesOf(protection), required_status_checks: { ...entriesOf(checks), strict } },
  };
}
