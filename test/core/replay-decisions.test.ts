// Replaying the receipts of a person's promotion, a merge's answer, a shipped candidate, a round the
// sweep gave up, a combined candidate and a portfolio's wide round (issue 26, item 4): each carries
// its planner's inputs, is decided again after a trip through JSON as the store keeps it, and one
// flipped recorded input shows the difference. One table row per planner (and per combine outcome).
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planCombined, planCombineEnded, planCombineWithheld, type CombineProposal } from '../../src/core/combine.ts';
import { planMergeAnswer, planShipped } from '../../src/core/plan/after-merge.ts';
import { planWideRound } from '../../src/core/plan/portfolio.ts';
import { planPromotion, type PromotionInput } from '../../src/core/plan/promotion.ts';
import { planResumeGivenUp } from '../../src/core/plan/sweep.ts';
import { POLICIES } from '../../src/core/portfolio.ts';
import { describeReplay, replayReceipt } from '../../src/core/replay.ts';
import type { CandidateEvidence, Criterion } from '../../src/core/types.ts';

type Recorded = { kind: string; data: { planned: { inputs: Record<string, unknown> } } };

/** The receipts a plan holds, as the store gives them back: through JSON. */
const receiptsOf = (actions: Action[]): Recorded[] =>
  actions.flatMap((a) => (a.kind === 'receipt' ? [JSON.parse(JSON.stringify(a.receipt)) as Recorded] : []));

const NOW = '2026-03-02T10:00:00.000Z';
const SHA = 'a'.repeat(40);
const CRITERIA: Criterion[] = [
  { id: 'AC1', text: 'A calendar of the month', check: null },
  { id: 'AC2', text: 'A search box', check: null },
];

function evidence(pr: number, met: number): CandidateEvidence {
  return {
    pr,
    headSha: `sha${pr}`.padEnd(40, '0'),
    gate: {
      required: [{ name: 'test', outcome: 'pass', raw: 'success' }],
      source: 'config',
      settled: true,
      promotable: true,
      reason: 'every required check passed',
      passingChecks: 1,
      score: null,
      timedOut: false,
    },
    acceptance: {
      status: met === CRITERIA.length ? 'pass' : 'fail',
      results: CRITERIA.map((c, i) => ({
        id: c.id,
        status: i < met ? 'met' : 'not_met',
        citation: null,
        reason: '',
        source: 'small',
      })),
      truncated: false,
      modelCalls: { small: 1, large: 0 },
    },
    changedPaths: [`src/${pr}.ts`],
    changedLines: 3,
    labels: [],
    author: 'agent[bot]',
  };
}

const promotion: PromotionInput = {
  repo: 'acme/todo',
  pr: 12,
  user: 'maintainer',
  source: 'an approving review',
  method: 'squash',
  candidate: { change: 42, standing: { kind: 'lost', reopened: true, shipped: null } },
  group: {
    round: 2,
    waiting: null,
    evidence: { headSha: SHA, gate: { promotable: true, reason: '' } },
    isDraft: false,
  },
  now: NOW,
};

const refused = {
  repo: 'acme/todo',
  change: 42,
  round: 1,
  pr: 12,
  sha: SHA,
  scope: 'main/r1',
  result: { ok: false as const, status: 405, message: 'Pull Request is not mergeable' },
  now: NOW,
};

const shipped = {
  repo: 'acme/todo',
  change: 42,
  round: 1,
  pr: 13,
  sha: SHA,
  by: null,
  method: 'squash' as const,
  winnerCheck: true,
  stale: [{ pr: 14, headSha: 'c'.repeat(40), awaiting: true }],
  combined: null,
  now: NOW,
};

const givenUp = {
  repo: 'acme/todo',
  change: 42,
  round: 3,
  base: 'main',
  attempts: 5,
  error: '502 Bad Gateway',
  prefix: '/arbiter',
  now: NOW,
};

const proposal: CombineProposal = {
  change: 42,
  round: 1,
  a: { pr: 12, headSha: 'b'.repeat(40), met: ['AC1'], changedPaths: ['src/12.ts'] },
  b: { pr: 13, headSha: 'c'.repeat(40), met: ['AC2'], changedPaths: ['src/13.ts'], brings: ['AC2'] },
  together: ['AC1', 'AC2'],
  branch: 'arbiter/combined/42',
  base: 'main',
};
const opened = { outcome: 'opened' as const, pr: 43, headSha: 'd'.repeat(40), baseSha: 'e'.repeat(40), merges: [] };
const conflict = { outcome: 'conflict' as const, with: 13, baseSha: 'e'.repeat(40), message: 'Merge conflict' };

function wide() {
  const siblings = [evidence(21, 2), evidence(22, 1), evidence(23, 0)];
  const readings = [
    { pr: 21, run: 1, value: 0.8 },
    { pr: 22, run: 2, value: 0.95 },
    { pr: 23, run: 3, value: 0.7 },
  ];
  const step = POLICIES['top-k']({ evidence: siblings, readings, k: 2, maxReadings: 5 });
  if (step.kind !== 'chosen') throw new Error('expected a choice');
  return planWideRound({
    repo: 'acme/todo',
    change: { number: 7, title: 'Search', criteria: CRITERIA },
    portfolio: 1,
    round: 1,
    policy: 'top-k',
    k: 2,
    siblings,
    step,
    readings: new Map(readings.map((r) => [r.pr, [r.value]])),
    unanswered: [],
    slots: [{ slot: '7-1-1', approach: 'browser', state: 'open', pr: 21, reason: '' }],
    unlinked: [],
    scoreCheck: 'bench',
    config: { mode: 'live', commands: { prefix: '/arbiter' } },
    now: NOW,
  }).actions;
}

