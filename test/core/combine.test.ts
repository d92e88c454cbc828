// The combine planner is pure: a table of when it combines (and when it never does: one candidate
// already meets everything, combine disabled, a combine already attempted for the Change), which
// sibling it pairs with the best, the same answer for any input order; and what follows it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  combinedIntoReason,
  combineFailureNote,
  planCombined,
  proposeCombine,
  type CombineInput,
} from '../../src/core/combine.ts';
import { planSelection } from '../../src/core/plan/selection.ts';
import { rankCandidates } from '../../src/core/rank.ts';
import type { CandidateEvidence, CriterionStatus } from '../../src/core/types.ts';
import { defaultConfig } from '../../src/config/schema.ts';

const CRITERIA = [1, 2, 3].map((i) => ({ id: `AC${i}`, text: `criterion ${i}`, check: null }));

type Shape = { promotable?: boolean; paths?: string[] };

function candidate(pr: number, statuses: CriterionStatus[], o: Shape = {}): CandidateEvidence {
  const promotable = o.promotable ?? true;
  return {
    pr,
    headSha: `sha${pr}`.padEnd(40, '0'),
    gate: {
      required: [{ name: 'test', outcome: promotable ? 'pass' : 'fail', raw: promotable ? 'success' : 'failure' }],
      source: 'config',
      settled: true,
      promotable,
      reason: promotable ? 'every required check passed' : 'required check `test` failed',
      passingChecks: 1,
      score: null,
      timedOut: false,
    },
    acceptance: {
      status: statuses.every((s) => s === 'met') ? 'pass' : 'fail',
      results: statuses.map((status, i) => ({ id: `AC${i + 1}`, status, citation: null, reason: '', source: 'small' })),
      truncated: false,
      modelCalls: { small: 1, large: 0 },
    },
    changedPaths: o.paths ?? [`src/${pr}.ts`],
    changedLines: 3,
    labels: [],
    author: 'agent',
  };
}

function input(
  siblings: CandidateEvidence[],
  o: Partial<Pick<CombineInput, 'attempted' | 'config'>> = {},
): CombineInput {
  return {
    repo: 'acme/planner',
    change: { number: 42, title: 'Planner', criteria: CRITERIA },
    round: 1,
    base: 'main',
    siblings,
    ranking: rankCandidates(siblings),
    config: o.config ?? { enabled: true, branchPrefix: 'arbiter/combined/' },
    attempted: o.attempted ?? false,
  };
}

const MET: CriterionStatus = 'met';
const NOT: CriterionStatus = 'not_met';
const ROW = fc.array(fc.constantFrom<CriterionStatus>(MET, NOT), { minLength: 3, maxLength: 3 });

/** #12 meets AC1 and AC2, #13 meets AC3. */
const halves = (a: Shape = {}, b: Shape = {}): CandidateEvidence[] => [
  candidate(12, [MET, MET, NOT], a),
  candidate(13, [NOT, NOT, MET], b),
];

describe('proposeCombine', () => {
  it('pairs the best promotable candidate with the one that brings what it lacks', () => {
    const p = proposeCombine(input([candidate(12, [MET, MET, NOT]), candidate(13, [NOT, NOT, MET])]));
    expect(p).toMatchObject({
      a: { pr: 12, met: ['AC1', 'AC2'] },
      b: { pr: 13, met: ['AC3'], brings: ['AC3'] },
      together: ['AC1', 'AC2', 'AC3'],
      branch: 'arbiter/combined/42',
      base: 'main',
    });
  });

  const never: [string, CombineInput][] = [
    ['one candidate already meets everything', input([candidate(12, [MET, MET, MET]), candidate(13, [NOT, NOT, MET])])],
    ['combine is disabled', input(halves(), { config: { enabled: false, branchPrefix: 'x/' } })],
    ['the Change had a combine already', input(halves(), { attempted: true })],
    ['the other brings nothing new', input([candidate(12, [MET, MET, NOT]), candidate(13, [MET, NOT, NOT])])],
    ['the one that brings it is not promotable', input(halves({}, { promotable: false }))],
    ['nothing is promotable', input(halves({ promotable: false }, { promotable: false }))],
    ['a lone candidate', input([candidate(12, [MET, MET, NOT])])],
    [
      'a sibling not fully judged could rank first',
      input([candidate(12, [MET, NOT, NOT]), candidate(13, [NOT, 'gap', MET])]),
    ],
  ];
  for (const [why, given] of never) it(`never combines when ${why}`, () => expect(proposeCombine(given)).toBeNull());

  it('never combines when a promotable candidate meets everything, whatever the others', () => {
    fc.assert(
      fc.property(fc.array(ROW, { minLength: 1, maxLength: 5 }), (rows) => {
        const group = [candidate(10, [MET, MET, MET]), ...rows.map((r, i) => candidate(20 + i, r))];
        expect(proposeCombine(input(group))).toBeNull();
      }),
    );
  });

  it('chooses the sibling that brings the most, and the higher ranked on a tie, in any input order', () => {
    const group = [
      candidate(16, [MET, NOT, NOT]),
      candidate(12, [MET, NOT, NOT]),
      candidate(13, [NOT, MET, NOT]),
      candidate(14, [NOT, MET, MET]),
      candidate(15, [NOT, NOT, MET]),
    ];
    fc.assert(
      fc.property(fc.shuffledSubarray(group, { minLength: group.length, maxLength: group.length }), (shuffled) => {
        const p = proposeCombine(input(shuffled));
        expect(p?.a.pr).toBe(14);
        expect(p?.b).toMatchObject({ pr: 12, brings: ['AC1'] });
      }),
    );
  });
});

