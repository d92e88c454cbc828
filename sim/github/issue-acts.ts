// Acts on issues and their conversation (shared by REST routes and people's acts): open, edit,
// close, comment, label, react. Each applies the change and emits the webhooks GitHub sends.
import type { Comment, Issue, Reaction, Repo } from './model.ts';
import { commentJson, issueJson, labelJson } from './payloads.ts';
import { GitHubError, type World } from './world.ts';

/** Webhook deliveries started by an act; people's acts await them. */
export type Sent = Promise<number>[];

const isAppLogin = (world: World, login: string): boolean => login === world.appBot();

export function issuePayload(world: World, repo: Repo, issue: Issue): Record<string, unknown> {
  return issueJson(world.urls, repo, issue, repo.pulls.get(issue.number));
}

/** The webhook GitHub sends for an act on an issue: `pull_request` when the issue is a PR's, else `issues`. */
function emitIssueAct(
  world: World,
  repo: Repo,
  issue: Issue,
  action: string,
  extra: Record<string, unknown>,
  user: string,
  out: Sent,
): void {
  if (repo.pulls.has(issue.number))
    out.push(
      world.emit(
        repo,
        'pull_request',
        { action, number: issue.number, ...extra, pull_request: world.pullJson(repo, issue.number) },
        user,
      ),
    );
  else out.push(world.emit(repo, 'issues', { action, ...extra, issue: issuePayload(world, repo, issue) }, user));
}

function takeNumber(repo: Repo, wanted: number | undefined): number {
  const number = wanted ?? repo.nextNumber;
  if (repo.issues.has(number)) throw new GitHubError(422, `issue or pull request #${number} already exists`);
  repo.nextNumber = Math.max(repo.nextNumber, number + 1);
  return number;
}

export function createIssueRecord(
  world: World,
  repo: Repo,
  input: { number?: number; title: string; body: string; user: string },
): Issue {
  const number = takeNumber(repo, input.number);
  const now = world.now();
  const issue: Issue = {
    number,
    id: world.ids.take(),
    title: input.title,
    body: input.body,
    user: input.user,
    state: 'open',
    stateReason: null,
    labels: [],
    commentIds: [],
    reactions: [],
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    closedBy: null,
  };
  repo.issues.set(number, issue);
  return issue;
}

export function openIssue(
  world: World,
  repo: Repo,
  input: { number?: number; title: string; body: string; user: string },
  out: Sent,
): Issue {
  const issue = createIssueRecord(world, repo, input);
  out.push(world.emit(repo, 'issues', { action: 'opened', issue: issuePayload(world, repo, issue) }, input.user));
  return issue;
}

export function editIssue(
  world: World,
  repo: Repo,
  issue: Issue,
  edit: { title?: string; body?: string },
  user: string,
  out: Sent,
): void {
  const changes: Record<string, { from: string }> = {};
  if (edit.title !== undefined && edit.title !== issue.title) {
    changes.title = { from: issue.title };
    issue.title = edit.title;
  }
  if (edit.body !== undefined && edit.body !== issue.body) {
    changes.body = { from: issue.body };
    issue.body = edit.body;
  }
  if (Object.keys(changes).length === 0) return;
  issue.updatedAt = world.now();
  emitIssueAct(world, repo, issue, 'edited', { changes }, user, out);
}

/** Closes or reopens an issue (not a PR: see pull-acts). */
export function setIssueState(
  world: World,
  repo: Repo,
  issue: Issue,
  state: 'open' | 'closed',
  user: string,
  out: Sent,
  reason?: 'completed' | 'not_planned',
): void {
  if (issue.state === state) return;
  const now = world.now();
  issue.state = state;
  issue.updatedAt = now;
  issue.closedAt = state === 'closed' ? now : null;
  issue.closedBy = state === 'closed' ? user : null;
  issue.stateReason = state === 'closed' ? (reason ?? 'completed') : 'reopened';
  out.push(
    world.emit(
      repo,
      'issues',
      { action: state === 'closed' ? 'closed' : 'reopened', issue: issuePayload(world, repo, issue) },
      user,
    ),
  );
}

