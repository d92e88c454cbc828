// The measurement policies of portfolio search (src/core/portfolio.ts) as tables, and a property:
// a policy's choice never depends on the order in which readings (or candidates) arrive.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeReadings,
  MAX_READINGS,
  POLICIES,
  slotOf,
  type PolicyInput,
  type PortfolioPolicy,
  type Reading,
} from '../../src/core/portfolio.ts';
import type { CandidateEvidence } from '../../src/core/types.ts';

function evidence(pr: number, opts: { promotable?: boolean; met?: number } = {}): CandidateEvidence {
  const promotable = opts.promotable ?? true;
  const met = opts.met ?? 2;
  return {
    pr,
    headSha: `sha${pr}`,
    gate: {
      required: [],
      source: 'config',
      settled: true,
      promotable,
      reason: '',
      passingChecks: 2,
      score: null,
      timedOut: false,
    },
    acceptance: {
      status: met === 2 ? 'pass' : 'fail',
      results: [
        { id: 'AC1', status: met >= 1 ? 'met' : 'not_met', citation: null, reason: '', source: 'small' },
        { id: 'AC2', status: met >= 2 ? 'met' : 'not_met', citation: null, reason: '', source: 'small' },
      ],
      truncated: false,
      modelCalls: { small: 1, large: 0 },
    },
    changedPaths: [],
    changedLines: 0,
    labels: [],
    author: 'agent[bot]',
  };
}

/** readings: pr → values in run order (run ids 1, 2, 3… per candidate, offset so they interleave). */
type Table = Partial<Record<number, number[]>>;
const readingsOf = (table: Table): Reading[] =>
  Object.entries(table).flatMap(([pr, values]) =>
    (values ?? []).map((value, i) => ({ pr: Number(pr), run: 100 * (i + 1) + Number(pr), value })),
  );

const input = (prs: number[], table: Table, k: number, over: Partial<PolicyInput> = {}): PolicyInput => ({
  evidence: prs.map((pr) => evidence(pr)),
  readings: readingsOf(table),
  k,
  maxReadings: MAX_READINGS,
  ...over,
});

describe('top-k', () => {
  it.each([
    { name: 'the best first readings go deep', table: { 1: [0.91], 2: [0.8], 3: [0.7] }, k: 2, deep: [1, 2], out: [3] },
    { name: 'k = 1 takes the single best', table: { 1: [0.5], 2: [0.8], 3: [0.7] }, k: 1, deep: [2], out: [3, 1] },
    {
      name: 'only the first reading counts',
      table: { 1: [0.91, 0.1, 0.1], 2: [0.9, 0.9, 0.9] },
      k: 1,
      deep: [1],
      out: [2],
    },
    {
      name: 'a tie at the boundary keeps both',
      table: { 1: [0.9], 2: [0.8], 3: [0.8] },
      k: 2,
      deep: [1, 2, 3],
      out: [],
    },
    { name: 'k larger than the field sends everyone', table: { 1: [0.9], 2: [0.8] }, k: 3, deep: [1, 2], out: [] },
  ])('$name', ({ table, k, deep, out }) => {
    const prs = Object.keys(table).map(Number);
    expect(POLICIES['top-k'](input(prs, table as Record<number, number[]>, k))).toMatchObject({
      kind: 'chosen',
      deep,
      out,
    });
  });

  it('ranks on criteria before the score: a higher score does not beat a criterion met', () => {
    const i = input([1, 2], { 1: [0.99], 2: [0.5] }, 1);
    i.evidence[0] = evidence(1, { met: 1 });
    expect(POLICIES['top-k'](i)).toMatchObject({ kind: 'chosen', deep: [2], out: [1] });
  });
});

