// The wide round's plan (src/core/plan/portfolio.ts): nothing merges, the out candidates close with
// the reason and their readings, each deep candidate gets one bounded refine dispatch, the receipts
// keep every reading, and shadow mode (the executor's one filter over the same plan) keeps only
// comments, checks and receipts.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planWideRound, type WideInput } from '../../src/core/plan/portfolio.ts';
import { forMode } from '../../src/core/shadow.ts';
import { structureOf } from '../support/gfm.ts';
import { POLICIES, readingsUsed, type Reading } from '../../src/core/portfolio.ts';
import type { CandidateEvidence, Criterion } from '../../src/core/types.ts';

const CRITERIA: Criterion[] = [
  { id: 'AC1', text: 'A search box filters the list', check: null },
  { id: 'AC2', text: 'The search ignores case', check: null },
];

function evidence(pr: number, met: number, failed = false): CandidateEvidence {
  return {
    pr,
    headSha: `sha${pr}`,
    gate: {
      required: [
        { name: 'test', outcome: failed ? 'fail' : 'pass', raw: failed ? 'failure' : 'success', kind: 'check' },
      ],
      source: 'config',
      settled: true,
      promotable: !failed,
      reason: failed ? 'required check `test` failed' : '',
      passingChecks: 2,
      score: null,
      timedOut: false,
    },
    acceptance: {
      status: met === 2 ? 'pass' : 'fail',
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
    changedPaths: [],
    changedLines: 0,
    labels: [],
    author: 'agent[bot]',
  };
}

function input(mode: 'live' | 'shadow' = 'live'): WideInput {
  const siblings = [evidence(21, 2), evidence(22, 1), evidence(23, 0, true)];
  const readings: Reading[] = [
    { pr: 21, run: 1, value: 0.8 },
    { pr: 22, run: 2, value: 0.95 },
    { pr: 23, run: 3, value: 0.7 },
  ];
  const step = POLICIES['top-k']({ evidence: siblings, readings, k: 2, maxReadings: 5 });
  if (step.kind !== 'chosen') throw new Error('expected a choice');
  return {
    repo: 'acme/todo',
    change: { number: 7, title: 'Search', criteria: CRITERIA },
    portfolio: 1,
    round: 1,
    policy: 'top-k',
    k: 2,
    siblings,
    step,
    readings: readingsUsed(step, readings, 'top-k'),
    slots: [
      { slot: '7-1-1', approach: 'browser', state: 'open', pr: 21, reason: '' },
      { slot: '7-1-2', approach: 'server', state: 'open', pr: 22, reason: '' },
      { slot: '7-1-3', approach: 'fuzzy', state: 'dropped', pr: null, reason: 'no pull request within 600 s' },
    ],
    unlinked: [{ pr: 23, slot: '7-9-9' }],
    unanswered: [],
    scoreCheck: 'bench',
    config: { mode },
    now: '2026-01-01T00:00:00.000Z',
  };
}

const kinds = (actions: Action[]): string[] =>
  actions.map((a) => `${a.kind}${'pr' in a ? ` #${a.pr}` : 'issue' in a ? ` #${a.issue}` : ''}`);

describe('planWideRound', () => {
  it('closes the out candidate with its reading, dispatches a refine per deep candidate, merges nothing', () => {
    const plan = planWideRound(input());
    const actions = kinds(plan.actions);
    expect(actions.filter((a) => a.startsWith('merge') || a.startsWith('mark-ready'))).toEqual([]);
    expect(actions.filter((a) => a.startsWith('close'))).toEqual(['close #23']);
    const out = plan.actions.find((a) => a.kind === 'set-state' && a.pr === 23);
    expect(out).toMatchObject({
      state: 'rejected',
      reason: expect.stringMatching(/^Not in the top 2 of the wide round: #22 ranks above: .* Readings: 0\.70\.$/),
    });
    const refines = plan.actions.filter((a): a is Extract<Action, { kind: 'dispatch' }> => a.kind === 'dispatch');
    expect(refines.map((r) => [r.eventType, r.payload.pr])).toEqual([
      ['arbiter.candidate.refine', 21],
      ['arbiter.candidate.refine', 22],
    ]);
    for (const r of refines) expect(Object.keys(r.payload).length).toBeLessThanOrEqual(10);
    expect(refines[1].payload).toMatchObject({
      slot: '7-1-2',
      approach: 'server',
      head_sha: 'sha22',
      score: 0.95,
      failed_checks: [],
      unmet: [{ id: 'AC2', text: 'The search ignores case' }],
      round: 2,
    });
  });

  it('keeps every reading, the slots and the unlinked candidates in the receipts and the comparison', () => {
    const plan = planWideRound(input());
    expect(plan.wide.data).toMatchObject({
      policy: 'top-k',
      k: 2,
      deep: [21, 22],
      readings: { 21: [0.8], 22: [0.95], 23: [0.7] },
      unlinked: [{ pr: 23, slot: '7-9-9' }],
    });
    expect(plan.deep.data).toMatchObject({ dispatches: 2, deep: [{ pr: 21 }, { pr: 22 }] });
    const comment = plan.actions.find(
      (a): a is Extract<Action, { kind: 'comment' }> => a.kind === 'comment' && a.issue === 7,
    )!;
    expect(comment.marker).toBe('comparison:7:wide:1');
    expect(comment.body).toContain('Slot `7-1-3` (fuzzy): dropped: no pull request within 600 s');
    expect(comment.body).toContain(
      '#23 names slot `7-9-9`, which is not an open slot of #7: it is an ordinary candidate.',
    );
  });

  it('says of a slot a stranger answered who answered it and how a maintainer admits it', () => {
    const base = input();
    const slots = base.slots.map((s) =>
      s.slot === '7-1-3'
        ? {
            ...s,
            untrusted: { pr: 24, author: 'stranger', reason: '@stranger has no write access here (read access)' },
          }
        : s,
    );
    const comment = planWideRound({ ...base, slots }).actions.find(
      (a): a is Extract<Action, { kind: 'comment' }> => a.kind === 'comment' && a.issue === 7,
    )!;
    const visible = structureOf(comment.body).visible;
    expect(visible).toContain(
      'Slot 7-1-3 (fuzzy): dropped: no pull request within 600 s; #24 by @stranger answered it, but @stranger has no write access here (read access): a maintainer admits it with /arbiter admit on #24',
    );
    // Only the slot it answered says so.
    expect(visible.match(/answered it/g)).toHaveLength(1);
  });

  it('plans the same closures and dispatches in both modes; the one shadow filter keeps none of them', () => {
    const planned = planWideRound(input('shadow')).actions;
    const prState = (a: string): boolean => /^(close|label|dispatch|set-state)/.test(a);
    expect(kinds(planned).filter(prState)).toEqual(kinds(planWideRound(input('live')).actions).filter(prState));
    const actions = kinds(forMode(planned, { mode: 'shadow' }));
    expect(actions.filter(prState)).toEqual([]);
    expect(actions).toContain('comment #7');
  });
});
