// The one place that talks to GitHub for a repository: reads (one GraphQL query per group, one for
// Arbiter's comments on a plan's issues, REST for single objects) and writes. Every Octokit error
// becomes a GitHubError here.
import { z } from 'zod';
import type { CheckRunName } from '../core/actions.ts';
import type { Clock } from '../clock.ts';
import type { Octokit } from '../deps.ts';
import type { OwnComment } from './comment-lookup.ts';
import * as checks from './check-runs.ts';
import * as comments from './comment-calls.ts';
import { fetchPatch } from './patch-reads.ts';
import { readHead } from './head-reads.ts';
import type { HeadRead } from '../core/head-files.ts';
import type { PatchRow } from '../store/types.ts';
import type { ConfigPort } from '../config/port.ts';
import { configReads } from './config-reads.ts';
import { callGitHub, GitHubError, wrapGitHubError } from './errors.ts';
import { readGroupState, type PullState } from './group-query.ts';
import { noteRead } from './read-age.ts';
import { readBranchRules } from './branch-rule-reads.ts';
import { readLinkedPulls } from './linked-pulls.ts';
import type { PermissionLookup } from '../core/trust.ts';
import { branchWrites } from './git-writes.ts';
import { ownIssues } from './own-issues.ts';
import { PortfolioGitHub } from './portfolio-calls.ts';
import * as pulls from './pull-calls.ts';
import type {
  BranchRules,
  BranchWrites,
  CheckRunWrite,
  GitHubPort,
  OwnIssues,
  PortfolioCalls,
  HeadReadInput,
  IssueSnapshot,
  MergeResult,
  PatchTarget,
  Permission,
  PullSnapshot,
} from './port.ts';

export type { AppHooksPort, BranchRules, GitHubPort, MergeResult, Permission, PullSnapshot } from './port.ts';
/** The app-level port (its webhook's deliveries), implemented beside this one. */
export { GitHubAppHooks } from './hook-deliveries.ts';

const Issue = z.object({
  number: z.number(),
  title: z.string(),
  body: z.string().nullable(),
  state: z.string(),
  pull_request: z.unknown().optional(),
  user: z.object({ login: z.string(), type: z.string().optional() }).nullable(),
});

export class GitHubGateway implements GitHubPort {
  private readonly config: ConfigPort;
  readonly branches: BranchWrites;
  readonly portfolio: PortfolioCalls;
  readonly ownIssues: OwnIssues;
  /** The client's API base URL (api.github.com, or a GitHub Enterprise Server's), for web links. */
  readonly apiBaseUrl: unknown;
  /** Arbiter's own check-run names on each head this gateway read whole in a group query. */
  private readonly ownChecksSeen = new Map<string, Set<string>>();
  /** What the calls beside this class need: the client, the repository, the app. */
  private readonly calls: comments.CommentClient;
  private readonly checkRuns: checks.CheckRunClient;

  constructor(
    private readonly octokit: Octokit,
    readonly owner: string,
    readonly repo: string,
    readonly appSlug: string,
    /** The app's clock: when a group read was answered (`read-age.ts`). */
    private readonly clock: Clock,
  ) {
    this.config = configReads(octokit);
    this.branches = branchWrites({ octokit, owner, repo }, `${appSlug}[bot]`);
    this.portfolio = new PortfolioGitHub(octokit, owner, repo);
    this.ownIssues = ownIssues({ octokit, owner, repo }, `${appSlug}[bot]`);
    this.apiBaseUrl = octokit.request.endpoint.DEFAULTS.baseUrl;
    this.calls = { octokit, owner, repo, appSlug };
    this.checkRuns = { ...this.calls, ownChecksSeen: this.ownChecksSeen };
  }

  // ---- the configuration (installation-wide: `_extends` may name other repositories)

  readConfigText: ConfigPort['readConfigText'] = (t) => this.config.readConfigText(t);
  readConfigLayers: ConfigPort['readConfigLayers'] = (t) => this.config.readConfigLayers(t);
  listCheckRunsNamed: ConfigPort['listCheckRunsNamed'] = (t) => this.config.listCheckRunsNamed(t);
  createConfigRun: ConfigPort['createConfigRun'] = (t, body) => this.config.createConfigRun(t, body);
  updateConfigRun: ConfigPort['updateConfigRun'] = (t, body) => this.config.updateConfigRun(t, body);
  defaultBranch: ConfigPort['defaultBranch'] = (t) => this.config.defaultBranch(t);
  branchHead: ConfigPort['branchHead'] = (t) => this.config.branchHead(t);

