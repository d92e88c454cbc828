// The store's room for webhook deliveries: recorded once by their id (a redelivery is seen as
// one, and runs again only when its job failed for good), listed while unfinished, and marked
// done or failed with the event that says why.
import { z } from 'zod';
import type { Db } from './db.ts';
import { DeliveryRow, parseRow, parseRows } from './rows.ts';
import type { NewDelivery, Store } from './types.ts';

const TextIdRow = z.object({ id: z.string() });
const SeenRow = z.object({ id: z.string(), done: z.boolean(), reruns: z.coerce.number().int() });
const PendingRow = z.object({ id: z.string(), reruns: z.coerce.number().int() });
const LaterRow = z.object({ subject: z.string(), check_name: z.string().nullable() });
const CheckRow = z.object({
  check_name: z.string().nullable(),
  evaluated: z.boolean(),
  delivered: z.array(z.string()).nullable(),
});
/** Later deliveries one job looks at for one that reads: a head's burst of check events is far fewer. */
const LATER_LOOKED_AT = 100;
const json = (v: unknown): string => JSON.stringify(v === undefined ? null : v);

/** A stored JSON text read back; text that does not parse reads as null (the job then drops it, saying why). */
function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function deliveryStore(
  db: Db,
): Pick<
  Store,
  | 'recordDelivery'
  | 'recordDeliveries'
  | 'getDelivery'
  | 'listPendingDeliveries'
  | 'markDeliveryDone'
  | 'failDelivery'
  | 'knownDeliveries'
  | 'yieldsToLaterDelivery'
  | 'getDeliveryCheck'
> {
  const one = async (text: string, params: unknown[]) => (await db.query(text, params)).rows[0];
  return {
    async recordDelivery(id, event, payload) {
      const res = await db.query(
        'INSERT INTO deliveries (id, event, payload) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
        [id, event, json(payload)],
      );
      return res.rowCount === 1;
    },
    async recordDeliveries(deliveries, tx = db) {
      const first = new Map<string, NewDelivery>();
      for (const d of deliveries) if (!first.has(d.id)) first.set(d.id, d);
      const unique = [...first.values()];
      if (unique.length === 0) return [];
      const params: unknown[] = [];
      // Rows in id order: concurrent groups that share ids lock them in the same order (no deadlock).
      const values = [...unique]
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((d) => {
          params.push(d.id, d.event, json(d.payload), d.subject ?? null, d.subject ? (d.check ?? null) : null);
          const n = params.length;
          return `($${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}, $${n})`;
        });
      const inserted = await tx.query(
        `INSERT INTO deliveries (id, event, payload, subject, check_name) VALUES ${values.join(', ')} ON CONFLICT (id) DO NOTHING RETURNING id`,
        params,
      );
      const fresh = new Set(parseRows(TextIdRow, inserted.rows, 'delivery').map((r) => r.id));
      const seen = unique.filter((d) => !fresh.has(d.id)).map((d) => d.id);
      // Only a redelivery costs more statements: one whose job failed for good runs again (its
      // next re-run); is the one recorded before already done?
      const before = new Map<string, { done: boolean; reruns: number }>();
      if (seen.length > 0) {
        await tx.query(
          'UPDATE deliveries SET done_at = NULL, failed_at = NULL, error = NULL, reruns = reruns + 1 WHERE id = ANY($1::text[]) AND failed_at IS NOT NULL',
          [seen],
        );
        const res = await tx.query(
          'SELECT id, done_at IS NOT NULL AS done, reruns FROM deliveries WHERE id = ANY($1::text[])',
          [seen],
        );
        for (const r of parseRows(SeenRow, res.rows, 'delivery')) before.set(r.id, { done: r.done, reruns: r.reruns });
      }
      return unique.map((d) => {
        const b = before.get(d.id);
        return {
          id: d.id,
          fresh: fresh.has(d.id),
          done: b?.done ?? false,
          ...(b && b.reruns > 0 ? { rerun: b.reruns } : {}),
        };
      });
    },
    async getDelivery(id) {
      const row = await one('SELECT id, event, payload, done_at, error FROM deliveries WHERE id = $1', [id]);
      if (!row) return null;
      const d = parseRow(DeliveryRow, row, 'delivery');
      return { id: d.id, event: d.event, payload: parseJsonText(d.payload), doneAt: d.done_at, error: d.error };
    },
    async listPendingDeliveries(limit) {
      const res = await db.query(
        'SELECT id, reruns FROM deliveries WHERE done_at IS NULL ORDER BY received_at, id LIMIT $1',
        [limit],
      );
      return parseRows(PendingRow, res.rows, 'delivery').map((r) => ({
        id: r.id,
        ...(r.reruns > 0 ? { rerun: r.reruns } : {}),
      }));
    },
    async yieldsToLaterDelivery(id, subjects, reads = () => true) {
      // The later pending deliveries on the subjects, oldest first; this one yields to the first
      // that reads (`reads`, by the check it names and its head). When there is none, this one is marked as gone
      // past (a retry of it then never yields: it may hold claims).
      const res = await db.query(
        `WITH me AS (SELECT id, received_at, evaluated_at FROM deliveries WHERE id = $1)
         SELECT d.subject, d.check_name FROM deliveries d, me
         WHERE me.evaluated_at IS NULL AND d.subject = ANY($2::text[]) AND d.done_at IS NULL AND d.id <> me.id
           AND (d.received_at, d.id) > (me.received_at, me.id)
         ORDER BY d.received_at, d.id
         LIMIT $3`,
        [id, subjects, LATER_LOOKED_AT],
      );
      const later = parseRows(LaterRow, res.rows, 'delivery').find((d) => reads(d.check_name, d.subject));
      if (later) return later.subject;
      await db.query('UPDATE deliveries SET evaluated_at = now() WHERE id = $1 AND evaluated_at IS NULL', [id]);
      return null;
    },
    async getDeliveryCheck(id) {
      // With it, every check whose conclusion was delivered on the same head (this one included).
      const row = await one(
        `SELECT d.check_name, d.evaluated_at IS NOT NULL AS evaluated,
           (SELECT array_agg(DISTINCT o.check_name ORDER BY o.check_name) FROM deliveries o
             WHERE o.subject = d.subject AND o.check_name IS NOT NULL) AS delivered
         FROM deliveries d WHERE d.id = $1`,
        [id],
      );
      if (!row) return null;
      const d = parseRow(CheckRow, row, 'delivery');
      return { check: d.check_name, evaluated: d.evaluated, delivered: d.delivered ?? [] };
    },
    async knownDeliveries(ids) {
      if (ids.length === 0) return new Set();
      const res = await db.query('SELECT id FROM deliveries WHERE id = ANY($1::text[])', [ids]);
      return new Set(parseRows(TextIdRow, res.rows, 'delivery').map((r) => r.id));
    },
    async markDeliveryDone(id, error) {
      await db.query('UPDATE deliveries SET done_at = now(), error = $2 WHERE id = $1', [id, error ?? null]);
    },
    async failDelivery(id, reason, event) {
      await db.transaction(async (tx) => {
        await tx.query('UPDATE deliveries SET done_at = now(), failed_at = now(), error = $2 WHERE id = $1', [
          id,
          reason,
        ]);
        await tx.query(
          `INSERT INTO events (repo, kind, data, at) VALUES ($1, 'delivery-failed', $2::jsonb, $3::timestamptz)`,
          [event.repo, json(event.data), event.at],
        );
      });
    },
  };
}
