// The store's portfolio tables (migration 4): explores of a Change, their slots, the candidates
// sent to the deep round and the readings of the scoring check. Composed into the Store; every
// transition is one conditional statement, so two replicas never both make it.
import { z } from 'zod';
import type { Db } from './db.ts';
import { parseRow, parseRows } from './rows.ts';

export type PortfolioPhase = 'wide' | 'deep' | 'done';
export type SlotState = 'composing' | 'open' | 'dropped';
export type DeepState = 'awaiting' | 'arrived' | 'expired';

export interface PortfolioRow {
  repo: string;
  change: number;
  /** 1 for a Change's first explore, 2 for its second… */
  number: number;
  base: string;
  baseSha: string;
  policy: 'top-k' | 'successive-halving';
  k: number;
  phase: PortfolioPhase;
  /** The selection round on `base` that ranks the wide candidates. */
  wideRound: number;
  requestedBy: string;
  /** The run that started it (a retry of that run continues it). */
  token: string;
  startedAt: string;
}

export interface SlotRow {
  repo: string;
  change: number;
  slot: string;
  portfolio: number;
  approach: string;
  state: SlotState;
  pr: number | null;
  reason: string;
  dispatchedAt: string;
}

export interface DeepRow {
  repo: string;
  change: number;
  portfolio: number;
  pr: number;
  /** The head the wide round judged; a new head on the PR is the refine's answer. */
  headSha: string;
  state: DeepState;
  dispatchedAt: string;
}

export interface ReadingRow {
  repo: string;
  change: number;
  portfolio: number;
  pr: number;
  run: number;
  value: number;
}

export interface PortfolioStore {
  /**
   * Starts explore `row.number` unless another explore of the Change is still running (wide, or
   * deep with a refine awaited). A run holding the running one under its token gets it back.
   */
  startPortfolio(row: PortfolioRow): Promise<{ started: boolean; portfolio: PortfolioRow }>;
  latestPortfolio(repo: string, change: number): Promise<PortfolioRow | null>;
  /** Explores in the wide round that started before `before` (ISO), across repositories (the sweep). */
  listWideSince(before: string): Promise<PortfolioRow[]>;
  /** Moves the phase on from `from`; true when this call did. */
  setPortfolioPhase(
    repo: string,
    change: number,
    number: number,
    from: PortfolioPhase,
    to: PortfolioPhase,
  ): Promise<boolean>;
  addSlots(rows: SlotRow[]): Promise<void>;
  listSlots(repo: string, change: number, portfolio: number): Promise<SlotRow[]>;
  getSlot(repo: string, change: number, slot: string): Promise<SlotRow | null>;
  /** A composing slot gets its PR; false when the slot was not composing. */
  fillSlot(repo: string, change: number, slot: string, pr: number): Promise<boolean>;
  /** A composing slot is dropped with the reason; false when it was not composing. */
  dropSlot(repo: string, change: number, slot: string, reason: string): Promise<boolean>;
  /** Composing slots dispatched before `before` (ISO), across repositories (the sweep). */
  listComposingSince(before: string): Promise<SlotRow[]>;
  addDeep(rows: DeepRow[]): Promise<void>;
  listDeep(repo: string, change: number, portfolio: number): Promise<DeepRow[]>;
  /** An awaited refine arrived or expired; the explore is done once none is awaited. True when this call settled it. */
  settleDeep(
    repo: string,
    change: number,
    portfolio: number,
    pr: number,
    state: 'arrived' | 'expired',
  ): Promise<boolean>;
  listAwaitingDeepSince(before: string): Promise<DeepRow[]>;
  putReadings(rows: ReadingRow[]): Promise<void>;
  listReadings(repo: string, change: number, portfolio: number): Promise<ReadingRow[]>;
  /** Agent dispatches a Change has cost so far (slots and refines, every explore). */
  portfolioDispatches(repo: string, change: number): Promise<number>;
}

const iso = z.union([z.date(), z.string()]).transform((v) => (v instanceof Date ? v : new Date(v)).toISOString());
const int = z
  .union([z.number(), z.string().regex(/^-?\d+$/)])
  .transform(Number)
  .pipe(z.number().int());

