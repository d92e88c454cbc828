// The GitHub emulator's programmatic face: start it, seed repositories, act as people and as
// CI, inject faults, hold and redeliver webhooks, and observe writes, reads and violations.
import { AppAuth } from './auth.ts';
import {
  approveWorkflowRuns,
  awaitWorkflowApproval,
  clickButton as clickRunButton,
  rerequestRun,
  createCheckRun,
  latestRuns,
  setStatus as setCommitStatus,
  updateCheckRun,
} from './check-acts.ts';
import { RestContract } from './contract.ts';
import type { Change } from './git-store.ts';
import {
  addComment,
  addLabels,
  editIssue as editIssueBody,
  lockIssue as lockIssueAct,
  openIssue as openIssueAct,
  removeLabel as removeIssueLabel,
  setIssueState,
  type Sent,
} from './issue-acts.ts';
import type { Annotation, BranchRules, CheckAction, Permission, Repo, Rerequest } from './model.ts';
import { botLogin } from './payloads.ts';
import {
  autoMergeOff,
  convertToDraft,
  dequeuePull,
  markReady,
  openPull,
  pushChange,
  requestReviewers,
  retargetPull,
  setPullState,
  submitReview,
} from './pull-acts.ts';
import { appRoutes } from './rest/app-routes.ts';
import { checkRoutes } from './rest/check-routes.ts';
import { issueRoutes } from './rest/issue-routes.ts';
import { gitRoutes } from './rest/git-routes.ts';
import { pullRoutes } from './rest/pull-routes.ts';
import { repoRoutes } from './rest/repo-routes.ts';
import { EmulatorServer, type Fault, type Recorder, type WriteRecord } from './server.ts';
import {
  WebhookSender,
  type Delivery,
  type DeliveryFault,
  type HookAttempt,
  type SentRecord,
} from './webhook-sender.ts';
import { ACTIONS_APP_SLUG, CI_APP_SLUG, GitHubError, World } from './world.ts';

export type { Fault, WriteRecord } from './server.ts';
export { GitHubError } from './world.ts';
export { signBody } from './webhook-sender.ts';
export type { DeliveryFault, HookAttempt } from './webhook-sender.ts';

export interface EmulatorOptions {
  webhookUrl: string | null;
  webhookSecret: string;
  appId: number;
  appSlug: string;
  appPublicKeyPem?: string;
  installationId?: number;
  now: () => number;
}

export interface PullSnapshot {
  title: string;
  body: string;
  state: 'open' | 'closed';
  merged: boolean;
  draft: boolean;
  labels: string[];
  reviewers: string[];
  checks: Record<string, CheckSnapshot>;
  comments: { user: string; body: string }[];
  reactions: { user: string; content: string; comment?: number }[];
}

/** A check run as GitHub shows it on the PR: its state, its output, its buttons. */
export interface CheckSnapshot {
  status: string;
  conclusion: string | null;
  title: string | null;
  summary: string | null;
  text: string | null;
  annotations: Annotation[];
  actions: CheckAction[];
  details_url: string | null;
}

export interface IssueSnapshot {
  title: string;
  body: string;
  state: 'open' | 'closed';
  labels: string[];
  comments: { user: string; body: string }[];
}

export interface RepoInput {
  owner: string;
  name: string;
  defaultBranch?: string;
  files: Record<string, string>;
  users?: Record<string, { permission: Permission; bot?: boolean }>;
  rules?: BranchRules;
  /** "Allow auto-merge" (default false, as on GitHub). */
  allowAutoMerge?: boolean;
  /** The merge methods the repository allows (default all three). */
  mergeMethods?: ('merge' | 'squash' | 'rebase')[];
}

const SELECTION_CHECK = 'Arbiter / selection';
const CI_APP_ID = 15368;
/** GitHub Actions, the app of workflow runs (and of the suites that wait for a maintainer's approval). */
const ACTIONS_APP_ID = 15369;
/** Users every repository has unless its input lists them: the default Change and candidate authors. */
export const DEFAULT_USERS: Readonly<Record<string, { permission: Permission; bot: boolean }>> = {
  requester: { permission: 'write', bot: false },
  'arbiter-candidate[bot]': { permission: 'write', bot: true },
};

