// GraphQL objects for the emulator's state: repositories, issues, pull requests, commits with
// their status-check rollup, check runs, status contexts, blobs. Plain objects whose fields are
// values or functions of the field's arguments (graphql-js's default resolver calls them).
import { latestRuns } from '../check-acts.ts';
import { isBinary } from '../diff.ts';
import { rulesFor, type CheckRun, type CommitStatus, type Issue, type Repo } from '../model.ts';
import { mergeStateStatus } from '../merge-rules.ts';
import { graphqlLogin, isBotLogin, iso, nodeId } from '../payloads.ts';
import { GitHubError, type World } from '../world.ts';
import { connection, type ConnectionArgs } from './connection.ts';
import { keywordReferences } from '../closing-refs.ts';

type Obj = Record<string, unknown>;
const upper = (value: string): string => value.toUpperCase();
const BLOB_TEXT_LIMIT = 512 * 1024;
const FAILING = new Set(['failure', 'cancelled', 'timed_out', 'action_required', 'stale', 'startup_failure']);

export function actor(world: World, login: string): Obj {
  const bot = isBotLogin(login);
  return {
    __typename: bot ? 'Bot' : 'User',
    login: graphqlLogin(login),
    url: `${world.urls.html}/${login}`,
    avatarUrl: `https://avatars.githubusercontent.com/u/1?v=4`,
    resourcePath: `/${login}`,
  };
}

function appNode(world: World, slug: string): Obj {
  const app = world.app(slug);
  return {
    __typename: 'App',
    id: nodeId('A_', app.id),
    databaseId: app.id,
    slug: app.slug,
    name: app.name,
    url: `${world.urls.html}/apps/${app.slug}`,
    createdAt: iso(app.createdAt),
    updatedAt: iso(app.createdAt),
    logoBackgroundColor: 'ffffff',
  };
}

function checkRunNode(world: World, repo: Repo, run: CheckRun): Obj {
  const suite = repo.suites.find((s) => s.id === run.suiteId);
  const required = repo.rules.required ?? [];
  return {
    __typename: 'CheckRun',
    id: nodeId('CR_', run.id),
    databaseId: run.id,
    name: run.name,
    status: upper(run.status),
    conclusion: run.conclusion === null ? null : upper(run.conclusion),
    title: run.output.title,
    summary: run.output.summary,
    text: run.output.text,
    detailsUrl: run.detailsUrl,
    externalId: run.externalId,
    startedAt: iso(run.startedAt),
    completedAt: run.completedAt === null ? null : iso(run.completedAt),
    url: `${world.urls.html}/${repo.fullName}/runs/${run.id}`,
    permalink: `${world.urls.html}/${repo.fullName}/runs/${run.id}`,
    resourcePath: `/${repo.fullName}/runs/${run.id}`,
    isRequired: () => required.includes(run.name),
    checkSuite: {
      __typename: 'CheckSuite',
      id: nodeId('CS_', run.suiteId),
      databaseId: run.suiteId,
      status: upper(suite?.status ?? 'queued'),
      conclusion: suite?.conclusion ? upper(suite.conclusion) : null,
      app: () => appNode(world, run.app),
      createdAt: iso(suite?.createdAt ?? run.startedAt),
      updatedAt: iso(suite?.updatedAt ?? run.startedAt),
    },
  };
}

function statusNode(world: World, repo: Repo, status: CommitStatus): Obj {
  return {
    __typename: 'StatusContext',
    id: nodeId('SC_', status.id),
    context: status.context,
    state: upper(status.state),
    description: status.description,
    targetUrl: status.targetUrl,
    createdAt: iso(status.createdAt),
    creator: actor(world, status.creator),
    avatarUrl: null,
    isRequired: () => (repo.rules.required ?? []).includes(status.context),
  };
}

function latestStatuses(repo: Repo, sha: string): CommitStatus[] {
  const latest = new Map<string, CommitStatus>();
  for (const status of repo.statuses) if (status.sha === sha) latest.set(status.context, status);
  return [...latest.values()];
}

function rollupState(runs: CheckRun[], statuses: CommitStatus[]): string {
  if (
    runs.some((r) => r.conclusion !== null && FAILING.has(r.conclusion)) ||
    statuses.some((s) => s.state === 'failure')
  )
    return 'FAILURE';
  if (statuses.some((s) => s.state === 'error')) return 'ERROR';
  if (runs.some((r) => r.status !== 'completed') || statuses.some((s) => s.state === 'pending')) return 'PENDING';
  return 'SUCCESS';
}

