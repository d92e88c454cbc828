// The one place that talks to GitHub for a repository: reads (one GraphQL query per group, one for
// Arbiter's comments on a plan's issues, REST for single objects) and writes. Every Octokit error
// becomes a GitHubError here.
import { z } from 'zod';
import type { CheckRunName } from '../core/actions.ts';
import type { Octokit } from '../deps.ts';
import { commentsQuery, ISSUES_PER_QUERY, planCommentWrite, readCommentsAnswer, type OwnComment } from './comment-lookup.ts';
import { fetchPatch, type RestClient } from '../acceptance/patch.ts';
import { readHead, type HeadRead } from '../acceptance/read-files.ts';
import type { PatchRow } from '../store/types.ts';
import { configReads, type ConfigPort } from './config-reads.ts';
import { callGitHub, GitHubError, propertyOf, wrapGitHubError } from './errors.ts';
import { readGroupState, type PullState } from './group-query.ts';
import type { PermissionLookup } from '../core/trust.ts';
import { branchWrites } from './git-writes.ts';
import { ownIssues } from './own-issues.ts';
import { PortfolioGitHub } from './portfolio-calls.ts';
import type { BranchRules, BranchWrites, CheckRunWrite, GitHubPort, OwnIssues, PortfolioCalls, HeadReadInput, IssueSnapshot, MergeResult, PatchTarget, Permission, PullSnapshot } from './port.ts';

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

const Comment = z.object({ id: z.number(), body: z.string().nullable().optional(), user: z.object({ login: z.string() }).nullable() });
const CheckRun = z.object({ id: z.number(), name: z.string(), app: z.object({ slug: z.string() }).nullable().optional() });

export class GitHubGateway implements GitHubPort {
  private readonly config: ConfigPort;
  readonly branches: BranchWrites;
  readonly portfolio: PortfolioCalls;
  readonly ownIssues: OwnIssues;
  /** The client's API base URL (api.github.com, or a GitHub Enterprise Server's), for web links. */
  readonly apiBaseUrl: unknown;
  /** Arbiter's own check-run names on each head this gateway read whole in a group query. */
  private readonly ownChecksSeen = new Map<string, Set<string>>();

