// Diagnostics for every selection receipt (DESIGN.md §5): how many siblings were submitted,
// eligible and excluded (and why), and what the comparison was. Pure; counts only, no material.
import type { CandidateEvidence, Diagnostics, JudgeOutcome } from '../core/types.ts';

/**
 * - eligible: the gate is promotable (every required check passed).
 * - excluded.fail: not promotable and at least one required check failed (even if it also timed out).
 * - excluded.inconclusive: every other unpromotable sibling: timed out by the sweep, or evidence
 *   incomplete (gate not settled). Acceptance does not decide eligibility, so it is not counted here.
 * - ranking: only when the judge scored a valid rubric matrix.
 */
export function diagnose(input: { evidence: CandidateEvidence[]; judge: JudgeOutcome | null }): Diagnostics {
  let eligible = 0;
  let fail = 0;
  let inconclusive = 0;
  for (const c of input.evidence) {
    if (c.gate.promotable) eligible += 1;
    else if (c.gate.required.some((r) => r.outcome === 'fail')) fail += 1;
    else inconclusive += 1;
  }
  const comparison = input.judge?.comparison ?? 'not-compared';
  const ranking = comparison === 'scored' ? (input.judge?.ranking ?? null) : null;
  return {
    submittedCandidates: input.evidence.length,
    eligibleCandidates: eligible,
    excludedCandidates: { fail, inconclusive },
    comparison,
    ...(ranking === null ? {} : { ranking }),
  };
}