describe('what follows the build', () => {
  const proposal = proposeCombine(input(halves({ paths: ['src/app.ts', 'src/a.ts'] }, { paths: ['src/app.ts'] })))!;

  it('names the files both sides change when they conflict, and the step GitHub refused', () => {
    const conflict = combineFailureNote(proposal, {
      outcome: 'conflict',
      with: 13,
      baseSha: 'b',
      message: 'Merge conflict',
    });
    expect(conflict).toBe('No combined candidate: #12 and #13 conflict in `src/app.ts`.');
    const message = 'Resource not accessible by integration';
    expect(combineFailureNote(proposal, { outcome: 'refused', step: 'branch', status: 403, message })).toBe(
      'No combined candidate of #12 and #13: GitHub refused to create the branch `arbiter/combined/42` ' +
        '(403: Resource not accessible by integration).',
    );
  });

  it('after the PR opened: the receipt, A and B waiting for #C by name, a note on the Change', () => {
    const merges = [
      { pr: 12, sha: 'm1' },
      { pr: 13, sha: 'm2' },
    ];
    const outcome = { outcome: 'opened' as const, pr: 43, headSha: 'c', baseSha: 'b', merges };
    const actions = planCombined({
      repo: 'acme/planner',
      proposal,
      outcome,
      mode: 'live',
      now: '2026-01-01T00:00:00Z',
    });
    const receipt = actions.find((a) => a.kind === 'receipt');
    expect(receipt?.kind === 'receipt' && receipt.receipt).toMatchObject({
      kind: 'COMBINED_CANDIDATE',
      data: {
        outcome: 'opened',
        a: { pr: 12, brought: ['AC1', 'AC2'] },
        b: { pr: 13, brought: ['AC3'] },
        combined: 43,
        merges,
      },
    });
    const titles = actions.flatMap((a) => (a.kind === 'check-run' ? [[a.pr, a.title]] : []));
    expect(titles).toEqual([
      [12, 'Waiting for the combined candidate #43'],
      [13, 'Waiting for the combined candidate #43'],
    ]);
    expect(new Set(actions.map((a) => a.key)).size).toBe(actions.length);
  });

  it('a winning combined candidate closes its sources as combined into it; otherwise the usual reasons', () => {
    expect(combinedIntoReason({ pr: 43, sources: [12, 13] }, 43, 12)).toMatch(/^Combined into #43: /);
    expect(combinedIntoReason({ pr: 43, sources: [12, 13] }, 12, 13)).toBeNull();
    const group = [candidate(43, [MET, MET, MET]), candidate(12, [MET, MET, NOT]), candidate(13, [NOT, NOT, MET])];
    const plan = planSelection({
      repo: 'acme/planner',
      change: { number: 42, title: 'Planner', criteria: CRITERIA },
      round: 2,
      base: 'main',
      siblings: group,
      ranking: rankCandidates(group),
      judge: null,
      diagnostics: {
        submittedCandidates: 3,
        eligibleCandidates: 3,
        excludedCandidates: { fail: 0, inconclusive: 0 },
        comparison: 'not-compared',
      },
      config: defaultConfig(),
      repairAvailable: true,
      reviewers: { users: [], teams: [] },
      branch: { requiredReviews: 0, mergeQueue: false },
      drafts: [43],
      now: '2026-01-01T00:00:00Z',
      buttons: [],
      combined: { pr: 43, sources: [12, 13] },
    });
    expect(plan.verdict).toMatchObject({ kind: 'ship', winner: 43 });
    // For a ship verdict the losers close after the merge succeeded (afterShip).
    const closing = [...plan.actions, ...(plan.afterShip ?? [])].flatMap((a) =>
      a.kind === 'check-run' && a.pr !== 43 ? [a.title] : [],
    );
    expect(closing).toEqual(['Combined into #43', 'Combined into #43']);
  });
});
