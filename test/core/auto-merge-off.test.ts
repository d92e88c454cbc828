// planAutoMergeOff as a table: the auto-merge Arbiter enabled stays only while its head is the one
// the group's current round ships; every other case disables it, and says why.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planAutoMergeOff, type AutoMergeOffView } from '../../src/core/plan/auto-merge-off.ts';
import { forMode } from '../../src/core/shadow.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const base: AutoMergeOffView = {
  repo: 'acme/todo',
  change: 7,
  base: 'main',
  on: { pr: 61, sha: A, round: 1 },
  live: { open: true, headSha: A, autoMergeBy: 'arbiter[bot]' },
  bot: 'arbiter[bot]',
  changeState: 'open',
  candidateState: 'selected',
  round: { number: 1, ships: { pr: 61, sha: A } },
};

describe('planAutoMergeOff', () => {
  it('keeps the auto-merge while its head is the one the current round ships', () => {
    expect(planAutoMergeOff(base)).toEqual([]);
  });

  it.each<[string, Partial<AutoMergeOffView>, RegExp]>([
    [
      'the head moved',
      { live: { open: true, headSha: B, autoMergeBy: 'arbiter[bot]' } },
      /moved from aaaaaaa to bbbbbbb/,
    ],
    ['a new round started', { round: { number: 2, ships: null } }, /round 2 started/],
    ['a sibling won the re-decision', { round: { number: 2, ships: { pr: 62, sha: B } } }, /#62 won round 2/],
    ['the candidate was rejected', { candidateState: 'rejected' }, /left the comparison \(rejected\)/],
    ['the Change was cancelled', { changeState: 'cancelled' }, /#7 was cancelled/],
    ['the pull request closed', { live: { open: false, headSha: A, autoMergeBy: null } }, /no longer open/],
    [
      'GitHub already turned it off',
      { live: { open: true, headSha: B, autoMergeBy: null } },
      /no auto-merge of Arbiter's/,
    ],
    [
      'a person enabled the one GitHub shows',
      { live: { open: true, headSha: A, autoMergeBy: 'maintainer' } },
      /no auto-merge of Arbiter's/,
    ],
  ])('disables it when %s', (_, change, why) => {
    const actions = planAutoMergeOff({ ...base, ...change });
    expect(actions).toHaveLength(2);
    expect(actions[0]).toMatchObject({
      kind: 'disable-auto-merge',
      key: `acme/todo#7@main/r1/auto-merge-off/61@${A}`,
      pr: 61,
      sha: A,
      marker: 'auto-merge-on:acme/todo#7@main',
    });
    expect(actions[0]).toHaveProperty('why', expect.stringMatching(why));
    // Then the store's mark goes, only while it still names this auto-merge.
    expect(actions[1]).toEqual({
      kind: 'take-mark',
      key: `acme/todo#7@main/r1/auto-merge-off/61@${A}/mark`,
      marker: 'auto-merge-on:acme/todo#7@main',
      pr: 61,
      sha: A,
    });
  });
});

describe('the store records of a withdrawal and of the ledger in shadow mode', () => {
  it('drops the take of the mark with its withdrawal, and keeps forget, put-record and upsert-change', () => {
    const withdrawal = planAutoMergeOff({ ...base, live: { open: false, headSha: A, autoMergeBy: null } });
    expect(forMode(withdrawal, { mode: 'shadow' })).toEqual([]);
    expect(forMode(withdrawal, { mode: 'live' })).toEqual(withdrawal);
    const records: Action[] = [
      { kind: 'forget', key: 'waiting-taken:x', record: 'waiting-stale:x' },
      { kind: 'put-record', key: 'k/mark', record: 'auto-merge-on:x', value: { pr: 1 }, replace: true },
      {
        kind: 'upsert-change',
        key: 'acme/todo#7/issue',
        change: { number: 7, installationId: 1, title: 't', body: '', criteria: [], state: 'open' },
      },
    ];
    expect(forMode(records, { mode: 'shadow' })).toEqual(records);
  });
});
