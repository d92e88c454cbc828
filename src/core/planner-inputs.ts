// The inputs of the planners whose receipts replay besides the selection, the rejection, the cancel
// and the repair timeout (core/receipt.ts): a person's promotion, the answer to a merge, a shipped
// candidate, a round its claimant gave up, a combined candidate and a portfolio's wide round. Each
// schema reads back what its planner takes, as the store keeps it (JSON: no maps, no undefined).
import { z } from 'zod';
import { MergeView } from './merge-view.ts';
import { CandidateEvidence, CandidateState, ChangeState, Criterion } from './types.ts';

const pr = z.number().int();
const MergeMethod = z.enum(['merge', 'squash', 'rebase']);

/** What a person's promotion decides on (core/plan/promotion.ts). */
export const PromotionInputs = z.object({
  repo: z.string(),
  pr,
  user: z.string(),
  source: z.string(),
  method: MergeMethod,
  mergeQueue: z.boolean().optional(),
  branch: z.object({ requiredReviews: z.number().int(), mergeQueue: z.boolean() }).optional(),
  merge: MergeView.optional(),
  reviewers: z.object({ users: z.array(z.string()), teams: z.array(z.string()) }).optional(),
  candidate: z
    .object({
      change: z.number().int(),
      standing: z
        .discriminatedUnion('kind', [
          z.object({ kind: z.literal('open') }),
          z.object({ kind: z.literal('lost'), reopened: z.boolean(), shipped: pr.nullable() }),
          z.object({ kind: z.literal('rejected'), reason: z.string() }),
        ])
        .optional(),
    })
    .nullable(),
  prefix: z.string().optional(),
  group: z
    .object({
      round: z.number().int(),
      waiting: z.string().nullable(),
      evidence: z
        .object({ headSha: z.string(), gate: z.object({ promotable: z.boolean(), reason: z.string() }) })
        .nullable(),
      isDraft: z.boolean(),
    })
    .nullable(),
  now: z.string(),
});

/** What the answer to a merge decides on (core/plan/after-merge.ts). */
export const MergeAnswerInputs = z.object({
  repo: z.string(),
  change: z.number().int(),
  round: z.number().int(),
  pr,
  sha: z.string(),
  scope: z.string(),
  result: z.union([
    z.object({ ok: z.literal(true), queued: z.boolean(), updated: z.boolean().optional() }),
    z.object({ ok: z.literal(false), status: z.number().int(), message: z.string() }),
  ]),
  method: MergeMethod.optional(),
  branchUpdated: z.boolean().optional(),
  text: z.string().optional(),
  now: z.string(),
});

/** What a shipped candidate's plan decides on (core/plan/after-merge.ts). */
export const ShippedInputs = z.object({
  repo: z.string(),
  change: z.number().int(),
  round: z.number().int(),
  pr,
  sha: z.string(),
  by: z.string().nullable(),
  method: MergeMethod,
  winnerCheck: z.boolean(),
  stale: z.array(z.object({ pr, headSha: z.string(), awaiting: z.boolean(), rejected: z.boolean().optional() })),
  combined: z
    .object({ pr, sources: z.array(pr) })
    .nullable()
    .optional(),
  now: z.string(),
});

/** What the sweep decides on when a round's retry budget is spent (core/plan/sweep.ts). */
export const ResumeGivenUpInputs = z.object({
  repo: z.string(),
  change: z.number().int(),
  round: z.number().int(),
  base: z.string(),
  attempts: z.number().int(),
  error: z.string(),
  prefix: z.string(),
  now: z.string(),
});

/**
 * What a combined candidate's receipt is planned from (core/combine.ts): the proposal and what came of
 * the build (null: shadow mode kept it back, which is the receipt's mode). Both are read with their
 * own schemas by the replay, as core/combine.ts imports the receipt's types. (Receipts recorded before
 * the mode was read from the outcome also hold a `mode` input, dropped when read.)
 */
export const CombineInputs = z.object({
  repo: z.string(),
  proposal: z.unknown(),
  outcome: z.unknown(),
  now: z.string(),
});

