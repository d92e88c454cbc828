// Test helper: writes many groups' store rows (changes, rounds, candidates, patches, evidence,
// applied actions) in one statement per table, for randomised trials where seeding through the
// Store API one row at a time would dominate the run. The rows are the ones the Store writes;
// the workflows read them back through the Store, which validates every row.
import type { Db } from '../../src/store/db.ts';

export interface BulkRows {
  changes: {
    repo: string;
    number: number;
    installation_id: number;
    title: string;
    body: string;
    criteria: unknown;
    state: string;
  }[];
  rounds: { repo: string; change: number; base: string; number: number; opened_at: string }[];
  candidates: {
    repo: string;
    pr: number;
    change: number;
    base: string;
    head_sha: string;
    author: string;
    state: string;
    reason: string;
    head_seen_at: string;
    created_at: string;
  }[];
  patches: {
    repo: string;
    pr: number;
    head_sha: string;
    merge_base: string;
    patch: string;
    truncated: boolean;
    files: unknown;
  }[];
  evidence: { repo: string; pr: number; head_sha: string; kind: string; data: unknown }[];
  applied: { key: string; result: unknown; at: string }[];
}

export const emptyRows = (): BulkRows => ({
  changes: [],
  rounds: [],
  candidates: [],
  patches: [],
  evidence: [],
  applied: [],
});

const STATEMENTS: { table: keyof BulkRows; sql: string }[] = [
  {
    table: 'changes',
    sql: `INSERT INTO changes (repo, number, installation_id, title, body, criteria, state)
          SELECT repo, number, installation_id, title, body, criteria, state FROM jsonb_to_recordset($1::jsonb)
          AS x(repo text, number int, installation_id bigint, title text, body text, criteria jsonb, state text)`,
  },
  {
    table: 'rounds',
    sql: `INSERT INTO rounds (repo, change, base, number, opened_at)
          SELECT repo, change, base, number, opened_at FROM jsonb_to_recordset($1::jsonb)
          AS x(repo text, change int, base text, number int, opened_at timestamptz)`,
  },
  {
    table: 'candidates',
    sql: `INSERT INTO candidates (repo, pr, change, base, head_sha, author, state, reason, head_seen_at, created_at)
          SELECT repo, pr, change, base, head_sha, author, state, reason, head_seen_at, created_at FROM jsonb_to_recordset($1::jsonb)
          AS x(repo text, pr int, change int, base text, head_sha text, author text, state text, reason text, head_seen_at timestamptz, created_at timestamptz)`,
  },
  {
    table: 'patches',
    sql: `INSERT INTO patches (repo, pr, head_sha, merge_base, patch, truncated, files)
          SELECT repo, pr, head_sha, merge_base, patch, truncated, files FROM jsonb_to_recordset($1::jsonb)
          AS x(repo text, pr int, head_sha text, merge_base text, patch text, truncated boolean, files jsonb)`,
  },
  {
    table: 'evidence',
    sql: `INSERT INTO evidence (repo, pr, head_sha, kind, data)
          SELECT repo, pr, head_sha, kind, data FROM jsonb_to_recordset($1::jsonb)
          AS x(repo text, pr int, head_sha text, kind text, data jsonb)`,
  },
  {
    table: 'applied',
    sql: `INSERT INTO applied_actions (key, result, at)
          SELECT key, result, at FROM jsonb_to_recordset($1::jsonb) AS x(key text, result jsonb, at timestamptz)`,
  },
];

export async function bulkSeed(db: Db, rows: BulkRows): Promise<void> {
  for (const { table, sql } of STATEMENTS) {
    if (rows[table].length > 0) await db.query(sql, [JSON.stringify(rows[table])]);
  }
}
