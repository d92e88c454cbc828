// Runs the acceptance check of one candidate head: `(check: NAME)` criteria from their checks,
// the rest by one small-model call, one large-model call only where the small one left doubt.
import type { AcceptanceEvidence, Criterion, CriterionResult, ObservedCheck } from '../core/types.ts';
import { AcceptanceOutput, GAP_WORDING, type GapReason, type LlmClient, type Tier } from '../llm/types.ts';
import { CITATION_FAILURE_WORDING, verifyCitation, type CitationMaterial } from './citations.ts';
import { sanitiseModelReason } from './model-words.ts';
import { asksForRemoval, isDocumentationCriterion } from './quote-rules.ts';
import type { AcceptanceConfig, AcceptanceContext } from './context.ts';
import { buildAcceptanceRequest, type AcceptanceSet } from './prompt.ts';

export interface AcceptanceInput {
  candidate: number;
  /** A candidate set (`candidate` is its first member): its material's paths name their repository. */
  set?: AcceptanceSet;
  criteria: Criterion[];
  context: AcceptanceContext;
  checks: ObservedCheck[];
  config: AcceptanceConfig;
  llm: LlmClient;
  /** The Change title, part of the shared prefix. */
  changeTitle?: string;
  takeBudget?: () => Promise<boolean>;
  signal?: AbortSignal;
}

/** Arbiter's wording for each model status (the model's own reason is kept apart, sanitised, as `modelReason`). */
const STATUS_WORDING: Record<'met' | 'not_met' | 'unclear' | 'uncheckable', string> = {
  met: 'quote verified in the material',
  not_met: 'the model judged it not met',
  unclear: 'the model could not tell from the material',
  uncheckable: 'needs a person or a device to check',
};

type CallOutcome = { kind: 'answer'; answer: Map<string, CriterionResult> } | { kind: 'gap'; gap: GapReason };

/** Gaps after which no further call is tried: the budget is spent, or the caller cancelled. */
const FINAL_GAPS: ReadonlySet<GapReason> = new Set(['budget', 'aborted']);

/** A `(check: NAME)` criterion judged by that check: any failure fails it, a pass meets it. */
export const judgeByCheck = (c: Criterion & { check: string }, checks: ObservedCheck[]): CriterionResult => {
  const seen = checks.filter((k) => k.name === c.check);
  const outcome = seen.some((k) => k.outcome === 'fail')
    ? 'fail'
    : seen.some((k) => k.outcome === 'pass')
      ? 'pass'
      : seen.length > 0
        ? 'pending'
        : 'missing';
  const byOutcome: Record<typeof outcome, CriterionResult> = {
    pass: { id: c.id, status: 'met', citation: null, reason: `check ${c.check} passed`, source: 'check' },
    fail: { id: c.id, status: 'not_met', citation: null, reason: `check ${c.check} failed`, source: 'check' },
    pending: {
      id: c.id,
      status: 'gap',
      citation: null,
      reason: `check ${c.check} has not concluded yet`,
      source: 'check',
    },
    missing: { id: c.id, status: 'gap', citation: null, reason: `check ${c.check} did not report`, source: 'check' },
  };
  return byOutcome[outcome];
};

/** The names of `(check: NAME)` criteria whose check has not concluded on the head (pending or not reported). */
export function pendingCriterionChecks(criteria: Criterion[], checks: ObservedCheck[]): string[] {
  const names = [...new Set(criteria.flatMap((c) => (c.check === null ? [] : [c.check])))];
  return names.filter((name) => {
    const seen = checks.filter((k) => k.name === name);
    return !seen.some((k) => k.outcome === 'fail') && !seen.some((k) => k.outcome === 'pass');
  });
}

/**
 * Judges the `(check: NAME)` criteria of stored evidence again from the head's checks now (no
 * model call); null when nothing changed. Model-judged results are kept as they are.
 */
export function rejudgeByChecks(
  evidence: AcceptanceEvidence,
  criteria: Criterion[],
  checks: ObservedCheck[],
): AcceptanceEvidence | null {
  if (evidence.status === 'none') return null;
  let changed = false;
  const results = evidence.results.map((r) => {
    const c = criteria.find((x) => x.id === r.id);
    if (c === undefined || c.check === null) return r;
    const fresh = judgeByCheck({ ...c, check: c.check }, checks);
    if (fresh.status === r.status && fresh.reason === r.reason) return r;
    changed = true;
    return fresh;
  });
  if (!changed) return null;
  return { ...evidence, results, status: results.every((r) => r.status === 'met') ? 'pass' : 'fail' };
}