export function commitNode(world: World, repo: Repo, sha: string): Obj {
  const commit = repo.git.get(sha);
  const runs = (): CheckRun[] => latestRuns(repo, sha);
  const statuses = (): CommitStatus[] => latestStatuses(repo, sha);
  const contexts = (): Obj[] => [
    ...runs().map((r) => checkRunNode(world, repo, r)),
    ...statuses().map((s) => statusNode(world, repo, s)),
  ];
  return {
    __typename: 'Commit',
    id: nodeId('C_', commit.timestamp),
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    message: commit.message,
    messageHeadline: commit.message.split('\n')[0],
    messageBody: commit.message.split('\n').slice(2).join('\n'),
    committedDate: iso(commit.timestamp),
    authoredDate: iso(commit.timestamp),
    url: `${world.urls.html}/${repo.fullName}/commit/${sha}`,
    tree: { __typename: 'Tree', oid: commit.treeSha, abbreviatedOid: commit.treeSha.slice(0, 7) },
    parents: (args: ConnectionArgs) =>
      connection(
        commit.parents.map((p) => commitNode(world, repo, p)),
        args,
      ),
    statusCheckRollup: () => {
      if (runs().length === 0 && statuses().length === 0) return null;
      return {
        __typename: 'StatusCheckRollup',
        id: nodeId('SCR_', commit.timestamp),
        state: rollupState(runs(), statuses()),
        contexts: (args: ConnectionArgs) =>
          connection(contexts(), args, { checkRunCount: runs().length, statusContextCount: statuses().length }),
      };
    },
    status: () => {
      const list = statuses();
      if (list.length === 0) return null;
      return {
        __typename: 'Status',
        id: nodeId('ST_', commit.timestamp),
        state: rollupState([], list),
        contexts: list.map((s) => statusNode(world, repo, s)),
        context: ({ name }: { name: string }) =>
          list.filter((s) => s.context === name).map((s) => statusNode(world, repo, s))[0] ?? null,
      };
    },
    checkSuites: (args: ConnectionArgs) =>
      connection(
        repo.suites
          .filter((s) => s.headSha === sha)
          .map((s) => ({
            __typename: 'CheckSuite',
            id: nodeId('CS_', s.id),
            databaseId: s.id,
            status: upper(s.status),
            conclusion: s.conclusion ? upper(s.conclusion) : null,
            app: () => appNode(world, s.app),
            checkRuns: (a: ConnectionArgs) =>
              connection(
                repo.runs.filter((r) => r.suiteId === s.id).map((r) => checkRunNode(world, repo, r)),
                a,
              ),
          })),
        args,
      ),
  };
}

/** `object(expression: "<rev>:<path>")`: a Blob for a file, a Commit for a bare rev, else null. */
export function gitObject(
  world: World,
  repo: Repo,
  expression: string | undefined,
  oid: string | undefined,
): Obj | null {
  if (oid) return repo.git.commits.has(oid) ? commitNode(world, repo, oid) : null;
  if (!expression) return null;
  const colon = expression.indexOf(':');
  const rev = colon === -1 ? expression : expression.slice(0, colon);
  const sha =
    repo.git.resolve(rev === '' ? 'HEAD' : rev) ?? (rev === 'HEAD' ? repo.git.resolve(repo.defaultBranch) : null);
  if (!sha) return null;
  if (colon === -1) return commitNode(world, repo, sha);
  const path = expression.slice(colon + 1);
  const text = repo.git.get(sha).tree[path];
  if (text === undefined) return null;
  const binary = isBinary(text);
  const bytes = Buffer.byteLength(text);
  return {
    __typename: 'Blob',
    id: nodeId('B_', bytes),
    oid: sha,
    abbreviatedOid: sha.slice(0, 7),
    byteSize: bytes,
    isBinary: binary,
    isTruncated: bytes > BLOB_TEXT_LIMIT,
    text: binary
      ? null
      : bytes > BLOB_TEXT_LIMIT
        ? Buffer.from(text).subarray(0, BLOB_TEXT_LIMIT).toString('utf8')
        : text,
    commitUrl: `${world.urls.html}/${repo.fullName}/commit/${sha}`,
    commitResourcePath: `/${repo.fullName}/commit/${sha}`,
  };
}

