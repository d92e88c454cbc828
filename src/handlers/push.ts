// push: any push to the default branch drops the cached configuration; a commit there that
// touches `.github/arbiter.yml` (or lands while the stored configuration is invalid) gets the
// `Arbiter / config` check, which records the repository's validity while it is the branch head.
import { z } from 'zod';
import { checkConfigOnCommit, type ConfigDeps } from '../config/check.ts';
import { CONFIG_PATH } from '../config/errors.ts';
import type { ConfigPort } from '../github/config-reads.ts';
import type { Store } from '../store/types.ts';

/** What a push needs of `Deps` (a full `Deps` fits). */
export type PushDeps = ConfigDeps & { store: ConfigDeps['store'] & Pick<Store, 'dropCachedConfig'> };

const Push = z.object({
  ref: z.string(),
  after: z.string(),
  deleted: z.boolean().optional(),
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
  // Always, whatever `commits` lists: the payload lists only some of the pushed commits.
  await deps.store.dropCachedConfig(`${owner}/${repo}`);
  const touched = p.commits.some((c) => [...c.added, ...c.modified, ...c.removed].includes(CONFIG_PATH));
  if (!touched && (await deps.store.isConfigValid(`${owner}/${repo}`))) return;
  await checkConfigOnCommit(deps, gh, {
    owner,
    repo,
    sha: p.after,
    ref: p.ref,
    defaultBranch: p.repository.default_branch,
  });
}
