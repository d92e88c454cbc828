// Meters every GitHub request at the one place clients are built: an Octokit plugin counts each
// request by route and status and records the installation's rate limit; installation-token
// requests (made by the auth strategy with its own `request`) are counted by a wrapped fetch.
import type { ProbotOctokit } from 'probot';
import { countGithubRequest } from '../metrics.ts';
import { headersOf, propertyOf } from './errors.ts';
import { rateBudgets } from './rate-budget.ts';

const TOKEN_PATH = /\/app\/installations\/\d+\/access_tokens$/;
export const TOKEN_ROUTE = 'POST /app/installations/{installation_id}/access_tokens';

/**
 * `METHOD /path/{template}`: Octokit passes the route's template; a full URL (a pagination link)
 * loses its origin and query, and its numeric segments become `{n}`, so labels stay few.
 */
export function routeOf(method: string, url: string): string {
  if (!url.includes('://')) return `${method.toUpperCase()} ${url.split('?')[0]}`;
  // GitHub Enterprise Server: REST under /api/v3, GraphQL at /api/graphql.
  const path = new URL(url).pathname.replace(/^\/api\/v3(?=\/)/, '').replace(/^\/api(?=\/graphql$)/, '');
  return `${method.toUpperCase()} ${path.replace(/\/\d+(?=\/|$)/g, '/{n}')}`;
}

/** The Octokit a plugin is given (Octokit's core, before any plugin). */
type CoreOctokit = Parameters<Parameters<typeof ProbotOctokit.plugin>[0]>[0];

type Headers = Record<string, string | number | undefined>;

const InstallationOf = (options: { auth?: unknown }): number => {
  const auth = options.auth;
  if (typeof auth === 'object' && auth !== null && 'installationId' in auth) {
    const id = Number((auth as { installationId: unknown }).installationId);
    if (Number.isInteger(id) && id > 0) return id;
  }
  return 0;
};

/** The Octokit plugin: `ProbotOctokit.plugin(requestMeter)`. */
export function requestMeter(octokit: CoreOctokit, options: { auth?: unknown }): void {
  const installation = InstallationOf(options);
  octokit.hook.wrap('request', async (request, opts) => {
    const route = routeOf(opts.method, opts.url);
    if (route === TOKEN_ROUTE) return request(opts); // counted by tokenMeteredFetch
    try {
      const res = await request(opts);
      countGithubRequest(route, res.status);
      rateBudgets.record(installation, res.headers as Headers);
      return res;
    } catch (err) {
      const status = propertyOf(err, 'status');
      countGithubRequest(route, typeof status === 'number' ? status : 0);
      rateBudgets.record(installation, headersOf(err));
      throw err;
    }
  });
}

/** A fetch for Probot's `request.fetch` that counts installation-token requests (they bypass the plugin). */
export function tokenMeteredFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!TOKEN_PATH.test(new URL(url).pathname)) return inner(input, init);
    try {
      const res = await inner(input, init);
      countGithubRequest(TOKEN_ROUTE, res.status);
      return res;
    } catch (err) {
      countGithubRequest(TOKEN_ROUTE, 0);
      throw err;
    }
  };
}
