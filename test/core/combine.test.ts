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
import { planRebuild, planRebuildEnded, rebuildKey } from '../../src/core/plan/combine-rebuild.ts';
import { planShipped } from '../../src/core/plan/after-merge.ts';
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

  const selectionOf = (group: CandidateEvidence[], config = defaultConfig()) =>
    planSelection({
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
      config,
      repairAvailable: true,
      reviewers: { users: [], teams: [] },
      branch: { requiredReviews: 0, mergeQueue: false },
      drafts: [43],
      now: '2026-01-01T00:00:00Z',
      buttons: [],
      combined: { pr: 43, sources: [12, 13] },
    });

  it('a winning combined candidate closes its sources as combined into it; otherwise the usual reasons', () => {
    expect(combinedIntoReason({ pr: 43, sources: [12, 13] }, 43, 12)).toMatch(/^Combined into #43: /);
    expect(combinedIntoReason({ pr: 43, sources: [12, 13] }, 12, 13)).toBeNull();
    const group = [candidate(43, [MET, MET, MET]), candidate(12, [MET, MET, NOT]), candidate(13, [NOT, NOT, MET])];
    const plan = selectionOf(group);
    expect(plan.verdict).toMatchObject({ kind: 'ship', winner: 43 });
    // For a ship verdict the losers close after the merge succeeded (afterShip).
    const closing = [...plan.actions, ...(plan.afterShip ?? [])].flatMap((a) =>
      a.kind === 'check-run' && a.pr !== 43 ? [a.title] : [],
    );
    expect(closing).toEqual(['Combined into #43', 'Combined into #43']);
  });
});

describe('the combined candidate before a person, and after it merged', () => {
  const group = [
    candidate(43, [MET, MET, MET], { paths: ['src/12.ts', '.github/workflows/ci.yml'] }),
    candidate(12, [MET, MET, NOT]),
    candidate(13, [NOT, NOT, MET], { paths: ['.github/workflows/ci.yml'] }),
  ];
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

  it('a high-risk combined winner goes to a person and holds its sources open, with their Promote button', () => {
    expect(plan.verdict).toMatchObject({ kind: 'human', winner: 43, before: [43] });
    const onSources = plan.actions.filter((a) => 'pr' in a && (a.pr === 12 || a.pr === 13));
    expect(onSources.filter((a) => a.kind === 'close' || a.kind === 'set-state')).toEqual([]);
    const checks = onSources.flatMap((a) => (a.kind === 'check-run' ? [a] : []));
    expect(checks.map((c) => [c.pr, c.conclusion, c.title, c.buttons !== undefined])).toEqual([
      [12, 'neutral', 'Held as part of #43', true],
      [13, 'neutral', 'Held as part of #43', true],
    ]);
    expect(checks[0].summary).toContain('#43 combines this candidate with #13 and waits for a person');
    expect(plan.receipt.data.losers.map((l) => l.reason)).toEqual([
      'Held as part of #43: open until #43 merges',
      'Held as part of #43: open until #43 merges',
    ]);
  });

  it('once the combined candidate merged, its sources close "Combined into" it; any other sibling as stale', () => {
    const shipped = (combined: { pr: number; sources: number[] } | null) =>
      planShipped({
        repo: 'acme/planner',
        change: 42,
        round: 2,
        pr: 43,
        sha: 'c'.repeat(40),
        by: 'maintainer',
        method: 'squash',
        winnerCheck: true,
        stale: [12, 13, 14].map((pr) => ({ pr, headSha: `sha${pr}`, awaiting: false })),
        combined,
        now: '2026-01-01T00:00:00Z',
      }).flatMap((a) => (a.kind === 'check-run' && a.pr !== 43 ? [`#${a.pr} ${a.title}`] : []));
    expect(shipped({ pr: 43, sources: [12, 13] })).toEqual([
      '#12 Combined into #43',
      '#13 Combined into #43',
      '#14 Superseded: #43 shipped.',
    ]);
    expect(shipped(null)).toEqual([
      '#12 Superseded: #43 shipped.',
      '#13 Superseded: #43 shipped.',
      '#14 Superseded: #43 shipped.',
    ]);
  });
});

describe('the combined candidate follows its parents', () => {
  const proposal = proposeCombine(input([candidate(12, [MET, MET, NOT]), candidate(13, [NOT, NOT, MET])]))!;
  const record = {
    proposal,
    outcome: { outcome: 'opened' as const, pr: 43, headSha: 'c'.repeat(40), baseSha: 'b'.repeat(40), merges: [] },
  };

  it('merges each open parent whose head moved since the build, once per head; none when nothing moved', () => {
    const moved = new Map([
      [12, proposal.a.headSha],
      [13, 'n'.repeat(40)],
    ]);
    expect(planRebuild('acme/planner', record, moved)).toEqual([
      {
        kind: 'combine-merge',
        key: rebuildKey('acme/planner', 42, 13, 'n'.repeat(40)),
        change: 42,
        branch: 'arbiter/combined/42',
        source: 13,
        sha: 'n'.repeat(40),
      },
    ]);
    const still = new Map([
      [12, proposal.a.headSha],
      [13, proposal.b.headSha],
    ]);
    expect(planRebuild('acme/planner', record, still)).toEqual([]);
    // A parent no longer open is not merged again.
    expect(planRebuild('acme/planner', record, new Map([[12, proposal.a.headSha]]))).toEqual([]);
  });

  it('a refused rebuild closes the combined PR with the reason, on it and on the Change, and touches no parent', () => {
    const actions = planRebuildEnded({
      repo: 'acme/planner',
      record,
      headSha: 'c'.repeat(40),
      source: 13,
      sha: 'n'.repeat(40),
      answer: { ok: false, status: 409, message: 'Merge conflict' },
      now: '2026-01-01T00:00:00Z',
    });
    expect(actions.flatMap((a) => ('pr' in a ? [a.pr] : 'issue' in a ? [a.issue] : []))).not.toContain(12);
    expect(actions.map((a) => a.kind)).toEqual(['receipt', 'check-run', 'comment', 'close', 'set-state', 'comment']);
    const note = actions.find((a) => a.kind === 'comment' && a.issue === 42);
    expect(note && note.kind === 'comment' ? note.body : '').toContain(
      'The combined candidate #43 was closed: #13 moved on after #43 was built, and its new head nnnnnnn conflicts with the rest of #43. #12 and #13 are compared on their own.',
    );
  });
});
