// Zod schemas of the rows read back from the database, and the one function that parses them:
// a row that does not match is a StoreError, never a cast.
import { z } from 'zod';
import { CandidateState, ChangeState, Criterion } from '../core/types.ts';
import { Receipt } from '../core/receipt.ts';
import type { Row } from './db.ts';
import { StoreError } from './errors.ts';

/** A receipt read back: `receipt` is null when the row does not parse (recorded by an older version). */
export interface StoredReceipt {
  id: number;
  kind: string;
  round: number;
  receipt: Receipt | null;
  /** Why the row does not parse; empty when it does. */
  issues: string[];
  /** The row as recorded ({ kind, repo, change, round, at, data }), for a replay to report on. */
  recorded: unknown;
}

/** Timestamps come back as Date (pg, PGlite) or text; either way the store hands out ISO strings. */
export const iso = z.union([z.date(), z.string()]).transform((v, ctx) => {
  const d = v instanceof Date ? v : new Date(v);
  if (Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: 'custom', message: `not a timestamp: ${String(v)}` });
    return z.NEVER;
  }
  return d.toISOString();
});
/** bigint columns come back as strings from pg. */
export const int = z
  .union([z.number(), z.string().regex(/^-?\d+$/), z.bigint()])
  .transform((v) => Number(v))
  .pipe(z.number().int());

export const DeliveryRow = z.object({
  id: z.string(),
  event: z.string(),
  payload: z.string(),
  done_at: iso.nullable(),
  error: z.string().nullable(),
});

export const ChangeRowSchema = z.object({
  repo: z.string(),
  number: int,
  installation_id: int,
  title: z.string(),
  body: z.string(),
  criteria: z.array(Criterion),
  state: ChangeState,
  updated_at: iso,
});

export const CandidateRowSchema = z.object({
  repo: z.string(),
  pr: int,
  change: int,
  base: z.string(),
  head_sha: z.string(),
  author: z.string(),
  state: CandidateState,
  reason: z.string(),
  head_seen_at: iso,
  created_at: iso,
});

export const PatchRowSchema = z.object({
  repo: z.string(),
  pr: int,
  head_sha: z.string(),
  merge_base: z.string(),
  patch: z.string(),
  truncated: z.boolean(),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.string(),
      additions: z.number(),
      deletions: z.number(),
      binary: z.boolean().optional(),
    }),
  ),
});

export const RoundRowSchema = z.object({
  id: int,
  repo: z.string(),
  change: int,
  base: z.string(),
  number: int,
  selection: z.string().nullable(),
  decision: z.unknown(),
  opened_at: iso,
  decided_at: iso.nullable(),
});

export const ReceiptRowSchema = z.object({
  id: int,
  kind: z.string(),
  repo: z.string(),
  change: int,
  round: int,
  at: iso,
  data: z.unknown(),
});

/** A receipt row, parsed as a receipt of its kind, or reported with the issues: never cast. */
export function readReceiptRow(row: z.output<typeof ReceiptRowSchema>): StoredReceipt {
  const { id, ...recorded } = row;
  return { id, ...readReceiptValue(recorded) };
}

/** A receipt as recorded anywhere (a row, a file): parsed, or reported with the issues. */
export function readReceiptValue(recorded: unknown): Omit<StoredReceipt, 'id'> {
  const head = z
    .object({ kind: z.string().catch('unknown'), round: z.number().catch(0) })
    .catch({ kind: 'unknown', round: 0 })
    .parse(recorded);
  const parsed = Receipt.safeParse(recorded);
  const issues = parsed.success
    ? []
    : parsed.error.issues.map((i) => `${i.path.join('.') || '(receipt)'}: ${i.message}`);
  return { kind: head.kind, round: head.round, receipt: parsed.success ? parsed.data : null, issues, recorded };
}

export const DataRow = z.object({ data: z.unknown() });
export const ResultRow = z.object({ result: z.unknown() });
export const KeyResultRow = z.object({ key: z.string(), result: z.unknown() });
export const ClaimRow = z.object({ result: z.unknown(), inserted: z.boolean() });
export const RepairRow = z.object({ pr: int, at: iso });
export const ValidRow = z.object({ valid: z.boolean() });
export const ConfigStateRow = z.object({
  valid: z.boolean(),
  config: z.unknown(),
  loaded_at: iso.nullable(),
  generation: int,
});
export const ConfigProblemsRow = z.object({ valid: z.boolean(), detail: z.string() });
export const IdRow = z.object({ id: int });
export const BudgetRow = z.object({ scope: z.string(), calls: int });
export const SelectionRow = z.object({ selection: z.string().nullable() });
export const KeptEventsRow = z.object({ events: int });

/** Parses one row; a mismatch names the table and the issues. */
export function parseRow<S extends z.ZodType>(schema: S, row: Row | undefined, what: string): z.output<S> {
  const parsed = schema.safeParse(row);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(row)'}: ${i.message}`).join('; ');
    throw new StoreError('bad-row', `bad ${what} row: ${issues}`);
  }
  return parsed.data;
}

export const parseRows = <S extends z.ZodType>(schema: S, rows: Row[], what: string): z.output<S>[] =>
  rows.map((r) => parseRow(schema, r, what));
