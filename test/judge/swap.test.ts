// Swap consistency (DESIGN.md §5, issue 15): every judge call is made twice with the tied
// candidates in opposite orders; only answers that agree decide; both calls take budget.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropic, type ModelScripts } from '../../sim/anthropic/index.ts';
import type { ArbiterConfig } from '../../src/config/schema.ts';
import { diagnose } from '../../src/judge/diagnostics.ts';
import { judgeTie } from '../../src/judge/judge.ts';
import { averageMatrices, validateMatrix } from '../../src/judge/rubric.ts';
import { candidate, CRITERIA, judgeConfig } from './fixtures.ts';

let fake: FakeAnthropic | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

async function judgeWith(judge: ModelScripts['judge'], config: ArbiterConfig['judge'] = judgeConfig()) {
  const { createAnthropicClient } = await import('../../src/llm/client.ts');
  fake = await FakeAnthropic.start({ scripts: { candidates: {}, judge } });
  const llm = createAnthropicClient({ apiKey: 'test-key', baseURL: fake.url, retryBaseMs: 1 });
  let taken = 0;
  const takeBudget = async (): Promise<boolean> => {
    taken += 1;
    return true;
  };
  const tied = [candidate(12), candidate(13)];
  const outcome = await judgeTie({ tied, deterministicOrder: [12, 13], criteria: CRITERIA, config, llm, takeBudget });
  return { outcome, taken, requests: fake.requests, diagnostics: diagnose({ evidence: tied, judge: outcome }) };
}

const PREFER_13 = {
  verdict: 'prefer_candidate',
  candidate: 13,
  evidence: ['ev:13:acceptance:AC1'],
  reason: 'AC1 is better evidenced',
};
const PREFER_12 = {
  verdict: 'prefer_candidate',
  candidate: 12,
  evidence: ['ev:12:acceptance:AC1'],
  reason: 'the first one looks better',
};

describe('verdict mode, both orders', () => {
  it('both orders prefer the same candidate: it wins; both calls took budget; the second saw the candidates reversed', async () => {
    const { outcome, taken, requests } = await judgeWith({
      ...PREFER_13,
      swapped: { ...PREFER_13, evidence: ['ev:13:check:test'] },
    });
    expect(outcome).toMatchObject({
      comparison: 'judged',
      winner: 13,
      evidence: ['ev:13:acceptance:AC1', 'ev:13:check:test'],
    });
    expect(taken).toBe(2);
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((r) => JSON.stringify(r.body));
    expect(first).toContain('candidates=12,13');
    expect(second).toContain('candidates=13,12');
    expect(second.indexOf('## Candidate #13')).toBeLessThan(second.indexOf('## Candidate #12'));
    expect(first.indexOf('## Candidate #12')).toBeLessThan(first.indexOf('## Candidate #13'));
  });

  it('an answer that flips with the order decides nothing: inconsistent, no winner', async () => {
    const { outcome, taken, diagnostics } = await judgeWith({ ...PREFER_13, swapped: PREFER_12 });
    expect(outcome).toMatchObject({
      comparison: 'inconsistent',
      winner: null,
      reason: 'judge-inconsistent',
      source: 'none',
    });
    expect(diagnostics.comparison).toBe('inconsistent');
    expect(taken).toBe(2);
  });

  it('a preference in one order and no preference in the other is inconsistent', async () => {
    const { outcome } = await judgeWith({
      ...PREFER_13,
      swapped: { verdict: 'needs_more_evidence', candidate: null, evidence: [], reason: 'unsure' },
    });
    expect(outcome).toMatchObject({ comparison: 'inconsistent', winner: null });
  });

  it('an invalid reversed answer is invalid; an invalid first answer saves the second call', async () => {
    expect((await judgeWith({ ...PREFER_13, swapped: { ...PREFER_13, evidence: ['ev:99:x'] } })).outcome).toMatchObject(
      { comparison: 'invalid', winner: null },
    );
    await fake?.stop();
    fake = null;
    const first = await judgeWith({ ...PREFER_13, candidate: 99 });
    expect(first.outcome).toMatchObject({ comparison: 'invalid' });
    expect(first.requests).toHaveLength(1);
    expect(first.taken).toBe(1);
  });
});

describe('rubric mode, both orders', () => {
  const RUBRIC = judgeConfig({ mode: 'rubric' }); // completeness (weight 2), risk (weight 1)

  it('the two complete matrices are averaged: a position-biased pair of answers ends level', async () => {
    // First order favours the first listed (#12), the reversed order favours #13, by the same amount.
    const forward = { '12': { completeness: 4, risk: 2 }, '13': { completeness: 3, risk: 2 } };
    const reversed = { '12': { completeness: 3, risk: 2 }, '13': { completeness: 4, risk: 2 } };
    const { outcome, taken } = await judgeWith({ scores: forward, swapped: { scores: reversed } }, RUBRIC);
    expect(outcome).toMatchObject({ comparison: 'scored', reason: 'judge-tied', source: 'deterministic' });
    expect(outcome.ranking).toMatchObject({ topScoreTieCount: 2, scoreMargin: 0 });
    expect(taken).toBe(2);
  });

  it('averaging keeps a consistent preference', async () => {
    const forward = { '12': { completeness: 2, risk: 2 }, '13': { completeness: 4, risk: 2 } };
    const reversed = { '12': { completeness: 3, risk: 2 }, '13': { completeness: 4, risk: 3 } };
    const { outcome } = await judgeWith({ scores: forward, swapped: { scores: reversed } }, RUBRIC);
    expect(outcome).toMatchObject({ comparison: 'scored', winner: 13, reason: 'judge-ranked', source: 'llm-judge' });
    expect(outcome.ranking?.scoreMargin).toBe(3.5); // (2·4+2 + 2·4+3)/2 − (2·2+2 + 2·3+2)/2
  });

  it('an incomplete reversed matrix is invalid', async () => {
    const full = { '12': { completeness: 2, risk: 2 }, '13': { completeness: 4, risk: 2 } };
    const { outcome } = await judgeWith({ scores: full, swapped: { scores: { '12': { completeness: 2 } } } }, RUBRIC);
    expect(outcome).toMatchObject({ comparison: 'invalid', winner: null });
  });

  it('averageMatrices is the cell-by-cell mean', () => {
    const rubric = RUBRIC.rubric;
    const a = validateMatrix(
      [
        { candidate: 1, criterion: 'completeness', score: 1 },
        { candidate: 1, criterion: 'risk', score: 4 },
      ],
      [1],
      rubric,
    )!;
    const b = validateMatrix(
      [
        { candidate: 1, criterion: 'completeness', score: 2 },
        { candidate: 1, criterion: 'risk', score: 0 },
      ],
      [1],
      rubric,
    )!;
    expect([...averageMatrices(a, b).get(1)!]).toEqual([
      ['completeness', 1.5],
      ['risk', 2],
    ]);
  });
});
