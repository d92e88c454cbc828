// A recording fake of GitHubGateway for workflow tests: a small in-memory repository (pull
// requests, comments, check runs, dispatches) that answers like GitHub and records every call as
// a readable string (`close #12`, `merge #13 sha=abc`), counting reads and writes separately.
import type { CheckRunButton, CheckRunContent, CheckRunName } from '../../src/core/actions.ts';
import { planCommentWrite, type OwnComment } from '../../src/github/comment-lookup.ts';
import { GitHubError } from '../../src/github/errors.ts';
import type { HeadFile, HeadRead } from '../../src/core/head-files.ts';
import type { ConfigLayers, ConfigRunBody, RepoRef } from '../../src/config/port.ts';
import type { Clock } from '../../src/clock.ts';
import { readGroupState, type PullState } from '../../src/github/group-query.ts';
import { noteRead } from '../../src/github/read-age.ts';
import type {
  AppHooksPort,
  BranchRules,
  BranchWrites,
  GitHubPort,
  HeadReadInput,
  HookDeliveryAttempt,
  IssueSnapshot,
  MergeResult,
  OwnIssues,
  PatchTarget,
  Permission,
  PortfolioCalls,
  OpenedPull,
  PullSnapshot,
} from '../../src/github/port.ts';
import { CONFIG_PATH } from '../../src/core/config-file.ts';
import { readScore } from '../../src/core/gate.ts';
import type { PatchRow } from '../../src/store/types.ts';

export interface FakeCheck {
  name: string;
  kind?: 'check' | 'status';
  /** Check run: `success`, `failure`, … or `pending` (in progress). Status: `success`, `failure`, `pending`, `error`. */
  conclusion: string;
  title?: string | null;
  summary?: string | null;
}

export interface FakePull {
  number: number;
  nodeId: string;
  state: 'open' | 'closed';
  merged: boolean;
  draft: boolean;
  headSha: string;
  headRef: string;
  baseRef: string;
  title: string;
  body: string;
  author: string;
  labels: string[];
  /** GitHub's closing list (keyword and sidebar links): open issues of this repository, by number. */
  closing?: number[];
  reviewers: string[];
  teams: string[];
  /** CI on the current head (other apps' check runs and commit statuses). */
  checks: FakeCheck[];
  /** false: a merge is answered 405 (e.g. a conflict). */
  mergeable: boolean;
}

export interface FakeComment {
  id: number;
  issue: number;
  user: string;
  body: string;
}

export interface FakeCheckRun {
  id: number;
  sha: string;
  pr: number | null;
  name: string;
  status: string;
  conclusion: string | null;
  title: string;
  summary: string;
  buttons: CheckRunButton[];
  detailsUrl?: string;
}

export interface Dispatch {
  eventType: string;
  payload: Record<string, unknown>;
}

/** A scripted failure: the next `times` calls whose recorded line starts with `match` fail with `status`. */
export interface Fault {
  match: string;
  status: number;
  times: number;
  /** `before`: nothing is applied. `after`: the write lands, then the answer is lost. */
  when: 'before' | 'after';
  /** Set: the refusal is a rate limit (a 403/429 with retry-after) asking for this many seconds. */
  retryAfter?: number;
}

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  appSlug?: string;
  /** Awaited before every call (given its recorded line), so tests can interleave concurrent runs. */
  latency?: (call: string) => Promise<void>;
}

const GROUP_ALIAS = /pr(\d+): pullRequest\(number: (\d+)\)/g;

