// Which check events read GitHub (src/core/plan/check-read.ts): a check nobody decides on, while a
// required check still runs or once the gate settled, is recorded without a read; anything that could change a decision
// reads. The table says, for each case, which way and why.
import { describe, expect, it } from 'vitest';
import { computeGate } from '../../src/core/gate.ts';
import { decidesOn, planCheckRead, type DecidingChecks } from '../../src/core/plan/check-read.ts';
import type { GateEvidence, ObservedCheck } from '../../src/core/types.ts';

const run = (name: string, outcome: ObservedCheck['outcome']): ObservedCheck => ({
  name,
  kind: 'check',
  raw: outcome === 'pass' ? 'success' : outcome === 'fail' ? 'failure' : 'in_progress',
  outcome,
  title: null,
  summary: null,
  app: 'ci',
});
const DECIDING: DecidingChecks = { required: ['test', 'lint'], score: 'bench', criteria: ['e2e'] };
const gateOf = (observed: ObservedCheck[], deciding = DECIDING): GateEvidence =>
  computeGate({
    configured: deciding.required ?? [],
    branchRequired: null,
    observed,
    scoreCheck: deciding.score,
  });
const RUNNING = gateOf([run('test', 'pass'), run('lint', 'pending'), run('bench', 'pass'), run('docs', 'pending')]);
type Over = Partial<{ retry: boolean; deciding: DecidingChecks; passed: boolean; delivered: string[] }>;
const planOf = (check: string | null, gate: GateEvidence | null, over: Over = {}) =>
  planCheckRead({
    check,
    // A failure unless told: a deciding check that fails always reads.
    passed: over.passed ?? false,
    delivered: over.delivered ?? [],
    retry: over.retry ?? false,
    candidates: [{ pr: 1, deciding: over.deciding ?? DECIDING, gate }],
  });
const plan = planOf;

describe('which checks decide something', () => {
  it.each([
    ['a required name', 'test', true],
    ['a required glob', 'unit (node 20)', true],
    ['a pinned entry, any app', 'lint', true],
    ['the scoring check', 'bench', true],
    ['a check a criterion names', 'e2e', true],
    ['a suite, or a name never recorded', null, true],
    ['a check nobody requires', 'docs', false],
  ])('%s', (_why, name, decides) => {
    const deciding = { ...DECIDING, required: ['test', 'lint@ci', 'unit (*)'] };
    expect(decidesOn(deciding, name)).toBe(decides);
  });

  it('with no required checks at all, every check decides (the gate waits for every suite)', () => {
    expect(decidesOn({ required: null, score: null, criteria: [] }, 'docs')).toBe(true);
  });
});

describe('a check event reads GitHub unless it can change nothing', () => {
  it('an unrequired check, while a required one runs: recorded without a read', () => {
    expect(plan('docs', RUNNING)).toEqual({ read: false, waitingOn: [{ pr: 1, check: 'lint' }] });
  });

  it.each([
    ['every required check passed', gateOf([run('test', 'pass'), run('lint', 'pass'), run('bench', 'pass')])],
    ['a required check failed', gateOf([run('test', 'fail'), run('lint', 'pending')])],
  ])('an unrequired check once the gate settled (%s): recorded without a read', (_why, gate) => {
    // That gate's own read ran the selection step; this check changes only the count of passing
    // checks, which a selection reads fresh from the group.
    expect(gate.settled).toBe(true);
    expect(plan('docs', gate)).toEqual({ read: false, waitingOn: [] });
    // What could change a decision still reads on a settled head: a required check (a re-run), the scoring check.
    expect(plan('test', gate)).toEqual({ read: true });
    expect(plan('bench', gate)).toEqual({ read: true });
  });

  it('a required check not reported yet also holds the candidate', () => {
    expect(plan('docs', gateOf([run('test', 'pass'), run('docs', 'pass')]))).toMatchObject({ read: false });
  });

  it.each<[string, string | null, GateEvidence | null, Over]>([
    ['a required check', 'lint', RUNNING, {}],
    ['the scoring check', 'bench', RUNNING, {}],
    ['a check a criterion waits for', 'e2e', RUNNING, {}],
    ['a suite (no name)', null, RUNNING, {}],
    ['a head never read', 'docs', null, {}],
    ['a retry of a run that went past its look (it may hold claims)', 'docs', RUNNING, { retry: true }],
    ['the sweep timed the head out', 'docs', { ...RUNNING, settled: true, timedOut: true }, {}],
    ['Actions runs wait for a person', 'docs', { ...RUNNING, awaitingApproval: { url: null } }, {}],
    ['the pending check is no longer required', 'docs', RUNNING, { deciding: { ...DECIDING, required: ['test'] } }],
    [
      'no required checks (every check counts)',
      'docs',
      RUNNING,
      { deciding: { required: null, score: null, criteria: [] } },
    ],
  ])('reads: %s', (_why, check, gate, over) => {
    expect(plan(check, gate, over)).toEqual({ read: true });
  });

  it('reads when any candidate on the head could change (one Change may wait, another not)', () => {
    const settled = gateOf([run('test', 'pass'), run('lint', 'pass'), run('bench', 'pass')]);
    const both = planCheckRead({
      check: 'docs',
      passed: true,
      delivered: ['docs'],
      retry: false,
      candidates: [
        { pr: 1, deciding: DECIDING, gate: RUNNING },
        { pr: 2, deciding: { ...DECIDING, required: null }, gate: settled },
      ],
    });
    expect(both).toEqual({ read: true });
    expect(planCheckRead({ check: 'docs', passed: true, delivered: [], retry: false, candidates: [] })).toEqual({
      read: true,
    });
  });
});

