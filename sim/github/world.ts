// The emulator's world: repositories, apps, ids, the virtual clock, webhook emission (validated
// against the published schemas, then signed and sent) and the contract violations recorded.
import { mergeStateStatus } from './merge-rules.ts';
import { GitError } from './git-store.ts';
import { diffTrees, type FileDiff } from './diff.ts';
import type { AppInfo, Issue, Permission, Pull, Repo } from './model.ts';
import { IdSource, newRepo } from './model.ts';
import {
  botLogin,
  nodeId,
  pullJson,
  repoJson,
  userJson,
  type JsonObject,
  type PullStats,
  type Urls,
} from './payloads.ts';
import { validateWebhook } from './webhook-schemas.ts';
import type { WebhookSender } from './webhook-sender.ts';

/** A failure GitHub would answer with an HTTP status and a message. */
export class GitHubError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: unknown[],
  ) {
    super(message);
    this.name = 'GitHubError';
  }
}

export const CI_APP_SLUG = 'ci';
/** GitHub Actions' own app: its check runs are jobs, re-run through the Actions API. */
export const ACTIONS_APP_SLUG = 'github-actions';

export class World {
  readonly repos = new Map<string, Repo>();
  readonly apps = new Map<string, AppInfo>();
  readonly ids = new IdSource();
  readonly violations: string[] = [];
  readonly urls: Urls;

  constructor(
    apiUrl: string,
    readonly now: () => number,
    readonly webhooks: WebhookSender,
    readonly installationId: number,
    readonly appSlug: string,
  ) {
    this.urls = { api: apiUrl, html: 'https://github.com' };
  }

  registerApp(app: AppInfo): void {
    this.apps.set(app.slug, app);
  }

  app(slug: string): AppInfo {
    const app = this.apps.get(slug);
    if (!app) throw new GitHubError(404, `no app ${slug}`);
    return app;
  }

  createRepo(owner: string, name: string, defaultBranch: string, files: Record<string, string>): Repo {
    const repo = newRepo(this.ids.take(), owner, name, defaultBranch, this.now());
    const commit = repo.git.addCommit(files, [], 'Initial commit', owner, this.now());
    repo.git.branches.set(defaultBranch, commit.sha);
    this.repos.set(repo.fullName.toLowerCase(), repo);
    return repo;
  }

  repo(fullName: string): Repo {
    const repo = this.repos.get(fullName.toLowerCase());
    if (!repo) throw new GitHubError(404, 'Not Found');
    return repo;
  }

  findRepo(owner: string, name: string): Repo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  permissionOf(repo: Repo, login: string): Permission {
    if (login === repo.owner) return 'admin';
    return repo.users.get(login)?.permission ?? 'read';
  }

  issue(repo: Repo, number: number): Issue {
    const issue = repo.issues.get(number);
    if (!issue) throw new GitHubError(404, 'Not Found');
    return issue;
  }

  pull(repo: Repo, number: number): { issue: Issue; pull: Pull } {
    const pull = repo.pulls.get(number);
    const issue = repo.issues.get(number);
    if (!pull || !issue) throw new GitHubError(404, 'Not Found');
    return { issue, pull };
  }

  resolveSha(repo: Repo, ref: string): string {
    const sha = repo.git.resolve(ref);
    if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
    return sha;
  }

  /** The files a PR changes: head against the merge base with its base branch. */
  pullDiff(repo: Repo, pull: Pull): { mergeBase: string; files: FileDiff[] } {
    const baseSha = this.resolveSha(repo, pull.base);
    const mergeBase = repo.git.mergeBase(baseSha, pull.headSha) ?? baseSha;
    return { mergeBase, files: diffTrees(repo.git.get(mergeBase).tree, repo.git.get(pull.headSha).tree) };
  }

  mergeable(repo: Repo, pull: Pull): boolean {
    if (pull.merged) return false;
    try {
      const baseSha = this.resolveSha(repo, pull.base);
      const mergeBase = repo.git.mergeBase(baseSha, pull.headSha);
      return mergeBase !== null && repo.git.mergeTrees(mergeBase, baseSha, pull.headSha) !== null;
    } catch (error) {
      if (error instanceof GitError || error instanceof GitHubError) return false;
      throw error;
    }
  }

  pullStats(repo: Repo, pull: Pull): PullStats {
    const { mergeBase, files } = this.pullDiff(repo, pull);
    const baseAncestors = repo.git.ancestors(mergeBase);
    const commits = [...repo.git.ancestors(pull.headSha)].filter((sha) => !baseAncestors.has(sha)).length;
    return {
      additions: files.reduce((n, f) => n + f.additions, 0),
      deletions: files.reduce((n, f) => n + f.deletions, 0),
      changedFiles: files.length,
      commits,
      mergeable: this.mergeable(repo, pull),
      pushedAt: repo.git.get(pull.headSha).timestamp,
      mergeState: pull.merged ? 'unknown' : mergeStateStatus(this, repo, pull).toLowerCase(),
    };
  }

  /** Heads (with their base) whose mergeability a REST read has asked GitHub to compute. */
  private readonly computing = new Set<string>();

  /**
   * `GET /pulls/{n}`: as GitHub does, the first read after each push (or base move) answers
   * `mergeable: null` while the merge is computed in the background; later reads have the answer.
   */
  readPull(repo: Repo, number: number): JsonObject {
    const { pull } = this.pull(repo, number);
    const json = this.pullJson(repo, number);
    if (pull.merged) return json;
    const key = `${repo.fullName}#${number}@${pull.headSha}^${this.resolveSha(repo, pull.base)}`;
    if (this.computing.has(key)) return json;
    this.computing.add(key);
    return { ...json, mergeable: null, rebaseable: null, mergeable_state: 'unknown' };
  }

  pullJson(repo: Repo, number: number): JsonObject {
    const { issue, pull } = this.pull(repo, number);
    return pullJson(this.urls, repo, issue, pull, this.pullStats(repo, pull));
  }

  lastPush(repo: Repo): number {
    let latest = repo.createdAt;
    for (const commit of repo.git.commits.values()) latest = Math.max(latest, commit.timestamp);
    return latest;
  }

  /** The webhook `sender`: a bot for the app's own acts, else the user. */
  senderJson(login: string): JsonObject {
    // A scenario user marked `bot: true` is an account of type Bot, as GitHub reports bots.
    const bot = [...this.repos.values()].some((r) => r.users.get(login)?.bot === true);
    return userJson(this.urls, login, bot ? 'Bot' : undefined);
  }

  appBot(): string {
    return botLogin(this.appSlug);
  }

  /** Validates, records problems, then sends (or queues) the webhook. */
  emit(repo: Repo, event: string, body: JsonObject, sender: string): Promise<number> {
    const payload: JsonObject = {
      ...body,
      repository: repoJson(this.urls, repo, this.lastPush(repo)),
      sender: this.senderJson(sender),
      installation: {
        id: this.installationId,
        node_id: nodeId('MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u', this.installationId),
      },
    };
    const problem = validateWebhook(event, payload);
    const action = typeof body.action === 'string' ? `.${body.action}` : '';
    if (problem !== null)
      this.violations.push(`webhook ${event}${action} does not match GitHub's published schema: ${problem}`);
    return this.webhooks.dispatch(event, payload);
  }
}
