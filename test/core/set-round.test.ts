// Candidate sets in a selection round (core/plan/set-round.ts): a settled set is one candidate; it
// wins only when promotable and no single-repository candidate is; a losing set's members each get
// a check, a note and a closure in their own repository; shadow mode drops those closures too.
import { describe, expect, it } from 'vitest';
import type { SetRecord } from '../../src/core/candidate-set.ts';
import { planSetLosers, setsInRound } from '../../src/core/plan/set-round.ts';
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
const input = {
  change: { repo: 'acme/app', number: 42 },
  base: 'main',
  round: 1,
  criteria: 1,
  web: 'https://github.com',
};

describe('setsInRound', () => {
  it.each([
    ['a promotable single outranks every set', [set('a', true)], best(true), null],
    ['a promotable set wins over an unpromotable single', [set('a', true)], best(false), 'a'],
    ['a promotable set wins when there is no single', [set('b', true), set('a', false)], null, 'b'],
    ['an unpromotable set never wins', [set('a', false)], best(false), null],
    ['a composing or unsettled set is not compared', [set('a', null), set('b', true, 'composing')], best(false), null],
  ])('%s', (_name, sets, top, winner) => {
    expect(setsInRound({ ...input, sets, best: top }).winner?.name ?? null).toBe(winner);
  });

  it('names each member with a link into its own repository', () => {
    const { notes } = setsInRound({ ...input, sets: [set('a', true)], best: best(true) });
    expect(notes[0]).toContain(
      'set `a` ([acme/api#7](https://github.com/acme/api/pull/7), [acme/ui#9](https://github.com/acme/ui/pull/9))',
    );
  });
});

describe('planSetLosers', () => {
  const actions = planSetLosers({
    ...input,
    winner: { pr: 12, summary: 'met 1 of 1 criterion' },
    sets: [set('a', true)],
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