const actionsOf = (plan: object): Action[] =>
  'actions' in plan && Array.isArray(plan.actions) ? (plan.actions as Action[]) : [];

const KINDS = [
  {
    planner: 'promotion',
    kind: 'HUMAN_GATE',
    actions: () => actionsOf(planPromotion(promotion)),
    // Not reopened: the loser is refused, and no receipt is planned at all.
    flip: (i: Record<string, unknown>) => ({
      ...i,
      candidate: { change: 42, standing: { kind: 'lost', reopened: false, shipped: null } },
    }),
    differs: /decision: "promoted by a person" → \(not planned\)/,
  },
  {
    planner: 'merge-answer',
    kind: 'HUMAN_GATE',
    actions: () => actionsOf(planMergeAnswer(refused)),
    // GitHub's words are the reason the person reads.
    flip: (i: Record<string, unknown>) => ({ ...i, result: { ok: false, status: 405, message: 'Required review' } }),
    differs: /why: "merge refused \(405: Pull Request is not mergeable\)" → "merge refused \(405: Required review\)"/,
  },
  {
    planner: 'shipped',
    kind: 'PROMOTION',
    actions: () => planShipped(shipped),
    // A person promoted it: the receipt names them.
    flip: (i: Record<string, unknown>) => ({ ...i, by: 'maintainer' }),
    differs: /by: "arbiter" → "maintainer"/,
  },
  {
    planner: 'resume-given-up',
    kind: 'HUMAN_GATE',
    actions: () => planResumeGivenUp(givenUp).actions,
    flip: (i: Record<string, unknown>) => ({ ...i, error: '403 Forbidden' }),
    differs: /why: "retry budget spent: 502 Bad Gateway" → "retry budget spent: 403 Forbidden"/,
  },
  {
    planner: 'combine',
    kind: 'COMBINED_CANDIDATE',
    actions: () => planCombined({ repo: 'acme/todo', proposal, outcome: opened, now: NOW }),
    // The combined PR GitHub opened had another number.
    flip: (i: Record<string, unknown>) => ({ ...i, outcome: { ...opened, pr: 44 } }),
    differs: /combined: 43 → 44/,
  },
  {
    planner: 'combine',
    kind: 'COMBINED_CANDIDATE',
    actions: () => planCombineEnded({ repo: 'acme/todo', proposal, outcome: conflict, now: NOW }),
    // The build had opened the combined PR after all.
    flip: (i: Record<string, unknown>) => ({ ...i, outcome: opened }),
    differs: /outcome: "conflict" → "opened"/,
  },
  {
    planner: 'combine',
    kind: 'COMBINED_CANDIDATE',
    actions: () => planCombineWithheld({ repo: 'acme/todo', proposal, now: NOW }),
    // Live mode would have built it: the receipt holds what came of the build.
    flip: (i: Record<string, unknown>) => ({ ...i, outcome: opened }),
    differs: /outcome: "not-built" → "opened"/,
  },
  {
    planner: 'portfolio-wide',
    kind: 'PORTFOLIO_WIDE',
    actions: wide,
    // With k = 1, only the best goes deep.
    flip: (i: Record<string, unknown>) => ({ ...i, k: 1 }),
    differs: /k: 2 → 1/,
  },
];

describe('replaying the receipts of every other planner that records its inputs', () => {
  it.each(KINDS)('$planner ($kind): decides the same again from its recorded inputs', ({ kind, actions, planner }) => {
    const [receipt] = receiptsOf(actions());
    expect(receipt.kind).toBe(kind);
    const replayed = replayReceipt(receipt);
    expect(replayed).toMatchObject({ result: 'same', kind, planner });
    expect(describeReplay(replayed)[0]).toMatch(new RegExp(`^same decision: the ${kind} \\(${planner}\\) of round`));
  });

  it.each(KINDS)('$planner ($kind): one flipped recorded input replays differently', ({ actions, flip, differs }) => {
    const [receipt] = receiptsOf(actions());
    receipt.data.planned.inputs = flip(receipt.data.planned.inputs);
    const replayed = replayReceipt(receipt);
    expect(replayed.result).toBe('different');
    const lines = describeReplay(replayed);
    expect(lines[0]).toMatch(/^different decision: /);
    expect(lines.join('\n')).toMatch(differs);
  });

  it("a wide round's deep receipt is one of the actions its wide receipt recorded, and replays with it", () => {
    const [wideReceipt, deep] = receiptsOf(wide());
    expect(deep.kind).toBe('PORTFOLIO_DEEP');
    // The inputs are kept once, on the wide receipt.
    expect(deep.data).not.toHaveProperty('planned');
    expect(replayReceipt(deep, [wideReceipt])).toMatchObject({ result: 'part-of-plan', planner: 'portfolio-wide' });
    // A deep receipt no wide round given planned carries nothing to run again: it cannot be replayed.
    const other = { ...deep, data: { ...deep.data, k: 3 } };
    expect(replayReceipt(other, [wideReceipt])).toMatchObject({ result: 'cannot-replay' });
  });

  it('a combined candidate whose recorded proposal no longer parses cannot be replayed', () => {
    const [receipt] = receiptsOf(planCombined({ repo: 'acme/todo', proposal, outcome: opened, now: NOW }));
    receipt.data.planned.inputs = { ...receipt.data.planned.inputs, proposal: { change: 'x' } };
    expect(() => replayReceipt(receipt)).not.toThrow();
    expect(replayReceipt(receipt)).toMatchObject({ result: 'cannot-replay' });
  });
});