  constructor(
    private readonly octokit: Octokit,
    readonly owner: string,
    readonly repo: string,
    readonly appSlug: string,
  ) {
    this.config = configReads(octokit);
    this.branches = branchWrites({ octokit, owner, repo }, `${appSlug}[bot]`);
    this.portfolio = new PortfolioGitHub(octokit, owner, repo);
    this.ownIssues = ownIssues({ octokit, owner, repo }, `${appSlug}[bot]`);
    this.apiBaseUrl = octokit.request.endpoint.DEFAULTS.baseUrl;
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

  /** The patch: its requests fail as GitHubError; an answer of the wrong shape is a PatchFetchError. */
  fetchPatch(target: PatchTarget, opts: { maxBytes?: number } = {}): Promise<PatchRow> {
    const rest: RestClient = { request: (route, params) => this.call(`fetch patch (${route})`, () => this.octokit.request(route, params)) };
    return fetchPatch(rest, { owner: this.owner, repo: this.repo, ...target }, opts);
  }

  readHead(input: HeadReadInput): Promise<HeadRead> {
    return readHead((q, v) => this.call('read head files', () => this.octokit.graphql(q, v)), { owner: this.owner, repo: this.repo, ...input });
  }

  // ---- reads

  async readGroup(prs: number[]): Promise<Map<number, PullState>> {
    const states = await this.call('read group', () => readGroupState((q, v) => this.octokit.graphql(q, v), this.owner, this.repo, prs, this.appSlug));
    for (const s of states.values()) if (s.ownChecksComplete) this.ownChecksSeen.set(s.headSha, new Set(s.ownChecks));
    return states;
  }

  async getIssue(number: number): Promise<IssueSnapshot | null> {
    try {
      const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: this.owner, repo: this.repo, issue_number: number });
      const parsed = Issue.safeParse(data);
      return parsed.success ? parsed.data : null;
    } catch (error) {
      const wrapped = wrapGitHubError('get issue', error);
      if (wrapped.status === 404 || wrapped.status === 410) return null;
      throw wrapped;
    }
  }

  async branchRules(branch: string): Promise<BranchRules> {
    const rules = await this.call('get branch rules', async () => {
      try {
        const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', { owner: this.owner, repo: this.repo, branch, per_page: 100 });
        return data as unknown[];
      } catch (error) {
        if (propertyOf(error, 'status') === 404) return [];
        throw error;
      }
    });
    const parsed = z
      .array(z.object({ type: z.string(), parameters: z.record(z.string(), z.unknown()).optional() }))
      .safeParse(rules);
    const list = parsed.success ? parsed.data : [];
    const checks = list
      .filter((r) => r.type === 'required_status_checks')
      .flatMap((r) => z.array(z.object({ context: z.string() })).catch([]).parse(r.parameters?.required_status_checks ?? []).map((c) => c.context));
    const reviews = list
      .filter((r) => r.type === 'pull_request')
      .map((r) => z.number().catch(0).parse(r.parameters?.required_approving_review_count ?? 0));
    return { required: checks.length > 0 ? checks : null, requiredReviews: Math.max(0, ...reviews), mergeQueue: list.some((r) => r.type === 'merge_queue') };
  }

  async permission(user: string): Promise<Permission> {
    try {
      const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', { owner: this.owner, repo: this.repo, username: user });
      const parsed = z.object({ permission: z.string(), role_name: z.string().optional() }).safeParse(data);
      if (!parsed.success) return 'none';
      const role = (parsed.data.role_name ?? parsed.data.permission).toLowerCase();
      const known = z.enum(['none', 'read', 'triage', 'write', 'maintain', 'admin']);
      return known.catch('none').parse(known.safeParse(role).success ? role : parsed.data.permission);
    } catch (error) {
      const wrapped = wrapGitHubError('get permission', error);
      if (wrapped.status === 404) return 'none';
      throw wrapped;
    }
  }

  /**
   * The permission as a lookup result for the trust rules: a failure is an answer too (never a
   * yes). Transient errors are retried a few times first; 404 (not a collaborator) is `none`.
   */
  async permissionLookup(user: string, attempts = 3): Promise<PermissionLookup> {
    for (let attempt = 1; ; attempt++) {
      try {
        return { ok: true, permission: await this.permission(user) };
      } catch (error) {
        const wrapped = wrapGitHubError('get permission', error);
        if (!wrapped.transient || attempt >= attempts) return { ok: false, reason: wrapped.status ? `GitHub answered ${wrapped.status}` : 'GitHub did not answer' };
        await new Promise((resolve) => setTimeout(resolve, Math.min((wrapped.retryAfter ?? 0) * 1000 || 200 * 2 ** attempt, 5_000)));
      }
    }
  }

  /** Text of a file on a ref, or null when it does not exist. */
  async readFile(path: string, ref?: string): Promise<string | null> {
    try {
      const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { owner: this.owner, repo: this.repo, path, ref });
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
        const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', { owner: this.owner, repo: this.repo, pull_number: pr, per_page: 100, page });
        const parsed = z.array(z.object({ filename: z.string() })).safeParse(data);
        if (!parsed.success) break;
        all.push(...parsed.data.map((f) => f.filename));
        if (parsed.data.length < 100) break;
      }
      return all;
    });
  }

  /** Arbiter's comments on an issue, oldest first: the REST listing, every page. */
  private async listOwnComments(issue: number): Promise<OwnComment[]> {
    const comments = await this.call('list comments', async () => {
      const all: z.infer<typeof Comment>[] = [];
      for (let page = 1; page <= 30; page++) {
        const { data } = await this.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: this.owner, repo: this.repo, issue_number: issue, per_page: 100, page });
        const parsed = z.array(Comment).safeParse(data);
        if (!parsed.success) break;
        all.push(...parsed.data);
        if (parsed.data.length < 100) break;
      }
      return all;
    });
    return comments.filter((c) => c.user?.login === this.botLogin).map((c) => ({ id: c.id, body: c.body ?? '' }));
  }

  /**
   * Arbiter's comments on many issues, with one GraphQL query per 100 issues. An issue left out
   * of the answer had more than 100 comments (or was not answered): `upsertComment` lists it.
   */
  async findOwnComments(issues: number[]): Promise<Map<number, OwnComment[]>> {
    const wanted = [...new Set(issues)];
    const found = new Map<number, OwnComment[]>();
    for (let i = 0; i < wanted.length; i += ISSUES_PER_QUERY) {
      const chunk = wanted.slice(i, i + ISSUES_PER_QUERY);
      const data = await this.call('find comments', async () => {
        try {
          return await this.octokit.graphql(commentsQuery(chunk), { owner: this.owner, name: this.repo });
        } catch (error) {
          // Errors on some aliases (an issue deleted, say) still answer the others.
          const partial = propertyOf(error, 'data');
          if (propertyOf(error, 'name') === 'GraphqlResponseError' && typeof partial === 'object' && partial !== null) return partial;
          throw error;
        }
      });
      for (const [issue, ours] of readCommentsAnswer(data, this.appSlug)) found.set(issue, ours);
    }
    return found;
  }

  // ---- writes

  /**
   * Creates the comment carrying `marker`, or updates it in place when it exists. `ours`: Arbiter's
   * comments on the issue when already looked up (`findOwnComments`); without it they are listed.
   */
  async upsertComment(issue: number, marker: string, body: string, ours?: OwnComment[]): Promise<{ id: number; created: boolean }> {
    const write = planCommentWrite(ours ?? (await this.listOwnComments(issue)), marker, body);
    if (write.kind === 'keep') return { id: write.id, created: false };
    if (write.kind === 'edit') {
      await this.call('update comment', () => this.octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { owner: this.owner, repo: this.repo, comment_id: write.id, body: write.text }));
      return { id: write.id, created: false };
    }
    const { data } = await this.call('create comment', () => this.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: this.owner, repo: this.repo, issue_number: issue, body: write.text }));
    return { id: z.object({ id: z.number() }).parse(data).id, created: true };
  }

  async closePull(pr: number): Promise<void> {
    await this.call('close pull request', () => this.octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { owner: this.owner, repo: this.repo, pull_number: pr, state: 'closed' }));
  }

  async pullState(pr: number): Promise<PullSnapshot> {
    const { data } = await this.call('get pull request', () => this.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { owner: this.owner, repo: this.repo, pull_number: pr }));
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
    };
  }

  async addLabels(issue: number, labels: string[]): Promise<void> {
    await this.call('add labels', () => this.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { owner: this.owner, repo: this.repo, issue_number: issue, labels }));
  }

  async removeLabel(issue: number, label: string): Promise<void> {
    try {
      await this.octokit.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', { owner: this.owner, repo: this.repo, issue_number: issue, name: label });
    } catch (error) {
      const wrapped = wrapGitHubError('remove label', error);
      if (wrapped.status !== 404) throw wrapped;
    }
  }

  async markReady(nodeId: string): Promise<void> {
    await this.call('mark ready for review', () =>
      this.octokit.graphql(`mutation ArbiterReady($id: ID!) { markPullRequestReadyForReview(input: { pullRequestId: $id }) { pullRequest { isDraft } } }`, { id: nodeId }),
    );
  }

  /** Merge with GitHub's compare-and-swap: it fails with 409 when the head moved. */
  async merge(pr: number, sha: string, method: 'merge' | 'squash' | 'rebase'): Promise<MergeResult> {
    try {
      const { data } = await this.octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', { owner: this.owner, repo: this.repo, pull_number: pr, sha, merge_method: method });
      return { ok: true, sha: z.object({ sha: z.string().nullable().optional() }).catch({ sha: null }).parse(data).sha ?? null };
    } catch (error) {
      const wrapped = wrapGitHubError('merge', error);
      if (wrapped.status === 405 || wrapped.status === 409 || wrapped.status === 422) return { ok: false, status: wrapped.status, message: wrapped.message };
      throw wrapped;
    }
  }

  async enableAutoMerge(nodeId: string, sha: string, method: 'merge' | 'squash' | 'rebase', queue: boolean): Promise<void> {
    if (queue) {
      await this.call('enqueue', () =>
        this.octokit.graphql(`mutation ArbiterEnqueue($id: ID!, $oid: GitObjectID) { enqueuePullRequest(input: { pullRequestId: $id, expectedHeadOid: $oid }) { clientMutationId } }`, { id: nodeId, oid: sha }),
      );
      return;
    }
    await this.call('enable auto-merge', () =>
      this.octokit.graphql(
        `mutation ArbiterAutoMerge($id: ID!, $oid: GitObjectID, $mergeMethod: PullRequestMergeMethod) { enablePullRequestAutoMerge(input: { pullRequestId: $id, expectedHeadOid: $oid, mergeMethod: $mergeMethod }) { clientMutationId } }`,
        // Octokit reserves `method` as an option name, so the variable is `mergeMethod`.
        { id: nodeId, oid: sha, mergeMethod: method.toUpperCase() },
      ),
    );
  }

  async requestReviewers(pr: number, reviewers: string[], teams: string[]): Promise<void> {
    await this.call('request reviewers', () =>
      this.octokit.request('POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers', { owner: this.owner, repo: this.repo, pull_number: pr, reviewers, team_reviewers: teams }),
    );
  }

  async dispatch(eventType: string, payload: Record<string, unknown>): Promise<void> {
    await this.call('repository dispatch', () => this.octokit.request('POST /repos/{owner}/{repo}/dispatches', { owner: this.owner, repo: this.repo, event_type: eventType, client_payload: payload }));
  }

  async react(commentId: number, content: '+1' | 'eyes' | 'confused' | 'rocket'): Promise<void> {
    await this.call('react', () => this.octokit.request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', { owner: this.owner, repo: this.repo, comment_id: commentId, content }));
  }

  /**
   * Arbiter's own check run of that name on a sha, if one exists. A head this gateway (one job's)
   * read in a group query, with no run of that name on it, is known to have none: no request.
   */
  async findCheckRun(sha: string, name: CheckRunName): Promise<number | null> {
    const seen = this.ownChecksSeen.get(sha);
    if (seen && !seen.has(name)) return null;
    const { data } = await this.call('list check runs', () =>
      this.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { owner: this.owner, repo: this.repo, ref: sha, check_name: name, per_page: 100 }),
    );
    const parsed = z.object({ check_runs: z.array(CheckRun) }).safeParse(data);
    if (!parsed.success) return null;
    const mine = parsed.data.check_runs.filter((r) => r.name === name && (!r.app || r.app.slug === this.appSlug));
    return mine.length > 0 ? Math.max(...mine.map((r) => r.id)) : null;
  }

  async writeCheckRun(input: CheckRunWrite): Promise<number> {
    const output = { title: input.title.slice(0, 250), summary: input.summary.slice(0, 65_000), text: input.text?.slice(0, 65_000), annotations: input.annotations?.slice(0, 50) };
    const body = {
      owner: this.owner,
      repo: this.repo,
      name: input.name,
      status: input.status,
      ...(input.status === 'completed' ? { conclusion: input.conclusion ?? ('neutral' as const) } : {}),
      output,
      // Without buttons, none: an update that leaves `actions` out keeps the earlier ones on GitHub.
      actions: input.buttons ?? [],
      ...(input.detailsUrl ? { details_url: input.detailsUrl } : {}),
    };
    let id = input.id;
    if (id === null) {
      // From now on a run of this name may exist on the head (an answer lost on the way back):
      // a later look asks GitHub.
      this.ownChecksSeen.get(input.sha)?.add(input.name);
      const { data } = await this.call('create check run', () => this.octokit.request('POST /repos/{owner}/{repo}/check-runs', { ...body, head_sha: input.sha }));
      id = z.object({ id: z.number() }).parse(data).id;
    } else {
      const checkRunId = id;
      await this.call('update check run', () => this.octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', { ...body, check_run_id: checkRunId }));
    }
    // GitHub takes at most 50 annotations a request: send the rest in further updates.
    const rest = input.annotations?.slice(50) ?? [];
    for (let i = 0; i < rest.length; i += 50) {
      const checkRunId = id;
      await this.call('annotate check run', () =>
        this.octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
          owner: this.owner,
          repo: this.repo,
          check_run_id: checkRunId,
          output: { title: output.title, summary: output.summary, annotations: rest.slice(i, i + 50) },
        }),
      );
    }
    return id;
  }
}

export { GitHubError };
