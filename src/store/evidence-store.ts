// The store's room for per-head material: each candidate head's patch, and its evidence by kind
// (gate, acceptance), so a restart or a sibling's event never computes them again.
import type { Db } from './db.ts';
import { DataRow, parseRow, PatchRowSchema } from './rows.ts';
import type { EvidenceKind, PatchRow, Store } from './types.ts';

const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

export type EvidenceStore = Pick<Store, 'putPatch' | 'getPatch' | 'putEvidence' | 'getEvidence'>;

export function evidenceStore(db: Db): EvidenceStore {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];
  return {
    async putPatch(row) {
      await db.query(
        `INSERT INTO patches (repo, pr, head_sha, merge_base, patch, truncated, files)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
         ON CONFLICT (repo, pr, head_sha) DO UPDATE SET merge_base = EXCLUDED.merge_base,
           patch = EXCLUDED.patch, truncated = EXCLUDED.truncated, files = EXCLUDED.files`,
        [row.repo, row.pr, row.headSha, row.mergeBase, row.patch, row.truncated, json(row.files)],
      );
    },
    async getPatch(repo, pr, headSha): Promise<PatchRow | null> {
      const r = await one('SELECT * FROM patches WHERE repo = $1 AND pr = $2 AND head_sha = $3', [repo, pr, headSha]);
      if (!r) return null;
      const p = parseRow(PatchRowSchema, r, 'patch');
      return {
        repo: p.repo,
        pr: p.pr,
        headSha: p.head_sha,
        mergeBase: p.merge_base,
        patch: p.patch,
        truncated: p.truncated,
        files: p.files,
      };
    },
    async putEvidence(repo, pr, headSha, kind: EvidenceKind, data) {
      await db.query(
        `INSERT INTO evidence (repo, pr, head_sha, kind, data, updated_at) VALUES ($1, $2, $3, $4, $5::jsonb, now())
         ON CONFLICT (repo, pr, head_sha, kind) DO UPDATE SET data = EXCLUDED.data, updated_at = now()`,
        [repo, pr, headSha, kind, json(data)],
      );
    },
    async getEvidence(repo, pr, headSha, kind) {
      const r = await one('SELECT data FROM evidence WHERE repo = $1 AND pr = $2 AND head_sha = $3 AND kind = $4', [
        repo,
        pr,
        headSha,
        kind,
      ]);
      return r ? (parseRow(DataRow, r, 'evidence').data ?? null) : null;
    },
  };
}