  get botLogin(): string {
    return `${this.appSlug}[bot]`;
  }

  private call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    return callGitHub(operation, fn);
  }

  /** The patch and merge base (`patch-reads.ts`); every failure a GitHubError. */
  fetchPatch(target: PatchTarget, opts: { maxBytes?: number } = {}): Promise<PatchRow> {
    return fetchPatch(this.octokit, { owner: this.owner, repo: this.repo, ...target }, opts);
  }

  /** Files and folder listings of the tree at a sha in one query (`head-reads.ts`). */
  readHead(input: HeadReadInput): Promise<HeadRead> {
    return readHead((q, v) => this.octokit.graphql(q, v), { owner: this.owner, repo: this.repo, ...input });
  }

  // ---- reads

  async readGroup(prs: number[]): Promise<Map<number, PullState>> {
    const states = await this.call('read group', () =>
      readGroupState((q, v) => this.octokit.graphql(q, v), this.owner, this.repo, prs, this.appSlug),
    );
    for (const s of states.values()) if (s.ownChecksComplete) this.ownChecksSeen.set(s.headSha, new Set(s.ownChecks));
    noteRead(states, this.clock.now());
    return states;
  }

  linkedPulls(issue: number): Promise<number[]> {
    return this.call('read linked pulls', () =>
      readLinkedPulls((q, v) => this.octokit.graphql(q, v), this.owner, this.repo, issue),
    );
  }

  async getIssue(number: number): Promise<IssueSnapshot | null> {
    try {
      const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', {
        owner: this.owner,
        repo: this.repo,
        issue_number: number,
      });
      const parsed = Issue.safeParse(data);
      return parsed.success ? parsed.data : null;
    } catch (error) {
      const wrapped = wrapGitHubError('get issue', error);
      if (wrapped.status === 404 || wrapped.status === 410) return null;
      throw wrapped;
    }
  }

  /**
   * The branch's rules from both sources: its rulesets and classic protection's required checks
   * (branch-rule-reads.ts); `strict` is either source's "up to date before merging".
   */
  branchRules(branch: string): Promise<BranchRules> {
    return readBranchRules(this.calls, branch);
  }

  async permission(user: string): Promise<Permission> {
    try {
      return await this.readPermission(user);
    } catch (error) {
      if (error instanceof GitHubError && error.status === 404) return 'none';
      throw error;
    }
  }

  /** The collaborator-permission read; GitHub's 404 (no such collaborator: every bot) is thrown. */
  private async readPermission(user: string): Promise<Permission> {
    try {
      const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', {
        owner: this.owner,
        repo: this.repo,
        username: user,
      });
      const parsed = z.object({ permission: z.string(), role_name: z.string().optional() }).safeParse(data);
      if (!parsed.success) return 'none';
      const role = (parsed.data.role_name ?? parsed.data.permission).toLowerCase();
      const known = z.enum(['none', 'read', 'triage', 'write', 'maintain', 'admin']);
      return known.catch('none').parse(known.safeParse(role).success ? role : parsed.data.permission);
    } catch (error) {
      throw wrapGitHubError('get permission', error);
    }
  }

  /**
   * The permission as a lookup result for the trust rules: a failure is an answer too (never a
   * yes). Transient errors are retried a few times first; 404 (not a collaborator) is `none`.
   */
  async permissionLookup(user: string, attempts = 3): Promise<PermissionLookup> {
    for (let attempt = 1; ; attempt++) {
      try {
        return { ok: true, permission: await this.readPermission(user) };
      } catch (error) {
        const wrapped = wrapGitHubError('get permission', error);
        if (!wrapped.transient || attempt >= attempts)
          return wrapped.status
            ? { ok: false, reason: `GitHub answered ${wrapped.status}`, status: wrapped.status }
            : { ok: false, reason: 'GitHub did not answer' };
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min((wrapped.retryAfter ?? 0) * 1000 || 200 * 2 ** attempt, 5_000)),
        );
      }
    }
  }

  /** Text of a file on a ref, or null when it does not exist. */
  async readFile(path: string, ref?: string): Promise<string | null> {
    try {
      const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/contents/{path}', {
        owner: this.owner,
        repo: this.repo,
        path,
        ref,
      });
      const parsed = z.object({ content: z.string(), encoding: z.string() }).safeParse(data);
      if (!parsed.success) return null;
      return Buffer.from(parsed.data.content, parsed.data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
    } catch (error) {
      const wrapped = wrapGitHubError('read file', error);
      if (wrapped.status === 404) return null;
      throw wrapped;
    }
  }

  /** The paths a pull request changes (GitHub lists at most 3,000). */
  async pullFileNames(pr: number): Promise<string[]> {
    return this.call('list pull request files', async () => {
      const all: string[] = [];
      for (let page = 1; page <= 30; page++) {
        const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
          owner: this.owner,
          repo: this.repo,
          pull_number: pr,
          per_page: 100,
          page,
        });
        const parsed = z.array(z.object({ filename: z.string() })).safeParse(data);
        if (!parsed.success) break;
        all.push(...parsed.data.map((f) => f.filename));
        if (parsed.data.length < 100) break;
      }
      return all;
    });
  }

  /** Arbiter's comments on many issues, one GraphQL query per 100 issues (`comment-calls.ts`). */
  findOwnComments(issues: number[]): Promise<Map<number, OwnComment[]>> {
    return comments.findOwnComments(this.calls, issues);
  }

  // ---- writes

  /** Creates the comment carrying `marker`, or updates it in place (`comment-calls.ts`). */
  upsertComment(
    issue: number,
    marker: string,
    body: string,
    ours?: OwnComment[],
  ): Promise<{ id: number; created: boolean }> {
    return comments.upsertComment(this.calls, issue, marker, body, ours);
  }

  closePull(pr: number): Promise<void> {
    return pulls.closePull(this.calls, pr);
  }

  closeWithLabels(pr: number, labels: string[]): Promise<void> {
    return pulls.closeWithLabels(this.calls, pr, labels);
  }

  pullState(pr: number): Promise<PullSnapshot> {
    return pulls.pullState(this.calls, pr);
  }

  async addLabels(issue: number, labels: string[]): Promise<void> {
    await this.call('add labels', () =>
      this.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
        owner: this.owner,
        repo: this.repo,
        issue_number: issue,
        labels,
      }),
    );
  }

  async removeLabel(issue: number, label: string): Promise<void> {
    try {
      await this.octokit.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', {
        owner: this.owner,
        repo: this.repo,
        issue_number: issue,
        name: label,
      });
    } catch (error) {
      const wrapped = wrapGitHubError('remove label', error);
      if (wrapped.status !== 404) throw wrapped;
    }
  }

  markReady(nodeId: string): Promise<void> {
    return pulls.markReady(this.calls, nodeId);
  }

  /** Merge with GitHub's compare-and-swap: it fails with 409 when the head moved. */
  merge(pr: number, sha: string, method: 'merge' | 'squash' | 'rebase'): Promise<MergeResult> {
    return pulls.merge(this.calls, pr, sha, method);
  }

  enableAutoMerge(nodeId: string, sha: string, method: 'merge' | 'squash' | 'rebase', queue: boolean): Promise<void> {
    return pulls.enableAutoMerge(this.calls, nodeId, sha, method, queue);
  }

  disableAutoMerge(nodeId: string): Promise<void> {
    return pulls.disableAutoMerge(this.calls, nodeId);
  }

  dequeue(nodeId: string): Promise<void> {
    return pulls.dequeue(this.calls, nodeId);
  }

  updateBranch(pr: number, expectedHeadSha: string): Promise<void> {
    return pulls.updateBranch(this.calls, pr, expectedHeadSha);
  }

  requestReviewers(pr: number, reviewers: string[], teams: string[]): Promise<void> {
    return pulls.requestReviewers(this.calls, pr, reviewers, teams);
  }

  async dispatch(eventType: string, payload: Record<string, unknown>): Promise<void> {
    await this.call('repository dispatch', () =>
      this.octokit.request('POST /repos/{owner}/{repo}/dispatches', {
        owner: this.owner,
        repo: this.repo,
        event_type: eventType,
        client_payload: payload,
      }),
    );
  }

  async react(commentId: number, content: '+1' | 'eyes' | 'confused' | 'rocket'): Promise<void> {
    await this.call('react', () =>
      this.octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', {
        owner: this.owner,
        repo: this.repo,
        comment_id: commentId,
        content,
      }),
    );
  }

  /** Arbiter's own check run of that name on a sha, if one exists (`check-runs.ts`). */
  findCheckRun(sha: string, name: CheckRunName): Promise<number | null> {
    return checks.findCheckRun(this.checkRuns, sha, name);
  }

  writeCheckRun(input: CheckRunWrite): Promise<number> {
    return checks.writeCheckRun(this.checkRuns, input);
  }
}

export { GitHubError };
