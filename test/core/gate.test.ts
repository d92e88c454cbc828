// Gate evidence: required checks from config globs, branch rules or every check; conclusions mapped.
import { describe, expect, it } from 'vitest';
import { checkOutcome, computeGate, readScore, timeOutGate } from '../../src/core/gate.ts';
import type { ObservedCheck } from '../../src/core/types.ts';

const run = (name: string, status: string, conclusion: string | null, title: string | null = null): ObservedCheck => ({
  name,
  kind: 'check',
  raw: conclusion ?? status,
  outcome: checkOutcome('check', status, conclusion),
  title,
  summary: null,
});
const status = (name: string, state: string): ObservedCheck => ({ name, kind: 'status', raw: state, outcome: checkOutcome('status', state, null), title: null, summary: null });

describe('checkOutcome', () => {
  it.each([
    ['completed', 'success', 'pass'],
    ['completed', 'neutral', 'pass'],
    ['completed', 'skipped', 'pass'],
    ['completed', 'failure', 'fail'],
    ['completed', 'cancelled', 'fail'],
    ['completed', 'timed_out', 'fail'],
    ['completed', 'action_required', 'fail'],
    ['completed', 'stale', 'fail'],
    ['in_progress', null, 'pending'],
    ['queued', null, 'pending'],
  ])('check %s/%s → %s', (s, c, expected) => expect(checkOutcome('check', s, c)).toBe(expected));
  it.each([
    ['success', 'pass'],
    ['failure', 'fail'],
    ['error', 'fail'],
    ['pending', 'pending'],
  ])('status %s → %s', (s, expected) => expect(checkOutcome('status', s, null)).toBe(expected));
});

describe('computeGate', () => {
  it('uses gate.required globs, ignores Arbiter checks, and settles only when all required concluded', () => {
    const observed = [run('test (node 20)', 'completed', 'success'), run('test (node 22)', 'in_progress', null), run('Arbiter / gate', 'completed', 'failure'), status('ci/lint', 'success')];
    const gate = computeGate({ configured: ['test*', 'ci/lint'], branchRequired: ['ignored'], observed, scoreCheck: null });
    expect(gate.source).toBe('config');
    expect(gate.required.map((c) => [c.name, c.outcome])).toEqual([
      ['test (node 20)', 'pass'],
      ['test (node 22)', 'pending'],
      ['ci/lint', 'pass'],
    ]);
    expect(gate.settled).toBe(false);
    expect(gate.reason).toBe('waiting on `test (node 22)`');
  });

  it('falls back to branch rules, and a missing required check keeps it waiting', () => {
    const gate = computeGate({ configured: [], branchRequired: ['build', 'test'], observed: [run('test', 'completed', 'success')], scoreCheck: null });
    expect(gate.source).toBe('branch-rules');
    expect(gate.required.find((c) => c.name === 'build')?.outcome).toBe('missing');
    expect(gate.settled).toBe(false);
  });

  it('with neither, requires every check on the head', () => {
    const gate = computeGate({ configured: [], branchRequired: null, observed: [run('a', 'completed', 'success'), status('b', 'success')], scoreCheck: null });
    expect(gate).toMatchObject({ source: 'all-suites', settled: true, promotable: true, passingChecks: 2 });
  });

  it('a failed required check settles the candidate as unpromotable at once', () => {
    const gate = computeGate({ configured: ['test', 'e2e'], branchRequired: null, observed: [run('test', 'completed', 'failure')], scoreCheck: null });
    expect(gate).toMatchObject({ settled: true, promotable: false, reason: 'required check `test` failed' });
  });

  it('reads the score from the title, else the summary', () => {
    expect(readScore({ title: 'bench: score: 0.93', summary: 'score=0.5' })).toBe(0.93);
    expect(readScore({ title: 'no number', summary: 'result score=12' })).toBe(12);
    expect(readScore({ title: null, summary: null })).toBeNull();
    const gate = computeGate({ configured: ['test'], branchRequired: null, observed: [run('test', 'completed', 'success'), run('bench', 'completed', 'success', 'score: 0.93')], scoreCheck: 'bench' });
    expect(gate.score).toBe(0.93);
  });

  it('waits for the scoring check before settling, so the order scores arrive in never decides', () => {
    const waiting = computeGate({ configured: ['test'], branchRequired: null, observed: [run('test', 'completed', 'success'), run('bench', 'in_progress', null)], scoreCheck: 'bench' });
    expect(waiting).toMatchObject({ settled: false, reason: 'waiting on the scoring check `bench`' });
    const missing = computeGate({ configured: ['test'], branchRequired: null, observed: [run('test', 'completed', 'success')], scoreCheck: 'bench' });
    expect(missing.settled).toBe(false);
    const failedRequired = computeGate({ configured: ['test'], branchRequired: null, observed: [run('test', 'completed', 'failure')], scoreCheck: 'bench' });
    expect(failedRequired).toMatchObject({ settled: true, promotable: false });
  });

  it('the sweep settles a waiting gate as timed out and unpromotable', () => {
    const gate = timeOutGate(computeGate({ configured: ['e2e'], branchRequired: null, observed: [run('e2e', 'in_progress', null)], scoreCheck: null }));
    expect(gate).toMatchObject({ settled: true, promotable: false, timedOut: true });
  });
});