const PortfolioDbRow = z.object({
  repo: z.string(),
  change: int,
  number: int,
  base: z.string(),
  base_sha: z.string(),
  policy: z.enum(['top-k', 'successive-halving']),
  k: int,
  phase: z.enum(['wide', 'deep', 'done']),
  wide_round: int,
  requested_by: z.string(),
  token: z.string(),
  started_at: iso,
});
const SlotDbRow = z.object({
  repo: z.string(),
  change: int,
  slot: z.string(),
  portfolio: int,
  approach: z.string(),
  state: z.enum(['composing', 'open', 'dropped']),
  pr: int.nullable(),
  reason: z.string(),
  dispatched_at: iso,
});
const DeepDbRow = z.object({
  repo: z.string(),
  change: int,
  portfolio: int,
  pr: int,
  head_sha: z.string(),
  state: z.enum(['awaiting', 'arrived', 'expired']),
  dispatched_at: iso,
});
const ReadingDbRow = z.object({
  repo: z.string(),
  change: int,
  portfolio: int,
  pr: int,
  run: int,
  value: z.union([z.number(), z.string()]).transform(Number),
});
const CountRow = z.object({ n: int });

const toPortfolio = (r: z.output<typeof PortfolioDbRow>): PortfolioRow => ({
  repo: r.repo,
  change: r.change,
  number: r.number,
  base: r.base,
  baseSha: r.base_sha,
  policy: r.policy,
  k: r.k,
  phase: r.phase,
  wideRound: r.wide_round,
  requestedBy: r.requested_by,
  token: r.token,
  startedAt: r.started_at,
});
const toSlot = (r: z.output<typeof SlotDbRow>): SlotRow => ({
  repo: r.repo,
  change: r.change,
  slot: r.slot,
  portfolio: r.portfolio,
  approach: r.approach,
  state: r.state,
  pr: r.pr,
  reason: r.reason,
  dispatchedAt: r.dispatched_at,
});
const toDeep = (r: z.output<typeof DeepDbRow>): DeepRow => ({
  repo: r.repo,
  change: r.change,
  portfolio: r.portfolio,
  pr: r.pr,
  headSha: r.head_sha,
  state: r.state,
  dispatchedAt: r.dispatched_at,
});

const PORTFOLIO_COLUMNS =
  'repo, change, number, base, base_sha, policy, k, phase, wide_round, requested_by, token, started_at';
const SLOT_COLUMNS = 'repo, change, slot, portfolio, approach, state, pr, reason, dispatched_at';
const DEEP_COLUMNS = 'repo, change, portfolio, pr, head_sha, state, dispatched_at';

/** A running explore: wide, or deep while a refine is awaited. */
const RUNNING = `(p.phase = 'wide' OR (p.phase = 'deep' AND EXISTS (
  SELECT 1 FROM portfolio_deep d WHERE d.repo = p.repo AND d.change = p.change AND d.portfolio = p.number AND d.state = 'awaiting')))`;