/** The fake, with the gateway's public methods plus state and the record of calls. */
export class FakeGitHub implements GitHubPort {
  readonly owner: string;
  readonly repo: string;
  readonly appSlug: string;
  readonly pulls = new Map<number, FakePull>();
  /** Issues by number; `author` defaults to `maintainer`. */
  readonly issues = new Map<number, { title: string; body: string; state: string; author?: string }>();
  /** Issues whose conversation is locked (`lockChange`). */
  readonly locked = new Set<number>();
  readonly comments: FakeComment[] = [];
  readonly checkRuns: FakeCheckRun[] = [];
  readonly dispatches: Dispatch[] = [];
  readonly files = new Map<string, string>();
  /** Patches by PR number (`fetchPatch`); a PR without one answers 404. */
  readonly patches = new Map<number, Omit<PatchRow, 'repo' | 'pr' | 'headSha'>>();
  /** Head files by `sha:path` (`readHead`). */
  readonly headFiles = new Map<string, string>();
  /** `.github/arbiter.yml` as the config reads see it (null: none). */
  configText: string | null = null;
  /** Branch heads (`branchHead`), for the config check. */
  readonly branchHeads = new Map<string, string>();
  defaultBranchName = 'main';
  /** Roles by login; a login not listed has read. The fake's default Change and PR authors can write. */
  readonly permissions = new Map<string, Permission>([
    ['maintainer', 'write'],
    ['agent-bot', 'write'],
  ]);
  /** Logins whose permission read fails (502). */
  readonly failingPermissions = new Set<string>();
  branch: BranchRules = { required: null, requiredReviews: 0, mergeQueue: false };
  /** Every write, in order, as a readable line. */
  readonly writes: string[] = [];
  /** Every read, in order, as a readable line. */
  readonly reads: string[] = [];
  /** Reads a write makes to stay idempotent (looking for comment markers, finding a check run). */
  readonly lookups: string[] = [];
  private readonly faults: Fault[] = [];
  private nextId = 1000;
  private readonly latency: (call: string) => Promise<void>;
  /** The app's clock, as the gateway has it: a group read is dated on it (unset: its reads have no age). */
  clock: Clock | undefined;

  constructor(opts: FakeGitHubOptions = {}) {
    this.owner = opts.owner ?? 'acme';
    this.repo = opts.repo ?? 'todo';
    this.appSlug = opts.appSlug ?? 'arbiter';
    this.latency = opts.latency ?? (async () => undefined);
  }

  /** The fake where the GitHub port is expected (it implements it). */
  asGateway(): GitHubPort {
    return this;
  }

  get botLogin(): string {
    return `${this.appSlug}[bot]`;
  }

  /** Branch heads by name, and Arbiter's pull requests from them: the combined candidate's build. */
  readonly branchRefs = new Map<string, string>();
  readonly openedPulls: (OpenedPull & { branch: string; base: string })[] = [];

  readonly branches: BranchWrites = {
    readBranchHead: async (branch) => {
      await this.read(`branch ${branch}`);
      return this.branchRefs.get(branch) ?? this.branchHeads.get(branch) ?? null;
    },
    createBranch: (branch, sha) =>
      this.write(`create branch ${branch} at ${sha}`, () => {
        if (this.branchRefs.has(branch)) throw new GitHubError('create branch', 422, 'Reference already exists', null);
        this.branchRefs.set(branch, sha);
      }),
    deleteBranch: (branch) => this.write(`delete branch ${branch}`, () => void this.branchRefs.delete(branch)),
    // The fake merges without looking at files: every merge lands, as a new commit on the branch.
    mergeIntoBranch: (branch, head, message) =>
      this.write(`merge ${head} into ${branch}`, () => {
        const sha = `merge-${this.nextId++}`;
        this.branchRefs.set(branch, sha);
        void message;
        return { ok: true as const, sha };
      }),
    findPullFrom: async (branch, base) => {
      await this.read(`pulls from ${branch}`);
      return this.openedPulls.filter((p) => p.branch === branch && p.base === base).at(-1) ?? null;
    },
    openDraftPull: (input) =>
      this.write(`open draft from ${input.branch}`, () => {
        const pull = {
          number: this.nextId++,
          state: 'open',
          headSha: this.branchRefs.get(input.branch) ?? '',
          draft: true,
          body: input.body,
          author: this.botLogin,
          branch: input.branch,
          base: input.base,
        };
        this.openedPulls.push(pull);
        return pull;
      }),
  };

  readonly portfolio: PortfolioCalls = {
    defaultBranchHead: async () => {
      await this.read('default branch head');
      return { branch: this.defaultBranchName, sha: this.branchHeads.get(this.defaultBranchName) ?? 'base-sha' };
    },
    scoringRuns: async (sha, name) => {
      await this.read(`check runs ${name} on ${sha}`);
      return this.checkRuns
        .filter((r) => r.sha === sha && r.name === name)
        .map((r) => ({
          id: r.id,
          completed: r.status === 'completed',
          score: r.status === 'completed' ? readScore({ title: r.title, summary: r.summary }) : null,
          appSlug: null,
          completedAt: null,
        }));
    },
    rerun: (run) => this.write(`rerun check run ${run.id}`, () => undefined),
  };

