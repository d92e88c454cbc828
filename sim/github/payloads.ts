// GitHub's JSON shapes for the emulator's state: users, repositories, issues, pull requests,
// comments, reviews, check suites and runs, statuses. Shared by REST answers and webhooks.
import type {
  AppInfo,
  CheckRun,
  CheckSuite,
  Comment,
  CommitStatus,
  Issue,
  Pull,
  Reaction,
  Repo,
  Review,
} from './model.ts';
import { personId } from './model.ts';
import type { Commit } from './git-store.ts';

export interface Urls {
  api: string;
  html: string;
}

export type JsonObject = Record<string, unknown>;

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** GitHub-style opaque node id: base64 of a type prefix and the database id. */
export const nodeId = (prefix: string, id: number): string =>
  Buffer.from(`0:${prefix}${id}`).toString('base64').replace(/=+$/, '');

export const botLogin = (slug: string): string => `${slug}[bot]`;

/**
 * Bot accounts GitHub names without `[bot]` in REST and webhooks, with the login GraphQL gives
 * them: the Copilot coding agent is `Copilot` (type Bot) in REST, `copilot-swe-agent` in GraphQL.
 */
export const NAMED_BOTS: Readonly<Record<string, { graphql: string; app: string }>> = {
  Copilot: { graphql: 'copilot-swe-agent', app: 'copilot-swe-agent' },
};

/** Whether GitHub reports this login as a bot account: an app's `name[bot]`, or a named bot. */
export const isBotLogin = (login: string): boolean => login.endsWith('[bot]') || login in NAMED_BOTS;

/** The login GraphQL gives an account: a bot's without `[bot]` (a named bot's its own), a user's as is. */
export const graphqlLogin = (login: string): string =>
  NAMED_BOTS[login]?.graphql ?? (login.endsWith('[bot]') ? login.slice(0, -5) : login);

export function userJson(urls: Urls, login: string, type?: 'User' | 'Bot'): JsonObject {
  const id = personId(login);
  const api = `${urls.api}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: nodeId(type === 'Bot' || isBotLogin(login) ? 'BOT_' : 'U_', id),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: `${urls.html}/${isBotLogin(login) ? `apps/${NAMED_BOTS[login]?.app ?? login.slice(0, -5)}` : login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: type ?? (isBotLogin(login) ? 'Bot' : 'User'),
    site_admin: false,
  };
}

/** What the emulated app may do and hears (the app, its installation and its tokens say the same). */
export const APP_PERMISSIONS = {
  checks: 'write',
  contents: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
  statuses: 'read',
} as const;
export const APP_EVENTS = [
  'check_run',
  'check_suite',
  'issue_comment',
  'issues',
  'pull_request',
  'pull_request_review',
  'push',
  'status',
] as const;

export function appJson(urls: Urls, app: AppInfo): JsonObject {
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId('A_', app.id),
    owner: userJson(urls, app.owner),
    name: app.name,
    description: `${app.name} (emulated)`,
    external_url: `${urls.html}/apps/${app.slug}`,
    html_url: `${urls.html}/apps/${app.slug}`,
    created_at: iso(app.createdAt),
    updated_at: iso(app.createdAt),
    permissions: { ...APP_PERMISSIONS },
    events: [...APP_EVENTS],
  };
}

