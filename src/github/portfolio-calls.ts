// GitHub calls of portfolio search: the default branch head an explore starts from, every run of
// the scoring check on a head (each completed run is one reading), and re-running it. Every
// Octokit error becomes a GitHubError here, as in the gateway.
import { z } from 'zod';
import { readScore } from '../core/gate.ts';
import type { Octokit } from '../deps.ts';
import { wrapGitHubError } from './errors.ts';

const Repo = z.object({ default_branch: z.string() });
const Branch = z.object({ commit: z.object({ sha: z.string() }) });
const Run = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullable().optional(),
  completed_at: z.string().nullable().optional(),
  output: z
    .object({ title: z.string().nullable().optional(), summary: z.string().nullable().optional() })
    .nullable()
    .optional(),
  app: z.object({ slug: z.string() }).nullable().optional(),
});
const Runs = z.object({ check_runs: z.array(Run) });

export interface ScoringRun {
  id: number;
  completed: boolean;
  /** The score in its output; null while it runs or when it reports none. */
  score: number | null;
  appSlug: string | null;
  /** When the run last completed (a run its app updates in place completes again): ISO time, or null. */
  completedAt: string | null;
}

/** GitHub Actions' app: its check runs are jobs, re-run through the Actions API. */
export const ACTIONS_APP = 'github-actions';

export class PortfolioGitHub {
  constructor(
    readonly octokit: Octokit,
    readonly owner: string,
    readonly repo: string,
  ) {}

  private async call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw wrapGitHubError(operation, error);
    }
  }

  /** The default branch and its head commit: what the dispatched agents branch from. */
  async defaultBranchHead(): Promise<{ branch: string; sha: string }> {
    const repo = await this.call('get repository', () =>
      this.octokit.request('GET /repos/{owner}/{repo}', { owner: this.owner, repo: this.repo }),
    );
    const branch = Repo.parse(repo.data).default_branch;
    const head = await this.call('get branch', () =>
      this.octokit.request('GET /repos/{owner}/{repo}/branches/{branch}', {
        owner: this.owner,
        repo: this.repo,
        branch,
      }),
    );
    return { branch, sha: Branch.parse(head.data).commit.sha };
  }

  /** Every run of check `name` on `sha` (re-runs included), oldest first. */
  async scoringRuns(sha: string, name: string): Promise<ScoringRun[]> {
    const { data } = await this.call('list scoring runs', () =>
      this.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
        owner: this.owner,
        repo: this.repo,
        ref: sha,
        check_name: name,
        filter: 'all',
        per_page: 100,
      }),
    );
    const parsed = Runs.safeParse(data);
    if (!parsed.success) return [];
    return parsed.data.check_runs
      .filter((r) => r.name === name)
      .sort((a, b) => a.id - b.id)
      .map((r) => ({
        id: r.id,
        completed: r.status === 'completed',
        score:
          r.status === 'completed'
            ? readScore({ title: r.output?.title ?? null, summary: r.output?.summary ?? null })
            : null,
        appSlug: r.app?.slug ?? null,
        completedAt: r.status === 'completed' ? (r.completed_at ?? null) : null,
      }));
  }

  /**
   * Asks the check's app to run it again on the same head. GitHub Actions re-runs a job through the
   * Actions API (which needs `actions: write`); any other app gets the check-run rerequest, to which
   * it answers with a new run.
   */
  async rerun(run: Pick<ScoringRun, 'id' | 'appSlug'>): Promise<void> {
    if (run.appSlug === ACTIONS_APP) {
      await this.call('re-run job', () =>
        this.octokit.request('POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun', {
          owner: this.owner,
          repo: this.repo,
          job_id: run.id,
        }),
      );
      return;
    }
    await this.call('rerequest check run', () =>
      this.octokit.request('POST /repos/{owner}/{repo}/check-runs/{check_run_id}/rerequest', {
        owner: this.owner,
        repo: this.repo,
        check_run_id: run.id,
      }),
    );
  }
}
