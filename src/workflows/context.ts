// What a workflow knows about the repository it works on: deps, the gateway, the config, and
// the token that names this run (the job's delivery id) for claims that must survive retries
// (a plan's `claim` action holds it; the executor takes the claim).
import type { Logger } from 'pino';
import type { ArbiterConfig } from '../config/schema.ts';
import type { Deps } from '../deps.ts';
import { getRepoConfig } from '../config/check.ts';
import { GitHubGateway } from '../github/gateway.ts';
import type { GitHubPort } from '../github/port.ts';
import * as keys from '../core/keys.ts';

export interface RepoContext {
  deps: Deps;
  gh: GitHubPort;
  owner: string;
  repo: string;
  /** owner/name */
  key: string;
  installationId: number;
  config: ArbiterConfig;
  /** Names this run; a retry of the same job carries the same token, so it continues its own claims. */
  token: string;
  log: Logger;
  /** `https://github.com/owner/name` (or the Enterprise host's), for links; unset: plain `#N` references. */
  repoUrl?: string;
}

/** The repository's web address from the client's API base URL. */
export function repoUrlFrom(apiBaseUrl: unknown, key: string): string {
  const api = typeof apiBaseUrl === 'string' ? apiBaseUrl.replace(/\/+$/, '') : 'https://api.github.com';
  const web = api === 'https://api.github.com' ? 'https://github.com' : api.replace(/\/api\/v3$/, '');
  return `${web}/${key}`;
}

/** The GitHub port for one repository of an installation: the one place a gateway is built. */
export async function gatewayFor(
  deps: Deps,
  installationId: number,
  owner: string,
  repo: string,
): Promise<GitHubGateway> {
  return new GitHubGateway(await deps.octokitFor(installationId), owner, repo, deps.appSlug, deps.clock);
}

export async function repoContext(
  deps: Deps,
  input: {
    owner: string;
    repo: string;
    installationId: number;
    config: ArbiterConfig;
    token: string;
    gh?: GitHubGateway;
  },
): Promise<RepoContext> {
  const gh = input.gh ?? (await gatewayFor(deps, input.installationId, input.owner, input.repo));
  const key = `${input.owner}/${input.repo}`;
  return {
    deps,
    gh,
    owner: input.owner,
    repo: input.repo,
    key,
    installationId: input.installationId,
    config: input.config,
    token: input.token,
    log: deps.log.child({ repo: key, token: input.token }),
    repoUrl: repoUrlFrom(gh.apiBaseUrl, key),
  };
}

/** The token of a run that processes webhook delivery `id` (its job's retries carry the same). */
export const deliveryToken = keys.deliveryToken;

/** The delivery id a run's token names, or null for a token of another kind (a sweep's). */
export const deliveryOfToken = keys.deliveryOfToken;

export const nowIso = (ctx: Pick<RepoContext, 'deps'>): string => ctx.deps.clock.now().toISOString();

/**
 * The context of another repository of the same installation (its gateway and its config), under
 * this run's token, or null while its `.github/arbiter.yml` does not validate (Arbiter does nothing
 * there until fixed). `known` keeps the contexts one step already built.
 */
export async function otherRepoContext(
  ctx: RepoContext,
  repo: string,
  known: Map<string, RepoContext | null> = new Map(),
): Promise<RepoContext | null> {
  const key = repo.toLowerCase();
  if (key === ctx.key.toLowerCase()) return ctx;
  if (known.has(key)) return known.get(key) ?? null;
  const at = repo.indexOf('/');
  const owner = repo.slice(0, at);
  const name = repo.slice(at + 1);
  const gh = await gatewayFor(ctx.deps, ctx.installationId, owner, name);
  const config = await getRepoConfig(ctx.deps, gh, { owner, repo: name });
  const other =
    config === null
      ? null
      : await repoContext(ctx.deps, {
          owner,
          repo: name,
          installationId: ctx.installationId,
          config,
          token: ctx.token,
          gh,
        });
  known.set(key, other);
  return other;
}
