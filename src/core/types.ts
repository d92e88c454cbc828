// Domain types of Arbiter, as zod schemas with their inferred types: the one vocabulary
// shared by the core, the workflows, the store (rows are validated against these) and the tests.
import { z } from 'zod';

/** An acceptance criterion parsed from a Change body. */
export const Criterion = z.object({
  id: z.string().regex(/^AC\d+$/),
  text: z.string(),
  /** `(check: NAME)` suffix: judged by that check run, never by a model. */
  check: z.string().nullable().default(null),
});
export type Criterion = z.infer<typeof Criterion>;

export const CriterionStatus = z.enum(['met', 'not_met', 'unclear', 'uncheckable', 'gap']);
export type CriterionStatus = z.infer<typeof CriterionStatus>;

export const Citation = z.object({
  path: z.string(),
  quote: z.string(),
  /** 1-based line in the head file (or in the patch's new side) where the quote starts. */
  line: z.number().int().positive().nullable().default(null),
  /** `removed` when the criterion asks for a removal and the quote is a removed patch line. */
  side: z.enum(['head', 'removed']).default('head'),
});
export type Citation = z.infer<typeof Citation>;

/** Why a criterion could not be judged: a machine code, worded by src/core/render/gap-wording.ts. */
export const GapReason = z.enum([
  'model-error',
  'rate-limited',
  'refusal',
  'max-tokens',
  'tool-use',
  'empty',
  'too-long',
  'aborted',
  'timeout',
  'budget',
  'invalid-output',
]);
export type GapReason = z.infer<typeof GapReason>;

export const CriterionResult = z.object({
  id: z.string(),
  status: CriterionStatus,
  /** Present only on a `met` whose quote code verified. */
  citation: Citation.nullable().default(null),
  /** Short reason in Arbiter's words (never raw provider text). */
  reason: z.string().default(''),
  /** Which tier produced the answer, or `check` for `(check: NAME)` criteria. */
  source: z.enum(['small', 'large', 'check', 'none']).default('none'),
  /** The model's own short reason, sanitised (no mentions, links or HTML; bounded); shown as its words. */
  modelReason: z.string().optional(),
  /** On a `gap`: why, as a code (the words are in `reason`). */
  gap: GapReason.optional(),
});
export type CriterionResult = z.infer<typeof CriterionResult>;

/** Outcome of the acceptance check for one head sha. */
export const AcceptanceEvidence = z.object({
  /** `none`: the Change has no criteria. `pass` only when every criterion is met. */
  status: z.enum(['pass', 'fail', 'none']),
  results: z.array(CriterionResult),
  /** True when the patch or a file sent to the model was cut. */
  truncated: z.boolean().default(false),
  modelCalls: z.object({ small: z.number().int(), large: z.number().int() }).default({ small: 0, large: 0 }),
});
export type AcceptanceEvidence = z.infer<typeof AcceptanceEvidence>;

/** A check run or commit status seen on a candidate head, normalised. */
export const CheckOutcome = z.enum(['pass', 'fail', 'pending']);
export type CheckOutcome = z.infer<typeof CheckOutcome>;

export const ObservedCheck = z.object({
  name: z.string(),
  kind: z.enum(['check', 'status']),
  /** GitHub's raw conclusion or state (`success`, `failure`, `in_progress`, `pending`…). */
  raw: z.string(),
  outcome: CheckOutcome,
  title: z.string().nullable().default(null),
  summary: z.string().nullable().default(null),
  /** The app that reported a check run (its slug); null for a commit status or when unknown. */
  app: z.string().nullable().optional(),
  /** That app's numeric id (what a ruleset's `integration_id` and classic protection's `app_id` pin). */
  appId: z.number().int().nullable().optional(),
  /** The check suite that holds a check run (its node id); null for a commit status or when unknown. */
  suite: z.string().nullable().optional(),
});
export type ObservedCheck = z.infer<typeof ObservedCheck>;

export const RequiredCheck = z.object({
  name: z.string(),
  /** `missing`: required but not reported yet (counts as pending). */
  outcome: z.enum(['pass', 'fail', 'pending', 'missing']),
  raw: z.string().nullable(),
  /** A check run or a commit status (null while missing); gives the evidence id's kind. */
  kind: z.enum(['check', 'status']).nullable().optional(),
  /** A commit status's description ("Build #12 failed"), shown next to its context. */
  detail: z.string().optional(),
  /** Missing because the name came only from other apps than the one its entry pins. */
  pinned: z.object({ app: z.string(), reportedBy: z.array(z.string()) }).optional(),
});
export type RequiredCheck = z.infer<typeof RequiredCheck>;

