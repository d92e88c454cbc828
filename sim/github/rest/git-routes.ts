// REST routes on git references and merges, as Arbiter's combined candidate uses them: read,
// create and delete a branch ref, merge a head into a branch (a file-level three-way merge that
// answers 409 when both sides changed a file differently), and open a pull request as the app.
import { z } from 'zod';
import { emitPush, openPull, synchronizePulls } from '../pull-acts.ts';
import { nodeId } from '../payloads.ts';
import type { Repo } from '../model.ts';
import { GitHubError } from '../world.ts';
import { commitJson } from './repo-routes.ts';
import { ok, parseBody, repoOf, type RestRequest, type RouteTable } from './route-kit.ts';

const RefBody = z.object({ ref: z.string(), sha: z.string(), key: z.string().optional() });
const MergeBody = z.object({ base: z.string(), head: z.string(), commit_message: z.string().optional() });
const PullBody = z.object({
  title: z.string().optional(),
  head: z.string(),
  base: z.string(),
  body: z.string().optional(),
  draft: z.boolean().optional(),
  maintainer_can_modify: z.boolean().optional(),
  head_repo: z.string().optional(),
  issue: z.number().optional(),
});

/** `heads/x` (as the ref routes spell it) to the branch name; other namespaces are not served. */
function branchOf(ref: string): string {
  const name = /^(?:refs\/)?heads\/(.+)$/.exec(ref)?.[1];
  if (!name) throw new GitHubError(422, `Reference ${ref} is not a branch (the emulator serves refs/heads/ only)`);
  return name;
}

function refJson(req: RestRequest, repo: Repo, branch: string, sha: string): Record<string, unknown> {
  const api = `${req.world.urls.api}/repos/${repo.fullName}`;
  return {
    ref: `refs/heads/${branch}`,
    node_id: nodeId('REF_', repo.id),
    url: `${api}/git/refs/heads/${branch}`,
    object: { type: 'commit', sha, url: `${api}/git/commits/${sha}` },
  };
}

/** A pull request head as GitHub accepts it: `branch` or `owner:branch` of this repository. */
function headBranch(repo: Repo, head: string): string {
  const [owner, branch] = head.includes(':') ? head.split(':', 2) : [repo.owner, head];
  if (owner.toLowerCase() !== repo.owner.toLowerCase()) {
    throw new GitHubError(422, `head ${head} is not a branch of ${repo.fullName} (forks are not served)`);
  }
  return branch;
}

export const gitRoutes: RouteTable = {
  'GET /repos/{owner}/{repo}/git/ref/{ref}': (req) => {
    const repo = repoOf(req);
    const branch = branchOf(req.params.ref);
    const sha = repo.git.branches.get(branch);
    if (!sha) throw new GitHubError(404, 'Not Found');
    return ok(refJson(req, repo, branch, sha));
  },
  'POST /repos/{owner}/{repo}/git/refs': (req) => {
    const repo = repoOf(req);
    const body = parseBody(RefBody, req.body);
    if (!/^refs\/.+\/.+/.test(body.ref)) {
      throw new GitHubError(422, "Reference name must start with 'refs/' and have at least two slashes.");
    }
    const branch = branchOf(body.ref);
    if (repo.git.branches.has(branch)) throw new GitHubError(422, 'Reference already exists');
    if (!repo.git.commits.has(body.sha)) throw new GitHubError(422, 'Object does not exist');
    repo.git.branches.set(branch, body.sha);
    emitPush(req.world, repo, branch, null, body.sha, req.actor, req.out);
    return ok(refJson(req, repo, branch, body.sha), `create branch ${branch} at ${body.sha.slice(0, 7)}`, 201);
  },
  'DELETE /repos/{owner}/{repo}/git/refs/{ref}': (req) => {
    const repo = repoOf(req);
    const branch = branchOf(req.params.ref);
    if (!repo.git.branches.has(branch)) throw new GitHubError(422, 'Reference does not exist');
    if (branch === repo.defaultBranch) throw new GitHubError(422, 'Cannot delete the default branch');
    repo.git.branches.delete(branch);
    return { status: 204, summary: `delete branch ${branch}` };
  },
  'POST /repos/{owner}/{repo}/merges': (req) => {
    const repo = repoOf(req);
    const body = parseBody(MergeBody, req.body);
    const baseSha = repo.git.branches.get(body.base);
    if (!baseSha) throw new GitHubError(404, 'Base does not exist');
    const headSha = repo.git.resolve(body.head);
    if (!headSha) throw new GitHubError(404, 'Head does not exist');
    // Nothing to merge: the base already holds the head.
    const what = `merge ${body.head.slice(0, 12)} into ${body.base}`;
    if (repo.git.isAncestor(headSha, baseSha)) return { status: 204, summary: `${what}: nothing to merge` };
    const mergeBase = repo.git.mergeBase(baseSha, headSha);
    const merged = mergeBase === null ? null : repo.git.mergeFiles(mergeBase, baseSha, headSha);
    if (merged === null || merged.conflicts.length > 0) throw new GitHubError(409, 'Merge conflict');
    const message = body.commit_message ?? `Merge ${body.head} into ${body.base}`;
    const commit = repo.git.addCommit(merged.tree, [baseSha, headSha], message, req.actor, req.world.now());
    repo.git.branches.set(body.base, commit.sha);
    emitPush(req.world, repo, body.base, baseSha, commit.sha, req.actor, req.out);
    synchronizePulls(req.world, repo, body.base, baseSha, commit.sha, req.actor, req.out);
    return ok(commitJson(req, commit.sha), `${what} (${commit.sha.slice(0, 7)})`, 201);
  },
  'POST /repos/{owner}/{repo}/pulls': (req) => {
    const repo = repoOf(req);
    const body = parseBody(PullBody, req.body);
    const head = headBranch(repo, body.head);
    const headSha = repo.git.branches.get(head);
    const invalid = (field: string): GitHubError =>
      new GitHubError(422, 'Validation Failed', [{ resource: 'PullRequest', field, code: 'invalid' }]);
    const custom = (message: string): GitHubError =>
      new GitHubError(422, message, [{ resource: 'PullRequest', code: 'custom', message }]);
    if (!headSha) throw invalid('head');
    const baseSha = repo.git.branches.get(body.base);
    if (!baseSha) throw invalid('base');
    const isOpen = (n: number): boolean => repo.issues.get(n)?.state === 'open';
    const open = [...repo.pulls.values()].find((p) => p.head === head && p.base === body.base && isOpen(p.number));
    if (open) throw custom(`A pull request already exists for ${repo.owner}:${head}.`);
    if (repo.git.isAncestor(headSha, baseSha)) throw custom(`No commits between ${body.base} and ${head}`);
    const title = body.title ?? head;
    const input = { head, base: body.base, title, body: body.body ?? '', user: req.actor, draft: body.draft ?? false };
    const pull = openPull(req.world, repo, input, req.out);
    const summary = `open #${pull.number}${pull.draft ? ' (draft)' : ''} from ${head}`;
    return ok(req.world.pullJson(repo, pull.number), summary, 201);
  },
};
