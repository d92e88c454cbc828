// The `Arbiter / config` check on a commit, and the gate every workflow passes first:
// `getRepoConfig` answers null while the repository's configuration is invalid, and otherwise
// the default branch's config, cached in the store for CONFIG_CACHE_TTL_MS.
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { ConfigPort } from './port.ts';
import { singleFlight } from '../single-flight.ts';
import type { Store } from '../store/types.ts';
import { CONFIG_CHECK_NAME, renderConfigCheck, type ConfigCheckOutput } from './check-output.ts';
import { ConfigGitHubError, formatConfigErrors } from './errors.ts';
import { loadRepoConfig } from './load.ts';
import { ConfigSchema, type ArbiterConfig } from './schema.ts';

const configFlight = singleFlight<ArbiterConfig | null>();

/**
 * How long a cached default-branch config is used before it is read again. A push to the
 * default branch drops it at once; the TTL bounds how late a change to an `_extends` base in
 * another repository (which sends this repository no push) takes effect.
 */
export const CONFIG_CACHE_TTL_MS = 5 * 60_000;

/** What this module needs of `Deps` (a full `Deps` fits). */
export interface ConfigDeps {
  store: Pick<Store, 'setConfigValid' | 'markConfigInvalid' | 'isConfigValid' | 'getConfigState' | 'cacheConfig'>;
  clock: Deps['clock'];
  log: Pick<Deps['log'], 'info' | 'warn'>;
  appSlug: string;
}

export interface ConfigCheckInput {
  owner: string;
  repo: string;
  sha: string;
  /** The pushed ref (`refs/heads/main` or `main`). */
  ref: string;
  /** The repository's default branch, when the caller knows it (push payloads do); else it is read. */
  defaultBranch?: string;
  /**
   * The head of a pull request: never the default branch's configuration, whatever its branch is
   * called (a fork may name its branch `main`); only its check run is written.
   */
  pullRequest?: boolean;
}

const ExistingRuns = z.object({
  check_runs: z.array(
    z.object({
      id: z.number(),
      name: z.string(),
      status: z.string(),
      conclusion: z.string().nullable(),
      output: z
        .object({ title: z.string().nullable(), summary: z.string().nullable() })
        .partial()
        .nullable()
        .optional(),
      app: z.object({ slug: z.string().optional() }).nullable().optional(),
    }),
  ),
});
type ExistingRun = z.infer<typeof ExistingRuns>['check_runs'][number];

const findExistingRun = async (
  gh: ConfigPort,
  appSlug: string,
  { owner, repo, sha }: Pick<ConfigCheckInput, 'owner' | 'repo' | 'sha'>,
) => {
  const parsed = ExistingRuns.safeParse(await gh.listCheckRunsNamed({ owner, repo, sha, name: CONFIG_CHECK_NAME }));
  if (!parsed.success)
    throw new ConfigGitHubError(`unexpected check-run list for ${sha}: ${parsed.error.message}`, null);
  // Another app may use the same name; only our own run is ours to update.
  return parsed.data.check_runs.find((run) => run.name === CONFIG_CHECK_NAME && (run.app?.slug ?? appSlug) === appSlug);
};

const alreadyShows = (run: ExistingRun, output: ConfigCheckOutput): boolean =>
  run.status === 'completed' &&
  run.conclusion === output.conclusion &&
  run.output?.title === output.title &&
  run.output?.summary === output.summary;