function labelsOf(world: World, issue: Issue): (args: ConnectionArgs) => Record<string, unknown> {
  return (args) =>
    connection(
      issue.labels.map((name) => ({
        __typename: 'Label',
        id: nodeId('LA_', name.length),
        name,
        color: 'ededed',
        description: null,
      })),
      args,
    );
}

function commentsOf(world: World, repo: Repo, issue: Issue): (args: ConnectionArgs) => Record<string, unknown> {
  return (args) =>
    connection(
      issue.commentIds.flatMap((id) => {
        const c = repo.comments.get(id);
        // fullDatabaseId is a BigInt, which GitHub sends as a decimal string.
        return c
          ? [
              {
                __typename: 'IssueComment',
                id: nodeId('IC_', c.id),
                databaseId: c.id,
                fullDatabaseId: String(c.id),
                body: c.body,
                author: actor(world, c.user),
                createdAt: iso(c.createdAt),
                updatedAt: iso(c.updatedAt),
                url: `${world.urls.html}/${repo.fullName}/issues/${issue.number}#issuecomment-${c.id}`,
              },
            ]
          : [];
      }),
      args,
    );
}

export function issueNode(world: World, repo: Repo, issue: Issue): Obj {
  return {
    __typename: 'Issue',
    id: nodeId('I_', issue.id),
    databaseId: issue.id,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    bodyText: issue.body,
    state: upper(issue.state),
    stateReason: issue.stateReason ? upper(issue.stateReason) : null,
    closed: issue.state === 'closed',
    closedAt: issue.closedAt === null ? null : iso(issue.closedAt),
    createdAt: iso(issue.createdAt),
    updatedAt: iso(issue.updatedAt),
    url: `${world.urls.html}/${repo.fullName}/issues/${issue.number}`,
    resourcePath: `/${repo.fullName}/issues/${issue.number}`,
    author: actor(world, issue.user),
    labels: labelsOf(world, issue),
    comments: commentsOf(world, repo, issue),
    repository: () => repositoryNode(world, repo),
    // The pull requests whose closing list holds this issue (open ones unless asked), oldest first.
    closedByPullRequestsReferences: (
      args: ConnectionArgs & { includeClosedPrs?: boolean | null; userLinkedOnly?: boolean | null },
    ) =>
      connection(
        [...repo.pulls.values()]
          .filter((p) => {
            const own = repo.issues.get(p.number);
            if (!own || (!args.includeClosedPrs && (p.merged || own.state !== 'open'))) return false;
            return closingIssues(world, repo, p.base, own.body, p.links ?? [], args.userLinkedOnly === true).some(
              (c) => c.repo === repo && c.issue === issue,
            );
          })
          .map((p) => pullRequestNode(world, repo, p.number)),
        args,
      ),
  };
}

