// Why a candidate lost, in one sentence a maintainer reads on the closed PR, naming what decided:
// "Lost to #13, which also meets AC2 (Each day holds a kanban list) and AC3. #13 met 3 of 3 criteria,
// this one 1 of 3." Pure.
import { decidingKey } from './rank.ts';
import { countWord, STATUS_ORDER } from './render/vocabulary.ts';
import type { CandidateEvidence, Criterion, CriterionStatus, JudgeOutcome, RankedCandidate } from './types.ts';

/** "1 criterion", "3 criteria". */
export const criteriaWord = (n: number): string => (n === 1 ? 'criterion' : 'criteria');

/** "a", "a and b", "a, b and c". */
export function listWords(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** A criterion's words for a sentence: whole, or cut at a word with "…" when longer than `max`. */
export function criterionLabel(c: Criterion, max = 72): string {
  const text = c.text.replace(/\s+/g, ' ').replace(/\.$/, '').trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > max / 2 ? cut.slice(0, atWord) : cut).replace(/[\s,;:(]+$/, '')}…`;
}

export function failedRequired(e: CandidateEvidence): string[] {
  return e.gate.required.filter((c) => c.outcome === 'fail').map((c) => c.name);
}

function statusOf(e: CandidateEvidence | undefined, id: string): CriterionStatus | null {
  return e?.acceptance?.results.find((r) => r.id === id)?.status ?? null;
}

/** Criteria `winner` meets and `loser` has as `status` (any but met when null): the first named with its words. */
function alsoMeets(
  criteria: Criterion[],
  winner: CandidateEvidence,
  loser: CandidateEvidence,
  status: CriterionStatus | null,
): string | null {
  const ids = criteria.filter((c) => {
    const here = statusOf(loser, c.id);
    return statusOf(winner, c.id) === 'met' && (status === null ? here !== 'met' : here === status);
  });
  if (ids.length === 0) return null;
  const named = ids.slice(0, 5).map((c, i) => (i === 0 ? `${c.id} (${criterionLabel(c)})` : c.id));
  if (ids.length > 5) named.push(`${ids.length - 5} more`);
  return listWords(named);
}

export function loserReason(input: {
  winner: RankedCandidate;
  loser: RankedCandidate;
  loserEvidence: CandidateEvidence;
  criteriaCount: number;
  judge: JudgeOutcome | null;
  /** With both, a loss on criteria names them. */
  winnerEvidence?: CandidateEvidence;
  criteria?: Criterion[];
  /** When nobody was chosen: the head names those before a person, never "Lost to". */
  head?: string;
}): string {
  const { winner, loser, loserEvidence, criteriaCount, judge } = input;
  const head = input.head ?? `Lost to #${winner.pr}`;
  const key = decidingKey(winner, loser);
  if (key === null) {
    // The judge's own reason, quoted; the evidence ids it cited stay in the receipt.
    const why =
      judge && judge.winner === winner.pr && judge.explanation
        ? `: “${judgeWords(judge.explanation).replace(/[.\s]+$/, '')}”`
        : '';
    if (judge?.source === 'deterministic')
      return `${head}: same evidence; the judge scored you level and #${winner.pr} ranks first by evidence.`;
    return `${head}: same evidence, and the model judge preferred #${winner.pr}${why}.`;
  }
  if (key === 'promotable') {
    if (loserEvidence.gate.timedOut)
      return `${head}: timed out here (${loserEvidence.gate.reason.replace(/^timed out: /, '')}).`;
    const failed = failedRequired(loserEvidence);
    if (failed.length > 0) {
      return `${head}: required check ${failed.map((n) => `\`${n}\``).join(', ')} failed here.`;
    }
    return `${head}: not promotable here (${loserEvidence.gate.reason}).`;
  }
  const named = (status: CriterionStatus | null): string | null =>
    input.winnerEvidence && input.criteria
      ? alsoMeets(input.criteria, input.winnerEvidence, loserEvidence, status)
      : null;
  if (key === 'met') {
    const counts = `#${winner.pr} met ${winner.met} of ${criteriaCount} ${criteriaWord(criteriaCount)}, this one ${loser.met} of ${criteriaCount}.`;
    const missed = named(null);
    // "Lost to #13, which also meets …" only when the head names the winner; before a person it is a plain clause.
    const lostTo = head === `Lost to #${winner.pr}`;
    if (!missed) return `${head}: ${counts}`;
    return lostTo
      ? `${head}, which also meets ${missed}. ${counts}`
      : `${head}: #${winner.pr} also meets ${missed}. ${counts}`;
  }
  if (key === 'gaps') {
    const unjudged = named('gap');
    const fewer = `${countWord(winner.gaps, 'gap')} there against ${loser.gaps} here`;
    return unjudged
      ? `${head}: same criteria met, ${fewer}; not judged here: ${unjudged}.`
      : `${head}: same criteria met, ${fewer}.`;
  }
  if (key === 'score')
    return `${head}: same criteria met, score ${winner.score ?? 'none'} against ${loser.score ?? 'none'}.`;
  return `${head}: same criteria met, more passing checks (${winner.passing} against ${loser.passing}).`;
}

