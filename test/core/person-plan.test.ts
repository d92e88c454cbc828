// The pure planners of a person's promote, cancel and admit: which candidates they touch, in what order,
// under which keys, and what they refuse. Shadow mode is the executor's (`forMode`), not tested here.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { LABEL_AWAITING } from '../../src/core/labels.ts';
import { cancelledCandidates, planAdmission, planCancel, type AdmissionInput } from '../../src/core/plan/person.ts';
import type { MergeView } from '../../src/core/plan/merge-path.ts';
import { planPromotion, type PromotionInput } from '../../src/core/plan/promotion.ts';
import type { CandidateState } from '../../src/core/types.ts';
import { structureOf } from '../support/gfm.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const shape = (actions: Action[]): string[] => actions.map((a) => `${a.kind} ${a.key}`);

describe('planPromotion', () => {
  const ready: PromotionInput = {
    repo: 'o/r',
    pr: 7,
    user: 'alice',
    source: 'command',
    method: 'squash',
    candidate: { change: 1 },
    group: {
      round: 2,
      waiting: null,
      evidence: { headSha: 'abcdef1234', gate: { promotable: true, reason: 'all required checks passed' } },
      isDraft: true,
    },
    now: NOW,
  };

  it('merges the verified head: receipt, label off, ready, merge, each keyed by the head', () => {
    const plan = planPromotion(ready);
    if ('refused' in plan) throw new Error(plan.refused.message);
    expect(plan.sha).toBe('abcdef1234');
    expect(shape(plan.actions)).toEqual([
      'receipt o/r#1/promote/7@abcdef1234/receipt',
      'unlabel o/r#1/promote/7@abcdef1234/unlabel',
      'mark-ready o/r#1/promote/7@abcdef1234/ready',
      'merge o/r#1/promote/7@abcdef1234/merge/7',
    ]);
    expect(plan.actions[1]).toMatchObject({ issue: 7, label: LABEL_AWAITING });
    expect(plan.actions[3]).toMatchObject({ pr: 7, sha: 'abcdef1234', method: 'squash' });
    expect(plan.actions[0]).toMatchObject({
      receipt: {
        kind: 'HUMAN_GATE',
        round: 2,
        at: NOW,
        data: { candidates: [7], winner: 7, decision: 'promoted by a person', by: 'alice', source: 'command' },
      },
    });
  });

  it('on a branch that merges through a merge queue, enqueues the verified head (a direct merge is refused there)', () => {
    const plan = planPromotion({ ...ready, branch: { requiredReviews: 0, mergeQueue: true } });
    if ('refused' in plan) throw new Error(plan.refused.message);
    expect(plan.actions.at(-1)).toEqual({
      kind: 'auto-merge',
      key: 'o/r#1/promote/7@abcdef1234/auto-merge/7',
      pr: 7,
      sha: 'abcdef1234',
      method: 'squash',
      queue: true,
    });
  });

  // The merge path a decision takes (merge-path.ts), read from what GitHub says of the pull request now.
  const view = (over: Partial<MergeView>): MergeView => ({
    status: 'BLOCKED',
    reviewDecision: 'REVIEW_REQUIRED',
    inMergeQueue: false,
    autoMergeAllowed: true,
    methods: ['merge', 'squash', 'rebase'],
    strict: false,
    branchUpdated: false,
    ...over,
  });
  const reviewed = { requiredReviews: 1, mergeQueue: false };
  const reviewers = { users: ['bob'], teams: [] };

  it('on a branch that requires a review, turns auto-merge on at the verified head and asks for the review', () => {
    const plan = planPromotion({ ...ready, branch: reviewed, merge: view({}), reviewers });
    if ('refused' in plan) throw new Error(plan.refused.message);
    expect(plan.actions.slice(-2)).toEqual([
      { kind: 'request-review', key: 'o/r#1/promote/7@abcdef1234/review/7', pr: 7, reviewers: ['bob'], teams: [] },
      {
        kind: 'auto-merge',
        key: 'o/r#1/promote/7@abcdef1234/auto-merge/7',
        pr: 7,
        sha: 'abcdef1234',
        method: 'squash',
        queue: false,
      },
    ]);
    expect(plan.actions.some((a) => a.kind === 'merge')).toBe(false);
  });

  it('merges directly once the review is in', () => {
    const plan = planPromotion({ ...ready, branch: reviewed, merge: view({ reviewDecision: 'APPROVED' }) });
    if ('refused' in plan) throw new Error(plan.refused.message);
    expect(plan.actions.at(-1)).toMatchObject({ kind: 'merge', sha: 'abcdef1234' });
  });

  it.each([
    [
      'a review required and auto-merge not allowed',
      reviewed,
      view({ autoMergeAllowed: false }),
      /^#7 cannot merge yet: the branch requires an approving review from someone with write access before #7 merges, and this repository does not allow auto-merge .*To ship it, approve #7: the approval merges it\.$/,
    ],
    [
      'a merge queue that does not take it before its review',
      { requiredReviews: 1, mergeQueue: true },
      view({}),
      /^#7 cannot merge yet: the branch merges through a merge queue, which does not take #7 until it has an approving review .*To ship it, approve #7; Arbiter then merges it through the queue\.$/,
    ],
  ])('refuses with what a person must give where only a person can (%s)', (_what, branch, merge, words) => {
    const plan = planPromotion({ ...ready, branch, merge });
    if (!('refused' in plan)) throw new Error('not refused');
    expect(plan.refused.code).toBe('needs_person');
    expect(plan.refused.message).toMatch(words);
  });

  it('marks a pull request ready only when it is a draft', () => {
    const plan = planPromotion({ ...ready, group: { ...ready.group!, isDraft: false } });
    if ('refused' in plan) throw new Error(plan.refused.message);
    expect(plan.actions.map((a) => a.kind)).toEqual(['receipt', 'unlabel', 'merge']);
  });

  it.each([
    ['a non-candidate', { candidate: null }, 'not_open', '#7 is not an open candidate.'],
    ['an unknown Change', { group: null }, 'not_a_candidate', '#7 is not linked to a Change Arbiter knows.'],
    [
      'pending siblings',
      { group: { ...ready.group!, waiting: '#8 (CI running)' } },
      'selection_pending',
      'Siblings are still pending: waiting on #8 (CI running).',
    ],
    [
      'an unverified head',
      { group: { ...ready.group!, evidence: null } },
      'selection_pending',
      '#7 has new commits that are not verified yet.',
    ],
    [
      'a failed required check',
      { group: { ...ready.group!, evidence: { headSha: 'abc', gate: { promotable: false, reason: 'test failed' } } } },
      'failed_required_check',
      '#7 cannot ship: test failed.',
    ],
  ] as const)('refuses %s with its reason and plans nothing', (_what, change, code, message) => {
    expect(planPromotion({ ...ready, ...change })).toEqual({ refused: { code, message } });
  });

  it('brings back a loser a person reopened: state and lost label first, then the same merge at its verified head', () => {
    const plan = planPromotion({
      ...ready,
      candidate: { change: 1, standing: { kind: 'lost', reopened: true, shipped: null } },
    });
    if ('refused' in plan) throw new Error(plan.refused.message);
    expect(shape(plan.actions)).toEqual([
      'set-state o/r#1/promote/7@abcdef1234/back',
      'unlabel o/r#1/promote/7@abcdef1234/unlabel-lost',
      'receipt o/r#1/promote/7@abcdef1234/receipt',
      'mark-ready o/r#1/promote/7@abcdef1234/ready',
      'merge o/r#1/promote/7@abcdef1234/merge/7',
    ]);
    expect(plan.actions[0]).toMatchObject({ pr: 7, state: 'selected', reason: 'brought back by @alice' });
    expect(plan.actions[1]).toMatchObject({ issue: 7, label: 'arbiter:lost' });
    expect(plan.actions[2]).toMatchObject({ receipt: { data: { winner: 7, broughtBack: true, by: 'alice' } } });
  });

  it.each([
    [
      "a person's rejection (it stands)",
      { kind: 'rejected', reason: 'Rejected by @bob: too slow.' },
      'rejected_by_person',
      "#7 stays out of the running (rejected by @bob: too slow). A person's rejection stands, so `/arbiter promote` does not bring it back.",
    ],
    [
      'a loser still closed',
      { kind: 'lost', reopened: false, shipped: null },
      'not_open',
      '#7 lost the comparison and is closed: reopen it first, then comment `/arbiter promote` on it.',
    ],
    [
      'a loser whose base already shipped another',
      { kind: 'lost', reopened: true, shipped: 9 },
      'base_shipped',
      '#9 already shipped for #1, so #7 cannot ship as well: Arbiter ships one candidate per Change and base branch.',
    ],
  ] as const)('refuses %s with a sentence and plans nothing', (_what, standing, code, message) => {
    expect(planPromotion({ ...ready, candidate: { change: 1, standing } })).toEqual({ refused: { code, message } });
  });
});

