// What the selection planner knows of a winner's merge, as read in the decision's own group query
// and recorded in its receipt (src/core/receipt.ts); the merge path is chosen from it
// (src/core/plan/merge-path.ts).
import { z } from 'zod';

export const MergeMethod = z.enum(['merge', 'squash', 'rebase']);

/** What the planner knows of the winner's merge now; absent in receipts recorded before it was read. */
export const MergeView = z.object({
  /** GitHub's `mergeStateStatus` (CLEAN, HAS_HOOKS, UNSTABLE, BLOCKED, BEHIND, DIRTY, DRAFT, UNKNOWN). */
  status: z.string(),
  /** `reviewDecision`: APPROVED, CHANGES_REQUESTED, REVIEW_REQUIRED, or null when no review is required. */
  reviewDecision: z.string().nullable(),
  inMergeQueue: z.boolean(),
  autoMergeAllowed: z.boolean(),
  /** The merge methods the repository allows (empty: not known). */
  methods: z.array(MergeMethod),
  /** "Require branches to be up to date before merging" on the base. */
  strict: z.boolean(),
  /** Arbiter already updated this winner's branch once (a second fall behind goes to a person). */
  branchUpdated: z.boolean(),
});
export type MergeView = z.infer<typeof MergeView>;

export type MergeMethod = z.infer<typeof MergeMethod>;