const CONTRACT_URL = new URL('./openapi-subset.json', import.meta.url);
/**
 * One contract per process: it never changes, and its validators are ajv code compiled on first
 * use, which cost about 3 s of CPU per emulator when every emulator compiled its own (measured with
 * --cpu-prof over two scenario runs: 6.2 of the runner's 21 s in ajv).
 */
let sharedContract: RestContract | null = null;

export class GitHubEmulator {
  readonly url: string;
  private readonly world: World;
  private readonly sender: WebhookSender;
  private readonly server: EmulatorServer;
  private readonly recorder: Recorder;

  private constructor(url: string, world: World, sender: WebhookSender, server: EmulatorServer, recorder: Recorder) {
    this.url = url;
    this.world = world;
    this.sender = sender;
    this.server = server;
    this.recorder = recorder;
  }

  static async start(opts: EmulatorOptions): Promise<GitHubEmulator> {
    const sender = new WebhookSender(opts.webhookUrl, opts.webhookSecret, opts.now);
    const recorder: Recorder = {
      writes: [],
      reads: 0,
      graphqlReads: {},
      faults: [],
      listeners: [],
      scenarioStart: opts.now(),
    };
    const auth = new AppAuth(opts.appId, opts.appPublicKeyPem, opts.now);
    const contract = (sharedContract ??= new RestContract(CONTRACT_URL));
    const routes = { ...appRoutes(auth), ...repoRoutes, ...issueRoutes, ...pullRoutes, ...gitRoutes, ...checkRoutes };
    // the API URL is known only once the server listens; it is set on the world's urls below
    const world = new World('http://127.0.0.1:0', opts.now, sender, opts.installationId ?? 1, opts.appSlug);
    const server = new EmulatorServer(world, auth, contract, routes, recorder);
    const port = await server.listen();
    const url = `http://127.0.0.1:${port}`;
    world.urls.api = url;
    world.registerApp({
      id: opts.appId,
      slug: opts.appSlug,
      name: opts.appSlug.charAt(0).toUpperCase() + opts.appSlug.slice(1),
      owner: 'arbiter-dev',
      createdAt: opts.now(),
    });
    world.registerApp({ id: CI_APP_ID, slug: CI_APP_SLUG, name: 'CI', owner: 'ci-dev', createdAt: opts.now() });
    world.registerApp({
      id: ACTIONS_APP_ID,
      slug: ACTIONS_APP_SLUG,
      name: 'GitHub Actions',
      owner: 'github',
      createdAt: opts.now(),
    });
    return new GitHubEmulator(url, world, sender, server, recorder);
  }

  /** Another CI app on the installation: its check runs come as `<slug>[bot]` (the bench's realistic CI). */
  registerCiApp(id: number, slug: string, name: string): void {
    this.world.registerApp({ id, slug, name, owner: `${slug}-dev`, createdAt: this.world.now() });
  }

  setScenarioStart(ms: number): void {
    this.recorder.scenarioStart = ms;
  }

  // ---- seeding and people's acts -------------------------------------------------------

  createRepo(input: RepoInput): void {
    const repo = this.world.createRepo(input.owner, input.name, input.defaultBranch ?? 'main', input.files);
    // The default Change author and candidate author can write, so scenarios written before the
    // trust rules keep their meaning; listed users override them, and any other login has read.
    const users = { ...DEFAULT_USERS, ...(input.users ?? {}) };
    for (const [login, user] of Object.entries(users))
      repo.users.set(login, { permission: user.permission, bot: user.bot ?? false });
    repo.rules = { ...(input.rules ?? {}) };
    repo.settings = {
      allowAutoMerge: input.allowAutoMerge ?? false,
      mergeMethods: [...(input.mergeMethods ?? ['merge', 'squash', 'rebase'])],
    };
  }

  commit(repo: string, branch: string, change: Change): string {
    const r = this.world.repo(repo);
    return r.git.commitChange(branch, change, change.author ?? r.owner, this.world.now()).sha;
  }

  push(repo: string, branch: string, change: Change, user: string): Promise<string> {
    return this.act(repo, (r, out) => pushChange(this.world, r, branch, change, user, out));
  }

  openIssue(repo: string, input: { number?: number; title: string; body: string; user: string }): Promise<number> {
    return this.act(repo, (r, out) => openIssueAct(this.world, r, input, out).number);
  }

