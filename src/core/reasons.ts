// Why a candidate lost, in one sentence a maintainer reads on the closed PR:
// "Lost to #13: met 3 of 3 criteria, this met 2 of 3." Pure.
import { decidingKey } from './rank.ts';
import type { CandidateEvidence, JudgeOutcome, RankedCandidate } from './types.ts';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function failedRequired(e: CandidateEvidence): string[] {
  return e.gate.required.filter((c) => c.outcome === 'fail').map((c) => c.name);
}

export function loserReason(input: {
  winner: RankedCandidate;
  loser: RankedCandidate;
  loserEvidence: CandidateEvidence;
  criteriaCount: number;
  judge: JudgeOutcome | null;
  /** When nobody was chosen: the head names those before a person, never "Lost to". */
  head?: string;
}): string {
  const { winner, loser, loserEvidence, criteriaCount, judge } = input;
  const head = input.head ?? `Lost to #${winner.pr}`;
  const key = decidingKey(winner, loser);
  if (key === null) {
    const cited = judge && judge.winner === winner.pr && judge.evidence.length > 0 ? ` (${judge.evidence.join(', ')})` : '';
    if (judge?.source === 'deterministic') return `${head}: same evidence; the judge scored you level and #${winner.pr} ranks first by evidence.`;
    return `${head}: same evidence; the judge preferred #${winner.pr}${cited}.`;
  }
  if (key === 'promotable') {
    if (loserEvidence.gate.timedOut) return `${head}: timed out here (checks never finished).`;
    const failed = failedRequired(loserEvidence);
    if (failed.length > 0) {
      return `${head}: required check ${failed.map((n) => `\`${n}\``).join(', ')} failed here.`;
    }
    return `${head}: not promotable here (${loserEvidence.gate.reason}).`;
  }
  if (key === 'met') return `${head}: met ${winner.met} of ${criteriaCount} criteria, this met ${loser.met} of ${criteriaCount}.`;
  if (key === 'gaps') return `${head}: same criteria met, ${plural(loser.gaps - winner.gaps, 'gap')} fewer.`;
  if (key === 'score') return `${head}: same criteria met, score ${winner.score ?? 'none'} against ${loser.score ?? 'none'}.`;
  return `${head}: same criteria met, more passing checks (${winner.passing} against ${loser.passing}).`;
}

/** Why the winner won, for the comparison comment's headline. */
export function winnerSummary(winner: RankedCandidate, criteriaCount: number): string {
  const parts = [criteriaCount > 0 ? `met ${winner.met} of ${criteriaCount} criteria` : 'no acceptance criteria'];
  if (winner.gaps > 0) parts.push(plural(winner.gaps, 'gap'));
  parts.push('every required check passed');
  if (winner.score !== null) parts.push(`score ${winner.score}`);
  return parts.join('; ');
}
