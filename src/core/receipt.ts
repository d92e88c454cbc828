// Decision receipts (DESIGN.md section 1), a zod union by `kind`: each kind with its own data. A
// CANDIDATE_SELECTION receipt also carries the full inputs of its decision and the outcome it
// planned, so the pure planner can be run again on it (src/core/replay.ts).
import { z } from 'zod';
import { MergeView } from './merge-view.ts';
import { CheckRunButton } from './check-run.ts';
import {
  CandidateEvidence,
  Criterion,
  Diagnostics,
  JudgeComparison,
  JudgeOutcome,
  RiskLevel,
  RiskPolicy,
} from './types.ts';
import { SetRecord } from './candidate-set.ts';
import {
  CombineInputs,
  MergeAnswerInputs,
  PromotionInputs,
  ResumeGivenUpInputs,
  ShippedInputs,
  WideInputs,
  RankRow,
  RebuildEndedInputs,
  RebuiltInputs,
  AutoMergeLostInputs,
} from './planner-inputs.ts';

const pr = z.number().int();
const MergeMethod = z.enum(['merge', 'squash', 'rebase']);

/** The config values the selection planner reads (a subset of `.github/arbiter.yml`, normalised). */
export const SelectionConfig = z.object({
  mode: z.enum(['live', 'shadow']),
  acceptance: z.object({ required: z.boolean() }),
  policy: RiskPolicy.extend({ mergeMethod: MergeMethod }),
  repair: z.object({ enabled: z.boolean(), timeout: z.number() }),
  commands: z.object({ prefix: z.string() }),
});
export type SelectionConfig = z.infer<typeof SelectionConfig>;

/**
 * Picks the values the planner reads, so a receipt keeps exactly those: the schema's own fields,
 * copied (parsing drops every other key of the whole config it may be given).
 */
export const selectionConfigOf = (c: SelectionConfig): SelectionConfig => SelectionConfig.parse(c);

export const EarlierRound = z.object({ round: z.number().int(), summary: z.string() });
export type EarlierRound = z.infer<typeof EarlierRound>;

/**
 * A pull request that links the Change but is not compared (its author has no write access, or
 * is a bot not in `trust.agents`), as recorded when it got its one neutral check.
 */
export const NotCompared = z.object({
  pr: z.number().int().positive(),
  author: z.string(),
  /** Why it is not a candidate, one clause ("@x has no write access here (read access)"). */
  reason: z.string(),
  /** The config line that would trust its author (an unlisted bot). */
  trustWith: z.string().optional(),
  /** The portfolio slot its `Arbiter-slot:` line answers, when it names one. */
  slot: z.string().optional(),
});
export type NotCompared = z.infer<typeof NotCompared>;

/** What the comparison shows beside the evidence; all optional. */
export const SelectionDisplay = z.object({
  /** `https://github.com/owner/name`, for links; unset: plain `#N` references. */
  repoUrl: z.string().nullable().optional(),
  /** Each candidate's PR title, by PR number. */
  titles: z.record(z.string(), z.string()).optional(),
  /** The earlier rounds of this Change, kept below the current one. */
  earlier: z.array(EarlierRound).optional(),
  /** Linked pull requests that were not compared, and how each is admitted. */
  notCompared: z.array(NotCompared).optional(),
});
export type SelectionDisplay = z.infer<typeof SelectionDisplay>;

