// The tie-break judge (DESIGN.md §5): two large-model calls over the evidence snapshot of the tied
// candidates, in opposite orders (swap consistency), in verdict or rubric mode; code validates every answer.
import type { ArbiterConfig } from '../config/schema.ts';
import type { CandidateEvidence, Criterion, JudgeOutcome } from '../core/types.ts';
import { boundChars, frameUntrusted, redactSecrets } from '../llm/redact.ts';
import { RubricOutput, VerdictOutput, type LlmClient } from '../llm/types.ts';
import { RUBRIC_SYSTEM, rubricSchema, sharedPrefix, VERDICT_SYSTEM, verdictSchema } from './prompts.ts';
import { averageMatrices, rankByMatrix, validateMatrix, type Matrix } from './rubric.ts';
import { buildEvidenceSnapshot, type EvidenceSnapshot } from './snapshot.ts';

export interface JudgeTieInput {
  tied: CandidateEvidence[];
  /** The tied PRs in deterministic rank order, best first. */
  deterministicOrder: number[];
  criteria: Criterion[];
  config: ArbiterConfig['judge'];
  llm: LlmClient;
  signal?: AbortSignal;
  takeBudget?: () => Promise<boolean>;
  /** `gate.score` of the repository config, for the score evidence ids. */
  scoreCheck?: string | null;
}

export const MAX_EXPLANATION_CHARS = 500;
const JUDGE_MAX_TOKENS = 2048;

/** The judge's reason made safe for a comment: redacted, one paragraph, no HTML comments (hidden markers), bounded. */
export function safeExplanation(reason: string): string {
  const text = redactSecrets(reason).text.replace(/\s+/g, ' ').replace(/<!--/g, '<!- -').replace(/-->/g, '- ->').trim();
  return boundChars(text, MAX_EXPLANATION_CHARS);
}

const outcome = (o: Partial<JudgeOutcome> & Pick<JudgeOutcome, 'comparison' | 'reason'>): JudgeOutcome => ({
  winner: null,
  source: 'none',
  evidence: [],
  explanation: '',
  ranking: null,
  ...o,
});

const UNAVAILABLE = (): JudgeOutcome => outcome({ comparison: 'unavailable', reason: 'judge-unavailable' });
const INVALID = (): JudgeOutcome => outcome({ comparison: 'invalid', reason: 'judge-response-invalid' });
const INCONSISTENT = (): JudgeOutcome => outcome({ comparison: 'inconsistent', reason: 'judge-inconsistent' });

interface ModeContext {
  input: JudgeTieInput;
  tiedPrs: number[];
  snapshot: EvidenceSnapshot;
  /** The same snapshot with the candidates in the reverse order. */
  swapped: EvidenceSnapshot;
}

/** One presentation of the tie: the candidates in this order, and the snapshot listing them so. */
interface Order {
  prs: number[];
  snapshot: EvidenceSnapshot;
}

const orders = (ctx: ModeContext): [Order, Order] => [
  { prs: ctx.tiedPrs, snapshot: ctx.snapshot },
  { prs: [...ctx.tiedPrs].reverse(), snapshot: ctx.swapped },
];

/** Sends one judge call in one order; null on a gap (the reason is logged by the client, never kept). */
async function ask(
  ctx: ModeContext,
  order: Order,
  mode: 'verdict' | 'rubric',
  system: string,
  schema: Record<string, unknown>,
): Promise<unknown> {
  const { input } = ctx;
  const { prs: tiedPrs, snapshot } = order;
  const result = await input.llm.complete({
    tier: 'large',
    model: input.config.model,
    timeoutMs: input.config.timeoutSeconds * 1000,
    kind: 'judge',
    candidates: tiedPrs,
    mode,
    system,
    sharedPrefix: sharedPrefix(tiedPrs, mode, input.config.rubric),
    material: frameUntrusted('evidence snapshot', snapshot.text),
    schema,
    maxTokens: JUDGE_MAX_TOKENS,
    signal: input.signal,
    takeBudget: input.takeBudget,
  });
  return result.ok ? result.json : null;
}

type Verdict = { ok: true; verdict: VerdictOutput; evidence: string[] } | { ok: false; outcome: JudgeOutcome };