describe('cancelledCandidates', () => {
  const rows = (
    [
      'verifying',
      'verified',
      'unpromotable',
      'selected',
      'rejected',
      'stale',
      'promoted',
      'withdrawn',
      'composing',
    ] as const
  ).map((state: CandidateState, i) => ({ pr: i + 1, state }));

  it('takes every open candidate, and a rejected one only when the repair is for it', () => {
    expect(cancelledCandidates(rows, null).map((c) => c.pr)).toEqual([1, 2, 3, 4]);
    expect(cancelledCandidates(rows, 5).map((c) => c.pr)).toEqual([1, 2, 3, 4, 5]);
    expect(cancelledCandidates(rows, 6).map((c) => c.pr)).toEqual([1, 2, 3, 4]);
  });
});

describe('planCancel', () => {
  const base = {
    repo: 'o/r',
    change: 1,
    token: 'job-1',
    user: 'bob',
    how: 'Cancelled by @bob.',
    config: { mode: 'live' as const },
    now: NOW,
  };

  it('closes every candidate and completes its check; the label goes only where GitHub shows it', () => {
    const plan = planCancel({
      ...base,
      candidates: [
        { pr: 2, headSha: 's2', awaiting: false },
        { pr: 3, headSha: 's3', awaiting: true },
      ],
    });
    expect(shape(plan.actions)).toEqual([
      'receipt o/r#1/cancel/job-1/receipt',
      'check-run o/r#1/cancel/job-1/check/2',
      'comment o/r#1/cancel/job-1/note/2',
      'close o/r#1/cancel/job-1/close/2',
      'set-state o/r#1/cancel/job-1/state/2',
      'check-run o/r#1/cancel/job-1/check/3',
      'comment o/r#1/cancel/job-1/note/3',
      'unlabel o/r#1/cancel/job-1/unlabel/3',
      'close o/r#1/cancel/job-1/close/3',
      'set-state o/r#1/cancel/job-1/state/3',
      'set-change-state o/r#1/cancel/job-1/change-state',
    ]);
    expect(plan.actions[0]).toMatchObject({ receipt: { kind: 'CANCEL', data: { by: 'bob', closed: [2, 3] } } });
    expect(plan.actions[1]).toMatchObject({
      headSha: 's2',
      status: 'completed',
      conclusion: 'neutral',
      title: 'Change cancelled',
    });
    expect(plan.actions[4]).toMatchObject({ state: 'withdrawn', reason: 'Cancelled by @bob.' });
    const note = plan.actions[2];
    if (note.kind !== 'comment') throw new Error('expected the note');
    expect(structureOf(note.body).visible).toContain('Cancelled by @bob. The change #1 will not ship.');
    expect(plan.reply).toBe('Cancelled #1: closed #2, #3.');
  });

  it('with no candidate left, records the cancel alone and says so', () => {
    const plan = planCancel({ ...base, candidates: [] });
    expect(shape(plan.actions)).toEqual([
      'receipt o/r#1/cancel/job-1/receipt',
      'set-change-state o/r#1/cancel/job-1/change-state',
    ]);
    expect(plan.reply).toBe('Cancelled #1; it had no open candidates.');
  });

  it('keys every action by the run, so a Change cancelled again is cancelled again', () => {
    const once = planCancel({ ...base, candidates: [{ pr: 2, headSha: 's2', awaiting: false }] });
    const again = planCancel({ ...base, token: 'job-2', candidates: [{ pr: 2, headSha: 's2', awaiting: false }] });
    const keys = new Set(once.actions.map((a) => a.key));
    expect(again.actions.some((a) => keys.has(a.key))).toBe(false);
  });
});

