// The Store (src/store/types.ts) over one SQL dialect, on PGlite or PostgreSQL. Claims are single
// conditional statements so replicas sharing one PostgreSQL never both win.
import { z } from 'zod';
import type { CandidateState, Receipt } from '../core/types.ts';
import { openDb, type Db, type OpenDbOptions } from './db.ts';
import { StoreError } from './errors.ts';
import { migrate } from './migrations.ts';
import { budgetStore } from './budget-store.ts';
import { deliveryStore } from './delivery-store.ts';
import { configStore } from './config-store.ts';
import { portfolioStore } from './portfolio-store.ts';
import {
  CandidateRowSchema,
  ChangeRowSchema,
  DataRow,
  IdRow,
  parseRow,
  parseRows,
  PatchRowSchema,
  ReceiptRowSchema,
  ReceiptSchema,
  ResultRow,
  KeyResultRow,
  ClaimRow,
  RoundRowSchema,
  SelectionRow,
} from './rows.ts';
import type { CandidateRow, ChangeRow, ClaimResult, EvidenceKind, PatchRow, RoundRow, Store } from './types.ts';

export type StoreWithDb = Store & { db: Db };


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

const toRound = (r: ReturnType<typeof RoundRowSchema.parse>): RoundRow => ({
  id: r.id,
  repo: r.repo,
  change: r.change,
  base: r.base,
  number: r.number,
  selection: r.selection,
  decision: r.decision ?? null,
  openedAt: r.opened_at,
  decidedAt: r.decided_at,
});

const ROUND_COLUMNS = 'id, repo, change, base, number, selection, decision, opened_at, decided_at';
const CANDIDATE_COLUMNS = 'repo, pr, change, base, head_sha, author, state, reason, head_seen_at, created_at';

/** Opens the database (PGlite when no URL), applies migrations, and returns the store. */
export async function createStore(opts: OpenDbOptions = {}): Promise<StoreWithDb> {
  const db = await openDb(opts);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return storeOver(db);
}