export function repoJson(urls: Urls, repo: Repo, pushedAt: number): JsonObject {
  const api = `${urls.api}/repos/${repo.fullName}`;
  const openIssues = [...repo.issues.values()].filter((i) => i.state === 'open').length;
  return {
    id: repo.id,
    node_id: nodeId('R_', repo.id),
    name: repo.name,
    full_name: repo.fullName,
    private: false,
    owner: userJson(urls, repo.owner),
    html_url: `${urls.html}/${repo.fullName}`,
    description: null,
    fork: false,
    url: api,
    forks_url: `${api}/forks`,
    keys_url: `${api}/keys{/key_id}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    teams_url: `${api}/teams`,
    hooks_url: `${api}/hooks`,
    issue_events_url: `${api}/issues/events{/number}`,
    events_url: `${api}/events`,
    assignees_url: `${api}/assignees{/user}`,
    branches_url: `${api}/branches{/branch}`,
    tags_url: `${api}/tags`,
    blobs_url: `${api}/git/blobs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    trees_url: `${api}/git/trees{/sha}`,
    statuses_url: `${api}/statuses/{sha}`,
    languages_url: `${api}/languages`,
    stargazers_url: `${api}/stargazers`,
    contributors_url: `${api}/contributors`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    commits_url: `${api}/commits{/sha}`,
    git_commits_url: `${api}/git/commits{/sha}`,
    comments_url: `${api}/comments{/number}`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    contents_url: `${api}/contents/{+path}`,
    compare_url: `${api}/compare/{base}...{head}`,
    merges_url: `${api}/merges`,
    archive_url: `${api}/{archive_format}{/ref}`,
    downloads_url: `${api}/downloads`,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    labels_url: `${api}/labels{/name}`,
    releases_url: `${api}/releases{/id}`,
    deployments_url: `${api}/deployments`,
    created_at: iso(repo.createdAt),
    updated_at: iso(pushedAt),
    pushed_at: iso(pushedAt),
    git_url: `git://github.com/${repo.fullName}.git`,
    ssh_url: `git@github.com:${repo.fullName}.git`,
    clone_url: `${urls.html}/${repo.fullName}.git`,
    svn_url: `${urls.html}/${repo.fullName}`,
    homepage: null,
    size: 1,
    stargazers_count: 0,
    watchers_count: 0,
    language: 'TypeScript',
    has_issues: true,
    has_projects: false,
    has_downloads: true,
    has_wiki: false,
    has_pages: false,
    has_discussions: false,
    forks_count: 0,
    mirror_url: null,
    archived: false,
    disabled: false,
    open_issues_count: openIssues,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: [],
    visibility: 'public',
    forks: 0,
    open_issues: openIssues,
    watchers: 0,
    default_branch: repo.defaultBranch,
    custom_properties: {},
  };
}

/** The smaller repository object GitHub puts in check-run pull request references. */
export function repoRefJson(urls: Urls, repo: Repo): JsonObject {
  return { id: repo.id, url: `${urls.api}/repos/${repo.fullName}`, name: repo.name };
}

const REACTION_KEYS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'eyes', 'rocket'] as const;

export function reactionsJson(url: string, reactions: Reaction[]): JsonObject {
  const counts: JsonObject = { url, total_count: reactions.length };
  for (const key of REACTION_KEYS) counts[key] = reactions.filter((r) => r.content === key).length;
  return counts;
}

export function labelJson(urls: Urls, repo: Repo, name: string): JsonObject {
  let hash = 0;
  for (const char of name) hash = (hash * 33 + char.charCodeAt(0)) % 1_000_000;
  return {
    id: 5_000_000 + hash,
    node_id: nodeId('LA_', 5_000_000 + hash),
    url: `${urls.api}/repos/${repo.fullName}/labels/${encodeURIComponent(name)}`,
    name,
    color: 'ededed',
    default: false,
    description: null,
  };
}

export function authorAssociation(repo: Repo, login: string): string {
  if (login === repo.owner) return 'OWNER';
  const user = repo.users.get(login);
  if (user && user.permission !== 'read') return 'COLLABORATOR';
  return 'NONE';
}

