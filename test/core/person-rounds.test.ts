// The pure planners of what a person's command records of its Change's rounds: a rejected
// candidate that left (the next round, or none left and the Change before a person), `rank` and
// `recheck`, each keyed so a retry applies it once and a later command anew.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planLeftRound, planRankRound, planRecheck, type PersonRoundView } from '../../src/core/plan/person-rounds.ts';
import { forMode } from '../../src/core/shadow.ts';

const view: PersonRoundView = {
  repo: 'o/r',
  change: 1,
  base: 'main',
  round: { number: 2, decided: true, claimed: true },
  pr: 7,
  headSha: 'a'.repeat(40),
  now: '2026-01-01T00:00:00.000Z',
};
const kinds = (actions: Action[]): string[] => actions.map((a) => a.kind);
const changeState = (actions: Action[]): string[] =>
  actions.flatMap((a) => (a.kind === 'set-change-state' ? [a.state] : []));

describe('planLeftRound', () => {
  it('a decided round with candidates left makes way for the next, the Change open, and selects again', () => {
    const plan = planLeftRound({ ...view, remaining: 2, prefix: '/arbiter' });
    expect(plan.select).toBe(true);
    expect(kinds(plan.actions)).toEqual(['open-round', 'set-change-state']);
    expect(plan.actions[0]).toMatchObject({ change: 1, base: 'main', from: 2, at: view.now });
    expect(changeState(plan.actions)).toEqual(['open']);
  });

  it('an undecided round with candidates left only selects again', () => {
    const round = { ...view.round, decided: false };
    expect(planLeftRound({ ...view, round, remaining: 1, prefix: '/arbiter' })).toEqual({ actions: [], select: true });
  });

  it('none left: the note on the Change, its record, and the Change before a person; no selection', () => {
    const plan = planLeftRound({ ...view, remaining: 0, prefix: '/arbiter' });
    expect(plan.select).toBe(false);
    expect(kinds(plan.actions)).toEqual(['comment', 'record', 'set-change-state']);
    expect(changeState(plan.actions)).toEqual(['human']);
  });

  it('keys its records by the rejection of that head', () => {
    const a = planLeftRound({ ...view, remaining: 1, prefix: '/arbiter' }).actions.map((x) => x.key);
    const b = planLeftRound({ ...view, headSha: 'b'.repeat(40), remaining: 1, prefix: '/arbiter' }).actions;
    expect(new Set(a).size).toBe(a.length);
    for (const x of b) expect(a).not.toContain(x.key);
  });
});

describe('planRankRound', () => {
  it('opens the next round only when this one was claimed, keyed by the command run', () => {
    const claimed = planRankRound({ ...view, token: 't1' });
    expect(kinds(claimed)).toEqual(['open-round']);
    expect(planRankRound({ ...view, round: { ...view.round, claimed: false }, token: 't1' })).toEqual([]);
    expect(planRankRound({ ...view, token: 't2' })[0].key).not.toBe(claimed[0].key);
  });
});

describe('planRecheck', () => {
  it('forgets the head acceptance, opens the next round of a claimed one, and verifies the candidate again', () => {
    const actions = planRecheck({ ...view, token: 't1' });
    expect(kinds(actions)).toEqual(['forget-evidence', 'open-round', 'set-state']);
    expect(actions[0]).toMatchObject({ pr: 7, headSha: view.headSha, evidence: 'acceptance' });
    expect(actions[2]).toMatchObject({ pr: 7, state: 'verifying', reason: 'acceptance re-run on request' });
    const unclaimed = planRecheck({ ...view, round: { ...view.round, claimed: false }, token: 't1' });
    expect(kinds(unclaimed)).toEqual(['forget-evidence', 'set-state']);
  });

  it('a later recheck of the same head judges again (new keys); shadow mode keeps it all', () => {
    const first = planRecheck({ ...view, token: 't1' });
    const later = planRecheck({ ...view, token: 't2' });
    for (const a of later) expect(first.map((f) => f.key)).not.toContain(a.key);
    expect(forMode(first, { mode: 'shadow' })).toEqual(first);
    expect(forMode(planRankRound({ ...view, token: 't1' }), { mode: 'shadow' })).toHaveLength(1);
  });
});
