// The pure planner of a person's closure of a candidate: withdrawn (observed, so shadow mode keeps
// it), logged, its selection check completed neutral, and its own checks still running ended.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import type { OwnChecksView } from '../../src/core/plan/own-checks-end.ts';
import { planWithdrawn } from '../../src/core/plan/withdrawn.ts';
import { forMode } from '../../src/core/shadow.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const candidate = { pr: 12, change: 42, headSha: 'abc1234' };
const checks = (over: Partial<OwnChecksView> = {}): OwnChecksView => ({
  ...candidate,
  gate: 'open',
  acceptanceRecorded: false,
  shown: { gate: true, acceptance: false },
  ...over,
});
const names = (actions: Action[]): string[] => actions.map((a) => (a.kind === 'check-run' ? a.name : a.kind));

describe('planWithdrawn', () => {
  it('withdraws, logs, completes the selection check and ends the gate still running', () => {
    const actions = planWithdrawn({ repo: 'acme/todo', candidate, by: 'alice', ownChecks: checks() }, NOW);
    expect(names(actions)).toEqual(['set-state', 'event', 'Arbiter / selection', 'Arbiter / gate']);
    expect(actions[0]).toMatchObject({ pr: 12, state: 'withdrawn', reason: 'closed by @alice', observed: true });
    expect(actions[1]).toMatchObject({ event: 'candidate.withdrawn', data: { pr: 12, by: 'alice' }, at: NOW });
    expect(actions[2]).toMatchObject({
      status: 'completed',
      conclusion: 'neutral',
      title: 'Withdrawn: closed by @alice',
    });
    expect(actions[3]).toMatchObject({ conclusion: 'neutral', title: 'Not finished: Withdrawn: closed by @alice' });
    expect(forMode(actions, { mode: 'shadow' })).toEqual(actions);
  });

  it('ends nothing of a head never evaluated, and withdraws again when closed again later', () => {
    const view = { repo: 'acme/todo', candidate, by: 'alice', ownChecks: checks({ gate: 'unevaluated' }) };
    const first = planWithdrawn(view, NOW);
    expect(names(first)).toEqual(['set-state', 'event', 'Arbiter / selection']);
    const again = planWithdrawn(view, '2026-01-02T00:00:00.000Z');
    expect(again[0]!.key).not.toBe(first[0]!.key);
    expect(again[1]!.key).not.toBe(first[1]!.key);
  });
});
