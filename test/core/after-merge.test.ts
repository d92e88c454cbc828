// The pure planners of what follows a merge's answer: queued, merged (shipped, siblings stale),
// head moved, refused. Keys, order and the decisions each makes; shadow mode is the executor's.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { LABEL_AWAITING } from '../../src/core/labels.ts';
import {
  planMergeAnswer,
  planShipped,
  rejectedToRecheck,
  staleSiblings,
  type MergeAnswerInput,
  type ShippedInput,
} from '../../src/core/plan/after-merge.ts';
import type { SelectionPlan } from '../../src/core/plan-schema.ts';
import type { CandidateState } from '../../src/core/types.ts';
import { structureOf } from '../support/gfm.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const shape = (actions: Action[]): string[] => actions.map((a) => `${a.kind} ${a.key}`);

describe('planMergeAnswer', () => {
  const input: MergeAnswerInput = {
    repo: 'o/r',
    change: 1,
    round: 3,
    pr: 7,
    sha: 'abcdef1234',
    scope: 'main/r3',
    result: { ok: true, queued: false },
    now: NOW,
  };

  it('leaves a merge that shipped to planShipped', () => {
    expect(planMergeAnswer(input)).toEqual({ kind: 'merged' });
  });

  it('a queued auto-merge completes the selection check, saying what the winner waits for (never "shipped")', () => {
    const plan = planMergeAnswer({ ...input, result: { ok: true, queued: true } });
    expect(plan.kind).toBe('queued');
    if (plan.kind !== 'queued') return;
    expect(shape(plan.actions)).toEqual(['check-run o/r#1/main/r3/after/check/7']);
    expect(plan.actions[0]).toMatchObject({
      conclusion: 'success',
      title: 'Selected: waiting for required reviews or the merge queue',
    });
    expect(JSON.stringify(plan.actions[0])).not.toMatch(/ships|shipped/);
  });

  it('a branch brought up to date merges nothing: the new head is verified in the next round', () => {
    const plan = planMergeAnswer({ ...input, result: { ok: true, queued: false, updated: true } });
    expect(plan.kind).toBe('updated');
    if (plan.kind !== 'updated') return;
    expect(shape(plan.actions)).toEqual(['check-run o/r#1/main/r3/after/updated/7']);
    expect(plan.actions[0]).toMatchObject({ conclusion: 'neutral', title: 'Branch updated: verifying the new head' });
  });

  it('"Pull request is in clean status" is another path: the merge with the same sha, not a person', () => {
    const plan = planMergeAnswer({
      ...input,
      method: 'squash',
      result: { ok: false, status: 422, message: 'Pull request is in clean status' },
    });
    expect(plan).toEqual({
      kind: 'merge-now',
      actions: [{ kind: 'merge', key: 'o/r#1/main/r3/after/merge-now/7', pr: 7, sha: 'abcdef1234', method: 'squash' }],
    });
  });

  it("a refused auto-merge goes to a person with GitHub's words", () => {
    const words = 'Pull request Auto merge is not allowed for this repository';
    const plan = planMergeAnswer({ ...input, method: 'merge', result: { ok: false, status: 422, message: words } });
    expect(plan.kind).toBe('refused');
    if (plan.kind !== 'refused') return;
    const note = plan.actions[1];
    if (note.kind !== 'comment') throw new Error('expected the note');
    expect(structureOf(note.body).visible).toContain(`GitHub refused to merge #7 (422: ${words})`);
    expect(plan.actions[3]).toMatchObject({ receipt: { data: { why: `merge refused (422: ${words})` } } });
  });

  it('a 409 says the head moved and names the next round', () => {
    const plan = planMergeAnswer({ ...input, result: { ok: false, status: 409, message: 'head moved' } });
    expect(plan.kind).toBe('moved');
    if (plan.kind !== 'moved') return;
    expect(shape(plan.actions)).toEqual(['check-run o/r#1/main/r3/after/moved/7']);
    expect(plan.actions[0]).toMatchObject({
      headSha: 'abcdef1234',
      title: 'Head moved during promotion',
      summary:
        'GitHub refused the merge of abcdef1 because the head moved. Nothing was merged; the new head starts round 4.',
    });
  });

  it('any other refusal puts the candidate before a person: label, note, check, HUMAN_GATE receipt', () => {
    const plan = planMergeAnswer({
      ...input,
      scope: 'promote/7@abcdef1234',
      result: { ok: false, status: 405, message: '' },
    });
    expect(plan.kind).toBe('refused');
    if (plan.kind !== 'refused') return;
    expect(shape(plan.actions)).toEqual([
      'label o/r#1/promote/7@abcdef1234/after/awaiting/7',
      'comment o/r#1/promote/7@abcdef1234/after/refused/7',
      'check-run o/r#1/promote/7@abcdef1234/after/refused-check/7',
      'receipt o/r#1/promote/7@abcdef1234/after/receipt/human',
    ]);
    expect(plan.actions[0]).toMatchObject({ issue: 7, labels: [LABEL_AWAITING] });
    const note = plan.actions[1];
    if (note.kind !== 'comment') throw new Error('expected the note');
    expect(note.marker).toBe('refused:7:promote/7@abcdef1234');
    expect(structureOf(note.body).visible).toContain(
      'GitHub refused to merge #7 (405: not mergeable, for example a conflict). Resolve it and approve, or cancel the change.',
    );
    expect(plan.actions[3]).toMatchObject({
      receipt: { kind: 'HUMAN_GATE', round: 3, data: { candidates: [7], winner: 7, why: 'merge refused (405)' } },
    });
  });
});