/** Everything the selection planner decides on, except the ranking (computed from the siblings). */
export const SelectionInputs = z.object({
  repo: z.string(), // owner/name
  change: z.object({ number: z.number().int(), title: z.string(), criteria: z.array(Criterion) }),
  round: z.number().int(),
  base: z.string(),
  siblings: z.array(CandidateEvidence),
  /** The judge's answer as code validated it; null when there was no tie to break. */
  judge: JudgeOutcome.nullable(),
  diagnostics: Diagnostics,
  config: SelectionConfig,
  /** Repair enabled in config and not yet used for this Change. */
  repairAvailable: z.boolean(),
  reviewers: z.object({ users: z.array(z.string()), teams: z.array(z.string()) }),
  branch: z.object({ requiredReviews: z.number().int(), mergeQueue: z.boolean() }),
  /** What GitHub says now of merging each promotable candidate, by PR (absent in receipts recorded before it was read). */
  merge: z.record(z.string(), MergeView).optional(),
  /** Which PRs are still drafts (mark-ready is planned only for those). */
  drafts: z.array(pr),
  now: z.string(),
  buttons: z.array(CheckRunButton),
  display: SelectionDisplay.optional(),
  /** Extra lines for the comparison, e.g. why no combined candidate came of two siblings. */
  notes: z.array(z.string()).optional(),
  /** The Change's combined candidate and the siblings it combines: if it wins, they close "Combined into #C". */
  combined: z
    .object({ pr, sources: z.array(pr) })
    .nullable()
    .optional(),
  /**
   * The Change's candidate sets as recorded (members in other repositories, their gate and their
   * acceptance evidence), GitHub's web address for links to members, and `composite.order` (the
   * order a winning set's members merge in); absent before sets were ranked.
   */
  sets: z
    .object({ records: z.array(SetRecord), web: z.string().nullable(), order: z.array(z.string()).optional() })
    .optional(),
});
export type SelectionInputs = z.infer<typeof SelectionInputs>;

export const SelectionData = z.object({
  verdict: z.enum(['ship', 'human', 'repair']),
  winner: pr.nullable(),
  repairTarget: pr.nullable(),
  beforePerson: z.array(pr),
  losers: z.array(z.object({ pr, reason: z.string().optional() })),
  ranking: z.array(RankRow),
  judge: z
    .object({
      comparison: JudgeComparison,
      winner: pr.nullable(),
      reason: z.string(),
      source: JudgeOutcome.shape.source,
      evidence: z.array(z.string()),
    })
    .nullable(),
  risk: z.object({ risk: RiskLevel, reasons: z.array(z.string()) }).nullable(),
  diagnostics: Diagnostics,
  mode: z.enum(['live', 'shadow']),
  headline: z.string().optional(),
  /** Each candidate set of the round on the ranking keys, with its members (absent: no set took part). */
  sets: z
    .array(
      RankRow.omit({ pr: true }).extend({
        set: z.string(),
        members: z.array(z.string()),
        outcome: z.enum(['won', 'tied', 'lost', 'open']),
        reason: z.string().optional(),
      }),
    )
    .optional(),
  /** The planner's inputs; absent on receipts recorded before receipts replayed. */
  inputs: SelectionInputs.optional(),
  /** The planned actions, one line each (src/core/replay.ts), to compare a replay with. */
  outcome: z.array(z.string()).optional(),
});
export type SelectionData = z.infer<typeof SelectionData>;

const Reviewers = z.object({ users: z.array(z.string()), teams: z.array(z.string()) });

/** What the sweep's repair-timeout planner decides on (src/core/plan/sweep.ts). */
export const RepairTimeoutInputs = z.object({
  repo: z.string(),
  change: z.number().int(),
  round: z.number().int(),
  base: z.string(),
  /** The candidate the repair was for, and whether a person rejected it (then it never ships). */
  repairOf: z.object({ pr, rejected: z.boolean() }),
  /** Who goes before the person: the repair's candidate, or (when it was rejected) the open siblings. */
  targets: z.array(z.object({ pr, headSha: z.string() })),
  reviewers: Reviewers,
  timeout: z.number(), // seconds
  prefix: z.string(),
  /** The round's recorded selection plan (read with its own schema by the replay: plan-schema.ts imports this file). */
  decided: z.unknown(),
  /** The buttons of a check that waits for a person. */
  buttons: z.array(CheckRunButton),
  now: z.string(),
});
export type RepairTimeoutInputs = z.infer<typeof RepairTimeoutInputs>;

