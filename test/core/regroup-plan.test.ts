// A known candidate leaving its group, as pure plans: retargeted (its old group's decided round makes
// way for the next, and the move is logged), or withdrawn for a head nobody admitted (in both modes).
import { describe, expect, it } from 'vitest';
import { forMode } from '../../src/core/shadow.ts';
import { planRetarget, planUnadmittedHead } from '../../src/core/plan/regroup.ts';

const NOW = '2026-01-01T00:00:05.000Z';
const move = { repo: 'acme/todo', change: 7, pr: 11, from: 'main', to: 'next', token: 'delivery:d-1' };

describe('planRetarget', () => {
  it('opens the old group a new round when its round was decided, and logs the move', () => {
    expect(planRetarget({ ...move, round: { number: 3, decided: true } }, NOW)).toEqual([
      {
        kind: 'open-round',
        key: 'acme/todo#7/retarget/delivery:d-1/11@main/next-round',
        change: 7,
        base: 'main',
        from: 3,
        at: NOW,
      },
      {
        kind: 'event',
        key: 'acme/todo#7/retarget/delivery:d-1/11@main/event',
        event: 'candidate.retargeted',
        data: { pr: 11, from: 'main', to: 'next' },
        at: NOW,
      },
    ]);
  });

  it('only logs the move when the round was not decided', () => {
    expect(planRetarget({ ...move, round: { number: 3, decided: false } }, NOW).map((a) => a.kind)).toEqual(['event']);
  });
});

describe('planUnadmittedHead', () => {
  const head = { repo: 'acme/todo', change: 7, pr: 11, headSha: 'abc123', token: 'delivery:d-1' };

  it('withdraws the candidate and logs the head nobody admitted', () => {
    expect(planUnadmittedHead(head, NOW)).toEqual([
      {
        kind: 'set-state',
        key: 'acme/todo#7/unadmitted/delivery:d-1/11@abc123/state',
        pr: 11,
        state: 'withdrawn',
        reason: 'a new head that no maintainer admitted',
        observed: true,
      },
      {
        kind: 'event',
        key: 'acme/todo#7/unadmitted/delivery:d-1/11@abc123/event',
        event: 'candidate.unadmitted-head',
        data: { pr: 11, headSha: 'abc123' },
        at: NOW,
      },
    ]);
  });

  it('withdraws it in shadow mode too: an unadmitted head is never compared', () => {
    const plan = planUnadmittedHead(head, NOW);
    expect(forMode(plan, { mode: 'shadow' })).toEqual(plan);
  });
});