export function pullRequestNode(world: World, repo: Repo, number: number): Obj {
  const { issue, pull } = world.pull(repo, number);
  const stats = (): ReturnType<World['pullStats']> => world.pullStats(repo, pull);
  const state = pull.merged ? 'MERGED' : upper(issue.state);
  return {
    ...issueNode(world, repo, issue),
    __typename: 'PullRequest',
    id: nodeId('PR_', issue.id),
    databaseId: pull.id,
    state,
    url: `${world.urls.html}/${repo.fullName}/pull/${number}`,
    permalink: `${world.urls.html}/${repo.fullName}/pull/${number}`,
    resourcePath: `/${repo.fullName}/pull/${number}`,
    isDraft: pull.draft,
    merged: pull.merged,
    mergedAt: pull.mergedAt === null ? null : iso(pull.mergedAt),
    mergedBy: pull.mergedBy === null ? null : actor(world, pull.mergedBy),
    mergeable: () => (pull.merged ? 'UNKNOWN' : stats().mergeable ? 'MERGEABLE' : 'CONFLICTING'),
    mergeStateStatus: () => (pull.merged ? 'UNKNOWN' : mergeStateStatus(world, repo, pull)),
    headRefOid: pull.headSha,
    headRefName: pull.head,
    baseRefName: pull.base,
    baseRefOid: () => repo.git.resolve(pull.base),
    headRepository: () => repositoryNode(world, repo),
    baseRepository: () => repositoryNode(world, repo),
    additions: () => stats().additions,
    deletions: () => stats().deletions,
    changedFiles: () => stats().changedFiles,
    isInMergeQueue: pull.queued,
    mergeCommit: () => (pull.mergeCommitSha ? commitNode(world, repo, pull.mergeCommitSha) : null),
    autoMergeRequest: pull.autoMerge
      ? { mergeMethod: pull.autoMerge.method, enabledBy: actor(world, pull.autoMerge.enabledBy), enabledAt: null }
      : null,
    reviewDecision: () => {
      const latest = new Map<string, string>();
      for (const r of repo.reviews.filter((x) => x.pullNumber === number && x.state !== 'COMMENTED'))
        latest.set(r.user, r.state);
      const states = [...latest.values()];
      if (states.includes('CHANGES_REQUESTED')) return 'CHANGES_REQUESTED';
      if (states.includes('APPROVED')) return 'APPROVED';
      return rulesFor(repo, pull.base).requiredReviews ? 'REVIEW_REQUIRED' : null;
    },
    commits: (args: ConnectionArgs) => {
      const { mergeBase } = world.pullDiff(repo, pull);
      const baseAncestors = repo.git.ancestors(mergeBase);
      const shas: string[] = [];
      for (
        let sha: string | undefined = pull.headSha;
        sha && !baseAncestors.has(sha);
        sha = repo.git.get(sha).parents[0]
      )
        shas.unshift(sha);
      return connection(
        shas.map((sha) => ({
          __typename: 'PullRequestCommit',
          id: nodeId('PRC_', shas.indexOf(sha)),
          commit: commitNode(world, repo, sha),
          url: `${world.urls.html}/${repo.fullName}/pull/${number}/commits/${sha}`,
        })),
        args,
      );
    },
    files: (args: ConnectionArgs) =>
      connection(
        world.pullDiff(repo, pull).files.map((f) => ({
          path: f.filename,
          additions: f.additions,
          deletions: f.deletions,
          changeType:
            f.status === 'added'
              ? 'ADDED'
              : f.status === 'removed'
                ? 'DELETED'
                : f.status === 'renamed'
                  ? 'RENAMED'
                  : 'MODIFIED',
          viewerViewedState: 'UNVIEWED',
        })),
        args,
      ),
    reviews: (args: ConnectionArgs & { states?: string[] | null }) =>
      connection(
        repo.reviews
          .filter((r) => r.pullNumber === number && (!args.states || args.states.includes(r.state)))
          .map((r) => ({
            __typename: 'PullRequestReview',
            id: nodeId('PRR_', r.id),
            databaseId: r.id,
            state: r.state,
            body: r.body,
            author: actor(world, r.user),
            submittedAt: iso(r.submittedAt),
            createdAt: iso(r.submittedAt),
            commit: { oid: r.commitId },
          })),
        args,
      ),
    reviewRequests: (args: ConnectionArgs) =>
      connection(
        pull.requestedReviewers.map((login) => ({ requestedReviewer: actor(world, login) })),
        args,
      ),
    closingIssuesReferences: (args: ConnectionArgs & { userLinkedOnly?: boolean | null }) =>
      connection(
        closingIssues(world, repo, pull.base, issue.body, pull.links ?? [], args.userLinkedOnly === true).map((c) =>
          issueNode(world, c.repo, c.issue),
        ),
        args,
      ),
  };
}

/**
 * GitHub's closing list of a pull request: its body's keyword references (only on a pull request
 * to the default branch), then the links made in its Development sidebar; existing issues only.
 */
function closingIssues(
  world: World,
  repo: Repo,
  base: string,
  body: string,
  links: readonly number[],
  userLinkedOnly: boolean,
): { repo: Repo; issue: Issue }[] {
  const refs = [
    ...(userLinkedOnly || base !== repo.defaultBranch ? [] : keywordReferences(body, repo.fullName)),
    ...links.map((number) => ({ repo: repo.fullName, number })),
  ];
  const found: { repo: Repo; issue: Issue }[] = [];
  for (const ref of refs) {
    const [owner = '', name = ''] = ref.repo.split('/');
    const target = world.findRepo(owner, name);
    const issue = target?.issues.get(ref.number);
    if (!target || !issue || target.pulls.has(issue.number)) continue;
    if (!found.some((f) => f.repo === target && f.issue === issue)) found.push({ repo: target, issue });
  }
  return found;
}