/** The configured mode, as a planner that takes it for its words records it (the rest of the config is not kept). */
const ModeOnly = z.object({ mode: z.enum(['live', 'shadow']) });

/**
 * Inputs recorded before those planners took the config for their words held `shadow: true | false`
 * (issue 26): read as that mode.
 */
function legacyShadow(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('shadow' in value) || 'config' in value) return value;
  const rest = Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'shadow'));
  return { ...rest, config: { mode: value.shadow === true ? 'shadow' : 'live' } };
}

/** What a person's rejection planner decides on (src/core/plan/person.ts). */
export const RejectionInputs = z.preprocess(
  legacyShadow,
  z.object({
    repo: z.string(),
    change: z.number().int(),
    pr,
    headSha: z.string(),
    base: z.string(),
    round: z.number().int(),
    user: z.string(),
    reason: z.string(),
    repair: z.enum(['granted', 'not-gated', 'used', 'spent', 'source-rejected', 'disabled', 'combined']),
    awaiting: z.boolean(),
    config: ModeOnly,
    repairTimeout: z.number(),
    now: z.string(),
  }),
);

/** What the cancel planner decides on (src/core/plan/person.ts). */
export const CancelInputs = z.preprocess(
  legacyShadow,
  z.object({
    repo: z.string(),
    change: z.number().int(),
    token: z.string(),
    user: z.string(),
    how: z.string(),
    candidates: z.array(z.object({ pr, headSha: z.string(), awaiting: z.boolean() })),
    config: ModeOnly,
    now: z.string(),
  }),
);

/**
 * A planner's inputs and the actions it planned besides its receipt (one line each), kept on the
 * receipt so `npm run replay` runs that planner again (src/core/replay.ts), by planner name.
 */
export const PlannedBy = z.discriminatedUnion('planner', [
  z.object({ planner: z.literal('repair-timeout'), inputs: RepairTimeoutInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('rejection'), inputs: RejectionInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('cancel'), inputs: CancelInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('promotion'), inputs: PromotionInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('merge-answer'), inputs: MergeAnswerInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('shipped'), inputs: ShippedInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('resume-given-up'), inputs: ResumeGivenUpInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('combine'), inputs: CombineInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('portfolio-wide'), inputs: WideInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('rebuild-ended'), inputs: RebuildEndedInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('rebuilt'), inputs: RebuiltInputs, outcome: z.array(z.string()) }),
  z.object({ planner: z.literal('auto-merge-lost'), inputs: AutoMergeLostInputs, outcome: z.array(z.string()) }),
]);
export type PlannedBy = z.infer<typeof PlannedBy>;

export const RepairData = z.object({
  candidate: pr,
  headSha: z.string(),
  objective: z.string(),
  unmet: z.array(z.string()).optional(),
  trigger: z.enum(['selection', 'rejection']),
  by: z.string().optional(),
  /** A rejection's repair: the rejection planner's inputs and outcome (a round's repair replays with its selection). */
  planned: PlannedBy.optional(),
});

/** A person's decision, or the reason one is needed (selection, repair timeout, refused merge). */
export const HumanGateData = z.object({
  candidates: z.array(pr),
  winner: pr.nullable().optional(),
  why: z.string().optional(),
  decision: z.enum(['promoted by a person', 'rejected by a person']).optional(),
  by: z.string().optional(),
  /** Where a person's promotion came from (a command, a button, a review). */
  source: z.string().optional(),
  /** A promotion of a candidate a round had closed as a loser, reopened by a person (it overrules the round). */
  broughtBack: z.boolean().optional(),
  reason: z.string().optional(),
  repair: z.string().optional(),
  reviewers: Reviewers.optional(),
  /** The planner's inputs and outcome; absent on receipts a selection planned (replayed with it) and older ones. */
  planned: PlannedBy.optional(),
});

