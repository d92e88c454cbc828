// The sweep's steps: a repair past its timeout (the decision, the Change to a
// person, the expiry recorded), a resumed round that failed again (each try recorded, the
// budget's last try gives the round up), and a kept head verified at last (its kept events taken
// first). Pure planners; the decisions' receipts replay as before.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { forMode } from '../../src/core/shadow.ts';
import { keptTakenKey, repairExpiredKey, resumeFailedKey, roundDoneKey } from '../../src/core/keys.ts';
import {
  planKeptHead,
  planRepairExpired,
  planRepairTimeout,
  planResumeFailure,
  planResumeGivenUp,
  type RepairTimeoutInput,
  type ResumeFailureView,
} from '../../src/core/plan/sweep.ts';

const NOW = '2026-03-02T10:00:00.000Z';
const ASKED = '2026-03-02T09:00:00.000Z';

const repairTimeout: RepairTimeoutInput = {
  repo: 'acme/todo',
  change: 42,
  round: 2,
  base: 'main',
  repairOf: { pr: 13, rejected: false },
  targets: [{ pr: 13, headSha: 'a'.repeat(40) }],
  reviewers: { users: ['maintainer'], teams: [] },
  timeout: 3600,
  prefix: '/arbiter',
  decided: null,
  buttons: [{ label: 'Promote', description: 'Ship this candidate', identifier: 'promote' }],
  now: NOW,
};

const tail = (actions: Action[], n: number): Action[] => actions.slice(actions.length - n);

describe('planRepairExpired', () => {
  it('is the decision, then the Change to a person, then the expiry recorded under the repair’s time', () => {
    const decision = planRepairTimeout(repairTimeout);
    const plan = planRepairExpired(repairTimeout, ASKED);
    expect(plan.why).toBe(decision.why);
    // The decision's actions (its receipt too) are unchanged: the receipt replays as before.
    expect(plan.actions.slice(0, decision.actions.length)).toEqual(decision.actions);
    const [state, expired] = tail(plan.actions, 2);
    expect(state).toMatchObject({ kind: 'set-change-state', change: 42, state: 'human' });
    expect(expired).toEqual({ kind: 'record', key: repairExpiredKey('acme/todo', 42, ASKED), value: { round: 2 } });
    expect(plan.actions).toHaveLength(decision.actions.length + 2);
  });

  it('keeps the Change waiting for a person in shadow mode too, as the sweep did before it planned', () => {
    const kept = forMode(planRepairExpired(repairTimeout, ASKED).actions, { mode: 'shadow' });
    expect(kept).toContainEqual(expect.objectContaining({ kind: 'set-change-state', state: 'human' }));
    const given = forMode(planResumeFailure({ ...failure, recorded: 4 }, NOW).actions, { mode: 'shadow' });
    expect(given).toContainEqual(expect.objectContaining({ kind: 'set-change-state', state: 'human' }));
  });

  it('keys the state by the repair, so a later repair of the same round sets it again', () => {
    const key = (asked: string) => tail(planRepairExpired(repairTimeout, asked).actions, 2)[0].key;
    expect(key(ASKED)).not.toBe(key('2026-03-02T09:30:00.000Z'));
  });
});

const failure: ResumeFailureView = {
  round: { id: 77, repo: 'acme/todo', change: 42, number: 3, base: 'main' },
  recorded: 0,
  budget: 5,
  error: '422 Unprocessable: branch protection',
  prefix: '/arbiter',
};

describe('planResumeFailure', () => {
  it.each([0, 1, 3])('records try %i + 1 in its own slot, and nothing else, below the budget', (recorded) => {
    const plan = planResumeFailure({ ...failure, recorded }, NOW);
    expect(plan).toEqual({
      attempts: recorded + 1,
      gaveUp: false,
      actions: [{ kind: 'record', key: resumeFailedKey(77, recorded + 1), value: { error: failure.error } }],
    });
  });

  it('keeps a long answer to its first 1000 characters in the record', () => {
    const plan = planResumeFailure({ ...failure, error: 'x'.repeat(1500) }, NOW);
    expect(plan.actions[0]).toMatchObject({ value: { error: 'x'.repeat(1000) } });
  });

  it.each([4, 5, 9])('gives the round up on the budget’s last try (%i recorded before)', (recorded) => {
    const plan = planResumeFailure({ ...failure, recorded }, NOW);
    expect(plan.attempts).toBe(5);
    expect(plan.gaveUp).toBe(true);
    const given = planResumeGivenUp({
      repo: 'acme/todo',
      change: 42,
      round: 3,
      base: 'main',
      attempts: 5,
      error: failure.error,
      prefix: '/arbiter',
      now: NOW,
    }).actions;
    // The try first (recorded even when telling a person fails), then the person told, the Change
    // set to wait for them, and the round done last (only once the rest was applied).
    expect(plan.actions[0]).toEqual({ kind: 'record', key: resumeFailedKey(77, 5), value: { error: failure.error } });
    expect(plan.actions.slice(1, 1 + given.length)).toEqual(given);
    const [state, done] = tail(plan.actions, 2);
    expect(state).toMatchObject({ kind: 'set-change-state', change: 42, state: 'human' });
    expect(done).toEqual({ kind: 'record', key: roundDoneKey(77), value: { gaveUp: true, attempts: 5 } });
    expect(plan.actions).toHaveLength(given.length + 3);
  });
});

describe('planKeptHead', () => {
  const kept = { repo: 'acme/todo', headSha: 'c'.repeat(40) };

  it('takes the head’s kept events, then verifies each open candidate at it', () => {
    const plan = planKeptHead({ ...kept, open: [12, 14] }, NOW);
    expect(plan).toEqual({
      actions: [{ kind: 'take-kept-checks', key: keptTakenKey('acme/todo', kept.headSha, NOW), headSha: kept.headSha }],
      verify: [12, 14],
    });
  });

  it('leaves a head no open candidate has kept, for its recording', () => {
    expect(planKeptHead({ ...kept, open: [] }, NOW)).toEqual({ actions: [], verify: [] });
  });

  it('takes a head kept again later again (keyed by the sweep’s time)', () => {
    const key = (now: string) => planKeptHead({ ...kept, open: [12] }, now).actions[0].key;
    expect(key(NOW)).not.toBe(key('2026-03-02T10:01:00.000Z'));
  });
});