/** Why the winner won, for the comparison comment's headline. */
export function winnerSummary(winner: RankedCandidate, criteriaCount: number): string {
  const parts = [
    criteriaCount > 0
      ? `met ${winner.met} of ${criteriaCount} ${criteriaWord(criteriaCount)}`
      : 'no acceptance criteria',
  ];
  if (winner.gaps > 0) parts.push(countWord(winner.gaps, 'gap'));
  parts.push('every required check passed');
  if (winner.score !== null) parts.push(`score ${winner.score}`);
  return parts.join('; ');
}

/** Why the judge did not pick, in words: the code of its answer is for receipts, not people. */
const JUDGE_NO_WINNER: Record<string, string> = {
  'judge-unavailable': 'the model judge could not be reached',
  'judge-response-invalid': 'the model judge gave an answer Arbiter could not verify',
  'judge-tied': 'the model judge scored them level',
  reject_candidate: 'the model judge rejected a candidate without preferring another',
  needs_more_evidence: 'the model judge asked for more evidence',
  escalate_to_human: 'the model judge asked for a person',
};

export function judgeNoWinnerWords(judge: JudgeOutcome): string {
  return JUDGE_NO_WINNER[judge.reason] ?? 'the model judge did not pick one';
}

/**
 * An evidence id the judge cited, as a person reads it: `ev:13:acceptance:AC2` is "#13's AC2",
 * `ev:13:check:test` "#13's check `test`". The ids themselves stay in the receipt.
 */
export function evidenceWords(id: string): string {
  const m = /^ev:(\d+):([a-z]+):(.+)$/.exec(id);
  if (!m) return 'its evidence';
  const [, pr, kind, name] = m;
  if (kind === 'acceptance') return `#${pr}'s ${name}`;
  if (kind === 'score') return `#${pr}'s score`;
  return `#${pr}'s ${kind === 'status' ? 'status' : 'check'} \`${name}\``;
}

/** The judge's own words with any evidence id it wrote said as a person reads it. */
export const judgeWords = (explanation: string): string =>
  explanation.replace(/\bev:\d+:[a-z]+:[\w./-]*\w/g, (id) => evidenceWords(id));

/** One sentence on how the judge broke (or did not break) a tie at the top. */
export function judgeSentence(judge: JudgeOutcome): string {
  if (judge.winner === null)
    return `The candidates at the top were level on every piece of evidence, and ${judgeNoWinnerWords(judge)}.`;
  const cited =
    judge.evidence.length > 0 ? `, citing ${listWords([...new Set(judge.evidence.map(evidenceWords))])}` : '';
  const why = judge.explanation ? ` Its reason: “${judgeWords(judge.explanation)}”` : '';
  if (judge.source === 'deterministic') {
    // An order with no evidence behind it picks no winner (DESIGN.md section 5): a person chooses.
    return `The candidates at the top were level on every piece of evidence, and the model judge's scores were level too, so a person chooses.`;
  }
  return `The candidates at the top were level on every piece of evidence; the model judge preferred #${judge.winner}${cited}.${why}`;
}

/** How many criteria of one candidate are not met, by why: "1 not met and 1 for a person". */
export function missingCounts(e: CandidateEvidence | undefined, criteria: Criterion[]): string {
  const results = e?.acceptance?.results ?? [];
  const count = (s: CriterionStatus): number =>
    criteria.filter((c) => results.some((r) => r.id === c.id && r.status === s)).length;
  const parts: string[] = [];
  for (const s of STATUS_ORDER) if (s !== 'met' && count(s) > 0) parts.push(countWord(count(s), s));
  return listWords(parts);
}