  /** Edits an issue's or a pull request's body, or (with an object) its title and body: `issues.edited` or `pull_request.edited` with `changes`. */
  editIssue(
    repo: string,
    number: number,
    edit: string | { title?: string; body?: string },
    user: string,
  ): Promise<void> {
    const change = typeof edit === 'string' ? { body: edit } : edit;
    return this.act(repo, (r, out) => editIssueBody(this.world, r, this.world.issue(r, number), change, user, out));
  }

  /**
   * Links an issue to a pull request in its Development sidebar: the link shows in the pull
   * request's `closingIssuesReferences` and GitHub sends no pull_request webhook for it.
   */
  linkIssue(repo: string, pr: number, issue: number, user: string): void {
    const r = this.world.repo(repo);
    const { pull } = this.world.pull(r, pr);
    const target = r.issues.get(issue);
    if (!target || r.pulls.has(issue)) throw new GitHubError(422, `#${issue} is not an issue of ${r.fullName}`);
    if (!['write', 'maintain', 'admin'].includes(this.world.permissionOf(r, user)))
      throw new GitHubError(403, `${user} cannot link issues in ${r.fullName}`);
    if (!(pull.links ?? []).includes(issue)) pull.links = [...(pull.links ?? []), issue];
  }

  /** `user` (the PR's author, an agent that is done) requests reviews: one `pull_request.review_requested` per reviewer. */
  requestReview(repo: string, pr: number, user: string, reviewers: string[]): Promise<void> {
    return this.act(repo, (r, out) => requestReviewers(this.world, r, pr, reviewers, user, out));
  }

  openPullRequest(
    repo: string,
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
  ): Promise<number> {
    return this.act(repo, (r, out) => openPull(this.world, r, input, out).number);
  }

  addLabel(repo: string, number: number, name: string, user: string): Promise<void> {
    return this.act(repo, (r, out) => addLabels(this.world, r, this.world.issue(r, number), [name], user, out));
  }

  removeLabel(repo: string, number: number, name: string, user: string): Promise<void> {
    return this.act(repo, (r, out) => removeIssueLabel(this.world, r, this.world.issue(r, number), name, user, out));
  }

  closePullRequest(repo: string, number: number, user: string): Promise<void> {
    return this.act(repo, (r, out) => setPullState(this.world, r, number, 'closed', user, out));
  }

  /** Cuts a branch from another one's head (no webhook: seeding). */
  createBranch(repo: string, branch: string, from: string): void {
    const r = this.world.repo(repo);
    if (r.git.branches.has(branch)) return;
    r.git.branches.set(branch, this.world.resolveSha(r, from));
  }

  reopenPullRequest(repo: string, number: number, user: string): Promise<void> {
    return this.act(repo, (r, out) => setPullState(this.world, r, number, 'open', user, out));
  }

  /** GitHub turns a pull request's auto-merge off by itself, with its reason; `user` is the sender it names. */
  turnOffAutoMerge(repo: string, number: number, reason: string, user: string): Promise<void> {
    return this.act(repo, (r, out) => autoMergeOff(this.world, r, number, reason, user, out));
  }

  /** A pull request leaves the merge queue (GitHub's merge group failed, or a person removed it), with the reason. */
  dequeuePullRequest(repo: string, number: number, reason: string, user: string): Promise<void> {
    return this.act(repo, (r, out) => dequeuePull(this.world, r, number, reason, user, out));
  }

  retargetPullRequest(repo: string, number: number, base: string, user: string): Promise<void> {
    return this.act(repo, (r, out) => retargetPull(this.world, r, number, base, user, out));
  }

  setDraft(repo: string, number: number, draft: boolean, user: string): Promise<void> {
    return this.act(repo, (r, out) =>
      draft ? convertToDraft(this.world, r, number, user, out) : markReady(this.world, r, number, user, out),
    );
  }

  closeIssue(repo: string, number: number, user: string): Promise<void> {
    return this.act(repo, (r, out) =>
      setIssueState(this.world, r, this.world.issue(r, number), 'closed', user, out, 'not_planned'),
    );
  }

  lockIssue(repo: string, number: number, user: string): Promise<void> {
    return this.act(repo, (r, out) => lockIssueAct(this.world, r, this.world.issue(r, number), user, out));
  }

  comment(repo: string, issue: number, user: string, body: string): Promise<number> {
    return this.act(repo, (r, out) => addComment(this.world, r, this.world.issue(r, issue), user, body, out).id);
  }