export function portfolioStore(db: Db): PortfolioStore {
  const latest = async (repo: string, change: number): Promise<PortfolioRow | null> => {
    const r = (
      await db.query(
        `SELECT ${PORTFOLIO_COLUMNS} FROM portfolios WHERE repo = $1 AND change = $2 ORDER BY number DESC LIMIT 1`,
        [repo, change],
      )
    ).rows[0];
    return r ? toPortfolio(parseRow(PortfolioDbRow, r, 'portfolio')) : null;
  };
  return {
    async startPortfolio(row) {
      const inserted = await db.query(
        `INSERT INTO portfolios (${PORTFOLIO_COLUMNS})
         SELECT $1, $2, $3, $4, $5, $6, $7, 'wide', $8, $9, $10, $11
         WHERE NOT EXISTS (SELECT 1 FROM portfolios p WHERE p.repo = $1 AND p.change = $2 AND ${RUNNING})
         ON CONFLICT DO NOTHING`,
        [
          row.repo,
          row.change,
          row.number,
          row.base,
          row.baseSha,
          row.policy,
          row.k,
          row.wideRound,
          row.requestedBy,
          row.token,
          row.startedAt,
        ],
      );
      const now = await latest(row.repo, row.change);
      if (!now) return { started: false, portfolio: row };
      return {
        started: inserted.rowCount === 1 || (now.number === row.number && now.token === row.token),
        portfolio: now,
      };
    },
    latestPortfolio: latest,
    async listWideSince(before) {
      const res = await db.query(
        `SELECT ${PORTFOLIO_COLUMNS} FROM portfolios WHERE phase = 'wide' AND started_at < $1 ORDER BY started_at LIMIT 500`,
        [before],
      );
      return parseRows(PortfolioDbRow, res.rows, 'portfolio').map(toPortfolio);
    },
    async setPortfolioPhase(repo, change, number, from, to) {
      const res = await db.query(
        'UPDATE portfolios SET phase = $5 WHERE repo = $1 AND change = $2 AND number = $3 AND phase = $4',
        [repo, change, number, from, to],
      );
      return res.rowCount === 1;
    },
    async addSlots(rows) {
      for (const s of rows) {
        await db.query(
          `INSERT INTO portfolio_slots (${SLOT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
          [s.repo, s.change, s.slot, s.portfolio, s.approach, s.state, s.pr, s.reason, s.dispatchedAt],
        );
      }
    },
    async listSlots(repo, change, portfolio) {
      const res = await db.query(
        `SELECT ${SLOT_COLUMNS} FROM portfolio_slots WHERE repo = $1 AND change = $2 AND portfolio = $3 ORDER BY dispatched_at, slot`,
        [repo, change, portfolio],
      );
      return parseRows(SlotDbRow, res.rows, 'portfolio slot').map(toSlot);
    },
    async getSlot(repo, change, slot) {
      const r = (
        await db.query(`SELECT ${SLOT_COLUMNS} FROM portfolio_slots WHERE repo = $1 AND change = $2 AND slot = $3`, [
          repo,
          change,
          slot,
        ])
      ).rows[0];
      return r ? toSlot(parseRow(SlotDbRow, r, 'portfolio slot')) : null;
    },
    async fillSlot(repo, change, slot, pr) {
      const res = await db.query(
        `UPDATE portfolio_slots SET state = 'open', pr = $4, reason = '' WHERE repo = $1 AND change = $2 AND slot = $3 AND state = 'composing'`,
        [repo, change, slot, pr],
      );
      return res.rowCount === 1;
    },
    async dropSlot(repo, change, slot, reason) {
      const res = await db.query(
        `UPDATE portfolio_slots SET state = 'dropped', reason = $4 WHERE repo = $1 AND change = $2 AND slot = $3 AND state = 'composing'`,
        [repo, change, slot, reason],
      );
      return res.rowCount === 1;
    },
    async listComposingSince(before) {
      const res = await db.query(
        `SELECT ${SLOT_COLUMNS} FROM portfolio_slots WHERE state = 'composing' AND dispatched_at < $1 ORDER BY dispatched_at LIMIT 500`,
        [before],
      );
      return parseRows(SlotDbRow, res.rows, 'portfolio slot').map(toSlot);
    },
    async addDeep(rows) {
      for (const d of rows) {
        await db.query(
          `INSERT INTO portfolio_deep (${DEEP_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
          [d.repo, d.change, d.portfolio, d.pr, d.headSha, d.state, d.dispatchedAt],
        );
      }
    },
    async listDeep(repo, change, portfolio) {
      const res = await db.query(
        `SELECT ${DEEP_COLUMNS} FROM portfolio_deep WHERE repo = $1 AND change = $2 AND portfolio = $3 ORDER BY pr`,
        [repo, change, portfolio],
      );
      return parseRows(DeepDbRow, res.rows, 'portfolio deep').map(toDeep);
    },
    async settleDeep(repo, change, portfolio, pr, state) {
      const res = await db.query(
        `UPDATE portfolio_deep SET state = $5 WHERE repo = $1 AND change = $2 AND portfolio = $3 AND pr = $4 AND state = 'awaiting'`,
        [repo, change, portfolio, pr, state],
      );
      await db.query(
        `UPDATE portfolios p SET phase = 'done' WHERE p.repo = $1 AND p.change = $2 AND p.number = $3 AND p.phase = 'deep' AND NOT ${RUNNING}`,
        [repo, change, portfolio],
      );
      return res.rowCount === 1;
    },
    async listAwaitingDeepSince(before) {
      const res = await db.query(
        `SELECT ${DEEP_COLUMNS} FROM portfolio_deep WHERE state = 'awaiting' AND dispatched_at < $1 ORDER BY dispatched_at LIMIT 500`,
        [before],
      );
      return parseRows(DeepDbRow, res.rows, 'portfolio deep').map(toDeep);
    },
    async putReadings(rows) {
      for (const r of rows) {
        await db.query(
          'INSERT INTO portfolio_readings (repo, change, portfolio, pr, run, value) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING',
          [r.repo, r.change, r.portfolio, r.pr, r.run, r.value],
        );
      }
    },
    async listReadings(repo, change, portfolio) {
      const res = await db.query(
        'SELECT repo, change, portfolio, pr, run, value FROM portfolio_readings WHERE repo = $1 AND change = $2 AND portfolio = $3 ORDER BY pr, run',
        [repo, change, portfolio],
      );
      return parseRows(ReadingDbRow, res.rows, 'portfolio reading');
    },
    async portfolioDispatches(repo, change) {
      const res = await db.query(
        `SELECT ((SELECT count(*) FROM portfolio_slots WHERE repo = $1 AND change = $2) + (SELECT count(*) FROM portfolio_deep WHERE repo = $1 AND change = $2))::int AS n`,
        [repo, change],
      );
      return parseRow(CountRow, res.rows[0], 'dispatch count').n;
    },
  };
}
