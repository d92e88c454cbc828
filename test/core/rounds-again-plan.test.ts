// A Change's rounds start again (reopened, or its criteria changed), as pure plans: a claimed round
// makes way for the next, each open candidate is verified again in both modes, each keyed by the run.
import { describe, expect, it } from 'vitest';
import { forMode } from '../../src/core/shadow.ts';
import { planJudgeAgain, planReopen, type RoundsAgainView } from '../../src/core/plan/rounds-again.ts';

const NOW = '2026-01-01T00:00:05.000Z';
const view: RoundsAgainView = {
  repo: 'acme/todo',
  change: 7,
  token: 'delivery:d-1',
  rounds: [
    { base: 'main', number: 2, claimed: true },
    { base: 'release', number: 1, claimed: false },
  ],
  candidates: [11, 12],
};

describe('planReopen', () => {
  it('opens the Change again, logs it, opens the next round where one was claimed, and verifies each candidate', () => {
    const plan = planReopen({ ...view, shipped: false }, NOW);
    expect(plan.actions).toEqual([
      {
        kind: 'set-change-state',
        key: 'acme/todo#7/reopen/delivery:d-1/change-state',
        change: 7,
        state: 'open',
        observed: true,
      },
      {
        kind: 'event',
        key: 'acme/todo#7/reopen/delivery:d-1/event',
        event: 'change.reopened',
        data: { change: 7 },
        at: NOW,
      },
      {
        kind: 'open-round',
        key: 'acme/todo#7/reopen/delivery:d-1/main/next-round',
        change: 7,
        base: 'main',
        from: 2,
        at: NOW,
      },
    ]);
    expect(plan.verify).toEqual(
      [11, 12].map((pr) => ({
        pr,
        actions: [
          {
            kind: 'set-state',
            key: `acme/todo#7/reopen/delivery:d-1/${pr}/verifying`,
            pr,
            state: 'verifying',
            reason: 'change reopened',
            observed: true,
          },
        ],
      })),
    );
  });

  it('says shipped when a candidate shipped', () => {
    expect(planReopen({ ...view, shipped: true }, NOW).actions[0]).toMatchObject({ state: 'shipped' });
  });

  it('is kept whole in shadow mode: it records what a person did', () => {
    const plan = planReopen({ ...view, shipped: false }, NOW);
    const all = [...plan.actions, ...plan.verify.flatMap((v) => v.actions)];
    expect(forMode(all, { mode: 'shadow' })).toEqual(all);
  });

  it('another run reopening later plans other keys', () => {
    const a = planReopen({ ...view, shipped: false }, NOW);
    const b = planReopen({ ...view, token: 'delivery:d-2', shipped: false }, NOW);
    expect(a.actions.map((x) => x.key).filter((k) => b.actions.some((y) => y.key === k))).toEqual([]);
  });
});

describe('planJudgeAgain', () => {
  it('opens the next round where one was claimed and verifies each candidate, because the criteria changed', () => {
    const plan = planJudgeAgain(view, NOW);
    expect(plan.actions).toEqual([
      {
        kind: 'open-round',
        key: 'acme/todo#7/criteria/delivery:d-1/main/next-round',
        change: 7,
        base: 'main',
        from: 2,
        at: NOW,
      },
    ]);
    expect(plan.verify.map((v) => v.actions[0])).toMatchObject([
      { kind: 'set-state', pr: 11, state: 'verifying', reason: 'criteria changed', observed: true },
      { kind: 'set-state', pr: 12, state: 'verifying', reason: 'criteria changed', observed: true },
    ]);
  });

  it('opens no round where none was claimed', () => {
    const rounds = view.rounds.map((r) => ({ ...r, claimed: false }));
    expect(planJudgeAgain({ ...view, rounds }, NOW).actions).toEqual([]);
  });
});