describe('staleSiblings', () => {
  const rows = (
    [
      [7, 'selected'],
      [8, 'verified'],
      [9, 'withdrawn'],
      [10, 'unpromotable'],
    ] as const
  ).map(([pr, state]: readonly [number, CandidateState]) => ({ pr, state }));
  const decided = {
    verdict: { kind: 'ship', winner: 7 },
    actions: [],
    afterShip: [{ kind: 'close', key: 'k', pr: 10 }],
  } as unknown as SelectionPlan;

  it('closes the open siblings other than the winner', () => {
    expect(staleSiblings({ candidates: rows, winner: 7, decided: null, queued: false }).map((c) => c.pr)).toEqual([
      8, 10,
    ]);
  });

  it("leaves the round's losers to its merge's claimant, unless the merge was a queued auto-merge", () => {
    expect(staleSiblings({ candidates: rows, winner: 7, decided, queued: false }).map((c) => c.pr)).toEqual([8]);
    expect(staleSiblings({ candidates: rows, winner: 7, decided, queued: true }).map((c) => c.pr)).toEqual([8, 10]);
  });

  it('names the rejected candidates to read, but for the winner and the losers left to the claimant', () => {
    const more = [...rows, { pr: 11, state: 'rejected' as const }, { pr: 10, state: 'rejected' as const }];
    const at = (c: { pr: number }[]): number[] => c.map((x) => x.pr);
    expect(at(rejectedToRecheck({ candidates: more, winner: 7, decided: null, queued: false }))).toEqual([11, 10]);
    expect(at(rejectedToRecheck({ candidates: more, winner: 7, decided, queued: false }))).toEqual([11]);
    expect(at(rejectedToRecheck({ candidates: more, winner: 11, decided: null, queued: false }))).toEqual([10]);
  });
});

describe('planShipped', () => {
  const input: ShippedInput = {
    repo: 'o/r',
    change: 1,
    round: 3,
    pr: 7,
    sha: 'abcdef1234',
    by: null,
    method: 'merge',
    winnerCheck: true,
    stale: [
      { pr: 8, headSha: 's8', awaiting: true },
      { pr: 9, headSha: 's9', awaiting: false },
    ],
    now: NOW,
  };

  it('records the promotion, then closes each sibling as stale; the awaiting label only where the PR has it', () => {
    const actions = planShipped(input);
    expect(shape(actions)).toEqual([
      'receipt o/r#1/shipped/receipt',
      'set-state o/r#1/shipped/state/7',
      'check-run o/r#1/shipped/check/7',
      'check-run o/r#1/shipped/stale-check/8',
      'comment o/r#1/shipped/stale-note/8',
      'close o/r#1/shipped/stale-close/8',
      'set-state o/r#1/shipped/stale-state/8',
      'check-run o/r#1/shipped/stale-check/9',
      'comment o/r#1/shipped/stale-note/9',
      'close o/r#1/shipped/stale-close/9',
      'set-state o/r#1/shipped/stale-state/9',
    ]);
    expect(actions[0]).toMatchObject({
      receipt: { kind: 'PROMOTION', round: 3, data: { candidate: 7, headSha: 'abcdef1234', by: 'arbiter' } },
    });
    expect(actions[1]).toMatchObject({ state: 'promoted', reason: 'merged', observed: true });
    expect(actions[2]).toMatchObject({ title: 'Selected: shipped', summary: '#7 was merged.' });
    expect(actions[6]).toMatchObject({ state: 'stale', reason: 'Superseded: #7 shipped.' });
    // The awaiting label goes with the closure (one write where the labels are at hand), and only where it is.
    expect(actions[5]).toMatchObject({ kind: 'close', pr: 8, relabel: { add: [], remove: [LABEL_AWAITING] } });
    expect(actions[9]).toEqual({ kind: 'close', key: 'o/r#1/shipped/stale-close/9', pr: 9 });
  });

  it('closes a rejected candidate a person reopened with the note only: its check and state keep why it was out', () => {
    const actions = planShipped({ ...input, stale: [{ pr: 8, headSha: 's8', awaiting: false, rejected: true }] });
    expect(shape(actions).slice(3)).toEqual([
      'comment o/r#1/shipped/stale-note/8',
      'close o/r#1/shipped/stale-close/8',
    ]);
  });

  it("writes no winner check where the round's own plan writes it after its merge", () => {
    const actions = planShipped({ ...input, winnerCheck: false, stale: [] });
    expect(shape(actions)).toEqual(['receipt o/r#1/shipped/receipt', 'set-state o/r#1/shipped/state/7']);
  });

  it("a person's promotion says who; an unknown head gets no check", () => {
    const actions = planShipped({ ...input, by: 'alice', sha: '', stale: [] });
    expect(shape(actions)).toEqual(['receipt o/r#1/shipped/receipt', 'set-state o/r#1/shipped/state/7']);
    expect(actions[0]).toMatchObject({ receipt: { data: { by: 'alice' } } });
    expect(actions[1]).toMatchObject({ reason: 'promoted by @alice' });
    const check = planShipped({ ...input, by: 'alice', stale: [] })[2];
    expect(check).toMatchObject({ title: 'Promoted by @alice', summary: "#7 was merged on @alice's word." });
  });
});
