// Deterministic ranking of siblings (DESIGN.md section 3). Pure, and the same result for any
// input order: candidates are compared on evidence keys only, and equal keys share a rank.
import type { CandidateEvidence, RankKey, RankedCandidate, Ranking } from './types.ts';

export function summarise(e: CandidateEvidence): RankedCandidate {
  const results = e.acceptance?.results ?? [];
  return {
    pr: e.pr,
    rank: 0,
    promotable: e.gate.promotable && !e.gate.timedOut,
    met: results.filter((r) => r.status === 'met').length,
    gaps: results.filter((r) => r.status === 'gap').length,
    score: e.gate.score,
    passing: e.gate.passingChecks,
  };
}

/** Each key, in order: a positive number means `a` ranks above `b`. */
const KEYS: { key: RankKey; better: (a: RankedCandidate, b: RankedCandidate) => number }[] = [
  { key: 'promotable', better: (a, b) => Number(a.promotable) - Number(b.promotable) },
  { key: 'met', better: (a, b) => a.met - b.met },
  { key: 'gaps', better: (a, b) => b.gaps - a.gaps },
  {
    key: 'score',
    better: (a, b) =>
      (a.score ?? -Infinity) === (b.score ?? -Infinity) ? 0 : (a.score ?? -Infinity) > (b.score ?? -Infinity) ? 1 : -1,
  },
  { key: 'passing', better: (a, b) => a.passing - b.passing },
];

/** The first key on which `a` and `b` differ, or null when they are tied on every key. */
export function decidingKey(a: RankedCandidate, b: RankedCandidate): RankKey | null {
  for (const { key, better } of KEYS) if (better(a, b) !== 0) return key;
  return null;
}

/**
 * The keys a candidate set is ranked on against another candidate: a set's checks span several
 * repositories, each with its own scoring check and its own number of checks, so the score and the
 * count of passing checks would weigh repositories, not the work; the gate and the criteria do not.
 */
export const SET_KEYS: readonly RankKey[] = ['promotable', 'met', 'gaps'];

/** On `keys` only, in KEYS order: positive when `a` ranks above `b`, 0 when tied on them all; and the key that decided. */
export function compareOn(
  a: RankedCandidate,
  b: RankedCandidate,
  keys: readonly RankKey[],
): { order: number; key: RankKey | null } {
  for (const { key, better } of KEYS) {
    if (!keys.includes(key)) continue;
    const d = better(a, b);
    if (d !== 0) return { order: d, key };
  }
  return { order: 0, key: null };
}

function compare(a: RankedCandidate, b: RankedCandidate): number {
  for (const { better } of KEYS) {
    const d = better(a, b);
    if (d !== 0) return -d;
  }
  return 0;
}

/**
 * True when `c` has criteria the acceptance check could not judge (gaps: a model error, a
 * refusal, an exhausted budget) and, were every gap met, would rank at or above `winner`.
 * Such a sibling has not lost on evidence: it was not fully judged.
 */
export function mightOutrank(c: RankedCandidate, winner: RankedCandidate): boolean {
  if (!c.promotable || c.gaps === 0 || c.pr === winner.pr) return false;
  return compare({ ...c, met: c.met + c.gaps, gaps: 0 }, winner) <= 0;
}

/** Promotable siblings outside the top that were not fully judged and could rank first once judged. */
export function unjudgedChallengers(ranking: Ranking): RankedCandidate[] {
  const first = ranking.ordered.find((c) => ranking.top.includes(c.pr));
  return first ? ranking.ordered.filter((c) => !ranking.top.includes(c.pr) && mightOutrank(c, first)) : [];
}

export function rankCandidates(evidence: CandidateEvidence[]): Ranking {
  // The PR number orders tied candidates for display only; it never separates ranks.
  const ordered = evidence.map(summarise).sort((a, b) => compare(a, b) || a.pr - b.pr);
  let rank = 0;
  ordered.forEach((c, i) => {
    if (i === 0 || compare(ordered[i - 1], c) !== 0) rank = i + 1;
    c.rank = rank;
  });
  const top = ordered.filter((c) => c.promotable && c.rank === 1).map((c) => c.pr);
  return { ordered, top, tiedAtTop: top.length > 1 };
}