  /** Issues the bot opened (the dashboard) live in `issues` with `author` the bot's login. */
  readonly ownIssues: OwnIssues = {
    listOwn: async () => {
      await this.read('own issues');
      return [...this.issues]
        .filter(([, i]) => i.author === this.botLogin)
        .sort(([a], [b]) => a - b)
        .map(([number, i]): IssueSnapshot => ({
          number,
          title: i.title,
          body: i.body,
          state: i.state,
          user: { login: this.botLogin },
        }));
    },
    open: (title, body) =>
      this.write(`open issue "${title}"`, (): IssueSnapshot => {
        const number = this.nextId++;
        this.issues.set(number, { title, body, state: 'open', author: this.botLogin });
        return { number, title, body, state: 'open', user: { login: this.botLogin } };
      }),
    editBody: (number, body) =>
      this.write(`edit issue #${number}`, () => {
        const issue = this.issues.get(number);
        if (!issue) throw new GitHubError('edit issue', 404, 'Not Found', null);
        issue.body = body;
      }),
  };

  // ------------------------------------------------------------------ test set-up

  addPull(input: Partial<FakePull> & { number: number; headSha: string }): FakePull {
    const pull: FakePull = {
      nodeId: `PR_${input.number}`,
      state: 'open',
      merged: false,
      draft: true,
      headRef: `agent/${input.number}`,
      baseRef: 'main',
      title: `Candidate #${input.number}`,
      body: 'Candidate-for: #42',
      author: 'agent-bot',
      labels: [],
      reviewers: [],
      teams: [],
      checks: [],
      mergeable: true,
      ...input,
    };
    this.pulls.set(pull.number, pull);
    return pull;
  }

  pull(n: number): FakePull {
    const p = this.pulls.get(n);
    if (!p) throw new Error(`no pull #${n} in the fake`);
    return p;
  }

  /** A push: a new head with its own (fresh) checks. */
  push(n: number, headSha: string, checks: FakeCheck[] = []): void {
    const p = this.pull(n);
    p.headSha = headSha;
    p.checks = checks;
  }

  fail(fault: Omit<Fault, 'times' | 'when'> & Partial<Pick<Fault, 'times' | 'when'>>): void {
    this.faults.push({ times: 1, when: 'before', ...fault });
  }

  /** Forgets the record (state stays). */
  resetRecord(): void {
    this.writes.length = 0;
    this.reads.length = 0;
    this.lookups.length = 0;
  }

  /** The latest of Arbiter's check runs of that name on a PR's current head. */
  checkOn(pr: number, name: CheckRunName, sha = this.pull(pr).headSha): FakeCheckRun | undefined {
    return this.checkRuns.filter((r) => r.sha === sha && r.name === name).at(-1);
  }

  commentsOn(issue: number): FakeComment[] {
    return this.comments.filter((c) => c.issue === issue);
  }

  // ------------------------------------------------------------------ recording

  private async read(line: string, kind: 'read' | 'lookup' = 'read'): Promise<void> {
    await this.latency(line);
    (kind === 'read' ? this.reads : this.lookups).push(line);
  }

  /**
   * Records a write and applies it, honouring scripted faults. A refused write is recorded with
   * its status (`merge #13 sha=abc → 409`); `applied()` lists only the writes that landed.
   */
  private async write<T>(line: string, apply: () => T): Promise<T> {
    await this.latency(line);
    const fault = this.faults.find((f) => f.times > 0 && line.startsWith(f.match));
    if (fault) {
      fault.times -= 1;
      if (fault.when === 'after') apply();
      this.writes.push(`${line} → ${fault.status}${fault.when === 'after' ? ' (applied, answer lost)' : ''}`);
      const limited = fault.retryAfter !== undefined;
      throw new GitHubError(line, fault.status, `scripted ${fault.status}`, fault.retryAfter ?? null, limited);
    }
    try {
      const result = apply();
      this.writes.push(line);
      return result;
    } catch (error) {
      this.writes.push(`${line} → ${error instanceof GitHubError ? error.status : 'error'}`);
      throw error;
    }
  }

