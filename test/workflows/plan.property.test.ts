// Property tests (fast-check, seeded) of outcome planning over random groups: the winner is
// never closed, nothing unpromotable is merged, every loser gets exactly one close and one
// reason, and the plan is the same for any order of the siblings.
//
// Checked against two mutations, applied in code by the tests at the end of this file (each must
// make the first property fail): (1) the ranking puts its best candidate first even when no
// candidate is promotable (`rankCandidates` drops the promotable test of its top group), so an
// unpromotable candidate could ship; (2) the planner forgets siblings whose criteria were not all
// judged (`unjudgedChallengers` answers none), so it would close one that could still rank above
// the winner. Both are applied through vitest's module mock below, which exists only in this test
// build: production code has no mutation branch, and with no mutation selected the mock calls the
// real functions.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { configOf } from '../support/selection-world.ts';
import type { Action } from '../../src/core/actions.ts';
import { planSelection, type SelectionInput, type SelectionPlan } from '../../src/core/plan/selection.ts';
import { replayReceipt } from '../../src/core/replay.ts';
import { mightOutrank, rankCandidates, summarise } from '../../src/core/rank.ts';
import { CandidateEvidence, type Criterion, type CriterionStatus, type JudgeOutcome } from '../../src/core/types.ts';
import { diagnose } from '../../src/judge/diagnostics.ts';
import { GAP_WORDING } from '../../src/core/render/gap-wording.ts';
import type { GapReason } from '../../src/core/types.ts';
import { SELECTION_BUTTONS } from '../../src/commands/buttons.ts';

/** The mutation in force (null: the code as it is). */
const rig = vi.hoisted(() => ({ mutation: null as null | 'rank-unpromotable-first' | 'forget-unjudged-challengers' }));

vi.mock(import('../../src/core/rank.ts'), async (importOriginal) => {
  const real = await importOriginal();
  return {
    ...real,
    rankCandidates: (...args: Parameters<typeof real.rankCandidates>) => {
      const ranking = real.rankCandidates(...args);
      if (rig.mutation !== 'rank-unpromotable-first') return ranking;
      const top = ranking.ordered.filter((c) => c.rank === 1).map((c) => c.pr);
      return { ...ranking, top, tiedAtTop: top.length > 1 };
    },
    unjudgedChallengers: (...args: Parameters<typeof real.unjudgedChallengers>) =>
      rig.mutation === 'forget-unjudged-challengers' ? [] : real.unjudgedChallengers(...args),
  };
});

const CRITERIA: Criterion[] = [
  { id: 'AC1', text: 'The home page shows a calendar', check: null },
  { id: 'AC2', text: 'Each day holds a kanban list', check: null },
  { id: 'AC3', text: 'Cards move between days', check: null },
];
const STATUSES: CriterionStatus[] = ['met', 'not_met', 'unclear', 'uncheckable', 'gap'];

const arbSibling = (criteria: Criterion[]) =>
  fc.record({
    gate: fc.constantFrom('pass', 'fail', 'timed-out'),
    // Mostly met, so ties and full passes are common.
    statuses: fc.array(
      fc.oneof(
        { weight: 3, arbitrary: fc.constant<CriterionStatus>('met') },
        { weight: 2, arbitrary: fc.constantFrom(...STATUSES) },
      ),
      {
        minLength: criteria.length,
        maxLength: criteria.length,
      },
    ),
    judged: fc.boolean(),
    score: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
    passing: fc.integer({ min: 1, max: 2 }),
    workflows: fc.boolean(),
    lines: fc.constantFrom(10, 500),
    draft: fc.boolean(),
  });

type SiblingCase = ReturnType<typeof arbSibling> extends fc.Arbitrary<infer T> ? T : never;

function evidenceOf(pr: number, s: SiblingCase, criteria: Criterion[]): CandidateEvidence {
  const results = criteria.map((c, i) => ({
    id: c.id,
    status: s.statuses[i]!,
    citation: s.statuses[i] === 'met' ? { path: 'src/a.ts', quote: `does ${c.id}` } : null,
  }));
  return CandidateEvidence.parse({
    pr,
    headSha: `sha-${pr}`,
    gate: {
      required: [
        {
          name: 'test',
          outcome: s.gate === 'pass' ? 'pass' : s.gate === 'fail' ? 'fail' : 'pending',
          raw: s.gate === 'fail' ? 'failure' : 'success',
        },
      ],
      source: 'config',
      settled: true,
      promotable: s.gate === 'pass',
      reason:
        s.gate === 'fail'
          ? 'required check `test` failed'
          : s.gate === 'timed-out'
            ? 'timed out: waiting on `test`'
            : 'every required check passed',
      passingChecks: s.passing,
      score: s.score,
      timedOut: s.gate === 'timed-out',
    },
    acceptance: !s.judged
      ? null
      : criteria.length === 0
        ? { status: 'none', results: [] }
        : { status: results.every((r) => r.status === 'met') ? 'pass' : 'fail', results },
    changedPaths: s.workflows ? ['.github/workflows/ci.yml'] : ['src/a.ts'],
    changedLines: s.lines,
  });
}

