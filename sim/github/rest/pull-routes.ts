// REST routes on pull requests: list, read (JSON or unified diff), edit, files (paged),
// merge with GitHub's compare-and-swap, reviews and review requests.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { diffLineCount, renderUnifiedDiff, withinAnswerLimit } from '../diff.ts';
import { editIssue } from '../issue-acts.ts';
import { reviewJson } from '../payloads.ts';
import { mergePull, requestReviewers, setPullState, updatePullBranch } from '../pull-acts.ts';
import { GitHubError } from '../world.ts';
import { intParam, ok, paged, parseBody, repoOf, type RouteTable } from './route-kit.ts';

const DIFF_MAX_LINES = 20_000;
const DIFF_MAX_FILES = 300;

const PullPatch = z.object({
  title: z.string().optional(),
  body: z.string().optional(),
  state: z.enum(['open', 'closed']).optional(),
  base: z.string().optional(),
  maintainer_can_modify: z.boolean().optional(),
});
const UpdateBranchBody = z.object({ expected_head_sha: z.string().optional() });
const MergeBody = z.object({
  sha: z.string().optional(),
  merge_method: z.enum(['merge', 'squash', 'rebase']).optional(),
  commit_title: z.string().optional(),
  commit_message: z.string().optional(),
});
const ReviewersBody = z.object({
  reviewers: z.array(z.string()).optional(),
  team_reviewers: z.array(z.string()).optional(),
});

const blobSha = (text: string): string =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(text)}\0`)
    .update(text)
    .digest('hex');

export const pullRoutes: RouteTable = {
  'GET /repos/{owner}/{repo}/pulls': (req) => {
    const repo = repoOf(req);
    const state = req.query.get('state') ?? 'open';
    const head = req.query.get('head');
    const base = req.query.get('base');
    const numbers = [...repo.pulls.values()]
      .filter((p) => state === 'all' || repo.issues.get(p.number)?.state === state)
      .filter((p) => !head || head === p.head || head === `${repo.owner}:${p.head}`)
      .filter((p) => !base || base === p.base)
      .map((p) => p.number)
      .sort((a, b) => b - a);
    const page = paged(req, numbers);
    return { status: 200, json: page.items.map((n) => req.world.pullJson(repo, n)), headers: page.headers };
  },
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': (req) => {
    const repo = repoOf(req);
    const number = intParam(req, 'pull_number');
    const { pull } = req.world.pull(repo, number);
    const accept = String(req.headers.accept ?? '');
    if (/application\/vnd\.github(\.v3)?\.(diff|patch)/.test(accept)) {
      const { files } = req.world.pullDiff(repo, pull);
      if (files.length > DIFF_MAX_FILES || diffLineCount(files) > DIFF_MAX_LINES)
        throw new GitHubError(
          406,
          `Sorry, the diff exceeded the maximum number of ${files.length > DIFF_MAX_FILES ? 'files' : 'lines'} (${files.length > DIFF_MAX_FILES ? DIFF_MAX_FILES : DIFF_MAX_LINES}). Consider using 'List pull requests files' API or locally cloning the repository instead.`,
          [{ resource: 'PullRequest', field: 'diff', code: 'too_large' }],
        );
      return {
        status: 200,
        text: renderUnifiedDiff(files),
        headers: { 'content-type': 'application/vnd.github.diff; charset=utf-8' },
      };
    }
    return ok(req.world.readPull(repo, number));
  },
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': (req) => {
    const repo = repoOf(req);
    const number = intParam(req, 'pull_number');
    const { issue, pull } = req.world.pull(repo, number);
    const body = parseBody(PullPatch, req.body);
    const done: string[] = [];
    if (body.title !== undefined || body.body !== undefined) {
      editIssue(req.world, repo, issue, { title: body.title, body: body.body }, req.actor, req.out);
      done.push(`edit #${number}`);
    }
    if (body.base !== undefined && body.base !== pull.base) {
      if (!repo.git.branches.has(body.base))
        throw new GitHubError(422, `Proposed base branch '${body.base}' was not found`);
      pull.base = body.base;
      done.push(`rebase #${number} onto ${body.base}`);
    }
    if (body.state !== undefined && body.state !== issue.state) {
      setPullState(req.world, repo, number, body.state, req.actor, req.out);
      done.push(`${body.state === 'closed' ? 'close' : 'reopen'} #${number}`);
    }
    // REST `draft: false` is accepted and ignored, as on GitHub: leaving draft needs GraphQL
    return ok(req.world.pullJson(repo, number), done.join(', ') || `edit #${number} (no change)`);
  },
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': (req) => {
    const repo = repoOf(req);
    const { pull } = req.world.pull(repo, intParam(req, 'pull_number'));
    const { files } = req.world.pullDiff(repo, pull);
    const page = paged(req, files, 100);
    const api = `${req.world.urls.api}/repos/${repo.fullName}`;
    return {
      status: 200,
      headers: page.headers,
      json: withinAnswerLimit(page.items).map((f) => ({
        sha: blobSha(f.after ?? f.before ?? ''),
        filename: f.filename,
        status: f.status,
        ...(f.previous_filename !== undefined ? { previous_filename: f.previous_filename } : {}),
        additions: f.additions,
        deletions: f.deletions,
        changes: f.changes,
        blob_url: `${req.world.urls.html}/${repo.fullName}/blob/${pull.headSha}/${f.filename}`,
        raw_url: `${req.world.urls.html}/${repo.fullName}/raw/${pull.headSha}/${f.filename}`,
        contents_url: `${api}/contents/${f.filename}?ref=${pull.headSha}`,
        ...(f.patch !== undefined ? { patch: f.patch } : {}),
      })),
    };
  },
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge': (req) => {
    const repo = repoOf(req);
    const number = intParam(req, 'pull_number');
    const body = parseBody(MergeBody, req.body);
    const sha = mergePull(
      req.world,
      repo,
      number,
      { sha: body.sha, method: body.merge_method, title: body.commit_title, enforce: true },
      req.actor,
      req.out,
    );
    return ok({ sha, merged: true, message: 'Pull Request successfully merged' }, `merge #${number}`);
  },
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch': (req) => {
    const repo = repoOf(req);
    const number = intParam(req, 'pull_number');
    const body = parseBody(UpdateBranchBody, req.body ?? {});
    const sha = updatePullBranch(req.world, repo, number, body.expected_head_sha, req.actor, req.out);
    return ok(
      { message: 'Updating pull request branch.', url: `${req.world.urls.html}/${repo.fullName}/pull/${number}` },
      `update branch #${number} to ${sha.slice(0, 7)}`,
      202,
    );
  },
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews': (req) => {
    const repo = repoOf(req);
    const number = intParam(req, 'pull_number');
    req.world.pull(repo, number);
    const page = paged(
      req,
      repo.reviews.filter((r) => r.pullNumber === number),
    );
    return { status: 200, json: page.items.map((r) => reviewJson(req.world.urls, repo, r)), headers: page.headers };
  },
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers': (req) => {
    const repo = repoOf(req);
    const number = intParam(req, 'pull_number');
    const body = parseBody(ReviewersBody, req.body);
    const reviewers = body.reviewers ?? [];
    requestReviewers(req.world, repo, number, reviewers, req.actor, req.out);
    return ok(
      req.world.pullJson(repo, number),
      `request review on #${number} from ${reviewers.join(', ') || 'nobody'}`,
      201,
    );
  },
};