  /** The writes that landed on GitHub (a lost answer counts: the write happened). */
  applied(): string[] {
    return this.writes
      .filter((w) => !w.includes(' → ') || w.endsWith('(applied, answer lost)'))
      .map((w) => w.replace(/ → .*$/, ''));
  }

  // ------------------------------------------------------------------ reads

  async readGroup(prs: number[]): Promise<Map<number, PullState>> {
    await this.read(`graphql ArbiterGroup ${prs.map((n) => `#${n}`).join(',')}`);
    const states = await readGroupState(
      async (query, variables) => this.answerGraphql(query, variables),
      this.owner,
      this.repo,
      prs,
      this.appSlug,
    );
    if (this.clock) noteRead(states, this.clock.now());
    return states;
  }

  /** The open pulls whose closing list (`closing`) holds the issue, as GitHub lists them. */
  async linkedPulls(issue: number): Promise<number[]> {
    await this.read(`graphql ArbiterLinkedPulls #${issue}`);
    return [...this.pulls.values()]
      .filter((p) => p.state === 'open' && !p.merged && (p.closing ?? []).includes(issue))
      .map((p) => p.number);
  }

  /** Answers the group query the way GitHub's GraphQL API shapes it. */
  /** Answers the group query from the fake repository, as GitHub would (tests use it to script partial answers). */
  answerGraphql(query: string, variables: Record<string, unknown>): unknown {
    if (variables.owner !== this.owner || variables.name !== this.repo) throw new Error('graphql: wrong repository');
    if (!query.startsWith('query ArbiterGroup'))
      throw new Error(`graphql: the fake answers only ArbiterGroup, not ${query.slice(0, 40)}`);
    const repository: Record<string, unknown> = {};
    for (const [, alias, number] of query.matchAll(GROUP_ALIAS)) {
      const p = this.pulls.get(Number(number));
      repository[`pr${alias}`] = p ? this.pullNode(p) : null;
    }
    return { repository };
  }

  private pullNode(p: FakePull): unknown {
    const ci = p.checks.map((c) =>
      c.kind === 'status'
        ? {
            __typename: 'StatusContext',
            context: c.name,
            state: c.conclusion.toUpperCase(),
            description: c.title ?? null,
          }
        : {
            __typename: 'CheckRun',
            name: c.name,
            status: c.conclusion === 'pending' ? 'IN_PROGRESS' : 'COMPLETED',
            conclusion: c.conclusion === 'pending' ? null : c.conclusion.toUpperCase(),
            title: c.title ?? null,
            summary: c.summary ?? null,
            checkSuite: { app: { slug: 'github-actions' } },
          },
    );
    const own = this.checkRuns
      .filter((r) => r.sha === p.headSha)
      .map((r) => ({
        __typename: 'CheckRun',
        name: r.name,
        status: r.status.toUpperCase(),
        conclusion: r.conclusion?.toUpperCase() ?? null,
        title: r.title,
        summary: r.summary,
        checkSuite: { app: { slug: this.appSlug } },
      }));
    return {
      id: p.nodeId,
      number: p.number,
      state: p.merged ? 'MERGED' : p.state === 'open' ? 'OPEN' : 'CLOSED',
      isDraft: p.draft,
      merged: p.merged,
      headRefOid: p.headSha,
      headRefName: p.headRef,
      baseRefName: p.baseRef,
      title: p.title,
      body: p.body,
      author: { login: p.author },
      labels: { nodes: p.labels.map((name) => ({ name })) },
      closingIssuesReferences: {
        nodes: (p.closing ?? []).map((number) => ({
          number,
          state: 'OPEN',
          repository: { nameWithOwner: `${this.owner}/${this.repo}` },
        })),
      },
      commits: {
        nodes: [
          {
            commit: {
              oid: p.headSha,
              statusCheckRollup: {
                contexts: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [...ci, ...own] },
              },
            },
          },
        ],
      },
    };
  }

  async branchRules(branch: string): Promise<BranchRules> {
    await this.read(`branch rules ${branch}`);
    return { ...this.branch, required: this.branch.required ? [...this.branch.required] : null };
  }

