// The winner's merge path, chosen from what GitHub says now (DESIGN.md section 6, "Winner").
import { describe, expect, it } from 'vitest';
import { dashboardView } from '../../src/workflows/dashboard.ts';
import { configOf } from '../support/selection-world.ts';
import { planMergePath, pathWords, type MergePathInput, type MergeView } from '../../src/core/plan/merge-path.ts';

const view = (over: Partial<MergeView> = {}): MergeView => ({
  status: 'CLEAN',
  reviewDecision: null,
  inMergeQueue: false,
  autoMergeAllowed: false,
  methods: ['merge', 'squash', 'rebase'],
  strict: false,
  branchUpdated: false,
  ...over,
});
const input = (merge: MergeView | undefined, branch = { requiredReviews: 0, mergeQueue: false }): MergePathInput => ({
  pr: 51,
  method: 'squash',
  branch,
  merge,
  prefix: '/arbiter',
});
const reviews = { requiredReviews: 1, mergeQueue: false };

describe('planMergePath', () => {
  it('mergeable now (CLEAN, HAS_HOOKS, UNSTABLE, a draft, approved): merge with sha', () => {
    for (const status of ['CLEAN', 'HAS_HOOKS', 'UNSTABLE', 'DRAFT'])
      expect(planMergePath(input(view({ status })))).toEqual({ kind: 'merge', method: 'squash' });
    expect(planMergePath(input(view({ status: 'CLEAN', reviewDecision: 'APPROVED' }), reviews)).kind).toBe('merge');
  });

  it('needs reviews, auto-merge allowed: request them and enable auto-merge', () => {
    const merge = view({ status: 'BLOCKED', reviewDecision: 'REVIEW_REQUIRED', autoMergeAllowed: true });
    expect(planMergePath(input(merge, reviews))).toEqual({
      kind: 'auto-merge',
      method: 'squash',
      requestReviews: true,
    });
  });

  it('needs reviews, auto-merge not allowed: a person, with the reason and the review to give', () => {
    const path = planMergePath(input(view({ status: 'BLOCKED', reviewDecision: 'REVIEW_REQUIRED' }), reviews));
    expect(path.kind).toBe('person');
    if (path.kind !== 'person') return;
    expect(path.why).toContain('does not allow auto-merge');
    expect(path.why).toContain('an approving review from someone with write access');
    expect(path.ask).toBe('approve #51: the approval merges it');
  });

  it('a merge queue takes an approved PR; one missing a review goes to a person with what is missing', () => {
    const queue = { requiredReviews: 1, mergeQueue: true };
    expect(planMergePath(input(view({ reviewDecision: 'APPROVED', status: 'BLOCKED' }), queue)).kind).toBe('enqueue');
    const missing = planMergePath(input(view({ reviewDecision: 'REVIEW_REQUIRED', status: 'BLOCKED' }), queue));
    expect(missing.kind).toBe('person');
    if (missing.kind === 'person') expect(missing.why).toContain('merge queue, which does not take #51');
    expect(planMergePath(input(view({ inMergeQueue: true }), queue)).kind).toBe('queued');
  });

  it('BEHIND on a strict branch: update the branch once, then a person', () => {
    expect(planMergePath(input(view({ status: 'BEHIND', strict: true }))).kind).toBe('update-branch');
    const again = planMergePath(input(view({ status: 'BEHIND', strict: true, branchUpdated: true })));
    expect(again.kind).toBe('person');
    expect(planMergePath(input(view({ status: 'BEHIND', strict: false }))).kind).toBe('merge');
  });

  it('a conflict or requested changes: a person, named', () => {
    expect(planMergePath(input(view({ status: 'DIRTY' }))).kind).toBe('person');
    expect(planMergePath(input(view({ reviewDecision: 'CHANGES_REQUESTED' }), reviews)).kind).toBe('person');
  });

  it('a method the repository does not allow: the first one it allows', () => {
    expect(planMergePath(input(view({ methods: ['rebase'] })))).toEqual({ kind: 'merge', method: 'rebase' });
  });

  it('without a merge state (an older receipt): the path its rules took then', () => {
    expect(planMergePath(input(undefined)).kind).toBe('merge');
    expect(planMergePath(input(undefined, reviews)).kind).toBe('auto-merge');
    expect(planMergePath(input(undefined, { requiredReviews: 0, mergeQueue: true })).kind).toBe('enqueue');
  });

  it('says what a winner waits for; only a merge "ships"', () => {
    expect(pathWords({ kind: 'merge', method: 'merge' }, { mode: 'live' })).toBe('It ships');
    for (const path of [
      { kind: 'auto-merge', method: 'merge', requestReviews: true },
      { kind: 'enqueue', method: 'merge' },
      { kind: 'queued', method: 'merge' },
      { kind: 'update-branch', method: 'merge' },
    ] as const)
      expect(pathWords(path, { mode: 'live' })).not.toMatch(/ships/);
  });
});

describe('the dashboard of a winner on its merge path', () => {
  const rows = (kind: 'auto-merge' | 'update-branch', queue = false) => ({
    changes: [{ number: 7, title: 'Search', state: 'open' as const }],
    candidates: [{ pr: 61, change: 7, base: 'main', state: 'selected' as const, reason: '' }],
    rounds: [
      {
        change: 7,
        base: 'main',
        number: 1,
        decision: { verdict: { kind: 'ship', winner: 61 }, actions: [{ kind, queue }] },
      },
    ],
    gates: [],
    decisions: [],
  });
  it('says what the winner waits for, never that it shipped', () => {
    const ctx = { repoUrl: undefined, config: configOf() };
    const waits = (r: ReturnType<typeof rows>) => dashboardView(ctx, r).rounds.flatMap((x) => x.waitingOn);
    expect(waits(rows('auto-merge'))).toEqual([
      '#61 to merge: it waits for its required reviews (auto-merge is enabled; GitHub merges it then)',
    ]);
    expect(waits(rows('auto-merge', true))).toEqual(['#61 to merge: it waits for the merge queue']);
    expect(waits(rows('update-branch'))).toEqual(['#61 to merge: it waits for its updated branch to be verified']);
  });
});