  review(
    repo: string,
    pr: number,
    user: string,
    state: 'approved' | 'changes_requested' | 'commented',
    body?: string,
  ): Promise<void> {
    const upper = { approved: 'APPROVED', changes_requested: 'CHANGES_REQUESTED', commented: 'COMMENTED' } as const;
    return this.act(repo, (r, out) => {
      submitReview(this.world, r, pr, user, upper[state], body ?? '', out);
    });
  }

  clickButton(repo: string, pr: number, user: string, identifier: string): Promise<void> {
    return this.act(repo, (r, out) => {
      const { pull } = this.world.pull(r, pr);
      const run = latestRuns(r, pull.headSha).find((x) => x.app === this.world.appSlug && x.name === SELECTION_CHECK);
      if (!run) throw new GitHubError(404, `#${pr} has no "${SELECTION_CHECK}" check run on its head`);
      clickRunButton(this.world, r, run, identifier, user, out);
    });
  }

  /**
   * A person's "Re-run" on one of the app's check runs on the PR's head, as GitHub sends it to
   * the run's app: `check_run.rerequested`, or (`suite`) `check_suite.rerequested` for its suite.
   */
  rerequestCheck(repo: string, pr: number, user: string, name: string, suite = false): Promise<void> {
    return this.act(repo, (r, out) => {
      const { pull } = this.world.pull(r, pr);
      const run = latestRuns(r, pull.headSha).find((x) => x.app === this.world.appSlug && x.name === name);
      if (!run) throw new GitHubError(404, `#${pr} has no "${name}" check run on its head`);
      rerequestRun(this.world, r, run, user, suite, out);
    });
  }

  // ---- scripted CI (app slug 'ci') -------------------------------------------------------

  /** Starts a run of check `name` on `sha` by `app` (the CI app unless told; `github-actions` for an Actions job). */
  startCheck(repo: string, sha: string, name: string, app: string = CI_APP_SLUG): Promise<number> {
    return this.act(
      repo,
      (r, out) =>
        createCheckRun(this.world, r, app, { name, head_sha: sha, status: 'in_progress' }, botLogin(app), out).id,
    );
  }

  /** The app re-opens its latest run of `name` on `sha` in place (a CI app answering a rerequest so). */
  reopenCheck(repo: string, sha: string, name: string, app: string = CI_APP_SLUG): Promise<void> {
    return this.act(repo, (r, out) => {
      const run = latestRuns(r, sha).find((x) => x.app === app && x.name === name);
      if (!run) throw new GitHubError(404, 'Not Found');
      updateCheckRun(this.world, r, run, { status: 'in_progress' }, botLogin(app), out);
    });
  }

  completeCheck(
    repo: string,
    sha: string,
    name: string,
    conclusion: string,
    output?: { title?: string; summary?: string },
    app: string = CI_APP_SLUG,
  ): Promise<void> {
    return this.act(repo, (r, out) => {
      const existing = latestRuns(r, sha).find((x) => x.app === app && x.name === name);
      const body = {
        conclusion,
        output: output ? { title: output.title ?? name, summary: output.summary ?? '' } : undefined,
        // GitHub requires the page where the action is for an `action_required` conclusion.
        ...(conclusion === 'action_required'
          ? { details_url: `${this.world.urls.html}/${r.fullName}/commit/${sha}/checks` }
          : {}),
      };
      if (existing) updateCheckRun(this.world, r, existing, body, botLogin(app), out);
      else createCheckRun(this.world, r, app, { name, head_sha: sha, ...body }, botLogin(app), out);
    });
  }

  /** The head's GitHub Actions runs wait for a maintainer's approval (`check_suite.completed`, `action_required`, no run). */
  awaitWorkflowApproval(repo: string, sha: string): Promise<void> {
    return this.act(repo, (r, out) => {
      awaitWorkflowApproval(this.world, r, sha, out);
    });
  }

  /** A maintainer approves the runs waiting on the PR's head; returns that head, or null when none waited. */
  approveWorkflows(repo: string, pr: number, user: string): Promise<string | null> {
    return this.act(repo, (r) => {
      const { pull } = this.world.pull(r, pr);
      const permission = r.users.get(user)?.permission ?? 'read';
      if (permission === 'read' || permission === 'triage')
        throw new GitHubError(403, `${user} cannot approve workflow runs: that takes write access to the repository`);
      return approveWorkflowRuns(this.world, r, pull.headSha) ? pull.headSha : null;
    });
  }