/** The store over an already migrated database. */
export function storeOver(db: Db): StoreWithDb {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];

  const store: StoreWithDb = {
    db,
    ...deliveryStore(db),
    ...portfolioStore(db),
    ...budgetStore(db),
    ...configStore(db),

    // ------------------------------------------------------------------ Changes
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
        [row.repo, row.pr, row.change, row.base, row.headSha, row.author, row.state, row.reason, row.headSeenAt ?? null],
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
      const res = await db.query(`SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE repo = $1 AND change = $2 ORDER BY pr`, [repo, change]);
      return parseRows(CandidateRowSchema, res.rows, 'candidate').map(toCandidate);
    },
    async listCandidatesByHead(repo, headSha) {
      const res = await db.query(`SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE repo = $1 AND head_sha = $2 ORDER BY pr`, [repo, headSha]);
      return parseRows(CandidateRowSchema, res.rows, 'candidate').map(toCandidate);
    },
    async listCandidatesInState(state) {
      const res = await db.query(`SELECT ${CANDIDATE_COLUMNS} FROM candidates WHERE state = $1 ORDER BY repo, pr`, [state]);
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

    // ------------------------------------------------------------------ per-head material
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

    // ------------------------------------------------------------------ rounds
    async currentRound(repo, change, base, now) {
      await db.query(
        `INSERT INTO rounds (repo, change, base, number, opened_at)
         SELECT $1, $2, $3, 1, $4::timestamptz
         WHERE NOT EXISTS (SELECT 1 FROM rounds WHERE repo = $1 AND change = $2 AND base = $3)
         ON CONFLICT (repo, change, base, number) DO NOTHING`,
        [repo, change, base, now],
      );
      return newestRound(repo, change, base);
    },
    async openNextRound(repo, change, base, fromRound, now) {
      // Inserting n+1 only when n exists and nothing newer does; concurrent callers meet on
      // the unique key and all read the same newest round.
      await db.query(
        `INSERT INTO rounds (repo, change, base, number, opened_at)
         SELECT $1, $2, $3, $4::int + 1, $5::timestamptz
         WHERE (SELECT max(number) FROM rounds WHERE repo = $1 AND change = $2 AND base = $3) = $4::int
         ON CONFLICT (repo, change, base, number) DO NOTHING`,
        [repo, change, base, fromRound, now],
      );
      return newestRound(repo, change, base);
    },
    async claimRound(roundId, claimant): Promise<ClaimResult> {
      const res = await db.query('UPDATE rounds SET selection = $2 WHERE id = $1 AND selection IS NULL', [
        roundId,
        claimant,
      ]);
      if (res.rowCount === 1) return 'claimed';
      const r = await one('SELECT selection FROM rounds WHERE id = $1', [roundId]);
      if (!r) throw new StoreError('not-found', `round ${roundId} does not exist`);
      return parseRow(SelectionRow, r, 'round').selection === claimant ? 'mine' : 'taken';
    },
    async releaseRound(roundId, claimant) {
      const res = await db.query('UPDATE rounds SET selection = NULL WHERE id = $1 AND selection = $2 AND decision IS NULL', [roundId, claimant]);
      return res.rowCount === 1;
    },
    async recordDecision(roundId, decision, now, claimant) {
      // The first decision stands, and only the round's claimant records one: a run whose claim
      // was given back meanwhile (a sibling pending again) records nothing.
      const res = await db.query(
        'UPDATE rounds SET decision = $2::jsonb, decided_at = $3::timestamptz WHERE id = $1 AND decision IS NULL AND selection = $4',
        [roundId, json(decision), now, claimant],
      );
      return res.rowCount === 1;
    },
    async getRound(roundId) {
      const r = await one(`SELECT ${ROUND_COLUMNS} FROM rounds WHERE id = $1`, [roundId]);
      return r ? toRound(parseRow(RoundRowSchema, r, 'round')) : null;
    },
    async listUnfinishedRounds(limit) {
      const columns = ROUND_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ');
      const res = await db.query(
        `SELECT ${columns} FROM rounds r JOIN changes c ON c.repo = r.repo AND c.number = r.change
         WHERE r.selection IS NOT NULL AND c.state <> 'cancelled'
           AND NOT EXISTS (SELECT 1 FROM applied_actions a WHERE a.key = 'round-done:' || r.id)
           AND r.number = (SELECT max(n.number) FROM rounds n WHERE n.repo = r.repo AND n.change = r.change AND n.base = r.base)
         ORDER BY r.id DESC LIMIT $1`,
        [limit],
      );
      return parseRows(RoundRowSchema, res.rows, 'round').map(toRound);
    },

    // ------------------------------------------------------------------ receipts, events, actions
    async addReceipt(receipt: Receipt) {
      const r = await one(
        `INSERT INTO receipts (kind, repo, change, round, at, data) VALUES ($1, $2, $3, $4, $5::timestamptz, $6::jsonb)
         RETURNING id`,
        [receipt.kind, receipt.repo, receipt.change, receipt.round, receipt.at, json(receipt.data)],
      );
      return parseRow(IdRow, r, 'receipt').id;
    },
    async listReceipts(repo, change) {
      const res = await db.query(
        'SELECT kind, repo, change, round, at, data FROM receipts WHERE repo = $1 AND change = $2 ORDER BY id',
        [repo, change],
      );
      return parseRows(ReceiptRowSchema, res.rows, 'receipt').map((r) => parseRow(ReceiptSchema, r, 'receipt'));
    },
    async addEvent(repo, kind, data, at) {
      await db.query('INSERT INTO events (repo, kind, data, at) VALUES ($1, $2, $3::jsonb, $4::timestamptz)', [
        repo,
        kind,
        json(data),
        at,
      ]);
    },
    /** A recorded result of `null`/`undefined` reads back as `{}` (null means "not applied"). */
    async getAppliedAction(key) {
      const r = await one('SELECT result FROM applied_actions WHERE key = $1', [key]);
      if (!r) return null;
      return parseRow(ResultRow, r, 'applied action').result ?? {};
    },
    async getAppliedActions(keys) {
      const found = new Map<string, unknown>();
      if (keys.length === 0) return found;
      const res = await db.query('SELECT key, result FROM applied_actions WHERE key = ANY($1::text[])', [keys]);
      for (const r of parseRows(KeyResultRow, res.rows, 'applied action')) found.set(r.key, r.result ?? {});
      return found;
    },
    async claimAppliedAction(key, result, at) {
      // One statement: the row this call inserted, or the one already there. A row committed
      // by a concurrent insert after this statement's snapshot is read by a second statement.
      const r =
        (await one(
          `WITH ins AS (
             INSERT INTO applied_actions (key, result, at) VALUES ($1, $2::jsonb, $3::timestamptz)
             ON CONFLICT (key) DO NOTHING RETURNING result
           )
           SELECT result, true AS inserted FROM ins
           UNION ALL SELECT result, false AS inserted FROM applied_actions WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
          [key, json(result ?? {}), at],
        )) ?? (await one('SELECT result, false AS inserted FROM applied_actions WHERE key = $1', [key]));
      if (!r) throw new StoreError('not-found', `applied action ${key} vanished after its insert`);
      const row = parseRow(ClaimRow, r, 'applied action');
      return { result: row.result ?? {}, inserted: row.inserted };
    },
    async recordAppliedAction(key, result, at) {
      await db.query(
        `INSERT INTO applied_actions (key, result, at) VALUES ($1, $2::jsonb, $3::timestamptz)
         ON CONFLICT (key) DO NOTHING`,
        [key, json(result ?? {}), at],
      );
    },

    async close() {
      await db.close();
    },
  };

  async function newestRound(repo: string, change: number, base: string): Promise<RoundRow> {
    const r = await one(
      `SELECT ${ROUND_COLUMNS} FROM rounds WHERE repo = $1 AND change = $2 AND base = $3 ORDER BY number DESC LIMIT 1`,
      [repo, change, base],
    );
    if (!r) throw new StoreError('not-found', `no round for ${repo}#${change} on ${base}`);
    return toRound(parseRow(RoundRowSchema, r, 'round'));
  }

  return store;
}
