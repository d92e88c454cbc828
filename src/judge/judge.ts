// The tie-break judge (DESIGN.md §5): one large-model call over the evidence snapshot of the
// tied candidates, in verdict or rubric mode; code validates every answer before it can pick anyone.
import type { ArbiterConfig } from '../config/schema.ts';
import type { CandidateEvidence, Criterion, JudgeOutcome } from '../core/types.ts';
import { boundChars, frameUntrusted, redactSecrets } from '../llm/redact.ts';
import { RubricOutput, VerdictOutput, type LlmClient } from '../llm/types.ts';
import { RUBRIC_SYSTEM, rubricSchema, sharedPrefix, VERDICT_SYSTEM, verdictSchema } from './prompts.ts';
import { rankByMatrix, validateMatrix } from './rubric.ts';
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
  const text = redactSecrets(reason)
    .text.replace(/\s+/g, ' ')
    .replace(/<!--/g, '<!- -')
    .replace(/-->/g, '- ->')
    .trim();
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

interface ModeContext {
  input: JudgeTieInput;
  tiedPrs: number[];
  snapshot: EvidenceSnapshot;
}

/** Sends the one judge call; null on a gap (the reason is logged by the client, never kept). */
async function ask(ctx: ModeContext, mode: 'verdict' | 'rubric', system: string, schema: Record<string, unknown>): Promise<unknown> {
  const { input, tiedPrs, snapshot } = ctx;
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

async function judgeVerdict(ctx: ModeContext): Promise<JudgeOutcome> {
  const json = await ask(ctx, 'verdict', VERDICT_SYSTEM, verdictSchema(ctx.tiedPrs));
  if (json === null) return UNAVAILABLE();
  const parsed = VerdictOutput.safeParse(json);
  if (!parsed.success) return INVALID();
  const v = parsed.data;
  const known = new Set(ctx.snapshot.items.map((i) => i.id));
  const namesTied = v.candidate === null || ctx.tiedPrs.includes(v.candidate);
  const citesKnown = v.evidence.every((id) => known.has(id));
  // Preferring or rejecting must name a tied candidate; preferring must rest on cited evidence.
  const needsCandidate = v.verdict === 'prefer_candidate' || v.verdict === 'reject_candidate';
  if (!namesTied || !citesKnown || (needsCandidate && v.candidate === null)) return INVALID();
  if (v.verdict === 'prefer_candidate' && v.evidence.length === 0) return INVALID();
  const evidence = [...new Set(v.evidence)];
  const explanation = safeExplanation(v.reason);
  if (v.verdict === 'prefer_candidate') {
    return outcome({ comparison: 'judged', winner: v.candidate, reason: 'judge-preferred', source: 'llm-judge', evidence, explanation });
  }
  return outcome({ comparison: 'judged', reason: v.verdict, source: 'llm-judge', evidence, explanation });
}

async function judgeRubric(ctx: ModeContext): Promise<JudgeOutcome> {
  const rubric = ctx.input.config.rubric;
  if (rubric.length === 0) return UNAVAILABLE(); // nothing to score against: no call
  const json = await ask(ctx, 'rubric', RUBRIC_SYSTEM, rubricSchema(ctx.tiedPrs, rubric));
  if (json === null) return UNAVAILABLE();
  const parsed = RubricOutput.safeParse(json);
  if (!parsed.success) return INVALID();
  const matrix = validateMatrix(parsed.data.scores, ctx.tiedPrs, rubric);
  if (matrix === null) return INVALID();
  const ranked = rankByMatrix(matrix, rubric, ctx.input.deterministicOrder);
  return outcome({
    comparison: 'scored',
    winner: ranked.winner,
    reason: ranked.reason,
    source: ranked.source,
    explanation: safeExplanation(parsed.data.reason),
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
    return outcome({ comparison: 'not-compared', winner: tiedPrs[0] ?? null, reason: 'no-tie', source: 'deterministic' });
  }
  const snapshot = buildEvidenceSnapshot(input.tied, input.criteria, { scoreCheck: input.scoreCheck });
  return MODES[input.config.mode]({ input, tiedPrs, snapshot });
}
