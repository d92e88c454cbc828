// The store's room for each repository's configuration: its validity and the cached parsed config,
// guarded by a generation so a stale read never overwrites a newer invalidation.
import type { Db } from './db.ts';
import { parseRow, ValidRow, ConfigStateRow, ConfigProblemsRow } from './rows.ts';
import type { Store } from './types.ts';

export function configStore(
  db: Db,
): Pick<
  Store,
  | 'setConfigValid'
  | 'markConfigInvalid'
  | 'isConfigValid'
  | 'getConfigState'
  | 'configProblems'
  | 'cacheConfig'
  | 'dropCachedConfig'
> {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];
  const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);
  return {
    async setConfigValid(repo, valid, detail) {
      await db.query(
        `INSERT INTO repo_config (repo, valid, detail, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (repo) DO UPDATE SET valid = EXCLUDED.valid, detail = EXCLUDED.detail, updated_at = now(),
           config = CASE WHEN EXCLUDED.valid THEN repo_config.config END,
           loaded_at = CASE WHEN EXCLUDED.valid THEN repo_config.loaded_at END`,
        [repo, valid, detail],
      );
    },
    async markConfigInvalid(repo, detail, generation) {
      const res = await db.query(
        `INSERT INTO repo_config (repo, valid, detail, generation, updated_at) VALUES ($1, false, $2, $3, now())
         ON CONFLICT (repo) DO UPDATE SET valid = false, detail = EXCLUDED.detail, config = NULL, loaded_at = NULL, updated_at = now()
           WHERE repo_config.generation = EXCLUDED.generation
         RETURNING repo`,
        [repo, detail, generation],
      );
      return res.rows.length > 0;
    },
    async isConfigValid(repo) {
      const r = await one('SELECT valid FROM repo_config WHERE repo = $1', [repo]);
      // A repository never checked has the default config, which is valid.
      return r ? parseRow(ValidRow, r, 'repo config').valid : true;
    },
    async getConfigState(repo) {
      const r = await one('SELECT valid, config, loaded_at, generation FROM repo_config WHERE repo = $1', [repo]);
      if (!r) return { valid: true, config: null, loadedAt: null, generation: 0 };
      const row = parseRow(ConfigStateRow, r, 'repo config');
      return { valid: row.valid, config: row.config ?? null, loadedAt: row.loaded_at, generation: row.generation };
    },
    async configProblems(repo) {
      const r = await one('SELECT valid, detail FROM repo_config WHERE repo = $1', [repo]);
      if (!r) return '';
      const row = parseRow(ConfigProblemsRow, r, 'repo config');
      // The detail's first line says where it was found (`invalid on the default branch:`); the rest are the problems.
      return row.valid ? '' : row.detail.split('\n').slice(1).join('\n');
    },
    async cacheConfig(repo, { config, loadedAt, generation }) {
      // Over an existing row, only while it is valid and no invalidation moved its generation.
      const res = await db.query(
        `INSERT INTO repo_config (repo, valid, detail, config, loaded_at, generation) VALUES ($1, true, '', $2, $3, $4)
         ON CONFLICT (repo) DO UPDATE SET config = EXCLUDED.config, loaded_at = EXCLUDED.loaded_at
           WHERE repo_config.valid AND repo_config.generation = EXCLUDED.generation
         RETURNING repo`,
        [repo, json(config), loadedAt, generation],
      );
      return res.rows.length > 0;
    },
    async dropCachedConfig(repo) {
      await db.query(
        `INSERT INTO repo_config (repo, valid, detail, generation) VALUES ($1, true, '', 1)
         ON CONFLICT (repo) DO UPDATE SET config = NULL, loaded_at = NULL, generation = repo_config.generation + 1`,
        [repo],
      );
    },
  };
}
