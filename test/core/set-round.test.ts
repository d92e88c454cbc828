// Candidate sets in a selection round (core/plan/set-rank.ts, set-round.ts): a settled set is one
// candidate ranked on its gate and criteria; a tie with a set goes to a person; a losing set's members each get
// a check, a note and a closure in their own repository; shadow mode drops those closures too.
import { describe, expect, it } from 'vitest';
import type { SetRecord } from '../../src/core/candidate-set.ts';
import { setHeadsKey } from '../../src/core/candidate-set.ts';
import { planSetLosers } from '../../src/core/plan/set-round.ts';
import { rankSets } from '../../src/core/plan/set-rank.ts';
import { forMode } from '../../src/core/shadow.ts';
import type { RankedCandidate } from '../../src/core/types.ts';

const set = (name: string, promotable: boolean | null, state: SetRecord['state'] = 'candidate'): SetRecord => ({
  change: { repo: 'acme/app', number: 42 },
  name,
  first: { repo: 'acme/api', number: 7 },
  parts: [
    { repo: 'acme/api', number: 7 },
    { repo: 'acme/ui', number: 9 },
  ],
  seen: [],
  state,
  reason: '',
  heads: { 'acme/api#7': 'a'.repeat(40), 'acme/ui#9': 'b'.repeat(40) },
  ...(promotable === null ? {} : { gate: { settled: true, promotable, reason: promotable ? 'ok' : 'test failed' } }),
});
const best = (promotable: boolean): RankedCandidate => ({
  pr: 12,
  rank: 1,
  promotable,
  met: 1,
  gaps: 0,
  score: null,
  passing: 1,
});
const input = { change: { repo: 'acme/app', number: 42 }, base: 'main', round: 1, criteria: 1 };

const ranking = (top: RankedCandidate | null) => ({ ordered: top ? [top] : [], top: top?.promotable ? [top.pr] : [] });
const judged = (record: SetRecord, statuses: ('met' | 'not_met' | 'gap')[]): SetRecord => ({
  ...record,
  acceptance: {
    heads: setHeadsKey(record.heads),
    evidence: {
      status: statuses.every((x) => x === 'met') ? 'pass' : 'fail',
      results: statuses.map((status, i) => ({ id: `AC${i + 1}`, status, citation: null, reason: '', source: 'small' })),
      truncated: false,
      modelCalls: { small: 1, large: 0 },
    },
  },
});

describe('rankSets', () => {
  it.each([
    ['a promotable single that met more outranks a set', [judged(set('a', true), ['not_met'])], best(true), null],
    ['a promotable set wins over an unpromotable single', [set('a', true)], best(false), 'a'],
    ['a set that met more wins over a promotable single', [judged(set('a', true), ['met', 'met'])], best(true), 'a'],
    ['a promotable set wins when there is no single', [set('b', true), set('a', false)], null, 'b'],
    ['an unpromotable set never wins', [set('a', false)], best(false), null],
    ['a composing or unsettled set is not compared', [set('a', null), set('b', true, 'composing')], best(false), null],
  ])('%s', (_name, sets, top, winner) => {
    expect(rankSets(sets, ranking(top)).winner?.record.name ?? null).toBe(winner);
  });

  it('a set whose agent is at work on a member is not compared, even with evidence on these heads: never a winner, never a loser', () => {
    const atWork = { ...judged(set('a', true, 'composing'), ['met', 'met']), working: ['acme/ui#9'] };
    for (const top of [best(true), best(false), null]) {
      const standing = rankSets([atWork], ranking(top));
      expect(standing).toMatchObject({ compared: [], winner: null, tied: null });
      // A single that ships closes the compared sets only: the composing set stays open.
      expect(
        planSetLosers({
          ...input,
          winner: { name: 'acme/app#12', summary: best(true), shipped: true },
          sets: standing.compared,
        }),
      ).toEqual([]);
    }
  });

  it('a tie at the top with a set in it goes to a person, naming both', () => {
    const standing = rankSets([judged(set('a', true), ['met'])], ranking(best(true)));
    expect(standing.winner).toBeNull();
    expect(standing.tied?.sets.map((s) => s.record.name)).toEqual(['a']);
    expect(standing.tied?.singles).toEqual([12]);
  });

  it('a set whose unjudged criteria could lift it to the top has not lost: a person decides', () => {
    const standing = rankSets([judged(set('a', true), ['gap'])], ranking(best(true)));
    expect(standing.tied?.sets.map((s) => s.record.name)).toEqual(['a']);
  });

  it('evidence judged on other heads does not count (a member pushed since)', () => {
    const stale = { ...judged(set('a', true), ['met', 'met']), heads: { 'acme/api#7': 'c'.repeat(40) } };
    expect(rankSets([stale], ranking(best(true))).winner).toBeNull();
  });
});

describe('planSetLosers', () => {
  const actions = planSetLosers({
    ...input,
    winner: { name: 'acme/app#12', summary: best(true), shipped: true },
    sets: rankSets([set('a', true)], ranking(best(false))).compared,
  });

  it('marks the set decided, then checks, notes and closes every member in its own repository', () => {
    expect(
      actions.map((a) => (a.kind === 'in-repo' ? `${a.repo}: ${a.actions.map((i) => i.kind).join(',')}` : a.kind)),
    ).toEqual(['record', 'acme/api: check-run,comment,close', 'acme/ui: check-run,comment,close']);
    // The mark comes first: a member's own closed event then re-plans the set no more.
    expect(actions[0]).toMatchObject({ kind: 'record', key: expect.stringMatching(/>decided$/) });
  });

  it('keeps the checks and notes in shadow mode, and drops the closures', () => {
    const shadow = forMode(actions, { mode: 'shadow' });
    expect(shadow.flatMap((a) => (a.kind === 'in-repo' ? a.actions.map((i) => i.kind) : []))).toEqual([
      'check-run',
      'comment',
      'check-run',
      'comment',
    ]);
  });
});
