// push: a push to the default branch drops the cached configuration unless its payload shows,
// beyond doubt, that no pushed commit touched `.github/arbiter.yml`; a commit there that
// touches `.github/arbiter.yml` (or lands while the stored configuration is invalid) gets the
// `Arbiter / config` check, which records the repository's validity while it is the branch head.
import { z } from 'zod';
import { checkConfigOnCommit, type ConfigDeps } from '../config/check.ts';
import { CONFIG_PATH } from '../core/config-file.ts';
import type { ConfigPort } from '../config/port.ts';
import { executeUpkeep, type UpkeepStore } from '../workflows/execute-records.ts';

/** What a push needs of `Deps` (a full `Deps` fits). */
export type PushDeps = ConfigDeps & { store: ConfigDeps['store'] & UpkeepStore };

/** Payloads with this many commits or more may not list every pushed commit. */
export const PUSH_COMMITS_LISTED = 20;

const Push = z.object({
  ref: z.string(),
  before: z.string().optional(),
  after: z.string(),
  deleted: z.boolean().optional(),
  forced: z.boolean().optional(),
  repository: z.object({
    name: z.string(),
    owner: z.object({ login: z.string().optional(), name: z.string().nullable().optional() }),
    default_branch: z.string(),
  }),
  commits: z
    .array(
      z.object({
        added: z.array(z.string()).default([]),
        modified: z.array(z.string()).default([]),
        removed: z.array(z.string()).default([]),
      }),
    )
    .default([]),
});

export async function onPush(deps: PushDeps, gh: ConfigPort, payload: unknown): Promise<void> {
  const parsed = Push.safeParse(payload);
  if (!parsed.success || parsed.data.deleted) return;
  const p = parsed.data;
  if (p.ref !== `refs/heads/${p.repository.default_branch}`) return;
  const owner = p.repository.owner.login ?? p.repository.owner.name ?? '';
  const repo = p.repository.name;
  const touched = p.commits.some((c) => [...c.added, ...c.modified, ...c.removed].includes(CONFIG_PATH));
  // The payload may not list every pushed commit (a long push), a forced push may have removed a
  // change of the file, and a new branch has nothing to compare: then the cache goes whatever it
  // lists. A merge Arbiter made (one listed commit that leaves the file alone) keeps it.
  const listsAll =
    p.forced !== true &&
    p.before !== undefined &&
    !/^0+$/.test(p.before) &&
    p.commits.length > 0 &&
    p.commits.length < PUSH_COMMITS_LISTED;
  if (touched || !listsAll) await executeUpkeep(deps, [{ kind: 'drop-config', repo: `${owner}/${repo}` }]);
  if (!touched && (await deps.store.isConfigValid(`${owner}/${repo}`))) return;
  await checkConfigOnCommit(deps, gh, {
    owner,
    repo,
    sha: p.after,
    ref: p.ref,
    defaultBranch: p.repository.default_branch,
  });
}
