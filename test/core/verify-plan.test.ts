// The pure planners of verifying a head: its gate evidence comes first, the gate check is written
// on its first concluded table (once) and on every settled content, acceptance evidence is stored
// stamped, and a settled head's state follows its gate (observed: kept in shadow mode).
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { gateInProgressKey } from '../../src/core/keys.ts';
import { planAcceptance, planGate, planSettle, type VerifyHead } from '../../src/core/plan/verify.ts';
import { forMode } from '../../src/core/shadow.ts';
import type { GateEvidence } from '../../src/core/types.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:00:01.000Z';
const head: VerifyHead = { repo: 'acme/todo', change: 42, pr: 12, headSha: 'abc1234', token: 'delivery:1' };

const gateOf = (outcomes: ('pass' | 'fail' | 'pending')[]): GateEvidence => {
  const settled = outcomes.every((o) => o !== 'pending');
  const promotable = outcomes.every((o) => o === 'pass');
  return {
    required: outcomes.map((outcome, i) => ({ name: `check-${i}`, outcome, raw: null })),
    source: 'config',
    settled,
    promotable,
    reason: promotable ? 'all required checks passed' : 'a required check is not green',
    passingChecks: outcomes.filter((o) => o === 'pass').length,
    score: null,
    timedOut: false,
  };
};
const kinds = (actions: Action[]): string[] => actions.map((a) => (a.kind === 'check-run' ? a.name : a.kind));
const acceptance = { status: 'pass' as const, results: [], truncated: false, modelCalls: { small: 1, large: 0 } };

describe('planGate', () => {
  it('stores the evidence alone while nothing has concluded', () => {
    const actions = planGate({ head, gate: gateOf(['pending', 'pending']), inProgressShown: false }, NOW);
    expect(kinds(actions)).toEqual(['put-evidence']);
    expect(actions[0]).toMatchObject({ pr: 12, headSha: 'abc1234', evidence: { of: 'gate' } });
  });

  it('shows the first concluded table in progress, once, and records that it did', () => {
    const gate = gateOf(['pass', 'pending']);
    const first = planGate({ head, gate, inProgressShown: false }, NOW);
    expect(kinds(first)).toEqual(['put-evidence', 'Arbiter / gate', 'record']);
    expect(first[1]).toMatchObject({ status: 'in_progress', conclusion: undefined });
    expect(first[2]).toMatchObject({ key: gateInProgressKey('acme/todo', 12, 'abc1234'), value: {} });
    expect(kinds(planGate({ head, gate, inProgressShown: true }, NOW))).toEqual(['put-evidence']);
  });

  it('shows every settled gate completed, with its conclusion', () => {
    const pass = planGate({ head, gate: gateOf(['pass', 'pass']), inProgressShown: true }, NOW);
    expect(kinds(pass)).toEqual(['put-evidence', 'Arbiter / gate']);
    expect(pass[1]).toMatchObject({ status: 'completed', conclusion: 'success' });
    const fail = planGate({ head, gate: gateOf(['pass', 'fail']), inProgressShown: false }, NOW);
    expect(kinds(fail)).toEqual(['put-evidence', 'Arbiter / gate']);
    expect(fail[1]).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it('stores a gate again when it returns to an earlier content (a later time or another run)', () => {
    const gate = gateOf(['pending']);
    const key = (at: string, token = head.token): string =>
      planGate({ head: { ...head, token }, gate, inProgressShown: false }, at)[0]!.key;
    expect(key(NOW)).toBe(key(NOW));
    expect(key(LATER)).not.toBe(key(NOW));
    expect(key(NOW, 'delivery:2')).not.toBe(key(NOW));
    const other = planGate({ head, gate: gateOf(['fail']), inProgressShown: false }, NOW)[0]!.key;
    expect(other).not.toBe(key(NOW));
  });
});

describe('planAcceptance', () => {
  it('stores the judged acceptance stamped with its criteria', () => {
    const [put] = planAcceptance(head, { ...acceptance, criteriaHash: 'c1' }, NOW);
    expect(put).toMatchObject({
      kind: 'put-evidence',
      pr: 12,
      headSha: 'abc1234',
      evidence: { of: 'acceptance', data: { status: 'pass', criteriaHash: 'c1' } },
    });
  });
});

describe('planSettle', () => {
  const settle = (over: Partial<Parameters<typeof planSettle>[0]> = {}): Action[] =>
    planSettle({ head, state: 'verifying', gate: gateOf(['pass']), refreshed: null, pending: false, ...over }, NOW);

  it('settles a verifying head by its gate, and logs it', () => {
    const actions = settle();
    expect(kinds(actions)).toEqual(['set-state', 'event']);
    expect(actions[0]).toMatchObject({ pr: 12, state: 'verified', reason: 'all required checks passed' });
    expect(actions[1]).toMatchObject({
      event: 'candidate.settled',
      data: { pr: 12, headSha: 'abc1234', promotable: true },
      at: NOW,
    });
    expect(settle({ gate: gateOf(['fail']) })[0]).toMatchObject({ state: 'unpromotable' });
  });

  it('follows a re-run between verified and unpromotable, and leaves a state already right', () => {
    expect(settle({ state: 'unpromotable' })[0]).toMatchObject({ kind: 'set-state', state: 'verified' });
    expect(settle({ state: 'verified', gate: gateOf(['fail']) })[0]).toMatchObject({ state: 'unpromotable' });
    expect(kinds(settle({ state: 'verified' }))).toEqual(['event']);
    // Another state (a person's rejection, a promotion) is not the gate's to change.
    expect(kinds(settle({ state: 'rejected' }))).toEqual(['event']);
  });

  it('stores refreshed acceptance first, and settles nothing while a criterion waits for its check', () => {
    const refreshed = { ...acceptance, criteriaHash: 'c1' };
    expect(kinds(settle({ refreshed }))).toEqual(['put-evidence', 'set-state', 'event']);
    expect(kinds(settle({ refreshed, pending: true }))).toEqual(['put-evidence']);
    expect(settle({ pending: true })).toEqual([]);
  });

  it('is kept in shadow mode: the state is observed on GitHub, not decided', () => {
    const actions = settle();
    expect(forMode(actions, { mode: 'shadow' })).toEqual(actions);
  });
});