/** Turns one model answer into results for `wanted` criteria; null when the output is invalid. */
const readAnswer = (
  json: unknown,
  wanted: Criterion[],
  tier: Tier,
  material: CitationMaterial,
): Map<string, CriterionResult> | null => {
  const parsed = AcceptanceOutput.safeParse(json);
  if (!parsed.success) return null;
  const byId = new Map<string, CriterionResult>();
  const wantedById = new Map(wanted.map((c) => [c.id, c]));
  for (const a of parsed.data.criteria) {
    const criterion = wantedById.get(a.id);
    if (criterion === undefined || byId.has(a.id)) continue; // unknown ids and repeats are ignored
    const modelWords = sanitiseModelReason(a.reason);
    const said = modelWords === '' ? {} : { modelReason: modelWords };
    if (a.status !== 'met') {
      byId.set(a.id, {
        id: a.id,
        status: a.status,
        citation: null,
        reason: STATUS_WORDING[a.status],
        source: tier,
        ...said,
      });
      continue;
    }
    // A removed line counts only when the model calls it a removal AND the criterion asks for one.
    const check = verifyCitation({ path: a.path, quote: a.quote }, material, {
      allowRemoved: a.removal && asksForRemoval(criterion.text),
      allowProse: isDocumentationCriterion(criterion.text),
      criterion: criterion.text,
    });
    byId.set(
      a.id,
      check.ok
        ? {
            id: a.id,
            status: 'met',
            citation: {
              path: (a.path ?? '').trim(),
              quote: (a.quote ?? '').trim(),
              line: check.line,
              side: check.side,
            },
            reason: STATUS_WORDING.met,
            source: tier,
            ...said,
          }
        : {
            id: a.id,
            status: 'unclear',
            citation: null,
            reason: `citation rejected: ${CITATION_FAILURE_WORDING[check.reason]}`,
            source: tier,
            ...said,
          },
    );
  }
  for (const c of wanted) {
    if (!byId.has(c.id))
      byId.set(c.id, {
        id: c.id,
        status: 'unclear',
        citation: null,
        reason: 'the model gave no answer for it',
        source: tier,
      });
  }
  return byId;
};

/**
 * The acceptance evidence of one candidate head. No criteria: `none`, no call. Check criteria
 * need no call. Otherwise one small call; one large call only when the small output is invalid
 * or leaves criteria unclear (then it replaces only those), or when the small call failed (then
 * it judges all; if it fails too, every model criterion is a gap). `pass` only when all are met.
 */
export async function runAcceptance(input: AcceptanceInput): Promise<AcceptanceEvidence> {
  const { criteria, context } = input;
  const modelCalls = { small: 0, large: 0 };
  if (criteria.length === 0) return { status: 'none', results: [], truncated: false, modelCalls };

  const results = new Map<string, CriterionResult>();
  const modelCriteria: Criterion[] = [];
  for (const c of criteria) {
    if (c.check !== null) results.set(c.id, judgeByCheck({ ...c, check: c.check }, input.checks));
    else modelCriteria.push(c);
  }

  if (modelCriteria.length > 0) {
    const material: CitationMaterial = { files: context.sent, patch: context.patchText };
    const call = async (tier: Tier): Promise<CallOutcome> => {
      const result = await input.llm.complete(
        buildAcceptanceRequest({
          tier,
          candidate: input.candidate,
          ...(input.set ? { set: input.set } : {}),
          changeTitle: input.changeTitle ?? '',
          criteria: modelCriteria,
          context,
          config: input.config,
          takeBudget: input.takeBudget,
          signal: input.signal,
        }),
      );
      if (result.ok || result.gap !== 'budget') modelCalls[tier] += 1;
      if (!result.ok) return { kind: 'gap', gap: result.gap };
      const answer = readAnswer(result.json, modelCriteria, tier, material);
      return answer === null ? { kind: 'gap', gap: 'invalid-output' } : { kind: 'answer', answer };
    };

    const small = await call('small');
    if (small.kind === 'answer' || small.gap === 'invalid-output') {
      // The small model answered (perhaps invalidly): unclear results may be replaced by the large one.
      const base =
        small.kind === 'answer'
          ? small.answer
          : new Map(
              modelCriteria.map((c) => [
                c.id,
                {
                  id: c.id,
                  status: 'unclear',
                  citation: null,
                  reason: GAP_WORDING['invalid-output'],
                  source: 'small',
                } as CriterionResult,
              ]),
            );
      const unclear = modelCriteria.filter((c) => base.get(c.id)?.status === 'unclear');
      if (unclear.length > 0 && !input.signal?.aborted) {
        const large = await call('large');
        if (large.kind === 'answer')
          for (const c of unclear) {
            const r = large.answer.get(c.id);
            if (r) base.set(c.id, r);
          }
      }
      for (const [id, r] of base) results.set(id, r);
    } else {
      const large = FINAL_GAPS.has(small.gap) || input.signal?.aborted ? null : await call('large');
      if (large !== null && large.kind === 'answer') for (const [id, r] of large.answer) results.set(id, r);
      else
        for (const c of modelCriteria)
          results.set(c.id, {
            id: c.id,
            status: 'gap',
            citation: null,
            reason: GAP_WORDING[small.gap],
            gap: small.gap,
            source: 'none',
          });
    }
  }

  const ordered = criteria.map(
    (c) =>
      results.get(c.id) ?? {
        id: c.id,
        status: 'gap' as const,
        citation: null,
        reason: GAP_WORDING['model-error'],
        gap: 'model-error' as const,
        source: 'none' as const,
      },
  );
  return {
    status: ordered.every((r) => r.status === 'met') ? 'pass' : 'fail',
    results: ordered,
    truncated: context.truncated,
    modelCalls,
  };
}