  setStatus(
    repo: string,
    sha: string,
    context: string,
    state: 'pending' | 'success' | 'failure' | 'error',
    description?: string,
  ): Promise<void> {
    return this.act(repo, (r, out) => {
      setCommitStatus(
        this.world,
        r,
        sha,
        { state, context, description: description ?? null },
        botLogin(CI_APP_SLUG),
        out,
      );
    });
  }

  // ---- faults and observation --------------------------------------------------------------

  addFault(f: Fault): void {
    this.recorder.faults.push({ ...f, remaining: f.times ?? 1 });
  }

  onWrite(listener: (w: WriteRecord) => void): void {
    this.recorder.listeners.push(listener);
  }

  get writes(): WriteRecord[] {
    return this.recorder.writes;
  }

  get reads(): number {
    return this.recorder.reads;
  }

  /** GraphQL reads by operation title, since the emulator started. */
  get graphqlReads(): Readonly<Record<string, number>> {
    return this.recorder.graphqlReads;
  }

  counters(): { reads: number; writes: number } {
    return { reads: this.recorder.reads, writes: this.recorder.writes.length };
  }

  get violations(): string[] {
    return this.world.violations;
  }

  // ---- webhooks ------------------------------------------------------------------------------

  setWebhookUrl(url: string | null): void {
    this.sender.setUrl(url);
  }

  holdWebhooks(hold: boolean): void {
    this.sender.hold(hold);
  }

  takeHeldWebhooks(): Delivery[] {
    return this.sender.takeHeld();
  }

  sendWebhook(w: Delivery): Promise<number> {
    return this.sender.send(w);
  }

  inflightWebhooks(): number {
    return this.sender.inflightCount();
  }

  get sentWebhooks(): SentRecord[] {
    return this.sender.sent;
  }

  /** Every attempt to deliver a webhook, with the app's answer (what `GET /app/hook/deliveries` lists, oldest first). */
  get hookAttempts(): HookAttempt[] {
    return this.sender.attempts;
  }

  /** Makes the `nth` matching webhook's first attempt fail with `status` before it reaches the app. */
  addDeliveryFault(f: DeliveryFault): void {
    this.sender.addFault(f);
  }

  /** Called for every attempt to deliver a webhook, once its answer is known. */
  onHookAttempt(listener: (a: HookAttempt) => void): void {
    this.sender.attemptListeners.push(listener);
  }

  /** The latest check run of that name on a PR's head, with its full output (for tests). */
  checkRunDetail(
    repo: string,
    pr: number,
    name: string,
  ): {
    status: string;
    conclusion: string | null;
    title: string | null;
    summary: string | null;
    text: string | null;
    annotations: { path: string; start_line: number; message: string }[];
  } | null {
    const r = this.world.repo(repo);
    const pull = r.pulls.get(pr);
    if (!pull) return null;
    const run = latestRuns(r, pull.headSha).find((x) => x.name === name);
    if (!run) return null;
    return {
      status: run.status,
      conclusion: run.conclusion,
      ...run.output,
      annotations: run.annotations.map((a) => ({ path: a.path, start_line: a.start_line, message: a.message })),
    };
  }

  /** Check runs Arbiter asked to run again, in order (the runner answers them as the CI app). */
  /** Every check run of the repository, oldest first: what ran, by which app, on which head. */
  checkRuns(repo: string): { id: number; name: string; app: string; headSha: string; status: string }[] {
    return this.world
      .repo(repo)
      .runs.map((r) => ({ id: r.id, name: r.name, app: r.app, headSha: r.headSha, status: r.status }));
  }

  rerequests(repo: string): Rerequest[] {
    return this.world.repo(repo).rerequests.map((r) => ({ ...r }));
  }

