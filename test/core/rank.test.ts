// Ranking is pure and order-independent; an unpromotable candidate never wins.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rankCandidates } from '../../src/core/rank.ts';
import type { CandidateEvidence, CriterionStatus } from '../../src/core/types.ts';

function candidate(
  pr: number,
  o: {
    promotable?: boolean;
    statuses?: CriterionStatus[];
    score?: number | null;
    passing?: number;
    timedOut?: boolean;
  },
): CandidateEvidence {
  const promotable = o.promotable ?? true;
  return {
    pr,
    headSha: `sha${pr}`,
    gate: {
      required: [{ name: 'test', outcome: promotable ? 'pass' : 'fail', raw: promotable ? 'success' : 'failure' }],
      source: 'config',
      settled: true,
      promotable,
      reason: promotable ? 'every required check passed' : 'required check `test` failed',
      passingChecks: o.passing ?? 1,
      score: o.score ?? null,
      timedOut: o.timedOut ?? false,
    },
    acceptance: {
      status: (o.statuses ?? []).every((s) => s === 'met') ? 'pass' : 'fail',
      results: (o.statuses ?? []).map((status, i) => ({
        id: `AC${i + 1}`,
        status,
        citation: null,
        reason: '',
        source: 'small',
      })),
      truncated: false,
      modelCalls: { small: 1, large: 0 },
    },
    changedPaths: [],
    changedLines: 0,
    labels: [],
    author: 'agent',
  };
}

const arbCandidate = (pr: number) =>
  fc
    .record({
      promotable: fc.boolean(),
      timedOut: fc.boolean(),
      statuses: fc.array(fc.constantFrom<CriterionStatus>('met', 'not_met', 'unclear', 'uncheckable', 'gap'), {
        minLength: 3,
        maxLength: 3,
      }),
      score: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }),
      passing: fc.integer({ min: 0, max: 3 }),
    })
    .map((o) => candidate(pr, o));

const arbGroup = fc
  .integer({ min: 1, max: 8 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbCandidate(10 + i))));

describe('rankCandidates', () => {
  it('orders by promotable, criteria met, gaps, score, passing checks', () => {
    const r = rankCandidates([
      candidate(1, { statuses: ['met', 'not_met'] }),
      candidate(2, { statuses: ['met', 'met'] }),
      candidate(3, { statuses: ['met', 'met', 'met'], promotable: false }),
      candidate(4, { statuses: ['met', 'gap'] }),
    ]);
    expect(r.ordered.map((c) => [c.pr, c.rank])).toEqual([
      [2, 1],
      [1, 2],
      [4, 3],
      [3, 4],
    ]);
    expect(r.top).toEqual([2]);
    expect(r.tiedAtTop).toBe(false);
  });

  it('reports a tie at the top when two candidates are equal on every key', () => {
    const r = rankCandidates([
      candidate(7, { statuses: ['met'], score: 2 }),
      candidate(5, { statuses: ['met'], score: 2 }),
      candidate(6, { statuses: ['met'], score: 1 }),
    ]);
    expect(r.top).toEqual([5, 7]);
    expect(r.tiedAtTop).toBe(true);
  });

  it('ranks nobody on top when nothing is promotable', () => {
    expect(rankCandidates([candidate(1, { promotable: false, statuses: ['met'] })]).top).toEqual([]);
  });

  it('gives the same ranking for any permutation of the candidates', () => {
    fc.assert(
      fc.property(arbGroup, fc.integer(), (group, seed) => {
        const shuffled = [...group].sort((a, b) => ((a.pr * 7919 + seed) % 97) - ((b.pr * 7919 + seed) % 97));
        expect(rankCandidates(shuffled)).toEqual(rankCandidates([...group].reverse()));
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('never puts an unpromotable candidate on top, and the winner meets at least as many criteria as any promotable loser', () => {
    fc.assert(
      fc.property(arbGroup, (group) => {
        const r = rankCandidates(group);
        for (const pr of r.top) {
          const top = r.ordered.find((c) => c.pr === pr)!;
          expect(top.promotable).toBe(true);
          for (const other of r.ordered.filter((c) => c.promotable)) expect(top.met).toBeGreaterThanOrEqual(other.met);
        }
        if (group.every((c) => !c.gate.promotable || c.gate.timedOut)) expect(r.top).toEqual([]);
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});
