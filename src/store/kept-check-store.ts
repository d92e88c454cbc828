// The store's room for check events that name a head no candidate has recorded yet (its
// `synchronize` or `opened` webhook is still on its way): kept, one row per head, and taken
// when that head is recorded, so a check that came first is applied instead of dropped. A head
// whose event was left to a later one on a sibling's head is kept too, until a run verifies it
// (src/handlers/checks.ts); the sweep verifies what is still kept after a minute.
import type { Db } from './db.ts';
import { KeptEventsRow, parseRows } from './rows.ts';
import type { Store } from './types.ts';
import { z } from 'zod';

const KeptHeadRow = z.object({ repo: z.string(), head_sha: z.string() });

export function keptCheckStore(
  db: Db,
): Pick<Store, 'keepCheckEvent' | 'takeKeptCheckEvents' | 'pruneKeptCheckEvents' | 'listKeptCheckEvents'> {
  return {
    async keepCheckEvent(repo, headSha, at) {
      await db.query(
        `INSERT INTO kept_check_events (repo, head_sha, events, kept_at) VALUES ($1, $2, 1, $3::timestamptz)
         ON CONFLICT (repo, head_sha) DO UPDATE SET events = kept_check_events.events + 1`,
        [repo, headSha, at],
      );
    },
    async takeKeptCheckEvents(repo, headSha) {
      const res = await db.query('DELETE FROM kept_check_events WHERE repo = $1 AND head_sha = $2 RETURNING events', [
        repo,
        headSha,
      ]);
      return parseRows(KeptEventsRow, res.rows, 'kept check event').reduce((n, r) => n + r.events, 0);
    },
    async listKeptCheckEvents(before, limit) {
      const res = await db.query(
        'SELECT repo, head_sha FROM kept_check_events WHERE kept_at < $1::timestamptz ORDER BY kept_at LIMIT $2',
        [before, limit],
      );
      return parseRows(KeptHeadRow, res.rows, 'kept check event').map((r) => ({ repo: r.repo, headSha: r.head_sha }));
    },
    async pruneKeptCheckEvents(before) {
      const res = await db.query('DELETE FROM kept_check_events WHERE kept_at < $1::timestamptz', [before]);
      return res.rowCount ?? 0;
    },
  };
}