  state(repo: string): {
    prs: Record<number, PullSnapshot>;
    issues: Record<number, IssueSnapshot>;
    dispatches: { event_type: string; client_payload: unknown }[];
  } {
    const r = this.world.repo(repo);
    const commentsOf = (ids: number[]): { user: string; body: string }[] =>
      ids.flatMap((id) => {
        const c = r.comments.get(id);
        return c ? [{ user: c.user, body: c.body }] : [];
      });
    const prs: Record<number, PullSnapshot> = {};
    const issues: Record<number, IssueSnapshot> = {};
    for (const issue of r.issues.values()) {
      const pull = r.pulls.get(issue.number);
      if (!pull) {
        issues[issue.number] = {
          title: issue.title,
          body: issue.body,
          state: issue.state,
          labels: [...issue.labels],
          comments: commentsOf(issue.commentIds),
        };
        continue;
      }
      const checks: PullSnapshot['checks'] = {};
      for (const run of latestRuns(r, pull.headSha)) {
        checks[run.name] = {
          status: run.status,
          conclusion: run.conclusion,
          title: run.output.title,
          summary: run.output.summary,
          text: run.output.text,
          annotations: run.annotations.map((a) => ({ ...a })),
          actions: run.actions.map((a) => ({ ...a })),
          details_url: run.detailsUrl,
        };
      }
      const reactions = [
        ...issue.reactions.map((x) => ({ user: x.user, content: x.content })),
        ...issue.commentIds.flatMap((id) =>
          (r.comments.get(id)?.reactions ?? []).map((x) => ({ user: x.user, content: x.content, comment: id })),
        ),
      ];
      prs[issue.number] = {
        title: issue.title,
        body: issue.body,
        state: issue.state,
        merged: pull.merged,
        draft: pull.draft,
        labels: [...issue.labels],
        reviewers: [...pull.requestedReviewers],
        checks,
        comments: commentsOf(issue.commentIds),
        reactions,
      };
    }
    return { prs, issues, dispatches: r.dispatches.map((d) => ({ ...d })) };
  }

  /** The head sha of a branch, for scripting CI on it. */
  branchHead(repo: string, branch: string): string | null {
    return this.world.repo(repo).git.branches.get(branch) ?? null;
  }

  /** Whether the commit `of` holds the commit `ancestor` (itself or one of its ancestors): what a merge brought. */
  isAncestor(repo: string, ancestor: string, of: string): boolean {
    const git = this.world.repo(repo).git;
    return git.commits.has(of) && git.isAncestor(ancestor, of);
  }

  /** A file's text at a commit or a branch's head (null: no such file). */
  fileAt(repo: string, ref: string, path: string): string | null {
    const git = this.world.repo(repo).git;
    const sha = git.branches.get(ref) ?? ref;
    return git.commits.has(sha) ? (git.get(sha).tree[path] ?? null) : null;
  }

  /** The latest check runs on a commit, as GitHub lists them (for tests of checks on a branch's head). */
  checksOn(
    repo: string,
    sha: string,
  ): { name: string; app: string; conclusion: string | null; title: string | null; summary: string | null }[] {
    return latestRuns(this.world.repo(repo), sha).map((run) => ({
      name: run.name,
      app: run.app,
      conclusion: run.conclusion,
      title: run.output.title,
      summary: run.output.summary,
    }));
  }

  /** Pull requests the app itself opened (the combined candidate), by number, oldest first. */
  pullsOpenedByApp(repo: string): { number: number; head: string; headSha: string }[] {
    const r = this.world.repo(repo);
    const bot = this.world.appBot();
    return [...r.pulls.values()]
      .filter((p) => r.issues.get(p.number)?.user === bot)
      .map((p) => ({ number: p.number, head: p.head, headSha: p.headSha }))
      .sort((a, b) => a.number - b.number);
  }

  /** Issues (not pull requests) the app's bot opened, oldest first: the dashboard. */
  issuesOpenedByApp(repo: string): { number: number; title: string; body: string; state: string }[] {
    const r = this.world.repo(repo);
    const bot = this.world.appBot();
    return [...r.issues.values()]
      .filter((i) => i.user === bot && !r.pulls.has(i.number))
      .sort((a, b) => a.number - b.number)
      .map((i) => ({ number: i.number, title: i.title, body: i.body, state: i.state }));
  }

  /** The head sha of a pull request. */
  pullHead(repo: string, pr: number): string {
    const r = this.world.repo(repo);
    return this.world.pull(r, pr).pull.headSha;
  }

  stop(): Promise<void> {
    return this.server.close();
  }

  /** Applies an act, then waits for the webhooks it sends. */
  private async act<T>(repo: string, apply: (r: Repo, out: Sent) => T): Promise<T> {
    const out: Sent = [];
    const result = apply(this.world.repo(repo), out);
    await Promise.all(out);
    return result;
  }
}
