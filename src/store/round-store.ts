// The store's room for rounds: one per Change and base branch and number, claimed by one
// selection run at a time, decided once (the first recorded decision stands).
import type { Db } from './db.ts';
import { StoreError } from './errors.ts';
import { parseRow, parseRows, RoundRowSchema, SelectionRow } from './rows.ts';
import type { ClaimResult, RoundRow, Store } from './types.ts';
import { KEY_NAMESPACES } from '../core/keys.ts';

const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

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

export type RoundStore = Pick<
  Store,
  | 'currentRound'
  | 'openNextRound'
  | 'claimRound'
  | 'releaseRound'
  | 'recordDecision'
  | 'getRound'
  | 'listUnfinishedRounds'
>;

export function roundStore(db: Db): RoundStore {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];

  async function newestRound(repo: string, change: number, base: string): Promise<RoundRow> {
    const r = await one(
      `SELECT ${ROUND_COLUMNS} FROM rounds WHERE repo = $1 AND change = $2 AND base = $3 ORDER BY number DESC LIMIT 1`,
      [repo, change, base],
    );
    if (!r) throw new StoreError('not-found', `no round for ${repo}#${change} on ${base}`);
    return toRound(parseRow(RoundRowSchema, r, 'round'));
  }

  return {
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
      const res = await db.query(
        'UPDATE rounds SET selection = NULL WHERE id = $1 AND selection = $2 AND decision IS NULL',
        [roundId, claimant],
      );
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
      const columns = ROUND_COLUMNS.split(', ')
        .map((c) => `r.${c}`)
        .join(', ');
      const res = await db.query(
        `SELECT ${columns} FROM rounds r JOIN changes c ON c.repo = r.repo AND c.number = r.change
         WHERE r.selection IS NOT NULL AND c.state <> 'cancelled'
           AND NOT EXISTS (SELECT 1 FROM applied_actions a WHERE a.key = $2::text || r.id)
           AND r.number = (SELECT max(n.number) FROM rounds n WHERE n.repo = r.repo AND n.change = r.change AND n.base = r.base)
         ORDER BY r.id DESC LIMIT $1`,
        [limit, KEY_NAMESPACES.roundDone],
      );
      return parseRows(RoundRowSchema, res.rows, 'round').map(toRound);
    },
  };
}