  async getIssue(number: number): Promise<{
    number: number;
    title: string;
    body: string | null;
    state: string;
    pull_request?: unknown;
    user: { login: string } | null;
  } | null> {
    await this.read(`issue #${number}`);
    const issue = this.issues.get(number);
    if (issue)
      return {
        number,
        title: issue.title,
        body: issue.body,
        state: issue.state,
        user: { login: issue.author ?? 'maintainer' },
      };
    const pull = this.pulls.get(number);
    return pull
      ? {
          number,
          title: pull.title,
          body: pull.body,
          state: pull.state,
          pull_request: {},
          user: { login: pull.author },
        }
      : null;
  }

  async permission(user: string): Promise<Permission> {
    await this.read(`permission ${user}`);
    if (this.failingPermissions.has(user)) throw new GitHubError('get permission', 502, 'Bad Gateway', null);
    return this.permissions.get(user) ?? 'read';
  }

  /**
   * As the gateway's: a failed read (see `failingPermissions`) is an answer, never a yes; a bot
   * account gets GitHub's 404 (GitHub has no collaborator permission for a bot).
   */
  async permissionLookup(
    user: string,
  ): Promise<{ ok: true; permission: Permission } | { ok: false; reason: string; status?: number }> {
    if (/\[bot\]$/i.test(user) || user === 'Copilot') {
      await this.read(`permission ${user}`);
      return { ok: false, reason: 'GitHub answered 404', status: 404 };
    }
    try {
      return { ok: true, permission: await this.permission(user) };
    } catch {
      return { ok: false, reason: 'GitHub answered 502' };
    }
  }

  async readFile(path: string): Promise<string | null> {
    await this.read(`file ${path}`);
    return this.files.get(path) ?? null;
  }

  async pullFileNames(pr: number): Promise<string[]> {
    await this.read(`files of #${pr}`);
    return (this.patches.get(pr)?.files ?? []).map((f) => f.path);
  }

  async fetchPatch(target: PatchTarget): Promise<PatchRow> {
    await this.read(`patch #${target.pr}`);
    const patch = this.patches.get(target.pr);
    if (!patch) throw new GitHubError('fetch patch', 404, 'Not Found', null);
    return { repo: `${this.owner}/${this.repo}`, pr: target.pr, headSha: target.headSha, ...patch };
  }

  async readHead(input: HeadReadInput): Promise<HeadRead> {
    await this.read(`head files ${input.sha.slice(0, 7)} ${input.paths.length}+${input.dirs?.length ?? 0}`);
    const files = new Map<string, HeadFile>();
    for (const path of input.paths) {
      const text = this.headFiles.get(`${input.sha}:${path}`);
      if (text !== undefined)
        files.set(path, { text, byteSize: Buffer.byteLength(text), isBinary: false, isTruncated: false });
    }
    const tree = [...this.headFiles.keys()]
      .filter((k) => k.startsWith(`${input.sha}:`))
      .map((k) => k.slice(input.sha.length + 1))
      .filter((path) => (input.dirs ?? []).some((d) => path.startsWith(`${d}/`)));
    return { files, tree };
  }

  // ---- the configuration's reads and check runs

  async readConfigText(target: RepoRef): Promise<string | null> {
    await this.read(`config ${target.ref ?? 'default branch'}`);
    return this.configText;
  }

  async readConfigLayers(target: RepoRef): Promise<ConfigLayers> {
    await this.read(`config layers ${target.ref ?? 'default branch'}`);
    const own = { owner: target.owner, repo: target.repo, path: CONFIG_PATH };
    return { ok: true, files: [{ ...own, config: null }] };
  }