const arbGroup = fc
  .record({
    criteriaCount: fc.integer({ min: 0, max: 3 }),
    // Issues and pull requests share numbers: the Change is #42, so candidates are numbered above it.
    prs: fc.uniqueArray(fc.integer({ min: 43, max: 300 }), { minLength: 1, maxLength: 7 }),
    repairAvailable: fc.boolean(),
    repairEnabled: fc.boolean(),
    acceptanceRequired: fc.boolean(),
    /** The judge's answer, as an index into the sorted tied PRs; -1: no winner; 99: an invalid outsider; 98: a rubric tie. */
    judgePick: fc.constantFrom(-1, 0, 1, 99, 98),
    reviewers: fc.constantFrom([], ['maintainer']),
    branch: fc.record({ requiredReviews: fc.constantFrom(0, 1), mergeQueue: fc.boolean() }),
    seed: fc.integer(),
  })
  .chain((g) =>
    fc.record({
      group: fc.constant(g),
      siblings: fc.array(arbSibling(CRITERIA.slice(0, g.criteriaCount)), {
        minLength: g.prs.length,
        maxLength: g.prs.length,
      }),
      order: fc.shuffledSubarray(
        g.prs.map((_, i) => i),
        { minLength: g.prs.length, maxLength: g.prs.length },
      ),
    }),
  );

type Case = typeof arbGroup extends fc.Arbitrary<infer T> ? T : never;

/** Plans a group whose siblings are listed in `order`, as the selection step would. */
function plan(c: Case, order: number[], gap?: GapReason): { plan: SelectionPlan; evidence: CandidateEvidence[] } {
  const { group } = c;
  const criteria = CRITERIA.slice(0, group.criteriaCount);
  const evidence = order.map((i) => evidenceOf(group.prs[i]!, c.siblings[i]!, criteria));
  // A gap carries its code (the plan decides on it) and the words the renderer chose for it.
  for (const e of evidence)
    for (const r of e.acceptance?.results ?? [])
      if (r.status === 'gap' && gap) Object.assign(r, { gap, reason: GAP_WORDING[gap] });
  const ranking = rankCandidates(evidence);
  let judge: JudgeOutcome | null = null;
  if (ranking.tiedAtTop) {
    const tied = [...ranking.top].sort((a, b) => a - b);
    const winner =
      group.judgePick === 99
        ? Math.max(...group.prs) + 1
        : group.judgePick === 98
          ? tied[0]!
          : group.judgePick < 0
            ? null
            : (tied[group.judgePick] ?? null);
    judge = {
      comparison: 'judged',
      winner,
      reason: winner === null ? 'escalate_to_human' : 'judge-preferred',
      source: winner === null ? 'none' : 'llm-judge',
      evidence: winner === null ? [] : [`ev:${winner}:check:test`],
      explanation: '',
      ranking: null,
    };
    // A rubric matrix whose top group is tied: the rubric's order, not evidence, named a "winner".
    if (group.judgePick === 98)
      judge = { ...judge, comparison: 'scored', reason: 'judge-tied', source: 'deterministic', evidence: [] };
  }
  const config = configOf({
    repair: { enabled: group.repairEnabled },
    acceptance: { required: group.acceptanceRequired },
  });
  const input: SelectionInput = {
    repo: 'acme/todo',
    change: { number: 42, title: 'Calendar', criteria },
    round: 1,
    base: 'main',
    siblings: evidence,
    ranking,
    judge,
    diagnostics: diagnose({ evidence, judge }),
    config,
    repairAvailable: group.repairAvailable,
    reviewers: { users: [...group.reviewers], teams: [] },
    branch: group.branch,
    drafts: order.filter((i) => c.siblings[i]!.draft).map((i) => group.prs[i]!),
    now: '2026-03-02T09:00:00.000Z',
    buttons: [...SELECTION_BUTTONS],
  };
  return { plan: planSelection(input), evidence };
}

const of = <K extends Action['kind']>(actions: Action[], kind: K): Extract<Action, { kind: K }>[] =>
  actions.filter((a): a is Extract<Action, { kind: K }> => a.kind === kind);

