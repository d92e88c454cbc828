// REST routes on issues and their conversation: read and edit issues, comments (paged),
// labels and reactions. Pull requests are issues here too, as on GitHub.
import { z } from 'zod';
import {
  addComment,
  addLabels,
  addReaction,
  commentPayload,
  editComment,
  editIssue,
  issuePayload,
  openIssue,
  removeLabel,
  setIssueState,
  setLabels,
} from '../issue-acts.ts';
import { labelJson, reactionJson } from '../payloads.ts';
import { setPullState } from '../pull-acts.ts';
import { GitHubError } from '../world.ts';
import { intParam, ok, paged, parseBody, repoOf, type RestRequest, type RouteTable } from './route-kit.ts';

const CommentBody = z.object({ body: z.string() });

/** GitHub's limit for a comment body (its documentation and its 422 say characters). */
export const COMMENT_BODY_LIMIT = 65_536;

function commentBodyOf(req: RestRequest): string {
  const { body } = parseBody(CommentBody, req.body);
  if ([...body].length > COMMENT_BODY_LIMIT)
    throw new GitHubError(422, 'Validation Failed', [
      {
        resource: 'IssueComment',
        code: 'custom',
        field: 'body',
        message: `body is too long (maximum is ${COMMENT_BODY_LIMIT} characters)`,
      },
    ]);
  return body;
}
const NewIssue = z.object({ title: z.union([z.string().min(1), z.number()]), body: z.string().nullable().optional() });
const ListState = z.enum(['open', 'closed', 'all']).catch('open');
const IssuePatch = z.object({
  title: z.union([z.string(), z.number()]).nullable().optional(),
  body: z.string().nullable().optional(),
  state: z.enum(['open', 'closed']).optional(),
  state_reason: z.enum(['completed', 'not_planned', 'reopened']).nullable().optional(),
  labels: z.array(z.union([z.string(), z.object({ name: z.string() })])).optional(),
});
const LabelsBody = z.union([
  z.object({ labels: z.array(z.union([z.string(), z.object({ name: z.string() })])) }),
  z.array(z.union([z.string(), z.object({ name: z.string() })])),
  z.string(),
]);
const ReactionBody = z.object({
  content: z.enum(['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes']),
});

const labelNames = (body: z.infer<typeof LabelsBody>): string[] => {
  const list = typeof body === 'string' ? [body] : Array.isArray(body) ? body : body.labels;
  return list.map((l) => (typeof l === 'string' ? l : l.name));
};