describe('a required check that passes while another required one has not reported', () => {
  // Three required checks, as the realistic bench has them; test passed, lint and bench still run:
  // test's own delivery is the one planned.
  const THREE: DecidingChecks = { ...DECIDING, required: ['test', 'lint', 'bench'] };
  const EARLY = gateOf([run('test', 'pending'), run('lint', 'pending'), run('bench', 'pending')], THREE);
  const plan = (check: string, gate: GateEvidence, over: Over = {}) =>
    planOf(check, gate, { deciding: THREE, ...over });

  it('waits for the one whose conclusion nobody has delivered yet', () => {
    expect(plan('test', EARLY, { passed: true, delivered: ['test'] })).toEqual({
      read: false,
      waitingOn: [{ pr: 1, check: 'lint' }],
    });
    // lint was delivered (its run may be waiting for test): bench is still to come.
    expect(plan('test', EARLY, { passed: true, delivered: ['test', 'lint'] })).toEqual({
      read: false,
      waitingOn: [{ pr: 1, check: 'bench' }],
    });
  });

  it('reads as the last of them to be delivered: every other one was, so this read sees them all', () => {
    expect(plan('test', EARLY, { passed: true, delivered: ['bench', 'lint', 'test'] })).toEqual({ read: true });
    // In any order of delivery, exactly the last one reads.
    const order = ['lint', 'bench', 'test'];
    const reads = order.map((check, i) => plan(check, EARLY, { passed: true, delivered: order.slice(0, i + 1) }).read);
    expect(reads).toEqual([false, false, true]);
  });

  it('reads when it failed, on a settled gate (a re-run), and for the scoring check once nothing else runs', () => {
    expect(plan('test', EARLY, { passed: false, delivered: ['test'] })).toEqual({ read: true });
    const failed = gateOf([run('test', 'fail'), run('lint', 'pass'), run('bench', 'pass')], THREE);
    expect(plan('test', failed, { passed: true, delivered: ['test', 'lint', 'bench'] })).toEqual({ read: true });
    // The scoring check, not required, holds nobody: lint (required) was delivered, so it reads.
    expect(planOf('bench', RUNNING, { passed: true, delivered: ['bench', 'lint'] })).toEqual({ read: true });
  });

  it('waits for a required glob no check has matched in a delivery yet', () => {
    const deciding = { ...DECIDING, required: ['test', 'unit (*)'] };
    const gate = gateOf([run('test', 'pending')], deciding);
    expect(gate.required.map((r) => r.name)).toEqual(['test', 'unit (*)']);
    expect(plan('test', gate, { passed: true, delivered: ['test'], deciding })).toMatchObject({ read: false });
    expect(plan('test', gate, { passed: true, delivered: ['test', 'unit (node 20)'], deciding })).toEqual({
      read: true,
    });
  });
});
