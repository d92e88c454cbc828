// GitHub ending the winner's auto-merge or queue entry (core/plan/auto-merge-lost.ts): taken again
// once per head while it is still the round's verified winner, else a person with GitHub's words.
import { describe, expect, it } from 'vitest';
import { planAutoMergeLost, type AutoMergeLostView } from '../../src/core/plan/auto-merge-lost.ts';

const SHA = 'a'.repeat(40);
const base = (over: Partial<AutoMergeLostView> = {}): AutoMergeLostView => ({
  repo: 'acme/todo',
  change: { number: 7, criteria: [] },
  base: 'main',
  pr: 61,
  lost: 'auto-merge',
  on: { pr: 61, sha: SHA, round: 1 },
  reason: 'Base branch was modified',
  by: 'agent-bot[bot]',
  byPerson: false,
  live: {
    open: true,
    headSha: SHA,
    baseRef: 'main',
    autoMergeBy: null,
    inMergeQueue: false,
    merge: {
      status: 'BLOCKED',
      reviewDecision: 'REVIEW_REQUIRED',
      inMergeQueue: false,
      autoMergeAllowed: true,
      methods: ['merge'],
      strict: false,
      branchUpdated: false,
    },
  },
  bot: 'arbiter[bot]',
  changeState: 'open',
  candidateState: 'selected',
  round: { number: 1, ships: { pr: 61, sha: SHA } },
  actedBefore: false,
  method: 'merge',
  branch: { requiredReviews: 1, mergeQueue: false },
  prefix: '/arbiter',
  evidence: null,
  repoUrl: 'https://github.com/acme/todo',
  reviewers: { users: [], teams: [] },
  now: '2026-01-01T00:00:00Z',
  ...over,
});
const kinds = (view: AutoMergeLostView): string[] => {
  const plan = planAutoMergeLost(view);
  return plan.kind === 'none' ? ['none'] : [plan.kind, ...plan.actions.map((a) => a.kind)];
};

describe("GitHub ends the winner's merge path", () => {
  it.each([
    ['still the verified head, still waiting on a review: auto-merge again', {}, ['again', 'auto-merge']],
    [
      'still the verified head, approved meanwhile: merged with sha',
      { live: { ...base().live!, merge: { ...base().live!.merge!, status: 'CLEAN', reviewDecision: 'APPROVED' } } },
      ['again', 'merge'],
    ],
    [
      "a conflict now: a person, with GitHub's words",
      { live: { ...base().live!, merge: { ...base().live!.merge!, status: 'DIRTY' } } },
      ['person', 'check-run', 'label', 'comment', 'set-change-state', 'receipt'],
    ],
    [
      'a second time on the same head: a person',
      { actedBefore: true },
      ['person', 'check-run', 'label', 'comment', 'set-change-state', 'receipt'],
    ],
    [
      'a person turned it off: never undone',
      { byPerson: true, by: 'maintainer', reason: '' },
      ['person', 'check-run', 'label', 'comment', 'set-change-state', 'receipt'],
    ],
    ['Arbiter enabled none here (or withdrew it itself)', { on: null }, ['none']],
    [
      'the head moved: the new head is verified afresh',
      { live: { ...base().live!, headSha: 'b'.repeat(40) } },
      ['none'],
    ],
    ['a new round ships nothing yet', { round: { number: 2, ships: null } }, ['none']],
    ['merged or closed meanwhile', { live: { ...base().live!, open: false } }, ['none']],
    ['auto-merge already back on', { live: { ...base().live!, autoMergeBy: 'arbiter[bot]' } }, ['none']],
    [
      'out of the merge queue (its merge group failed): a person, never queued again blindly',
      {
        lost: 'queue' as const,
        on: { pr: 61, sha: SHA, round: 1, queue: true },
        branch: { requiredReviews: 1, mergeQueue: true },
        live: { ...base().live!, merge: { ...base().live!.merge!, reviewDecision: 'APPROVED' } },
      },
      ['person', 'check-run', 'label', 'comment', 'set-change-state', 'receipt'],
    ],
  ])('%s', (_name, over, expected) => {
    expect(kinds(base(over))).toEqual(expected);
  });

  it('does nothing on a pull request retargeted to another base: no merge into a base it was not selected for', () => {
    const view = base({ live: { ...base().live!, baseRef: 'release' } });
    expect(kinds(view)).toEqual(['none']);
    const plan = planAutoMergeLost(view);
    expect(plan.why).toBe("#61 now targets release, not main: it is compared afresh in that base's group");
  });

  it("names who ended it and GitHub's reason, in words a person reads", () => {
    const github = planAutoMergeLost(base({ actedBefore: true }));
    expect(github.why).toContain('GitHub turned off auto-merge on #61: "Base branch was modified"');
    const person = planAutoMergeLost(base({ byPerson: true, by: 'maintainer', reason: '' }));
    expect(person.why).toContain('@maintainer turned off auto-merge on #61');
    expect(person.why).toContain('/arbiter promote');
  });

  it('takes the merge path again at most once per head: the same keys whatever the reason', () => {
    const a = planAutoMergeLost(base());
    const b = planAutoMergeLost(base({ reason: 'something else' }));
    expect(a.kind === 'again' && b.kind === 'again' && a.actions.map((x) => x.key)).toEqual(
      b.kind === 'again' ? b.actions.map((x) => x.key) : null,
    );
  });
});
