// The store's ledger: receipts (why each decision was taken), events, and the applied-action
// keys that make every write idempotent (claimed once, by one statement, across replicas).
import type { Receipt } from '../core/receipt.ts';
import type { Db } from './db.ts';
import { StoreError } from './errors.ts';
import {
  ClaimRow,
  IdRow,
  KeyResultRow,
  parseRow,
  parseRows,
  ReceiptRowSchema,
  readReceiptRow,
  ResultRow,
} from './rows.ts';
import type { Store } from './types.ts';

const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

export type LedgerStore = Pick<
  Store,
  | 'addReceipt'
  | 'listReceipts'
  | 'readReceipts'
  | 'addEvent'
  | 'getAppliedAction'
  | 'getAppliedActions'
  | 'claimAppliedAction'
  | 'recordAppliedAction'
  | 'putAppliedAction'
  | 'listAppliedActions'
  | 'pruneAppliedActions'
  | 'pruneAppliedActionsMatching'
  | 'forgetAppliedAction'
>;

export function ledgerStore(db: Db): LedgerStore {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];
  return {
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
        'SELECT id, kind, repo, change, round, at, data FROM receipts WHERE repo = $1 AND change = $2 ORDER BY id',
        [repo, change],
      );
      return parseRows(ReceiptRowSchema, res.rows, 'receipt').map(readReceiptRow);
    },
    async readReceipts(query) {
      const res =
        query.id === undefined
          ? await db.query('SELECT id, kind, repo, change, round, at, data FROM receipts ORDER BY id')
          : await db.query('SELECT id, kind, repo, change, round, at, data FROM receipts WHERE id = $1', [query.id]);
      return parseRows(ReceiptRowSchema, res.rows, 'receipt').map(readReceiptRow);
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
    async putAppliedAction(key, result, at) {
      await db.query(
        `INSERT INTO applied_actions (key, result, at) VALUES ($1, $2::jsonb, $3::timestamptz)
         ON CONFLICT (key) DO UPDATE SET result = EXCLUDED.result, at = EXCLUDED.at`,
        [key, json(result ?? {}), at],
      );
    },
    async listAppliedActions(prefix, limit, without) {
      // The prefix is matched as text: LIKE's own wildcards in it are escaped.
      const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const res = await db.query(
        `SELECT key, result FROM applied_actions WHERE key LIKE $1 AND ($3::text IS NULL OR strpos(key, $3::text) = 0)
         ORDER BY key LIMIT $2`,
        [pattern, limit, without ?? null],
      );
      return parseRows(KeyResultRow, res.rows, 'applied action').map((r) => ({ key: r.key, result: r.result ?? {} }));
    },
    async forgetAppliedAction(key) {
      const res = await db.query('DELETE FROM applied_actions WHERE key = $1', [key]);
      return (res.rowCount ?? 0) > 0;
    },
    async pruneAppliedActions(prefix, before) {
      const res = await db.query("DELETE FROM applied_actions WHERE key LIKE $1 || '%' AND at < $2::timestamptz", [
        prefix,
        before,
      ]);
      return res.rowCount ?? 0;
    },
    async pruneAppliedActionsMatching(pattern, before) {
      const res = await db.query('DELETE FROM applied_actions WHERE key ~ $1 AND at < $2::timestamptz', [
        pattern,
        before,
      ]);
      return res.rowCount ?? 0;
    },
  };
}