/** Gate evidence of one head sha: the required checks and what they say. */
export const GateEvidence = z.object({
  required: z.array(RequiredCheck),
  /** Where the required set came from. */
  source: z.enum(['config', 'branch-rules', 'all-suites']),
  /** Every required check concluded (passed or failed). */
  settled: z.boolean(),
  /** Settled and every required check passed. */
  promotable: z.boolean(),
  /** Human reason when not promotable or not settled: "required check `test` failed". */
  reason: z.string().default(''),
  passingChecks: z.number().int().nonnegative(),
  score: z.number().nullable(),
  /** Settled by the sweep because checks never finished. */
  timedOut: z.boolean().default(false),
  /** Reasons outside the checks that make the head unpromotable (an invalid `.github/arbiter.yml`). */
  blockers: z.array(z.string()).optional(),
  /** The head's GitHub Actions runs wait for a maintainer's approval (`url`: where to approve them). */
  awaitingApproval: z.object({ url: z.string().nullable() }).optional(),
});
export type GateEvidence = z.infer<typeof GateEvidence>;

export const CandidateState = z.enum([
  'verifying',
  'verified',
  'unpromotable',
  'selected',
  'rejected',
  'stale',
  'promoted',
  'withdrawn',
  'composing',
]);
export type CandidateState = z.infer<typeof CandidateState>;

/** A Change's state: open, before a person, shipped, or cancelled. */
export const ChangeState = z.enum(['open', 'human', 'shipped', 'cancelled']);
export type ChangeState = z.infer<typeof ChangeState>;

/** States in which a candidate is still in its group. */
export const OPEN_STATES: ReadonlySet<CandidateState> = new Set(['verifying', 'verified', 'unpromotable', 'selected']);

/** Everything ranking needs to know about one sibling. Pure data. */
export const CandidateEvidence = z.object({
  pr: z.number().int().positive(),
  headSha: z.string(),
  gate: GateEvidence,
  /** Null while acceptance has not concluded (or never ran). */
  acceptance: AcceptanceEvidence.nullable(),
  /** Count of changed lines (additions + deletions) and paths, for the risk policy. */
  changedPaths: z.array(z.string()).default([]),
  changedLines: z.number().int().nonnegative().default(0),
  labels: z.array(z.string()).default([]),
  author: z.string().default(''),
});
export type CandidateEvidence = z.infer<typeof CandidateEvidence>;

export type RankKey = 'promotable' | 'met' | 'gaps' | 'score' | 'passing';

export interface RankedCandidate {
  pr: number;
  /** 1-based position; tied candidates share a rank. */
  rank: number;
  promotable: boolean;
  met: number;
  gaps: number;
  score: number | null;
  passing: number;
}

export interface Ranking {
  ordered: RankedCandidate[];
  /** The candidates that share the top rank among promotable ones (empty: nobody promotable). */
  top: number[];
  /** True when more than one promotable candidate shares the top rank. */
  tiedAtTop: boolean;
}

/** The judge's answer after code validated it. */
export const JudgeComparison = z.enum(['not-compared', 'unavailable', 'invalid', 'inconsistent', 'judged', 'scored']);
export type JudgeComparison = z.infer<typeof JudgeComparison>;

export const JudgeOutcome = z.object({
  comparison: JudgeComparison,
  /** The winner, only for a valid `prefer_candidate` or a valid rubric matrix. */
  winner: z.number().int().nullable(),
  /** `judge-preferred`, `judge-ranked`, `judge-tied`, `judge-unavailable`, `judge-response-invalid`, `judge-inconsistent`, or the verdict name. */
  reason: z.string(),
  source: z.enum(['llm-judge', 'deterministic', 'none']),
  /** Evidence ids the judge relied on (validated to exist). */
  evidence: z.array(z.string()).default([]),
  /** The judge's own short reason (bounded, redacted), for the comment. */
  explanation: z.string().default(''),
  ranking: z
    .object({ distinctScores: z.number().int(), topScoreTieCount: z.number().int(), scoreMargin: z.number() })
    .nullable()
    .default(null),
});
export type JudgeOutcome = z.infer<typeof JudgeOutcome>;

export const Diagnostics = z.object({
  submittedCandidates: z.number().int(),
  eligibleCandidates: z.number().int(),
  excludedCandidates: z.object({ fail: z.number().int(), inconclusive: z.number().int() }),
  comparison: JudgeComparison,
  ranking: z
    .object({ distinctScores: z.number().int(), topScoreTieCount: z.number().int(), scoreMargin: z.number() })
    .optional(),
});
export type Diagnostics = z.infer<typeof Diagnostics>;

export const RiskLevel = z.enum(['low', 'medium', 'high']);
export type Risk = z.infer<typeof RiskLevel>;

/**
 * The risk policy as a planner reads it (`.github/arbiter.yml` `policy`, normalised): the rules that
 * give a candidate its risk, and the risks that ship without a person.
 */
export const RiskPolicy = z.object({
  autoShip: z.array(RiskLevel),
  rules: z.array(
    z.object({
      risk: RiskLevel,
      paths: z.array(z.string()).optional(),
      minChangedLines: z.number().int().optional(),
      minChangedFiles: z.number().int().optional(),
      labels: z.array(z.string()).optional(),
    }),
  ),
});
export type RiskPolicy = z.infer<typeof RiskPolicy>;

/** Coordinates of a repository. */
export interface RepoRef {
  owner: string;
  repo: string;
  installationId: number;
}

export const repoKey = (r: Pick<RepoRef, 'owner' | 'repo'>): string => `${r.owner}/${r.repo}`;