  async listCheckRunsNamed(target: { sha: string; name: string }): Promise<unknown> {
    await this.read(`check runs ${target.name} on ${target.sha.slice(0, 7)}`);
    const runs = this.checkRuns.filter((r) => r.sha === target.sha && r.name === target.name);
    return {
      check_runs: runs.map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        conclusion: r.conclusion,
        output: { title: r.title, summary: r.summary },
        app: { slug: this.appSlug },
      })),
    };
  }

  async createConfigRun(target: { sha: string }, body: ConfigRunBody): Promise<void> {
    await this.write(`check ${body.name} on ${target.sha.slice(0, 7)} ${body.conclusion}`, () => {
      const run = {
        id: this.nextId++,
        sha: target.sha,
        pr: null,
        name: body.name,
        status: body.status,
        conclusion: body.conclusion,
        title: body.output.title,
        summary: body.output.summary,
        buttons: [],
      };
      this.checkRuns.push(run);
    });
  }

  async updateConfigRun(target: { id: number }, body: ConfigRunBody): Promise<void> {
    await this.write(`check ${body.name} #${target.id} ${body.conclusion}`, () => {
      const run = this.checkRuns.find((r) => r.id === target.id);
      if (!run) throw new GitHubError('update check run', 404, 'Not Found', null);
      Object.assign(run, {
        status: body.status,
        conclusion: body.conclusion,
        title: body.output.title,
        summary: body.output.summary,
      });
    });
  }

  async defaultBranch(): Promise<string> {
    await this.read('repository');
    return this.defaultBranchName;
  }

  async branchHead(target: { branch: string }): Promise<string> {
    await this.read(`branch ${target.branch}`);
    const sha = this.branchHeads.get(target.branch);
    if (sha === undefined) throw new GitHubError('read branch', 404, 'Branch not found', null);
    return sha;
  }

  async pullState(pr: number): Promise<PullSnapshot> {
    await this.read(`pull #${pr}`);
    const p = this.pulls.get(pr);
    if (!p) throw new GitHubError('get pull request', 404, 'Not Found', null);
    const mergeableState = p.merged ? 'unknown' : !p.mergeable ? 'dirty' : p.draft ? 'draft' : 'clean';
    return {
      state: p.state,
      merged: p.merged,
      draft: p.draft,
      headSha: p.headSha,
      nodeId: p.nodeId,
      labels: [...p.labels],
      mergeable: p.merged ? null : p.mergeable,
      mergeableState,
    };
  }

  async findCheckRun(sha: string, name: CheckRunName): Promise<number | null> {
    await this.read(`find check ${sha.slice(0, 7)} ${name}`, 'lookup');
    const mine = this.checkRuns.filter((r) => r.sha === sha && r.name === name);
    return mine.length > 0 ? Math.max(...mine.map((r) => r.id)) : null;
  }

  /** One read for many issues, like the gateway's GraphQL query; an issue past 100 comments is left to `upsertComment`. */
  async findOwnComments(issues: number[]): Promise<Map<number, OwnComment[]>> {
    const wanted = [...new Set(issues)];
    await this.read(`comments ${wanted.map((n) => `#${n}`).join(',')}`, 'lookup');
    return new Map(wanted.filter((n) => this.commentsOn(n).length <= 100).map((n) => [n, this.ownComments(n)]));
  }

  private ownComments(issue: number): OwnComment[] {
    return this.commentsOn(issue)
      .filter((c) => c.user === this.botLogin)
      .map((c) => ({ id: c.id, body: c.body }));
  }

  // ------------------------------------------------------------------ writes

  async upsertComment(
    issue: number,
    marker: string,
    body: string,
    ours?: OwnComment[],
  ): Promise<{ id: number; created: boolean }> {
    if (ours === undefined) await this.read(`comments #${issue}`, 'lookup');
    const write = planCommentWrite(ours ?? this.ownComments(issue), marker, body);
    if (write.kind === 'keep') return { id: write.id, created: false };
    if (write.kind === 'edit') {
      await this.write(`edit comment #${issue} ${marker}`, () => {
        const existing = this.comments.find((c) => c.id === write.id);
        if (!existing) throw new GitHubError('update comment', 404, 'Not Found', null);
        existing.body = write.text;
      });
      return { id: write.id, created: false };
    }
    const id = await this.write(`comment #${issue} ${marker}`, () => {
      // As on GitHub: an app cannot comment on a locked conversation.
      if (this.locked.has(issue))
        throw new GitHubError('create comment', 403, 'Unable to create comment because issue is locked.', null);
      const c = { id: this.nextId++, issue, user: this.botLogin, body: write.text };
      this.comments.push(c);
      return c.id;
    });
    return { id, created: true };
  }

  async closePull(pr: number): Promise<void> {
    await this.write(`close #${pr}`, () => {
      this.pull(pr).state = 'closed';
    });
  }

  /** `PATCH issues/{n}` with `state: closed` and the whole label list. */
  async closeWithLabels(pr: number, labels: string[]): Promise<void> {
    await this.write(`close #${pr} labels=${labels.join(',')}`, () => {
      const p = this.pull(pr);
      p.state = 'closed';
      p.labels = [...labels];
    });
  }

  async addLabels(issue: number, labels: string[]): Promise<void> {
    await this.write(`label #${issue} ${labels.join(',')}`, () => {
      const p = this.pulls.get(issue);
      if (p) for (const l of labels) if (!p.labels.includes(l)) p.labels.push(l);
    });
  }

  async removeLabel(issue: number, label: string): Promise<void> {
    await this.write(`unlabel #${issue} ${label}`, () => {
      const p = this.pulls.get(issue);
      if (p) p.labels = p.labels.filter((l) => l !== label);
    });
  }

  async markReady(nodeId: string): Promise<void> {
    const p = [...this.pulls.values()].find((x) => x.nodeId === nodeId);
    await this.write(`ready #${p?.number ?? nodeId}`, () => {
      if (!p) throw new GitHubError('mark ready', 404, 'Not Found', null);
      p.draft = false;
    });
  }

  /** GitHub's compare-and-swap: 409 when the head moved, 405 when not mergeable (or already merged). */
  async merge(pr: number, sha: string, method: 'merge' | 'squash' | 'rebase'): Promise<MergeResult> {
    try {
      return await this.write(`merge #${pr} sha=${sha}`, (): MergeResult => {
        const p = this.pull(pr);
        if (p.headSha !== sha)
          throw new GitHubError('merge', 409, 'Head branch was modified. Review and try the merge again.', null);
        if (p.merged || p.state !== 'open' || !p.mergeable)
          throw new GitHubError('merge', 405, 'Pull Request is not mergeable', null);
        p.merged = true;
        p.state = 'closed';
        return { ok: true, sha: `merge-of-${sha}-${method}` };
      });
    } catch (error) {
      // The gateway turns these statuses into answers rather than errors.
      if (error instanceof GitHubError && (error.status === 405 || error.status === 409 || error.status === 422)) {
        return { ok: false, status: error.status, message: error.message };
      }
      throw error;
    }
  }

  async disableAutoMerge(nodeId: string): Promise<void> {
    const p = [...this.pulls.values()].find((x) => x.nodeId === nodeId);
    await this.write(`auto-merge off #${p?.number ?? nodeId}`, () => undefined);
  }

  async dequeue(nodeId: string): Promise<void> {
    const p = [...this.pulls.values()].find((x) => x.nodeId === nodeId);
    await this.write(`dequeue #${p?.number ?? nodeId}`, () => undefined);
  }

  async enableAutoMerge(
    nodeId: string,
    sha: string,
    method: 'merge' | 'squash' | 'rebase',
    queue: boolean,
  ): Promise<void> {
    const p = [...this.pulls.values()].find((x) => x.nodeId === nodeId);
    await this.write(
      `${queue ? 'enqueue' : 'auto-merge'} #${p?.number ?? nodeId} sha=${sha} ${method}`,
      () => undefined,
    );
  }

  /** Brings the branch up to date: 422 when the head is not `expectedHeadSha`; the new head is `<sha>-updated`. */
  async updateBranch(pr: number, expectedHeadSha: string): Promise<void> {
    await this.write(`update-branch #${pr} sha=${expectedHeadSha}`, () => {
      const p = this.pull(pr);
      if (p.headSha !== expectedHeadSha)
        throw new GitHubError('update branch', 422, "expected head sha didn't match current head ref.", null);
      p.headSha = `${expectedHeadSha.slice(0, 30)}-updated`;
    });
  }

  async requestReviewers(pr: number, reviewers: string[], teams: string[]): Promise<void> {
    await this.write(`review #${pr} ${[...reviewers, ...teams.map((t) => `team:${t}`)].join(',')}`, () => {
      const p = this.pull(pr);
      p.reviewers.push(...reviewers.filter((r) => !p.reviewers.includes(r)));
      p.teams.push(...teams.filter((t) => !p.teams.includes(t)));
    });
  }

  /** GitHub refuses more than 10 top-level client_payload keys and event types over 100 characters. */
  async dispatch(eventType: string, payload: Record<string, unknown>): Promise<void> {
    await this.write(`dispatch ${eventType}`, () => {
      if (Object.keys(payload).length > 10)
        throw new GitHubError('repository dispatch', 422, 'client_payload has more than 10 properties', null);
      if (eventType.length > 100) throw new GitHubError('repository dispatch', 422, 'event_type is too long', null);
      this.dispatches.push({ eventType, payload: structuredClone(payload) });
    });
  }

  async react(commentId: number, content: string): Promise<void> {
    await this.write(`react ${commentId} ${content}`, () => undefined);
  }

  /** Creates or updates a check run, refusing what GitHub refuses (button and output limits). */
  async writeCheckRun(input: CheckRunContent & { id: number | null; sha: string }): Promise<number> {
    const pr = [...this.pulls.values()].find((p) => p.headSha === input.sha)?.number ?? null;
    const state = input.status === 'completed' ? `completed ${input.conclusion ?? 'neutral'}` : input.status;
    return this.write(`check #${pr ?? input.sha.slice(0, 7)} ${input.name} ${state} "${input.title}"`, () => {
      const buttons = input.buttons ?? [];
      const bad =
        buttons.length > 3 ||
        buttons.some((b) => b.label.length > 20 || b.description.length > 40 || b.identifier.length > 20);
      if (bad || input.summary.length > 65_535 || (input.text?.length ?? 0) > 65_535)
        throw new GitHubError('check run', 422, 'Invalid request', null);
      // GitHub wants a details_url for action_required: the page where the action is.
      if (input.conclusion === 'action_required' && !input.detailsUrl)
        throw new GitHubError('check run', 422, 'details_url is required for action_required', null);
      const fields = {
        sha: input.sha,
        pr,
        name: input.name,
        status: input.status,
        conclusion: input.status === 'completed' ? (input.conclusion ?? 'neutral') : null,
        title: input.title,
        summary: input.summary,
        buttons,
        detailsUrl: input.detailsUrl,
      };
      if (input.id === null) {
        const run = { id: this.nextId++, ...fields };
        this.checkRuns.push(run);
        return run.id;
      }
      const run = this.checkRuns.find((r) => r.id === input.id);
      if (!run) throw new GitHubError('update check run', 404, 'Not Found', null);
      Object.assign(run, fields);
      return run.id;
    });
  }
}