describe('planAdmission', () => {
  const input: AdmissionInput = {
    pr: 7,
    by: 'maria',
    prefix: '/arbiter',
    label: null,
    isPullRequest: true,
    candidateFor: null,
    pull: { open: true, body: 'Fixes things.\n\nCandidate-for: #1', headSha: 'abc' },
  };

  it('admits the head it was shown, for the Change the pull request links', () => {
    const plan = planAdmission(input);
    expect(plan).toMatchObject({ kind: 'admit', headSha: 'abc', change: 1 });
    if (plan.kind !== 'admit') return;
    expect(plan.replies.admitted).toEqual({
      ok: true,
      message: "Admitted on @maria's word: #7 is a candidate for #1, compared with its siblings like any other.",
    });
    expect(plan.replies.notAChange).toMatchObject({ ok: false, code: 'not_a_change' });
    expect(plan.replies.notRecorded.message).not.toContain('carry');
    const labelled = planAdmission({ ...input, label: 'arbiter:candidate' });
    if (labelled.kind !== 'admit') throw new Error('expected an admission');
    expect(labelled.replies.notRecorded.message).toContain('(or carry `arbiter:candidate`)');
  });

  it('admits a head that links no Change, and asks for the link', () => {
    const plan = planAdmission({ ...input, pull: { ...input.pull!, body: 'no link here' } });
    expect(plan).toMatchObject({ kind: 'unlinked', headSha: 'abc', reply: { ok: false, code: 'not_linked' } });
  });

  it.each([
    ['an issue', { isPullRequest: false }, false, 'not_a_pull_request'],
    ['a closed pull request', { pull: { open: false, body: 'Candidate-for: #1', headSha: 'abc' } }, false, 'not_open'],
    ['a pull request GitHub does not show', { pull: null }, false, 'not_open'],
  ] as const)('admits nothing for %s', (_what, change, ok, code) => {
    const plan = planAdmission({ ...input, ...change });
    expect(plan.kind).toBe('answer');
    expect(plan).toMatchObject({ reply: { ok, code } });
  });

  it('a candidate already open needs no admission', () => {
    expect(planAdmission({ ...input, candidateFor: 1, pull: null })).toEqual({
      kind: 'answer',
      reply: { ok: true, message: '#7 is already a candidate for #1.' },
    });
  });
});