describe('successive-halving', () => {
  it.each([
    {
      name: 'first it asks every candidate for a second reading',
      table: { 1: [0.91], 2: [0.8], 3: [0.85] },
      k: 1,
      step: { kind: 'rerun', prs: [1, 2, 3] },
    },
    {
      name: 'then the better half survives and is measured again',
      table: { 1: [0.91, 0.6], 2: [0.8, 0.82], 3: [0.85, 0.84] },
      k: 1,
      step: { kind: 'rerun', prs: [2, 3] },
    },
    {
      name: 'then the best average goes deep, not the best first reading',
      table: { 1: [0.91, 0.6], 2: [0.8, 0.82, 0.81], 3: [0.85, 0.84, 0.83] },
      k: 1,
      step: { kind: 'chosen', deep: [3], out: [2, 1] },
    },
    {
      name: 'with k survivors already it takes one reading only',
      table: { 1: [0.9], 2: [0.8] },
      k: 2,
      step: { kind: 'chosen', deep: [1, 2], out: [] },
    },
    {
      name: 'three candidates, k = 2: one more reading each, then two stay',
      table: { 1: [0.95, 0.5], 2: [0.8, 0.8], 3: [0.75, 0.9] },
      k: 2,
      step: { kind: 'chosen', deep: [3, 2], out: [1] },
    },
    {
      name: 'a candidate without a score is never re-run',
      table: { 1: [0.9], 3: [0.7] },
      prs: [1, 2, 3],
      k: 1,
      step: { kind: 'rerun', prs: [1, 3] },
    },
  ])('$name', ({ table, k, step, prs }) => {
    const list = prs ?? Object.keys(table).map(Number);
    expect(POLICIES['successive-halving'](input(list, table as Record<number, number[]>, k))).toMatchObject(step);
  });

  it('stops asking after maxReadings and chooses on what it has', () => {
    const table = { 1: [0.8, 0.8], 2: [0.8, 0.8] };
    expect(POLICIES['successive-halving'](input([1, 2], table, 1, { maxReadings: 2 }))).toMatchObject({
      kind: 'chosen',
      deep: [1, 2],
    });
  });
});

describe('describeReadings', () => {
  it.each([
    [[0.91, 0.72, 0.7], '0.91, 0.72, 0.70 → 0.78'],
    [[0.91], '0.91'],
    [[], 'no reading'],
  ])('%j → %s', (values, text) => expect(describeReadings(values)).toBe(text));
});

describe('slotOf', () => {
  it.each([
    ['Candidate-for: #42\nArbiter-slot: 42-1-2\n', '42-1-2'],
    ['arbiter-slot:   42-1-3  ', '42-1-3'],
    ['> Arbiter-slot: 42-1-2', null],
    ['no slot here', null],
    [null, null],
  ])('%j → %j', (body, slot) => expect(slotOf(body)).toBe(slot));
});

describe('property: the choice does not depend on arrival order', () => {
  const arbField = fc
    .record({
      n: fc.integer({ min: 1, max: 6 }),
      k: fc.integer({ min: 1, max: 3 }),
      values: fc.array(
        fc.array(
          fc.integer({ min: 0, max: 20 }).map((v) => v / 20),
          { minLength: 1, maxLength: 5 },
        ),
        { minLength: 6, maxLength: 6 },
      ),
      promotable: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      seed: fc.integer(),
    })
    .map(({ n, k, values, promotable, seed }) => {
      const prs = Array.from({ length: n }, (_, i) => 10 + i);
      const table = Object.fromEntries(prs.map((pr, i) => [pr, values[i]]));
      return { prs, k, table, promotable, seed };
    });

  const shuffle = <T>(list: T[], seed: number): T[] => {
    const out = [...list];
    let s = seed >>> 0 || 1;
    for (let i = out.length - 1; i > 0; i--) {
      s = (s * 1103515245 + 12345) >>> 0;
      const j = s % (i + 1);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };

  it.each<PortfolioPolicy>(['top-k', 'successive-halving'])('%s', (policy) => {
    fc.assert(
      fc.property(arbField, ({ prs, k, table, promotable, seed }) => {
        const base: PolicyInput = {
          evidence: prs.map((pr, i) => evidence(pr, { promotable: promotable[i] })),
          readings: readingsOf(table),
          k,
          maxReadings: MAX_READINGS,
        };
        const shuffled: PolicyInput = {
          ...base,
          evidence: shuffle(base.evidence, seed),
          readings: shuffle(base.readings, seed ^ 0x5bd1e995),
        };
        expect(POLICIES[policy](shuffled)).toEqual(POLICIES[policy](base));
      }),
      { seed: 18, numRuns: 300 },
    );
  });
});
