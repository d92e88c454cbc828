// The store's room for Changes and their candidates: one row per Change (its criteria and state)
// and one per linked pull request (its head, base and state in the lifecycle).
import type { CandidateState } from '../core/types.ts';
import type { Db } from './db.ts';
import { CandidateRowSchema, ChangeRowSchema, parseRow, parseRows } from './rows.ts';
import type { CandidateRow, ChangeRow, Store } from './types.ts';

const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

const toChange = (r: ReturnType<typeof ChangeRowSchema.parse>): ChangeRow => ({
  repo: r.repo,
  number: r.number,
  installationId: r.installation_id,
  title: r.title,
  body: r.body,
  criteria: r.criteria,
  state: r.state,
  updatedAt: r.updated_at,
});

const toCandidate = (r: ReturnType<typeof CandidateRowSchema.parse>): CandidateRow => ({
  repo: r.repo,
  pr: r.pr,
  change: r.change,
  base: r.base,
  headSha: r.head_sha,
  author: r.author,
  state: r.state,
  reason: r.reason,
  headSeenAt: r.head_seen_at,
  createdAt: r.created_at,
});

const CANDIDATE_COLUMNS = 'repo, pr, change, base, head_sha, author, state, reason, head_seen_at, created_at';

export type ChangeStore = Pick<
  Store,
  | 'upsertChange'
  | 'getChange'
  | 'setChangeState'
  | 'upsertCandidate'
  | 'getCandidate'
  | 'listCandidates'
  | 'listCandidatesOfChange'
  | 'listCandidatesByHead'
  | 'listCandidatesInState'
  | 'listVerifyingSince'
  | 'setCandidateState'
>;

export function changeStore(db: Db): ChangeStore {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];
  return {
    async upsertChange(row) {
      const r = await one(
        `INSERT INTO changes (repo, number, installation_id, title, body, criteria, state, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, now())
         ON CONFLICT (repo, number) DO UPDATE SET installation_id = EXCLUDED.installation_id,
           title = EXCLUDED.title, body = EXCLUDED.body, criteria = EXCLUDED.criteria,
           state = EXCLUDED.state, updated_at = now()
         RETURNING *`,
        [row.repo, row.number, row.installationId, row.title, row.body, json(row.criteria), row.state],
      );
      return toChange(parseRow(ChangeRowSchema, r, 'change'));
    },
    async getChange(repo, number) {
      const r = await one('SELECT * FROM changes WHERE repo = $1 AND number = $2', [repo, number]);
      return r ? toChange(parseRow(ChangeRowSchema, r, 'change')) : null;
    },
    async setChangeState(repo, number, state) {
      await db.query('UPDATE changes SET state = $3, updated_at = now() WHERE repo = $1 AND number = $2', [
        repo,
        number,
        state,
      ]);
    },

    // ------------------------------------------------------------------ candidates
    async upsertCandidate(row) {
      // head_seen_at restarts only when the head sha changes: it times the current head.
      const r = await one(
        `INSERT INTO candidates (${CANDIDATE_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now()), COALESCE($9::timestamptz, now()))
         ON CONFLICT (repo, pr) DO UPDATE SET change = EXCLUDED.change, base = EXCLUDED.base,
           author = EXCLUDED.author, state = EXCLUDED.state, reason = EXCLUDED.reason,
           head_seen_at = CASE WHEN candidates.head_sha = EXCLUDED.head_sha THEN candidates.head_seen_at
                               ELSE EXCLUDED.head_seen_at END,
           head_sha = EXCLUDED.head_sha
         RETURNING ${CANDIDATE_COLUMNS}`,
        [
          row.repo,
          row.pr,
          row.change,
          row.base,
          row.headSha,
          row.author,
          row.state,
          row.reason,
          row.headSeenAt ?? null,
        ],
      );
      return toCandidate(parseRow(CandidateRowSchema, r, 'candidate'));
    },
    async getCandidate(repo, pr) {
      const r = await one(`SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE repo = $1 AND pr = $2`, [repo, pr]);
      return r ? toCandidate(parseRow(CandidateRowSchema, r, 'candidate')) : null;
    },
    async listCandidates(repo, change, base) {
      const res = await db.query(
        `SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE repo = $1 AND change = $2 AND base = $3 ORDER BY pr`,
        [repo, change, base],
      );
      return parseRows(CandidateRowSchema, res.rows, 'candidate').map(toCandidate);
    },
    async listCandidatesOfChange(repo, change) {
      const res = await db.query(
        `SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE repo = $1 AND change = $2 ORDER BY pr`,
        [repo, change],
      );
      return parseRows(CandidateRowSchema, res.rows, 'candidate').map(toCandidate);
    },
    async listCandidatesByHead(repo, headSha) {
      const res = await db.query(
        `SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE repo = $1 AND head_sha = $2 ORDER BY pr`,
        [repo, headSha],
      );
      return parseRows(CandidateRowSchema, res.rows, 'candidate').map(toCandidate);
    },
    async listCandidatesInState(state) {
      const res = await db.query(`SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE state = $1 ORDER BY repo, pr`, [
        state,
      ]);
      return parseRows(CandidateRowSchema, res.rows, 'candidate').map(toCandidate);
    },
    async listVerifyingSince(before) {
      const res = await db.query(
        `SELECT ${CANDIDATE_COLUMNS} FROM candidates
         WHERE state = 'verifying' AND head_seen_at < $1::timestamptz ORDER BY repo, pr`,
        [before],
      );
      return parseRows(CandidateRowSchema, res.rows, 'candidate').map(toCandidate);
    },
    async setCandidateState(repo, pr, state: CandidateState, reason) {
      await db.query('UPDATE candidates SET state = $3, reason = $4 WHERE repo = $1 AND pr = $2', [
        repo,
        pr,
        state,
        reason,
      ]);
    },
  };
}