export function repositoryNode(world: World, repo: Repo): Obj {
  const notFound = (kind: string, number: number): never => {
    throw new GitHubError(
      404,
      `Could not resolve to ${/^[AEIOUaeiou]/.test(kind) ? 'an' : 'a'} ${kind} with the number of ${number}.`,
    );
  };
  return {
    __typename: 'Repository',
    id: nodeId('R_', repo.id),
    databaseId: repo.id,
    name: repo.name,
    nameWithOwner: repo.fullName,
    owner: { __typename: 'User', login: repo.owner, id: nodeId('U_', repo.id) },
    url: `${world.urls.html}/${repo.fullName}`,
    isArchived: false,
    isPrivate: false,
    autoMergeAllowed: repo.settings.allowAutoMerge,
    mergeCommitAllowed: repo.settings.mergeMethods.includes('merge'),
    squashMergeAllowed: repo.settings.mergeMethods.includes('squash'),
    rebaseMergeAllowed: repo.settings.mergeMethods.includes('rebase'),
    defaultBranchRef: () => {
      const sha = repo.git.resolve(repo.defaultBranch);
      return sha
        ? { __typename: 'Ref', name: repo.defaultBranch, prefix: 'refs/heads/', target: commitNode(world, repo, sha) }
        : null;
    },
    ref: ({ qualifiedName }: { qualifiedName: string }) => {
      const name = qualifiedName.replace(/^refs\/heads\//, '');
      const sha = repo.git.branches.get(name);
      return sha ? { __typename: 'Ref', name, prefix: 'refs/heads/', target: commitNode(world, repo, sha) } : null;
    },
    issue: ({ number }: { number: number }) => {
      const issue = repo.issues.get(number);
      if (!issue || repo.pulls.has(number)) return notFound('Issue', number);
      return issueNode(world, repo, issue);
    },
    pullRequest: ({ number }: { number: number }) =>
      repo.pulls.has(number) ? pullRequestNode(world, repo, number) : notFound('PullRequest', number),
    issueOrPullRequest: ({ number }: { number: number }) => {
      const issue = repo.issues.get(number);
      if (!issue) return notFound('issue or pull request', number);
      return repo.pulls.has(number) ? pullRequestNode(world, repo, number) : issueNode(world, repo, issue);
    },
    pullRequests: (
      args: ConnectionArgs & { states?: string[] | null; headRefName?: string | null; baseRefName?: string | null },
    ) =>
      connection(
        [...repo.pulls.values()]
          .filter((p) => {
            const issue = repo.issues.get(p.number);
            const state = p.merged ? 'MERGED' : upper(issue?.state ?? 'open');
            return (
              (!args.states || args.states.includes(state)) &&
              (!args.headRefName || args.headRefName === p.head) &&
              (!args.baseRefName || args.baseRefName === p.base)
            );
          })
          .map((p) => pullRequestNode(world, repo, p.number)),
        args,
      ),
    object: ({ expression, oid }: { expression?: string; oid?: string }) => gitObject(world, repo, expression, oid),
  };
}

/** `node(id)`: pull requests, issues and repositories by their node ids. */
export function nodeById(world: World, id: string): Obj | null {
  const decoded = Buffer.from(id, 'base64').toString('utf8');
  const m = /^0:(PR_|I_|R_)(\d+)$/.exec(decoded);
  if (!m) return null;
  const dbId = Number(m[2]);
  for (const repo of world.repos.values()) {
    if (m[1] === 'R_' && repo.id === dbId) return repositoryNode(world, repo);
    for (const issue of repo.issues.values()) {
      if (issue.id !== dbId) continue;
      if (m[1] === 'PR_' && repo.pulls.has(issue.number)) return pullRequestNode(world, repo, issue.number);
      if (m[1] === 'I_' && !repo.pulls.has(issue.number)) return issueNode(world, repo, issue);
    }
  }
  return null;
}

/** The repository and number of a pull request node id, for mutations. */
export function pullByNodeId(world: World, id: string): { repo: Repo; number: number } {
  const decoded = Buffer.from(id, 'base64').toString('utf8');
  const m = /^0:PR_(\d+)$/.exec(decoded);
  if (m) {
    for (const repo of world.repos.values())
      for (const issue of repo.issues.values())
        if (issue.id === Number(m[1]) && repo.pulls.has(issue.number)) return { repo, number: issue.number };
  }
  throw new GitHubError(404, `Could not resolve to a node with the global id of '${id}'`);
}
