// REST routes on a repository as a whole: the repository, file contents, branches, compare,
// branch rules, collaborator permissions, commit statuses and repository dispatches.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { dispatch, setStatus } from '../check-acts.ts';
import { diffTrees, withinAnswerLimit } from '../diff.ts';
import { REST_PERMISSION, rulesFor } from '../model.ts';
import { isBotLogin, iso, nodeId, repoJson, statusJson, userJson } from '../payloads.ts';
import { GitHubError } from '../world.ts';
import { ok, paged, parseBody, repoOf, type RestRequest, type RouteTable } from './route-kit.ts';

const blobSha = (text: string): string =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(text)}\0`)
    .update(text)
    .digest('hex');

export function commitJson(req: RestRequest, sha: string): Record<string, unknown> {
  const repo = repoOf(req);
  const commit = repo.git.get(sha);
  const api = `${req.world.urls.api}/repos/${repo.fullName}`;
  const person = {
    name: commit.author,
    email: `${commit.author}@users.noreply.github.com`,
    date: iso(commit.timestamp),
  };
  return {
    sha,
    node_id: nodeId('C_', commit.timestamp),
    commit: {
      author: person,
      committer: person,
      message: commit.message,
      tree: { sha: commit.treeSha, url: `${api}/git/trees/${commit.treeSha}` },
      url: `${api}/git/commits/${sha}`,
      comment_count: 0,
    },
    url: `${api}/commits/${sha}`,
    html_url: `${req.world.urls.html}/${repo.fullName}/commit/${sha}`,
    comments_url: `${api}/commits/${sha}/comments`,
    author: userJson(req.world.urls, commit.author),
    committer: userJson(req.world.urls, commit.author),
    parents: commit.parents.map((p) => ({
      sha: p,
      url: `${api}/commits/${p}`,
      html_url: `${req.world.urls.html}/${repo.fullName}/commit/${p}`,
    })),
  };
}

const StatusBody = z.object({
  state: z.enum(['error', 'failure', 'pending', 'success']),
  target_url: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  context: z.string().optional(),
});
const DispatchBody = z.object({ event_type: z.string(), client_payload: z.record(z.string(), z.unknown()).optional() });

function combinedStatus(req: RestRequest): Record<string, unknown> {
  const repo = repoOf(req);
  const sha = req.world.resolveSha(repo, req.params.ref);
  const latest = new Map<string, ReturnType<typeof statusJson>>();
  for (const status of repo.statuses.filter((s) => s.sha === sha))
    latest.set(status.context, statusJson(req.world.urls, repo, status));
  const statuses = [...latest.values()];
  const states = statuses.map((s) => s.state);
  const state = states.some((s) => s === 'failure' || s === 'error')
    ? 'failure'
    : states.length > 0 && states.every((s) => s === 'success')
      ? 'success'
      : 'pending';
  return {
    state,
    statuses,
    sha,
    total_count: statuses.length,
    repository: repoJson(req.world.urls, repo, req.world.lastPush(repo)),
    commit_url: `${req.world.urls.api}/repos/${repo.fullName}/commits/${sha}`,
    url: `${req.world.urls.api}/repos/${repo.fullName}/commits/${sha}/status`,
  };
}

/** `GET /branches/{b}`'s view of classic protection: its required checks (with the CI app pinned) and strict. */
function classicProtection(
  req: RestRequest,
  protection: { required?: string[]; strict?: boolean } | undefined,
): Record<string, unknown> {
  if (!protection)
    return {
      protected: false,
      protection: { enabled: false, required_status_checks: { enforcement_level: 'off', contexts: [], checks: [] } },
    };
  const contexts = protection.required ?? [];
  return {
    protected: true,
    protection: {
      enabled: true,
      required_status_checks: {
        enforcement_level: contexts.length > 0 ? 'non_admins' : 'off',
        contexts,
        checks: contexts.map((context) => ({ context, app_id: null })),
        strict: protection.strict === true,
      },
    },
  };
}

export const repoRoutes: RouteTable = {
  'GET /repos/{owner}/{repo}': (req) => {
    const repo = repoOf(req);
    return ok({
      ...repoJson(req.world.urls, repo, req.world.lastPush(repo)),
      allow_merge_commit: repo.settings.mergeMethods.includes('merge'),
      allow_squash_merge: repo.settings.mergeMethods.includes('squash'),
      allow_rebase_merge: repo.settings.mergeMethods.includes('rebase'),
      allow_auto_merge: repo.settings.allowAutoMerge,
      delete_branch_on_merge: false,
      network_count: 0,
      subscribers_count: 0,
    });
  },
  'GET /repos/{owner}/{repo}/contents/{path}': (req) => {
    const repo = repoOf(req);
    const ref = req.query.get('ref') ?? repo.defaultBranch;
    const sha = repo.git.resolve(ref);
    if (!sha) throw new GitHubError(404, `No commit found for the ref ${ref}`);
    const path = req.params.path.replace(/^\/+/, '');
    const text = repo.git.get(sha).tree[path];
    if (text === undefined) throw new GitHubError(404, 'Not Found');
    const api = `${req.world.urls.api}/repos/${repo.fullName}/contents/${path}?ref=${encodeURIComponent(ref)}`;
    const html = `${req.world.urls.html}/${repo.fullName}/blob/${ref}/${path}`;
    const blob = blobSha(text);
    const base64 = Buffer.from(text).toString('base64');
    if (/raw/.test(String(req.headers.accept ?? ''))) return { status: 200, text };
    return ok({
      type: 'file',
      encoding: 'base64',
      size: Buffer.byteLength(text),
      name: path.split('/').pop(),
      path,
      content: base64.replace(/.{60}/g, '$&\n'),
      sha: blob,
      url: api,
      git_url: `${req.world.urls.api}/repos/${repo.fullName}/git/blobs/${blob}`,
      html_url: html,
      download_url: `https://raw.githubusercontent.com/${repo.fullName}/${ref}/${path}`,
      _links: { self: api, git: `${req.world.urls.api}/repos/${repo.fullName}/git/blobs/${blob}`, html },
    });
  },
  'GET /repos/{owner}/{repo}/branches/{branch}': (req) => {
    const repo = repoOf(req);
    const sha = repo.git.branches.get(req.params.branch);
    if (!sha) throw new GitHubError(404, 'Branch not found');
    return ok({
      name: req.params.branch,
      commit: commitJson(req, sha),
      _links: {
        self: `${req.world.urls.api}/repos/${repo.fullName}/branches/${req.params.branch}`,
        html: `${req.world.urls.html}/${repo.fullName}/tree/${req.params.branch}`,
      },
      ...classicProtection(req, rulesFor(repo, req.params.branch).protection),
      protection_url: `${req.world.urls.api}/repos/${repo.fullName}/branches/${req.params.branch}/protection`,
    });
  },
  'GET /repos/{owner}/{repo}/compare/{basehead}': (req) => {
    const repo = repoOf(req);
    const m = /^(.+?)\.\.\.?(.+)$/.exec(req.params.basehead);
    if (!m) throw new GitHubError(404, 'Not Found');
    const base = repo.git.resolve(m[1]);
    const head = repo.git.resolve(m[2]);
    if (!base || !head) throw new GitHubError(404, 'Not Found');
    const mergeBase = repo.git.mergeBase(base, head);
    if (!mergeBase) throw new GitHubError(404, 'No common ancestor between the commits');
    // GitHub lists at most 300 files of a comparison, and no page holds more.
    const files = withinAnswerLimit(diffTrees(repo.git.get(mergeBase).tree, repo.git.get(head).tree).slice(0, 300));
    const baseAncestors = repo.git.ancestors(base);
    const headAncestors = repo.git.ancestors(head);
    const ahead = [...headAncestors].filter((s) => !baseAncestors.has(s));
    const behind = [...baseAncestors].filter((s) => !headAncestors.has(s)).length;
    const status =
      ahead.length === 0 && behind === 0
        ? 'identical'
        : behind === 0
          ? 'ahead'
          : ahead.length === 0
            ? 'behind'
            : 'diverged';
    const api = `${req.world.urls.api}/repos/${repo.fullName}`;
    return ok({
      url: `${api}/compare/${req.params.basehead}`,
      html_url: `${req.world.urls.html}/${repo.fullName}/compare/${req.params.basehead}`,
      permalink_url: `${req.world.urls.html}/${repo.fullName}/compare/${base}...${head}`,
      diff_url: `${req.world.urls.html}/${repo.fullName}/compare/${req.params.basehead}.diff`,
      patch_url: `${req.world.urls.html}/${repo.fullName}/compare/${req.params.basehead}.patch`,
      base_commit: commitJson(req, base),
      merge_base_commit: commitJson(req, mergeBase),
      status,
      ahead_by: ahead.length,
      behind_by: behind,
      total_commits: ahead.length,
      commits: ahead.map((sha) => commitJson(req, sha)).sort((a, b) => String(a.sha).localeCompare(String(b.sha))),
      files: files.map((f) => ({
        sha: blobSha(f.after ?? ''),
        filename: f.filename,
        status: f.status,
        ...(f.previous_filename !== undefined ? { previous_filename: f.previous_filename } : {}),
        additions: f.additions,
        deletions: f.deletions,
        changes: f.changes,
        blob_url: `${req.world.urls.html}/${repo.fullName}/blob/${head}/${f.filename}`,
        raw_url: `${req.world.urls.html}/${repo.fullName}/raw/${head}/${f.filename}`,
        contents_url: `${api}/contents/${f.filename}?ref=${head}`,
        ...(f.patch !== undefined ? { patch: f.patch } : {}),
      })),
    });
  },
  'GET /repos/{owner}/{repo}/rules/branches/{branch}': (req) => {
    const repo = repoOf(req);
    const rules: Record<string, unknown>[] = [];
    const source = { ruleset_source_type: 'Repository', ruleset_source: repo.fullName, ruleset_id: 1 };
    const branch = rulesFor(repo, req.params.branch);
    if (branch.required && branch.required.length > 0)
      rules.push({
        type: 'required_status_checks',
        ...source,
        parameters: {
          strict_required_status_checks_policy: branch.strict === true,
          required_status_checks: branch.required.map((context) => ({ context })),
        },
      });
    if (branch.requiredReviews !== undefined)
      rules.push({
        type: 'pull_request',
        ...source,
        parameters: {
          required_approving_review_count: branch.requiredReviews,
          dismiss_stale_reviews_on_push: false,
          require_code_owner_review: false,
          require_last_push_approval: false,
          required_review_thread_resolution: false,
        },
      });
    if (branch.mergeQueue)
      rules.push({
        type: 'merge_queue',
        ...source,
        parameters: {
          check_response_timeout_minutes: 60,
          grouping_strategy: 'ALLGREEN',
          max_entries_to_build: 5,
          max_entries_to_merge: 5,
          merge_method: 'MERGE',
          min_entries_to_merge: 1,
          min_entries_to_merge_wait_minutes: 5,
        },
      });
    return ok(rules);
  },
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': (req) => {
    const repo = repoOf(req);
    // GitHub has no collaborator permission for a bot account: it answers 404, whatever the app may do.
    const login = req.params.username;
    if (isBotLogin(login) || repo.users.get(login)?.bot === true) throw new GitHubError(404, `${login} is not a user`);
    const role = req.world.permissionOf(repo, req.params.username);
    const user = {
      ...userJson(req.world.urls, req.params.username),
      permissions: {
        admin: role === 'admin',
        maintain: role === 'maintain' || role === 'admin',
        push: REST_PERMISSION[role] !== 'read',
        triage: role !== 'read',
        pull: true,
      },
      role_name: role,
    };
    return ok({ permission: REST_PERMISSION[role], role_name: role, user });
  },
  'GET /repos/{owner}/{repo}/commits/{ref}/status': (req) => ok(combinedStatus(req)),
  'GET /repos/{owner}/{repo}/commits/{ref}/statuses': (req) => {
    const repo = repoOf(req);
    const sha = req.world.resolveSha(repo, req.params.ref);
    const list = repo.statuses
      .filter((s) => s.sha === sha)
      .reverse()
      .map((s) => statusJson(req.world.urls, repo, s));
    const page = paged(req, list);
    return { status: 200, json: page.items, headers: page.headers };
  },
  'POST /repos/{owner}/{repo}/statuses/{sha}': (req) => {
    const repo = repoOf(req);
    const body = parseBody(StatusBody, req.body);
    const status = setStatus(req.world, repo, req.params.sha, body, req.actor, req.out);
    return ok(
      statusJson(req.world.urls, repo, status),
      `status ${status.context} on ${req.params.sha.slice(0, 7)}: ${status.state}`,
      201,
    );
  },
  'POST /repos/{owner}/{repo}/dispatches': (req) => {
    const repo = repoOf(req);
    const body = parseBody(DispatchBody, req.body);
    dispatch(req.world, repo, body.event_type, body.client_payload ?? {}, req.actor, req.out);
    return { status: 204, summary: `dispatch ${body.event_type}` };
  },
};