export const issueRoutes: RouteTable = {
  // Issues and pull requests of the repository, as GitHub lists them (`creator`, `state`, `sort=created`, `direction`).
  'GET /repos/{owner}/{repo}/issues': (req) => {
    const repo = repoOf(req);
    const state = ListState.parse(req.query.get('state') ?? 'open');
    const creator = req.query.get('creator');
    const asc = req.query.get('direction') === 'asc';
    if ((req.query.get('sort') ?? 'created') !== 'created')
      throw new GitHubError(422, 'the emulator sorts issues by created only');
    const issues = [...repo.issues.values()]
      .filter((i) => (state === 'all' || i.state === state) && (creator === null || i.user === creator))
      .sort((a, b) => (asc ? a.number - b.number : b.number - a.number));
    const page = paged(req, issues);
    return { status: 200, json: page.items.map((i) => issuePayload(req.world, repo, i)), headers: page.headers };
  },
  'POST /repos/{owner}/{repo}/issues': (req) => {
    const repo = repoOf(req);
    const body = parseBody(NewIssue, req.body);
    const issue = openIssue(
      req.world,
      repo,
      { title: String(body.title), body: body.body ?? '', user: req.actor },
      req.out,
    );
    return ok(issuePayload(req.world, repo, issue), `open issue #${issue.number} "${issue.title}"`, 201);
  },
  'GET /repos/{owner}/{repo}/issues/{issue_number}': (req) => {
    const repo = repoOf(req);
    return ok(issuePayload(req.world, repo, req.world.issue(repo, intParam(req, 'issue_number'))));
  },
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}': (req) => {
    const repo = repoOf(req);
    const issue = req.world.issue(repo, intParam(req, 'issue_number'));
    const body = parseBody(IssuePatch, req.body);
    const done: string[] = [];
    editIssue(
      req.world,
      repo,
      issue,
      {
        title: body.title === null || body.title === undefined ? undefined : String(body.title),
        body: body.body ?? undefined,
      },
      req.actor,
      req.out,
    );
    if (body.title !== undefined || body.body !== undefined) done.push(`edit #${issue.number}`);
    // `labels` replaces the whole list, before the state changes (a PR closed here is labelled in its `closed` payload).
    const labelled: string[] = [];
    if (body.labels !== undefined) {
      const before = [...issue.labels];
      setLabels(req.world, repo, issue, labelNames(body.labels), req.actor, req.out);
      const added = issue.labels.filter((l) => !before.includes(l));
      const removed = before.filter((l) => !issue.labels.includes(l));
      if (added.length > 0) labelled.push(`label #${issue.number} ${added.join(', ')}`);
      if (removed.length > 0) labelled.push(`unlabel #${issue.number} ${removed.join(', ')}`);
    }
    if (body.state !== undefined && body.state !== issue.state) {
      if (repo.pulls.has(issue.number)) setPullState(req.world, repo, issue.number, body.state, req.actor, req.out);
      else
        setIssueState(
          req.world,
          repo,
          issue,
          body.state,
          req.actor,
          req.out,
          body.state_reason === 'not_planned' ? 'not_planned' : 'completed',
        );
      done.push(`${body.state === 'closed' ? 'close' : 'reopen'} #${issue.number}`);
    }
    done.push(...labelled);
    return ok(issuePayload(req.world, repo, issue), done.join(', ') || `edit #${issue.number} (no change)`);
  },
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': (req) => {
    const repo = repoOf(req);
    const issue = req.world.issue(repo, intParam(req, 'issue_number'));
    const comments = issue.commentIds.map((id) => repo.comments.get(id)).filter((c) => c !== undefined);
    const page = paged(req, comments);
    return { status: 200, json: page.items.map((c) => commentPayload(req.world, repo, c)), headers: page.headers };
  },
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': (req) => {
    const repo = repoOf(req);
    const issue = req.world.issue(repo, intParam(req, 'issue_number'));
    const comment = addComment(req.world, repo, issue, req.actor, commentBodyOf(req), req.out);
    return ok(commentPayload(req.world, repo, comment), `comment on #${issue.number}`, 201);
  },
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': (req) => {
    const repo = repoOf(req);
    const comment = repo.comments.get(intParam(req, 'comment_id'));
    if (!comment) throw new GitHubError(404, 'Not Found');
    editComment(req.world, repo, comment, commentBodyOf(req), req.actor, req.out);
    return ok(commentPayload(req.world, repo, comment), `edit comment on #${comment.issueNumber}`);
  },
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels': (req) => {
    const repo = repoOf(req);
    const issue = req.world.issue(repo, intParam(req, 'issue_number'));
    const names = labelNames(parseBody(LabelsBody, req.body));
    addLabels(req.world, repo, issue, names, req.actor, req.out);
    return ok(
      issue.labels.map((name) => labelJson(req.world.urls, repo, name)),
      `label #${issue.number} ${names.join(', ')}`,
    );
  },
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}': (req) => {
    const repo = repoOf(req);
    const issue = req.world.issue(repo, intParam(req, 'issue_number'));
    removeLabel(req.world, repo, issue, req.params.name, req.actor, req.out);
    return ok(
      issue.labels.map((name) => labelJson(req.world.urls, repo, name)),
      `unlabel #${issue.number} ${req.params.name}`,
    );
  },
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': (req) => {
    const repo = repoOf(req);
    const comment = repo.comments.get(intParam(req, 'comment_id'));
    if (!comment) throw new GitHubError(404, 'Not Found');
    const body = parseBody(ReactionBody, req.body);
    const { reaction, created } = addReaction(req.world, comment.reactions, req.actor, body.content);
    return ok(
      reactionJson(req.world.urls, reaction),
      `react ${body.content} to a comment on #${comment.issueNumber}`,
      created ? 201 : 200,
    );
  },
  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions': (req) => {
    const repo = repoOf(req);
    const issue = req.world.issue(repo, intParam(req, 'issue_number'));
    const body = parseBody(ReactionBody, req.body);
    const { reaction, created } = addReaction(req.world, issue.reactions, req.actor, body.content);
    return ok(reactionJson(req.world.urls, reaction), `react ${body.content} to #${issue.number}`, created ? 201 : 200);
  },
};
