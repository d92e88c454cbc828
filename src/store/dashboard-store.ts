// The store's reads for the dashboard issue: the repository's Changes still in play with their
// candidates and newest rounds, each waiting Change's latest human-gate receipt, and the last
// decisions. A few bounded queries per refresh, whatever the number of Changes.
import { z } from 'zod';
import { Receipt } from '../core/receipt.ts';
import { CandidateState, ChangeState } from '../core/types.ts';
import type { Db } from './db.ts';
import type { Row } from './db.ts';
import { int, iso, parseRows } from './rows.ts';

/** Changes read at most (the dashboard cuts what does not fit GitHub's limit anyway). */
const MAX_CHANGES = 500;

const ChangeLine = z.object({ number: int, title: z.string(), state: ChangeState });
const CandidateLine = z.object({ pr: int, change: int, base: z.string(), state: CandidateState, reason: z.string() });
const RoundLine = z.object({ change: int, base: z.string(), number: int, decision: z.unknown() });
const ReceiptLine = z.object({
  kind: z.string(),
  repo: z.string(),
  change: int,
  round: int,
  at: iso,
  data: z.unknown(),
});

export interface DashboardRows {
  /** Changes open or before a person, by number. */
  changes: z.infer<typeof ChangeLine>[];
  candidates: z.infer<typeof CandidateLine>[];
  /** The newest round of each (Change, base) of those Changes; `decision` null while undecided. */
  rounds: z.infer<typeof RoundLine>[];
  /** The latest HUMAN_GATE receipt of each Change before a person. */
  gates: Receipt[];
  /** The repository's newest decisions (every receipt but per-candidate acceptance), newest first. */
  decisions: Receipt[];
}

export interface DashboardStore {
  /** True once the repository has a Change: the dashboard opens on the first one. */
  hasChanges(repo: string): Promise<boolean>;
  readDashboard(repo: string, decisions: number): Promise<DashboardRows>;
}

const receipts = (rows: Row[], what: string): Receipt[] =>
  parseRows(ReceiptLine, rows, what).flatMap((r) => {
    const parsed = Receipt.safeParse({ ...r, data: r.data ?? {} });
    return parsed.success ? [parsed.data] : [];
  });

export function dashboardStore(db: Db): DashboardStore {
  return {
    async hasChanges(repo) {
      return (await db.query('SELECT 1 FROM changes WHERE repo = $1 LIMIT 1', [repo])).rows.length > 0;
    },
    async readDashboard(repo, limit) {
      const changes = parseRows(
        ChangeLine,
        (
          await db.query(
            `SELECT number, title, state FROM changes WHERE repo = $1 AND state IN ('open', 'human') ORDER BY number LIMIT ${MAX_CHANGES}`,
            [repo],
          )
        ).rows,
        'dashboard change',
      );
      const numbers = changes.map((c) => c.number);
      const candidates = parseRows(
        CandidateLine,
        (
          await db.query(
            'SELECT pr, change, base, state, reason FROM candidates WHERE repo = $1 AND change = ANY($2::int[]) ORDER BY pr',
            [repo, numbers],
          )
        ).rows,
        'dashboard candidate',
      );
      const rounds = parseRows(
        RoundLine,
        (
          await db.query(
            `SELECT DISTINCT ON (change, base) change, base, number, decision FROM rounds
             WHERE repo = $1 AND change = ANY($2::int[]) ORDER BY change, base, number DESC`,
            [repo, numbers],
          )
        ).rows,
        'dashboard round',
      );
      const human = changes.filter((c) => c.state === 'human').map((c) => c.number);
      const gates = receipts(
        (
          await db.query(
            `SELECT DISTINCT ON (change) kind, repo, change, round, at, data FROM receipts
             WHERE repo = $1 AND kind = 'HUMAN_GATE' AND change = ANY($2::int[]) ORDER BY change, id DESC`,
            [repo, human],
          )
        ).rows,
        'dashboard gate',
      );
      const decisions = receipts(
        (
          await db.query(
            `SELECT kind, repo, change, round, at, data FROM receipts WHERE repo = $1 AND kind <> 'ACCEPTANCE' ORDER BY id DESC LIMIT $2`,
            [repo, limit],
          )
        ).rows,
        'dashboard decision',
      );
      return { changes, candidates, rounds, gates, decisions };
    },
  };
}