/** One verdict call in one order, validated: the candidate is tied, every cited id exists, a preference cites evidence. */
async function verdictIn(ctx: ModeContext, order: Order): Promise<Verdict> {
  const json = await ask(ctx, order, 'verdict', VERDICT_SYSTEM, verdictSchema(order.prs));
  if (json === null) return { ok: false, outcome: UNAVAILABLE() };
  const parsed = VerdictOutput.safeParse(json);
  if (!parsed.success) return { ok: false, outcome: INVALID() };
  const v = parsed.data;
  const known = new Set(order.snapshot.items.map((i) => i.id));
  const namesTied = v.candidate === null || ctx.tiedPrs.includes(v.candidate);
  const citesKnown = v.evidence.every((id) => known.has(id));
  // Preferring or rejecting must name a tied candidate; preferring must rest on cited evidence.
  const needsCandidate = v.verdict === 'prefer_candidate' || v.verdict === 'reject_candidate';
  if (!namesTied || !citesKnown || (needsCandidate && v.candidate === null)) return { ok: false, outcome: INVALID() };
  if (v.verdict === 'prefer_candidate' && v.evidence.length === 0) return { ok: false, outcome: INVALID() };
  return { ok: true, verdict: v, evidence: [...new Set(v.evidence)] };
}

/**
 * Verdict mode, asked in both orders (the second call only when the first answer was valid). A
 * winner only when both answers validly prefer the same candidate; the same other verdict twice
 * stands as it is; answers that differ are `inconsistent` and go to a person.
 */
async function judgeVerdict(ctx: ModeContext): Promise<JudgeOutcome> {
  const [forward, reversed] = orders(ctx);
  const first = await verdictIn(ctx, forward);
  if (!first.ok) return first.outcome;
  const second = await verdictIn(ctx, reversed);
  if (!second.ok) return second.outcome;
  const a = first.verdict;
  const b = second.verdict;
  if (a.verdict !== b.verdict || a.candidate !== b.candidate) return INCONSISTENT();
  const evidence = [...new Set([...first.evidence, ...second.evidence])];
  const explanation = safeExplanation(a.reason);
  if (a.verdict === 'prefer_candidate') {
    return outcome({
      comparison: 'judged',
      winner: a.candidate,
      reason: 'judge-preferred',
      source: 'llm-judge',
      evidence,
      explanation,
    });
  }
  return outcome({ comparison: 'judged', reason: a.verdict, source: 'llm-judge', evidence, explanation });
}

type Scored = { ok: true; matrix: Matrix; reason: string } | { ok: false; outcome: JudgeOutcome };

async function matrixIn(ctx: ModeContext, order: Order): Promise<Scored> {
  const rubric = ctx.input.config.rubric;
  const json = await ask(ctx, order, 'rubric', RUBRIC_SYSTEM, rubricSchema(order.prs, rubric));
  if (json === null) return { ok: false, outcome: UNAVAILABLE() };
  const parsed = RubricOutput.safeParse(json);
  if (!parsed.success) return { ok: false, outcome: INVALID() };
  const matrix = validateMatrix(parsed.data.scores, ctx.tiedPrs, rubric);
  return matrix === null ? { ok: false, outcome: INVALID() } : { ok: true, matrix, reason: parsed.data.reason };
}

/** Rubric mode, asked in both orders: the two complete matrices are averaged cell by cell, then ranked. */
async function judgeRubric(ctx: ModeContext): Promise<JudgeOutcome> {
  const rubric = ctx.input.config.rubric;
  if (rubric.length === 0) return UNAVAILABLE(); // nothing to score against: no call
  const [forward, reversed] = orders(ctx);
  const first = await matrixIn(ctx, forward);
  if (!first.ok) return first.outcome;
  const second = await matrixIn(ctx, reversed);
  if (!second.ok) return second.outcome;
  const ranked = rankByMatrix(averageMatrices(first.matrix, second.matrix), rubric, ctx.input.deterministicOrder);
  return outcome({
    comparison: 'scored',
    winner: ranked.winner,
    reason: ranked.reason,
    source: ranked.source,
    explanation: safeExplanation(first.reason),
    ranking: ranked.ranking,
  });
}

const MODES: Record<ArbiterConfig['judge']['mode'], (ctx: ModeContext) => Promise<JudgeOutcome>> = {
  verdict: judgeVerdict,
  rubric: judgeRubric,
};

/** Breaks a tie at the top. Fewer than two tied candidates: nothing to compare, no call. */
export async function judgeTie(input: JudgeTieInput): Promise<JudgeOutcome> {
  const tiedPrs = [...new Set(input.tied.map((c) => c.pr))].sort((a, b) => a - b);
  if (tiedPrs.length < 2) {
    return outcome({
      comparison: 'not-compared',
      winner: tiedPrs[0] ?? null,
      reason: 'no-tie',
      source: 'deterministic',
    });
  }
  const snapshot = buildEvidenceSnapshot(input.tied, input.criteria, { scoreCheck: input.scoreCheck });
  const swapped = buildEvidenceSnapshot(input.tied, input.criteria, { scoreCheck: input.scoreCheck, reverse: true });
  return MODES[input.config.mode]({ input, tiedPrs, snapshot, swapped });
}