export function addComment(world: World, repo: Repo, issue: Issue, user: string, body: string, out: Sent): Comment {
  // As on GitHub, an app cannot comment on a locked conversation (people with write access can).
  if (issue.locked && isAppLogin(world, user))
    throw new GitHubError(403, 'Unable to create comment because issue is locked.');
  const now = world.now();
  const comment: Comment = {
    id: world.ids.take(),
    issueNumber: issue.number,
    user,
    body,
    createdAt: now,
    updatedAt: now,
    viaApp: isAppLogin(world, user) ? world.appSlug : null,
    reactions: [],
  };
  repo.comments.set(comment.id, comment);
  issue.commentIds.push(comment.id);
  issue.updatedAt = now;
  out.push(
    world.emit(
      repo,
      'issue_comment',
      { action: 'created', issue: issuePayload(world, repo, issue), comment: commentPayload(world, repo, comment) },
      user,
    ),
  );
  return comment;
}

export function commentPayload(world: World, repo: Repo, comment: Comment): Record<string, unknown> {
  return commentJson(world.urls, repo, comment, comment.viaApp ? world.app(comment.viaApp) : null);
}

export function editComment(world: World, repo: Repo, comment: Comment, body: string, user: string, out: Sent): void {
  const from = comment.body;
  comment.body = body;
  comment.updatedAt = world.now();
  const issue = world.issue(repo, comment.issueNumber);
  out.push(
    world.emit(
      repo,
      'issue_comment',
      {
        action: 'edited',
        changes: { body: { from } },
        issue: issuePayload(world, repo, issue),
        comment: commentPayload(world, repo, comment),
      },
      user,
    ),
  );
}

export function addLabels(world: World, repo: Repo, issue: Issue, names: string[], user: string, out: Sent): void {
  for (const name of names) {
    if (issue.labels.includes(name)) continue;
    issue.labels.push(name);
    issue.updatedAt = world.now();
    const label = labelJson(world.urls, repo, name);
    emitIssueAct(world, repo, issue, 'labeled', { label }, user, out);
  }
}

export function removeLabel(world: World, repo: Repo, issue: Issue, name: string, user: string, out: Sent): void {
  if (!issue.labels.includes(name)) throw new GitHubError(404, 'Label does not exist');
  issue.labels = issue.labels.filter((l) => l !== name);
  issue.updatedAt = world.now();
  const label = labelJson(world.urls, repo, name);
  emitIssueAct(world, repo, issue, 'unlabeled', { label }, user, out);
}

/** Replaces the label list (`PATCH issues/{n}` with `labels`): `unlabeled` for each label removed, `labeled` for each added. */
export function setLabels(world: World, repo: Repo, issue: Issue, names: string[], user: string, out: Sent): void {
  const wanted = [...new Set(names)];
  for (const name of issue.labels.filter((l) => !wanted.includes(l))) removeLabel(world, repo, issue, name, user, out);
  addLabels(world, repo, issue, wanted, user, out);
}

/** Adds a reaction; the same user and content twice gives back the first one (GitHub answers 200 then). */
export function addReaction(
  world: World,
  list: Reaction[],
  user: string,
  content: string,
): { reaction: Reaction; created: boolean } {
  const existing = list.find((r) => r.user === user && r.content === content);
  if (existing) return { reaction: existing, created: false };
  const reaction: Reaction = { id: world.ids.take(), user, content, createdAt: world.now() };
  list.push(reaction);
  return { reaction, created: true };
}

/** A person locks an issue's conversation. */
export function lockIssue(world: World, repo: Repo, issue: Issue, user: string, out: Sent): void {
  if (issue.locked) return;
  issue.locked = true;
  issue.updatedAt = world.now();
  out.push(world.emit(repo, 'issues', { action: 'locked', issue: issuePayload(world, repo, issue) }, user));
}
