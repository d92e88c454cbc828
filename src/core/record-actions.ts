// The ledger's and the Change's store records as plan actions (src/core/actions.ts joins them to
// the plan's union), and the store's upkeep, which no repository's plan holds. Each is applied by
// the executor (workflows/execute-records.ts); none changes anything on GitHub.
import { z } from 'zod';
import { ChangeState, Criterion } from './types.ts';

const keyed = { key: z.string() };
const pr = z.number().int();

export const RECORD_ACTIONS = [
  /**
   * Deletes the record under `record`, a mark that only says "work to do" (a group's waiting lists
   * behind), taken by whoever does it; the answer says whether it was there. Kept in shadow mode.
   */
  z.object({ kind: z.literal('forget'), ...keyed, record: z.string() }),
  /**
   * Takes the mark of the auto-merge (or queue entry) Arbiter enabled on `pr` at `sha`, under
   * `marker`, only while it still names that one (a later winner's is its own). It follows the
   * withdrawal that ends it: dropped in shadow mode with that withdrawal, so the mark stays.
   */
  z.object({ kind: z.literal('take-mark'), ...keyed, marker: z.string(), pr, sha: z.string() }),
  /**
   * Writes `value` under `record`, another key than the action's: `replace` overwrites what is
   * there (a mark that a later one replaces), else the first write stands. Kept in shadow mode.
   */
  z.object({
    kind: z.literal('put-record'),
    ...keyed,
    record: z.string(),
    value: z.unknown(),
    replace: z.boolean(),
  }),
  /** Stores the Change's issue as read (its title, body, criteria) in `state`. Kept in shadow mode: a record. */
  z.object({
    kind: z.literal('upsert-change'),
    ...keyed,
    change: z.object({
      number: pr,
      installationId: z.number().int(),
      title: z.string(),
      body: z.string(),
      criteria: z.array(Criterion),
      state: ChangeState,
    }),
  }),
] as const;

/**
 * The store's upkeep: store-wide, no repository's plan and no mode. Each is idempotent (a prune
 * repeated deletes nothing more, a cache dropped twice is dropped), so it is applied without a
 * key's claim and record, which would only grow the table the prune keeps small.
 */
export const UpkeepAction = z.discriminatedUnion('kind', [
  /**
   * Deletes the ledger's records (`applied_actions`) that can no longer matter: each rule's keys (by
   * their `prefix`, or a POSIX regular expression `pattern`, built in keys.ts) recorded before its
   * `before`; and the check events kept before `keptBefore` (a head no run recorded within that time).
   */
  z.object({
    kind: z.literal('prune'),
    ledger: z.array(
      z.union([
        z.object({ prefix: z.string(), before: z.string() }),
        z.object({ pattern: z.string(), before: z.string() }),
      ]),
    ),
    keptBefore: z.string(),
  }),
  /** Drops a repository's cached configuration: its next event reads `.github/arbiter.yml` again. */
  z.object({ kind: z.literal('drop-config'), repo: z.string() }),
]);
export type UpkeepAction = z.infer<typeof UpkeepAction>;
