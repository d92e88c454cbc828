// REST routes for the app itself: who it is, its installations, installation access tokens.
import { appJson, iso, nodeId, userJson } from '../payloads.ts';
import type { AppAuth } from '../auth.ts';
import { GitHubError, type World } from '../world.ts';
import { ok, repoOf, type RouteTable } from './route-kit.ts';

function installationJson(world: World): Record<string, unknown> {
  const app = world.app(world.appSlug);
  const owner = [...world.repos.values()][0]?.owner ?? app.owner;
  return {
    id: world.installationId,
    node_id: nodeId('MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u', world.installationId),
    account: userJson(world.urls, owner),
    repository_selection: 'all',
    access_tokens_url: `${world.urls.api}/app/installations/${world.installationId}/access_tokens`,
    repositories_url: `${world.urls.api}/installation/repositories`,
    html_url: `${world.urls.html}/settings/installations/${world.installationId}`,
    app_id: app.id,
    app_slug: app.slug,
    target_id: userJson(world.urls, owner).id,
    target_type: 'User',
    permissions: { checks: 'write', contents: 'write', issues: 'write', metadata: 'read', pull_requests: 'write', statuses: 'read' },
    events: ['check_run', 'check_suite', 'issue_comment', 'issues', 'pull_request', 'pull_request_review', 'push', 'status'],
    created_at: iso(app.createdAt),
    updated_at: iso(app.createdAt),
    single_file_name: null,
    suspended_by: null,
    suspended_at: null,
  };
}

export function appRoutes(auth: AppAuth): RouteTable {
  return {
    'GET /app': (req) => ok(appJson(req.world.urls, req.world.app(req.world.appSlug))),
    'GET /app/installations': (req) => ok([installationJson(req.world)]),
    'GET /repos/{owner}/{repo}/installation': (req) => {
      repoOf(req);
      return ok(installationJson(req.world));
    },
    'POST /app/installations/{installation_id}/access_tokens': (req) => {
      if (Number(req.params.installation_id) !== req.world.installationId) throw new GitHubError(404, 'Not Found');
      const issued = auth.issueToken(req.world.installationId);
      return {
        status: 201,
        json: {
          token: issued.token,
          expires_at: iso(issued.expiresAt),
          permissions: { checks: 'write', contents: 'write', issues: 'write', metadata: 'read', pull_requests: 'write', statuses: 'read' },
          repository_selection: 'all',
        },
      };
    },
  };
}