/** The branch a pushed ref names (`refs/heads/main` or `main`). */
const branchOf = (input: ConfigCheckInput): string => input.ref.replace(/^refs\/heads\//, '');

const isDefaultBranch = async (gh: ConfigPort, input: ConfigCheckInput): Promise<boolean> => {
  if (input.pullRequest) return false;
  const branch = input.defaultBranch ?? (await gh.defaultBranch(input));
  return branchOf(input) === branch;
};

const isBranchHead = async (gh: ConfigPort, input: ConfigCheckInput): Promise<boolean> =>
  (await gh.branchHead({ owner: input.owner, repo: input.repo, branch: branchOf(input) })) === input.sha;

/** Shows a validation result as the `Arbiter / config` check run on `sha` (updated in place when it exists). */
const showConfigCheck = async (
  deps: ConfigDeps,
  gh: ConfigPort,
  input: Pick<ConfigCheckInput, 'owner' | 'repo' | 'sha'>,
  result: Awaited<ReturnType<typeof loadRepoConfig>>,
): Promise<void> => {
  const { owner, repo, sha } = input;
  const output = renderConfigCheck(result);
  const existing = await findExistingRun(gh, deps.appSlug, input);
  const body = {
    name: CONFIG_CHECK_NAME,
    status: 'completed' as const,
    conclusion: output.conclusion,
    completed_at: deps.clock.now().toISOString(),
    output: {
      title: output.title,
      summary: output.summary,
      ...(output.annotations.length > 0 ? { annotations: output.annotations } : {}),
    },
  };
  if (existing === undefined) await gh.createConfigRun({ owner, repo, sha }, body);
  else if (!alreadyShows(existing, output)) await gh.updateConfigRun({ owner, repo, id: existing.id }, body);
};

/**
 * Validates `.github/arbiter.yml` at `sha` and shows the result as the `Arbiter / config` check
 * run (updated in place when it exists). On the default branch the result is also recorded, so
 * `getRepoConfig` stops every workflow while the configuration is invalid.
 */
export const checkConfigOnCommit = async (
  deps: ConfigDeps,
  gh: ConfigPort,
  input: ConfigCheckInput,
): Promise<{ ok: boolean }> => {
  const { owner, repo, sha } = input;
  const result = await loadRepoConfig(gh, { owner, repo, ref: sha });
  await showConfigCheck(deps, gh, input, result);

  if (await isDefaultBranch(gh, input)) {
    // Validity only, and only from the branch's head: a retried or redelivered push may check a
    // commit the branch has moved past, whose verdict must not undo the newer one. The cached
    // config is filled by `getRepoConfig` from the branch as it is now.
    if (await isBranchHead(gh, input)) {
      const detail = result.ok ? `valid at ${sha}` : `invalid at ${sha}:\n${formatConfigErrors(result.errors)}`;
      await deps.store.setConfigValid(`${owner}/${repo}`, result.ok, detail);
    } else {
      deps.log.info(
        { owner, repo, sha },
        'config checked on a commit the default branch has moved past: its verdict is left to the newer commit',
      );
    }
  }
  if (!result.ok) deps.log.info({ owner, repo, sha, errors: result.errors.length }, 'invalid .github/arbiter.yml');
  return { ok: result.ok };
};

/** The cached config when it was loaded less than the TTL ago and still parses; else null. */
const freshCachedConfig = (
  deps: ConfigDeps,
  key: string,
  cached: unknown,
  loadedAt: string | null,
): ArbiterConfig | null => {
  if (cached === null || loadedAt === null) return null;
  const age = deps.clock.now().getTime() - Date.parse(loadedAt);
  // A load stamped in the future (another replica's clock) is not trusted either.
  if (!(age >= 0 && age < CONFIG_CACHE_TTL_MS)) return null;
  const parsed = ConfigSchema.safeParse(cached);
  if (parsed.success) return parsed.data;
  deps.log.warn(
    { repo: key, issues: parsed.error.issues.length },
    'cached configuration no longer parses: reading it again',
  );
  return null;
};

/**
 * The configuration of the default branch, or null while the repository's configuration is
 * invalid: callers then do nothing else. The config is cached in the store (shared by replicas)
 * for CONFIG_CACHE_TTL_MS; a push to the default branch drops it. A stored invalid state is
 * cleared only by `checkConfigOnCommit` on a default-branch commit.
 */
export const getRepoConfig = async (
  deps: ConfigDeps,
  gh: ConfigPort,
  { owner, repo }: { owner: string; repo: string },
): Promise<ArbiterConfig | null> => {
  const key = `${owner}/${repo}`;
  const state = await deps.store.getConfigState(key);
  if (!state.valid) return null;
  const cached = freshCachedConfig(deps, key, state.config, state.loadedAt);
  if (cached) return cached;
  // Jobs of this process that miss together share one read (per generation: a push since starts afresh).
  return configFlight(deps.store, `config\u0000${key}\u0000${state.generation}`, async () => {
    // A flight that settled between this job's read of the state and now has cached the config:
    // taken from the store, not read again (the miss was only this job's stale read).
    const now = await deps.store.getConfigState(key);
    if (!now.valid) return null;
    return (
      freshCachedConfig(deps, key, now.config, now.loadedAt) ??
      loadDefaultConfig(deps, gh, { owner, repo }, now.generation)
    );
  });
};

/** Reads the default branch's config and caches it, or marks the repository's config invalid. */
const loadDefaultConfig = async (
  deps: ConfigDeps,
  gh: ConfigPort,
  { owner, repo }: { owner: string; repo: string },
  generation: number,
): Promise<ArbiterConfig | null> => {
  const key = `${owner}/${repo}`;
  const loadedAt = deps.clock.now().toISOString();
  const result = await loadRepoConfig(gh, { owner, repo });
  if (result.ok) {
    await deps.store.cacheConfig(key, { config: result.config, loadedAt, generation });
    return result.config;
  }
  deps.log.warn({ repo: key, errors: result.errors.length }, 'invalid .github/arbiter.yml on the default branch');
  // A push since this load began may have fixed it: then the mark is not recorded (the push's own
  // config check decides), and this event is left alone like any other while the config is unsure.
  const marked = await deps.store.markConfigInvalid(
    key,
    `invalid on the default branch:\n${formatConfigErrors(result.errors)}`,
    generation,
  );
  // A config broken before Arbiter was installed (no push has checked it yet): the failing check on
  // the branch's head names the lines. Shown once, when it is marked; a failure to show it leaves the
  // mark (pull requests' checks and commands' replies still point at the problem).
  if (marked) {
    try {
      const head = await gh.branchHead({ owner, repo, branch: await gh.defaultBranch({ owner, repo }) });
      await showConfigCheck(deps, gh, { owner, repo, sha: head }, result);
    } catch (error) {
      deps.log.warn({ repo: key, err: error }, 'the failing config check could not be shown on the default branch');
    }
  }
  return null;
};
