// The pure planner of the sweep's sibling timeout: a head whose required checks never finished is
// settled unpromotable ("timed out"), with its evidence, its state and both of its checks; a
// composing head is handed on once; anything younger, settled or awaiting approval is left alone.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { stillWorking } from '../../src/core/agent-work.ts';
import { composeTimeoutKey } from '../../src/core/keys.ts';
import { planSiblingTimeout, type SiblingTimeoutView } from '../../src/core/plan/sibling-timeout.ts';
import type { GateEvidence } from '../../src/core/types.ts';

const REPO = 'acme/todo';
const SEEN = '2026-01-01T00:00:00.000Z';
const TIMEOUT = 600;
const LATER = '2026-01-01T00:10:00.000Z'; // exactly the timeout after SEEN
const EARLY = '2026-01-01T00:09:59.999Z';

const pending: GateEvidence = {
  required: [{ name: 'e2e', outcome: 'pending', raw: null }],
  source: 'config',
  settled: false,
  promotable: false,
  reason: 'required check `e2e` is pending',
  passingChecks: 0,
  score: null,
  timedOut: false,
};

const view = (over: Partial<SiblingTimeoutView> = {}): SiblingTimeoutView => ({
  repo: REPO,
  candidate: { pr: 12, change: 42, headSha: 'abc1234', author: 'agent-bot', reason: '', headSeenAt: SEEN },
  timeout: TIMEOUT,
  gate: pending,
  ...over,
});
const kinds = (actions: Action[]): string[] => actions.map((a) => (a.kind === 'check-run' ? a.name : a.kind));

describe('planSiblingTimeout', () => {
  it('times out a head whose required checks never finished: evidence, state, gate and acceptance checks', () => {
    const plan = planSiblingTimeout(view(), LATER);
    expect(kinds(plan.actions)).toEqual(['put-evidence', 'set-state', 'Arbiter / gate', 'Arbiter / acceptance']);
    const [evidence, state, gate, acceptance] = plan.actions;
    expect(evidence).toMatchObject({
      pr: 12,
      headSha: 'abc1234',
      evidence: { of: 'gate', data: { settled: true, promotable: false, timedOut: true } },
    });
    if (evidence.kind !== 'put-evidence' || evidence.evidence.of !== 'gate') throw new Error('not gate evidence');
    expect(evidence.evidence.data.reason).toBe('timed out: required check `e2e` is pending');
    // Observed (the checks did not finish on GitHub), so shadow mode keeps it as before.
    expect(state).toMatchObject({ pr: 12, state: 'unpromotable', reason: 'timed out', observed: true });
    expect(plan.handsOn).toBe(state.key);
    expect(gate).toMatchObject({ status: 'completed', conclusion: 'failure', headSha: 'abc1234' });
    expect(acceptance).toMatchObject({
      status: 'completed',
      conclusion: 'neutral',
      title: 'Not run: the required checks did not finish',
    });
    expect(new Set(plan.actions.map((a) => a.key)).size).toBe(4);
  });

  it('keys a time-out by the sweep that made it: a head timed out again later is planned again', () => {
    const first = planSiblingTimeout(view(), LATER).actions.map((a) => a.key);
    const again = planSiblingTimeout(view(), '2026-01-01T01:00:00.000Z').actions.map((a) => a.key);
    expect(first.slice(0, 2).filter((k) => again.includes(k))).toEqual([]);
  });

  it.each<[string, Partial<SiblingTimeoutView>, string]>([
    ['a head younger than the timeout', {}, EARLY],
    ['no gate evidence', { gate: null }, LATER],
    ['a settled gate', { gate: { ...pending, settled: true } }, LATER],
    ['runs awaiting a maintainer’s approval', { gate: { ...pending, awaitingApproval: { url: null } } }, LATER],
  ])('leaves alone %s', (_, over, now) => {
    expect(planSiblingTimeout(view(over), now)).toEqual({ actions: [], handsOn: null });
  });

  it('hands a composing head on once, by its record, and never times out its checks', () => {
    const candidate = { ...view().candidate, reason: stillWorking('agent-bot', 12) };
    const plan = planSiblingTimeout(view({ candidate }), LATER);
    const key = composeTimeoutKey(REPO, 12, 'abc1234');
    expect(plan).toEqual({ actions: [{ kind: 'record', key, value: {} }], handsOn: key });
    expect(planSiblingTimeout(view({ candidate }), EARLY)).toEqual({ actions: [], handsOn: null });
  });
});