export const PromotionData = z.object({
  candidate: pr,
  headSha: z.string(),
  by: z.string(),
  method: MergeMethod,
  /** The shipped plan's inputs and outcome; absent on older receipts. */
  planned: PlannedBy.optional(),
});

export const AcceptanceData = z.object({
  candidate: pr,
  headSha: z.string(),
  status: z.enum(['pass', 'fail', 'none']),
  results: z.array(z.object({ id: z.string(), status: z.string(), source: z.string() })),
  modelCalls: z.object({ small: z.number().int(), large: z.number().int() }),
  truncated: z.boolean(),
});

export const CancelData = z.object({ by: z.string(), closed: z.array(pr), planned: PlannedBy.optional() });

const Policy = z.enum(['top-k', 'successive-halving']);
const readings = z.record(z.string(), z.array(z.number()));

export const PortfolioWideData = z.object({
  portfolio: z.number().int(),
  policy: Policy,
  k: z.number().int(),
  readings,
  averages: z.record(z.string(), z.number().nullable()),
  /** Re-runs of the scoring check that never answered within `portfolio.composeTimeout` (none before issue 24). */
  unanswered: z.array(z.object({ pr, askedAt: z.string() })).default([]),
  ranking: z.array(RankRow),
  deep: z.array(pr),
  out: z.array(z.object({ pr, reason: z.string().optional() })),
  slots: z.array(
    z.object({ slot: z.string(), approach: z.string(), state: z.string(), pr: pr.nullable(), reason: z.string() }),
  ),
  unlinked: z.array(z.object({ pr, slot: z.string() })),
  mode: z.enum(['live', 'shadow']),
  /** The wide round's inputs and outcome (its deep receipt is one of the actions it planned); absent on older receipts. */
  planned: PlannedBy.optional(),
});

export const PortfolioDeepData = z.object({
  portfolio: z.number().int(),
  policy: Policy,
  k: z.number().int(),
  readings,
  deep: z.array(z.record(z.string(), z.unknown())),
  dispatches: z.number().int(),
});

export const CombinedData = z.object({
  outcome: z.string(),
  mode: z.string(),
  a: z.object({ pr, headSha: z.string(), brought: z.array(z.string()) }),
  b: z.object({ pr, headSha: z.string(), brought: z.array(z.string()), met: z.array(z.string()) }),
  together: z.array(z.string()),
  branch: z.string(),
  combined: pr.nullable(),
  baseSha: z.string().nullable(),
  merges: z.array(z.object({ pr, sha: z.string().nullable() })),
  reason: z.string().nullable(),
  /** The plan's inputs and outcome; absent on older receipts. */
  planned: PlannedBy.optional(),
});

const head = { repo: z.string(), change: z.number().int(), round: z.number().int(), at: z.string() };

export const SelectionReceipt = z.object({ kind: z.literal('CANDIDATE_SELECTION'), ...head, data: SelectionData });
export type SelectionReceipt = z.infer<typeof SelectionReceipt>;

export const Receipt = z.discriminatedUnion('kind', [
  SelectionReceipt,
  z.object({ kind: z.literal('ACCEPTANCE_REPAIR'), ...head, data: RepairData }),
  z.object({ kind: z.literal('HUMAN_GATE'), ...head, data: HumanGateData }),
  z.object({ kind: z.literal('PROMOTION'), ...head, data: PromotionData }),
  z.object({ kind: z.literal('ACCEPTANCE'), ...head, data: AcceptanceData }),
  z.object({ kind: z.literal('CANCEL'), ...head, data: CancelData }),
  z.object({ kind: z.literal('PORTFOLIO_WIDE'), ...head, data: PortfolioWideData }),
  z.object({ kind: z.literal('PORTFOLIO_DEEP'), ...head, data: PortfolioDeepData }),
  z.object({ kind: z.literal('COMBINED_CANDIDATE'), ...head, data: CombinedData }),
]);
export type Receipt = z.infer<typeof Receipt>;

export type ReceiptKind = Receipt['kind'];