export function issueJson(urls: Urls, repo: Repo, issue: Issue, pull: Pull | undefined): JsonObject {
  const api = `${urls.api}/repos/${repo.fullName}/issues/${issue.number}`;
  const json: JsonObject = {
    url: api,
    repository_url: `${urls.api}/repos/${repo.fullName}`,
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `${urls.html}/${repo.fullName}/${pull ? 'pull' : 'issues'}/${issue.number}`,
    id: issue.id,
    node_id: nodeId(pull ? 'PR_' : 'I_', issue.id),
    number: issue.number,
    title: issue.title,
    user: userJson(urls, issue.user),
    labels: issue.labels.map((name) => labelJson(urls, repo, name)),
    state: issue.state,
    locked: issue.locked === true,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: issue.commentIds.length,
    created_at: iso(issue.createdAt),
    updated_at: iso(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : iso(issue.closedAt),
    author_association: authorAssociation(repo, issue.user),
    active_lock_reason: null,
    body: issue.body,
    reactions: reactionsJson(`${api}/reactions`, issue.reactions),
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
    state_reason: issue.stateReason,
  };
  if (pull) {
    json.draft = pull.draft;
    json.pull_request = {
      url: `${urls.api}/repos/${repo.fullName}/pulls/${issue.number}`,
      html_url: `${urls.html}/${repo.fullName}/pull/${issue.number}`,
      diff_url: `${urls.html}/${repo.fullName}/pull/${issue.number}.diff`,
      patch_url: `${urls.html}/${repo.fullName}/pull/${issue.number}.patch`,
      merged_at: pull.mergedAt === null ? null : iso(pull.mergedAt),
    };
  }
  return json;
}

export interface PullStats {
  additions: number;
  deletions: number;
  changedFiles: number;
  commits: number;
  mergeable: boolean | null;
  pushedAt: number;
  /** GitHub's merge state under the branch rules (merge-rules.ts), in REST's lower case: clean, blocked, behind, unstable, dirty, draft. */
  mergeState?: string;
}

/** The head repository of a PR from a fork: the base repository's shape, owned by the fork's owner. */
function forkJson(base: JsonObject, urls: Urls, owner: string, name: string): JsonObject {
  const fullName = `${owner}/${name}`;
  const rewrite = (value: unknown): unknown =>
    typeof value === 'string' ? value.split(`/${String(base.full_name)}`).join(`/${fullName}`) : value;
  const fork: JsonObject = Object.fromEntries(Object.entries(base).map(([k, v]) => [k, rewrite(v)]));
  return {
    ...fork,
    id: Number(base.id) + 1_000_000,
    node_id: `${String(base.node_id)}_fork`,
    full_name: fullName,
    owner: userJson(urls, owner),
    fork: true,
    private: false,
  };
}

export function pullJson(urls: Urls, repo: Repo, issue: Issue, pull: Pull, stats: PullStats): JsonObject {
  const api = `${urls.api}/repos/${repo.fullName}/pulls/${pull.number}`;
  const html = `${urls.html}/${repo.fullName}/pull/${pull.number}`;
  const baseSha = repo.git.resolve(pull.base) ?? pull.headSha;
  const repository = repoJson(urls, repo, stats.pushedAt);
  const link = (href: string): JsonObject => ({ href });
  return {
    url: api,
    id: pull.id,
    node_id: nodeId('PR_', issue.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: `${urls.api}/repos/${repo.fullName}/issues/${pull.number}`,
    number: pull.number,
    state: issue.state,
    locked: false,
    title: issue.title,
    user: userJson(urls, issue.user),
    body: issue.body,
    created_at: iso(issue.createdAt),
    updated_at: iso(issue.updatedAt),
    closed_at: issue.closedAt === null ? null : iso(issue.closedAt),
    merged_at: pull.mergedAt === null ? null : iso(pull.mergedAt),
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: pull.requestedReviewers.map((login) => userJson(urls, login)),
    requested_teams: [],
    labels: issue.labels.map((name) => labelJson(urls, repo, name)),
    milestone: null,
    draft: pull.draft,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${urls.api}/repos/${repo.fullName}/pulls/comments{/number}`,
    comments_url: `${urls.api}/repos/${repo.fullName}/issues/${pull.number}/comments`,
    statuses_url: `${urls.api}/repos/${repo.fullName}/statuses/${pull.headSha}`,
    head: pull.fork
      ? {
          label: `${issue.user}:${pull.head}`,
          ref: pull.head,
          sha: pull.headSha,
          user: userJson(urls, issue.user),
          repo: forkJson(repository, urls, issue.user, repo.name),
        }
      : {
          label: `${repo.owner}:${pull.head}`,
          ref: pull.head,
          sha: pull.headSha,
          user: userJson(urls, repo.owner),
          repo: repository,
        },
    base: {
      label: `${repo.owner}:${pull.base}`,
      ref: pull.base,
      sha: baseSha,
      user: userJson(urls, repo.owner),
      repo: repository,
    },
    _links: {
      self: link(api),
      html: link(html),
      issue: link(`${urls.api}/repos/${repo.fullName}/issues/${pull.number}`),
      comments: link(`${urls.api}/repos/${repo.fullName}/issues/${pull.number}/comments`),
      review_comments: link(`${api}/comments`),
      review_comment: link(`${urls.api}/repos/${repo.fullName}/pulls/comments{/number}`),
      commits: link(`${api}/commits`),
      statuses: link(`${urls.api}/repos/${repo.fullName}/statuses/${pull.headSha}`),
    },
    author_association: authorAssociation(repo, issue.user),
    auto_merge: pull.autoMerge
      ? {
          enabled_by: userJson(urls, pull.autoMerge.enabledBy),
          merge_method: pull.autoMerge.method.toLowerCase(),
          commit_title: issue.title,
          commit_message: '',
        }
      : null,
    active_lock_reason: null,
    merged: pull.merged,
    mergeable: stats.mergeable,
    rebaseable: stats.mergeable,
    mergeable_state: pull.merged
      ? 'unknown'
      : (stats.mergeState ?? (stats.mergeable === false ? 'dirty' : pull.draft ? 'draft' : 'clean')),
    merged_by: pull.mergedBy === null ? null : userJson(urls, pull.mergedBy),
    comments: issue.commentIds.length,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: stats.commits,
    additions: stats.additions,
    deletions: stats.deletions,
    changed_files: stats.changedFiles,
  };
}

export function commentJson(urls: Urls, repo: Repo, comment: Comment, app: AppInfo | null): JsonObject {
  const api = `${urls.api}/repos/${repo.fullName}/issues/comments/${comment.id}`;
  const isPull = repo.pulls.has(comment.issueNumber);
  return {
    url: api,
    html_url: `${urls.html}/${repo.fullName}/${isPull ? 'pull' : 'issues'}/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${urls.api}/repos/${repo.fullName}/issues/${comment.issueNumber}`,
    id: comment.id,
    node_id: nodeId('IC_', comment.id),
    user: userJson(urls, comment.user),
    created_at: iso(comment.createdAt),
    updated_at: iso(comment.updatedAt),
    author_association: authorAssociation(repo, comment.user),
    performed_via_github_app: app ? appJson(urls, app) : null,
    body: comment.body,
    reactions: reactionsJson(`${api}/reactions`, comment.reactions),
  };
}

export function reactionJson(urls: Urls, reaction: Reaction): JsonObject {
  return {
    id: reaction.id,
    node_id: nodeId('REA_', reaction.id),
    user: userJson(urls, reaction.user),
    content: reaction.content,
    created_at: iso(reaction.createdAt),
  };
}

export function reviewJson(urls: Urls, repo: Repo, review: Review): JsonObject {
  const html = `${urls.html}/${repo.fullName}/pull/${review.pullNumber}`;
  return {
    id: review.id,
    node_id: nodeId('PRR_', review.id),
    user: userJson(urls, review.user),
    body: review.body,
    commit_id: review.commitId,
    submitted_at: iso(review.submittedAt),
    state: review.state.toLowerCase(),
    html_url: `${html}#pullrequestreview-${review.id}`,
    pull_request_url: `${urls.api}/repos/${repo.fullName}/pulls/${review.pullNumber}`,
    author_association: authorAssociation(repo, review.user),
    _links: {
      html: { href: `${html}#pullrequestreview-${review.id}` },
      pull_request: { href: `${urls.api}/repos/${repo.fullName}/pulls/${review.pullNumber}` },
    },
  };
}

export function checkPullRequestsJson(urls: Urls, repo: Repo, sha: string): JsonObject[] {
  // GitHub leaves PRs from forks out of a check's `pull_requests`.
  return [...repo.pulls.values()]
    .filter((pull) => pull.headSha === sha && !pull.fork && repo.issues.get(pull.number)?.state === 'open')
    .map((pull) => ({
      url: `${urls.api}/repos/${repo.fullName}/pulls/${pull.number}`,
      id: pull.id,
      number: pull.number,
      head: { ref: pull.head, sha: pull.headSha, repo: repoRefJson(urls, repo) },
      base: { ref: pull.base, sha: repo.git.resolve(pull.base) ?? pull.headSha, repo: repoRefJson(urls, repo) },
    }));
}

export function headCommitJson(commit: Commit): JsonObject {
  const person = { name: commit.author, email: `${commit.author}@users.noreply.github.com` };
  return {
    id: commit.sha,
    tree_id: commit.treeSha,
    message: commit.message,
    timestamp: iso(commit.timestamp),
    author: person,
    committer: person,
  };
}

/** The fields a check suite shows both on its own and inside each of its check runs. */
function suiteCoreJson(urls: Urls, repo: Repo, suite: CheckSuite, app: AppInfo, before: string | null): JsonObject {
  return {
    id: suite.id,
    node_id: nodeId('CS_', suite.id),
    head_branch: suite.headBranch,
    head_sha: suite.headSha,
    status: suite.status,
    conclusion: suite.conclusion,
    url: `${urls.api}/repos/${repo.fullName}/check-suites/${suite.id}`,
    before,
    after: suite.headSha,
    pull_requests: checkPullRequestsJson(urls, repo, suite.headSha),
    app: appJson(urls, app),
    created_at: iso(suite.createdAt),
    updated_at: iso(suite.updatedAt),
  };
}

export function checkSuiteJson(
  urls: Urls,
  repo: Repo,
  suite: CheckSuite,
  app: AppInfo,
  runCount: number,
  headCommit: Commit,
): JsonObject {
  return {
    ...suiteCoreJson(urls, repo, suite, app, headCommit.parents[0] ?? null),
    rerequestable: true,
    runs_rerequestable: true,
    latest_check_runs_count: runCount,
    check_runs_url: `${urls.api}/repos/${repo.fullName}/check-suites/${suite.id}/check-runs`,
    head_commit: headCommitJson(headCommit),
  };
}

export function checkRunJson(urls: Urls, repo: Repo, run: CheckRun, suite: CheckSuite, app: AppInfo): JsonObject {
  const api = `${urls.api}/repos/${repo.fullName}/check-runs/${run.id}`;
  return {
    id: run.id,
    node_id: nodeId('CR_', run.id),
    head_sha: run.headSha,
    external_id: run.externalId,
    url: api,
    html_url: `${urls.html}/${repo.fullName}/runs/${run.id}`,
    details_url: run.detailsUrl ?? `${urls.html}/${repo.fullName}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: iso(run.startedAt),
    completed_at: run.completedAt === null ? null : iso(run.completedAt),
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: run.output.text,
      annotations_count: run.annotations.length,
      annotations_url: `${api}/annotations`,
    },
    name: run.name,
    check_suite: suiteCoreJson(urls, repo, suite, app, null),
    app: appJson(urls, app),
    pull_requests: checkPullRequestsJson(urls, repo, run.headSha),
  };
}

export function statusJson(urls: Urls, repo: Repo, status: CommitStatus): JsonObject {
  return {
    url: `${urls.api}/repos/${repo.fullName}/statuses/${status.sha}`,
    avatar_url: null,
    id: status.id,
    node_id: nodeId('SC_', status.id),
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: iso(status.createdAt),
    updated_at: iso(status.updatedAt),
    creator: userJson(urls, status.creator),
  };
}