/**
 * What follows a rebuild merge of a combined candidate's moved parent (core/plan/combine-rebuild.ts):
 * GitHub refused it (`answer`), or it landed (`merged`). The combine record is read with its own
 * schema by the replay, as for a combine.
 */
export const RebuildEndedInputs = z.object({
  repo: z.string(),
  record: z.unknown(),
  headSha: z.string(),
  source: pr,
  sha: z.string(),
  answer: z.object({ ok: z.literal(false), status: z.number().int(), message: z.string() }),
  now: z.string(),
});
export const RebuiltInputs = z.object({
  repo: z.string(),
  record: z.unknown(),
  merged: z.array(z.object({ pr, sha: z.string().nullable() })),
  headSha: z.string(),
  now: z.string(),
});

/** What GitHub ending a winner's auto-merge or queue entry decides on (core/plan/auto-merge-lost.ts). */
export const AutoMergeLostInputs = z.object({
  repo: z.string(),
  change: z.object({ number: z.number().int(), criteria: z.array(Criterion) }),
  base: z.string(),
  pr,
  lost: z.enum(['auto-merge', 'queue']),
  // The store's mark (core/plan/auto-merge-off.ts `AutoMergeOn`, not imported: that file imports the actions).
  on: z.object({ pr, sha: z.string(), round: z.number().int(), queue: z.boolean().optional() }).nullable(),
  reason: z.string(),
  by: z.string(),
  byPerson: z.boolean(),
  live: z
    .object({
      open: z.boolean(),
      headSha: z.string(),
      baseRef: z.string(),
      autoMergeBy: z.string().nullable(),
      inMergeQueue: z.boolean(),
      merge: MergeView.nullable(),
    })
    .nullable(),
  bot: z.string(),
  changeState: ChangeState.nullable(),
  candidateState: CandidateState.nullable(),
  round: z.object({ number: z.number().int(), ships: z.object({ pr, sha: z.string() }).nullable() }),
  actedBefore: z.boolean(),
  method: MergeMethod,
  branch: z.object({ requiredReviews: z.number().int(), mergeQueue: z.boolean() }),
  prefix: z.string(),
  evidence: CandidateEvidence.nullable(),
  repoUrl: z.string().nullable(),
  reviewers: z.object({ users: z.array(z.string()), teams: z.array(z.string()) }),
  now: z.string(),
});

/** One row of a ranking as a receipt records it (core/types.ts `RankedCandidate`). */
export const RankRow = z.object({
  pr,
  rank: z.number().int(),
  promotable: z.boolean(),
  met: z.number().int(),
  gaps: z.number().int(),
  score: z.number().nullable(),
  passing: z.number().int(),
});

/** What a portfolio's wide round decides on (core/plan/portfolio.ts), its readings by PR. */
export const WideInputs = z.object({
  repo: z.string(),
  change: z.object({ number: z.number().int(), title: z.string(), criteria: z.array(Criterion) }),
  portfolio: z.number().int(),
  round: z.number().int(),
  policy: z.enum(['top-k', 'successive-halving']),
  k: z.number().int(),
  siblings: z.array(CandidateEvidence),
  /** The policy's choice: who goes deep, who closes, and the ranking both rest on. */
  step: z.object({ kind: z.literal('chosen'), deep: z.array(pr), out: z.array(pr), ranking: z.array(RankRow) }),
  readings: z.record(z.string(), z.array(z.number())),
  unanswered: z.array(z.object({ pr, askedAt: z.string() })),
  slots: z.array(
    z.object({
      slot: z.string(),
      approach: z.string(),
      state: z.enum(['composing', 'open', 'dropped']),
      pr: pr.nullable(),
      reason: z.string(),
      untrusted: z.object({ pr, author: z.string(), reason: z.string() }).nullable().optional(),
    }),
  ),
  unlinked: z.array(z.object({ pr, slot: z.string() })),
  config: z.object({
    mode: z.enum(['live', 'shadow']),
    commands: z.object({ prefix: z.string() }).optional(),
  }),
  scoreCheck: z.string(),
  now: z.string(),
});
export type WideInputs = z.infer<typeof WideInputs>;
