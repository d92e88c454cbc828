// REST routes for the app itself: who it is, its installations, installation access tokens, and
// its webhook's deliveries (listed newest first with GitHub's cursor paging; redelivered).
import { APP_EVENTS, APP_PERMISSIONS, appJson, iso, nodeId, userJson } from '../payloads.ts';
import type { AppAuth } from '../auth.ts';
import { GitHubError, type World } from '../world.ts';
import type { HookAttempt } from '../webhook-sender.ts';
import { ok, repoOf, type RestRequest, type RestResponse, type RouteTable } from './route-kit.ts';

/** GitHub redelivers webhooks from the past three days only. */
const REDELIVERY_WINDOW_MS = 3 * 24 * 3_600_000;

function attemptJson(a: HookAttempt): Record<string, unknown> {
  const { fault: _fault, requested: _requested, deliveredAt, ...rest } = a;
  return { ...rest, delivered_at: iso(deliveredAt), throttled_at: null };
}

/** `GET /app/hook/deliveries`: newest first; `cursor` (from the `link` header) continues after an attempt. */
function listDeliveries(req: RestRequest): RestResponse {
  const perPageText = req.query.get('per_page') ?? '30';
  const perPage = Number(perPageText);
  if (!/^\d+$/.test(perPageText) || perPage < 1) {
    req.world.violations.push(`GET /app/hook/deliveries: per_page must be a positive integer, got "${perPageText}"`);
    throw new GitHubError(422, 'Validation Failed');
  }
  const cursor = req.query.get('cursor');
  const before = cursor === null ? Infinity : Number(/^v1_(\d+)$/.exec(cursor)?.[1] ?? NaN);
  if (Number.isNaN(before)) {
    req.world.violations.push(`GET /app/hook/deliveries: cursor "${cursor}" is not one GitHub gave`);
    throw new GitHubError(422, 'Validation Failed');
  }
  const status = req.query.get('status');
  const wanted = (a: HookAttempt) =>
    status === null ||
    (status === 'success' ? a.status_code >= 200 && a.status_code < 400 : a.status_code >= 400 && a.status_code < 600);
  const all = [...req.world.webhooks.attempts].reverse().filter((a) => a.id < before && wanted(a));
  const page = all.slice(0, Math.min(perPage, 100));
  const last = page[page.length - 1];
  const headers: Record<string, string> = {};
  if (last && all.length > page.length) {
    headers.link = `<${req.world.urls.api}/app/hook/deliveries?per_page=${Math.min(perPage, 100)}&cursor=v1_${last.id}>; rel="next"`;
  }
  return { status: 200, json: page.map(attemptJson), headers };
}

function redeliver(req: RestRequest): RestResponse {
  const id = Number(req.params.delivery_id);
  const attempt = req.world.webhooks.attempts.find((a) => a.id === id);
  if (!attempt) throw new GitHubError(404, 'Not Found');
  if (req.world.now() - attempt.deliveredAt > REDELIVERY_WINDOW_MS) throw new GitHubError(422, 'Validation Failed');
  req.world.webhooks.redeliver(id);
  return { status: 202, json: {} };
}

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
    permissions: { ...APP_PERMISSIONS },
    events: [...APP_EVENTS],
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
    'GET /app/hook/deliveries': listDeliveries,
    'POST /app/hook/deliveries/{delivery_id}/attempts': redeliver,
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
          permissions: { ...APP_PERMISSIONS },
          repository_selection: 'all',
        },
      };
    },
  };
}