describe('planSelection over random groups', () => {
  const plansHold = (endOnFailure = false) =>
    fc.assert(
      fc.property(arbGroup, (c) => {
        const identity = c.group.prs.map((_, i) => i);
        const { plan: p, evidence } = plan(c, identity);
        const byPr = new Map(evidence.map((e) => [e.pr, e]));
        const v = p.verdict;
        // A tie the judge did not settle by a valid verdict (a rubric tie too) goes to a person.
        if (p.receipt.data.judge && (p.receipt.data.judge as { source: string }).source !== 'llm-judge')
          expect(v.kind).not.toBe('ship');
        const kept =
          v.kind === 'ship'
            ? [v.winner]
            : v.kind === 'repair'
              ? [v.target]
              : [...v.before, ...(v.winner === null ? [] : [v.winner])];
        // A ship verdict's losers close only after the merge succeeded: their actions come after it.
        const all = [...p.actions, ...(p.afterShip ?? [])];
        if (v.kind === 'ship') expect(of(p.actions, 'close')).toEqual([]);
        const closed = of(all, 'close').map((a) => a.pr);
        for (const pr of kept) expect(closed).not.toContain(pr);
        // Closes are exactly the losers, each once, each with one reason (note, check run and receipt).
        expect([...closed].sort((a, b) => a - b)).toEqual([...v.losers].sort((a, b) => a - b));
        const receiptLosers = p.receipt.data.losers as { pr: number; reason: string }[];
        expect(receiptLosers.map((l) => l.pr).sort((a, b) => a - b)).toEqual([...v.losers].sort((a, b) => a - b));
        for (const pr of v.losers) {
          const reason = receiptLosers.find((l) => l.pr === pr)?.reason ?? '';
          // Nobody chosen: a loser ranks below those before a person; it never "lost to" one of them.
          if (v.kind === 'human' && v.winner === null)
            expect(reason).toMatch(/^Ranks below (#\d+, )*#\d+ \(before a person\): /);
          else expect(reason).toMatch(/^Lost to #\d+(: |, which also meets )/);
          expect(of(all, 'comment').filter((a) => a.issue === pr)).toHaveLength(1);
          expect(of(all, 'comment').find((a) => a.issue === pr)?.body).toContain(reason);
          // Labelled lost by its closure (one write where the executor holds the PR's labels).
          expect(of(all, 'label').filter((a) => a.issue === pr)).toEqual([]);
          expect(of(all, 'close').find((a) => a.pr === pr)?.relabel?.add).toEqual(['arbiter:lost']);
          expect(kept).not.toContain(pr);
        }
        // A sibling that was not fully judged and could rank above the kept one is never closed.
        const anchor =
          v.kind === 'ship' ? v.winner : v.kind === 'repair' ? v.target : (v.winner ?? v.before[0] ?? null);
        if (anchor !== null) {
          for (const pr of v.losers)
            expect(
              mightOutrank(summarise(byPr.get(pr)!), summarise(byPr.get(anchor)!)),
              `closed #${pr}, which could rank above #${anchor} once judged`,
            ).toBe(false);
        }
        // Only a promotable candidate is merged (or queued), and only when the verdict ships it.
        const merged = [...of(p.actions, 'merge'), ...of(p.actions, 'auto-merge')];
        expect(merged.length).toBe(v.kind === 'ship' ? 1 : 0);
        for (const m of merged) {
          const e = byPr.get(m.pr)!;
          expect(e.gate.promotable && !e.gate.timedOut, `merged #${m.pr}, which is not promotable`).toBe(true);
          expect(m.sha).toBe(e.headSha);
        }
        // A repair is dispatched at most once, never to a loser, with at most 10 payload keys.
        const dispatches = of(p.actions, 'dispatch');
        expect(dispatches.length).toBe(v.kind === 'repair' ? 1 : 0);
        for (const d of dispatches) {
          expect(Object.keys(d.payload).length).toBeLessThanOrEqual(10);
          expect(v.losers).not.toContain(d.payload.candidate);
        }
        // Every action key is unique: the executor applies each once.
        const keys = [...all, ...(p.onRefused ?? [])].map((a) => a.key);
        expect(new Set(keys).size).toBe(keys.length);
      }),
      { seed: 20260302, numRuns: 400, endOnFailure, includeErrorInReport: endOnFailure },
    );

  it('never closes the winner, never merges the unpromotable, and closes each loser once with one reason', () => {
    rig.mutation = null;
    plansHold();
  });

  it('fails when the ranking puts an unpromotable candidate first (mutation)', () => {
    rig.mutation = 'rank-unpromotable-first';
    try {
      expect(() => plansHold(true)).toThrow(/which is not promotable/);
    } finally {
      rig.mutation = null;
    }
  });

  it('fails when the planner forgets siblings whose criteria were not all judged (mutation)', () => {
    rig.mutation = 'forget-unjudged-challengers';
    try {
      expect(() => plansHold(true)).toThrow(/which could rank above #\d+ once judged/);
    } finally {
      rig.mutation = null;
    }
  });

  it('plans the same for any order of the siblings', () => {
    fc.assert(
      fc.property(arbGroup, (c) => {
        const identity = c.group.prs.map((_, i) => i);
        expect(plan(c, c.order).plan).toEqual(plan(c, identity).plan);
      }),
      { seed: 20260303, numRuns: 400 },
    );
  });

  it('replays every plan from its receipt, after a trip through JSON as the store keeps it', () => {
    fc.assert(
      fc.property(arbGroup, (c) => {
        const receipt: unknown = JSON.parse(JSON.stringify(plan(c, c.order).plan.receipt));
        expect(replayReceipt(receipt)).toMatchObject({ result: 'same' });
      }),
      { seed: 20260304, numRuns: 200 },
    );
  });

  it('sends a fully met winner to a person while a sibling with gaps could rank above it', () => {
    const met = {
      gate: 'pass',
      statuses: ['met', 'met', 'met'],
      judged: true,
      score: 1,
      passing: 1,
      workflows: false,
      lines: 10,
      draft: true,
    } as const;
    const c = (gapSibling: SiblingCase): Case => ({
      group: {
        criteriaCount: 3,
        prs: [50, 51, 52],
        repairAvailable: true,
        repairEnabled: true,
        acceptanceRequired: true,
        judgePick: -1,
        reviewers: [],
        branch: { requiredReviews: 0, mergeQueue: false },
        seed: 1,
      },
      siblings: [
        { ...met, statuses: [...met.statuses] },
        gapSibling,
        { ...met, statuses: ['met', 'not_met', 'not_met'], score: 0 },
      ],
      order: [0, 1, 2],
    });
    // #51 met one criterion; the other two are gaps (say, the budget ran out): it could meet all three.
    const open = plan(c({ ...met, statuses: ['met', 'gap', 'gap'], score: 2 }), [0, 1, 2]).plan;
    expect(open.verdict).toMatchObject({ kind: 'human', winner: 50, before: [50, 51], losers: [52] });
    expect(open.verdict.kind === 'human' && open.verdict.why).toContain('#51 (2 of 3 criteria not judged)');
    expect(open.verdict.kind === 'human' && open.verdict.why).not.toContain('raise');
    // When the gaps are the spent model budget, the person is told to raise it before re-running.
    const spent = plan(c({ ...met, statuses: ['met', 'gap', 'gap'], score: 2 }), [0, 1, 2], 'budget').plan;
    expect(spent.verdict.kind === 'human' && spent.verdict.why).toContain('raise `acceptance.budget.perChange`');
    expect(of(open.actions, 'merge')).toEqual([]);
    expect(of(open.actions, 'close').map((a) => a.pr)).toEqual([52]);
    // With a lower score, even all three met would rank #51 below #50: #50 ships and #51 loses.
    const settled = plan(c({ ...met, statuses: ['met', 'gap', 'gap'], score: 0 }), [0, 1, 2]).plan;
    expect(settled.verdict).toMatchObject({ kind: 'ship', winner: 50 });
    expect(of(settled.actions, 'close')).toEqual([]);
    expect(
      of(settled.afterShip ?? [], 'close')
        .map((a) => a.pr)
        .sort(),
    ).toEqual([51, 52]);
  });

  it('samples every kind of verdict, ties and merges (the properties above are not vacuous)', () => {
    const seen = new Set<string>();
    for (const c of fc.sample(arbGroup, { seed: 20260302, numRuns: 400 })) {
      const { plan: p } = plan(
        c,
        c.group.prs.map((_, i) => i),
      );
      seen.add(p.verdict.kind);
      if (p.verdict.losers.length > 0) seen.add('losers');
      if ((p.receipt.data.judge as { winner: number | null } | null)?.winner) seen.add('judge-winner');
      if (p.actions.some((a) => a.kind === 'auto-merge')) seen.add('auto-merge');
    }
    expect([...seen].sort()).toEqual(['auto-merge', 'human', 'judge-winner', 'losers', 'repair', 'ship']);
  });
});