/**
 * The app's webhook as GitHub records it, in memory: attempts listed newest first (GitHub's
 * paging: 100 a page, stopping at `since`), and a redelivery that adds an attempt answered as
 * `answer` says (202 by default, as the app's intake would). Calls are recorded as strings
 * (`list since=…`, `redeliver <guid>`).
 */
export class FakeAppHooks implements AppHooksPort {
  readonly attempts: HookDeliveryAttempt[] = [];
  readonly calls: string[] = [];
  private nextId = 1000;

  constructor(
    private readonly now: () => Date,
    /** The app's answer to a redelivery of this guid (0: no answer); `refused`: GitHub answers 422. */
    private readonly answer: (guid: string) => number | 'refused' = () => 202,
  ) {}

  /** An attempt GitHub made: the app answered `statusCode` (0: no answer at all). */
  deliver(
    guid: string,
    event: string,
    statusCode: number,
    at: Date = this.now(),
    redelivery = false,
  ): HookDeliveryAttempt {
    const status =
      statusCode >= 200 && statusCode < 300
        ? 'OK'
        : statusCode === 0
          ? 'failed to connect'
          : `Invalid HTTP Response: ${statusCode}`;
    const a: HookDeliveryAttempt = {
      id: this.nextId++,
      guid,
      deliveredAt: at.toISOString(),
      redelivery,
      status,
      statusCode,
      event,
      action: null,
    };
    this.attempts.push(a);
    return a;
  }

  async listDeliveries(since: Date, maxPages: number): Promise<HookDeliveryAttempt[]> {
    this.calls.push(`list since=${since.toISOString()} pages<=${maxPages}`);
    return [...this.attempts]
      .sort((x, y) => y.id - x.id)
      .slice(0, maxPages * 100)
      .filter((a) => Date.parse(a.deliveredAt) >= since.getTime());
  }

  async redeliver(attemptId: number): Promise<void> {
    const a = this.attempts.find((x) => x.id === attemptId);
    if (!a) throw new GitHubError('redeliver a webhook delivery', 404, 'Not Found', null);
    const answer = this.answer(a.guid);
    this.calls.push(`redeliver ${a.guid}${answer === 'refused' ? ' (refused)' : ''}`);
    if (answer === 'refused') throw new GitHubError('redeliver a webhook delivery', 422, 'Validation Failed', null);
    this.deliver(a.guid, a.event, answer, this.now(), true);
  }
}
