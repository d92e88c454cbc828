// Diagnostics table: counts by eligibility and the comparison, ranking only when scored.
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../src/judge/diagnostics.ts';
import type { JudgeOutcome } from '../../src/core/types.ts';
import { candidate } from './fixtures.ts';

const judged = (over: Partial<JudgeOutcome>): JudgeOutcome => ({
  comparison: 'judged',
  winner: 12,
  reason: 'judge-preferred',
  source: 'llm-judge',
  evidence: [],
  explanation: '',
  ranking: null,
  ...over,
});

describe('diagnose', () => {
  it('no tie: not-compared and no ranking', () => {
    const d = diagnose({ evidence: [candidate(12), candidate(13, { gate: 'fail' })], judge: null });
    expect(d).toEqual({
      submittedCandidates: 2,
      eligibleCandidates: 1,
      excludedCandidates: { fail: 1, inconclusive: 0 },
      comparison: 'not-compared',
    });
  });

  it('a pending gate counts as inconclusive; a failed check counts as fail even when timed out', () => {
    const failedAndTimedOut = candidate(15, { gate: 'fail' });
    failedAndTimedOut.gate.timedOut = true;
    const d = diagnose({
      evidence: [
        candidate(12),
        candidate(13, { gate: 'pending' }),
        candidate(14, { gate: 'timed-out' }),
        failedAndTimedOut,
      ],
      judge: null,
    });
    expect(d.excludedCandidates).toEqual({ fail: 1, inconclusive: 2 });
    expect(d.eligibleCandidates).toBe(1);
  });

  it.each(['judged', 'unavailable', 'invalid'] as const)(
    '%s: the comparison is copied, ranking left out',
    (comparison) => {
      const d = diagnose({
        evidence: [candidate(12), candidate(13)],
        judge: judged({ comparison, ranking: { distinctScores: 2, topScoreTieCount: 1, scoreMargin: 1 } }),
      });
      expect(d.comparison).toBe(comparison);
      expect(d).not.toHaveProperty('ranking');
    },
  );

  it('scored: the ranking is carried', () => {
    const ranking = { distinctScores: 2, topScoreTieCount: 1, scoreMargin: 3 };
    const d = diagnose({ evidence: [candidate(12), candidate(13)], judge: judged({ comparison: 'scored', ranking }) });
    expect(d.ranking).toEqual(ranking);
  });
});
