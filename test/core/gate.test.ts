// Gate evidence: required checks from config globs, branch rules or every check; conclusions mapped.
import { describe, expect, it } from 'vitest';
import { checkOutcome, computeGate, parseRequired, readScore, timeOutGate } from '../../src/core/gate.ts';
import type { ObservedCheck } from '../../src/core/types.ts';

const run = (name: string, status: string, conclusion: string | null, title: string | null = null): ObservedCheck => ({
  name,
  kind: 'check',
  raw: conclusion ?? status,
  outcome: checkOutcome('check', status, conclusion),
  title,
  summary: null,
});
const status = (name: string, state: string): ObservedCheck => ({
  name,
  kind: 'status',
  raw: state,
  outcome: checkOutcome('status', state, null),
  title: null,
  summary: null,
});

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
    const observed = [
      run('test (node 20)', 'completed', 'success'),
      run('test (node 22)', 'in_progress', null),
      run('Arbiter / gate', 'completed', 'failure'),
      status('ci/lint', 'success'),
    ];
    const gate = computeGate({
      configured: ['test*', 'ci/lint'],
      branchRequired: ['ignored'],
      observed,
      scoreCheck: null,
    });
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
    const gate = computeGate({
      configured: [],
      branchRequired: ['build', 'test'],
      observed: [run('test', 'completed', 'success')],
      scoreCheck: null,
    });
    expect(gate.source).toBe('branch-rules');
    expect(gate.required.find((c) => c.name === 'build')?.outcome).toBe('missing');
    expect(gate.settled).toBe(false);
  });

  it('with neither, requires every check on the head', () => {
    const gate = computeGate({
      configured: [],
      branchRequired: null,
      observed: [run('a', 'completed', 'success'), status('b', 'success')],
      scoreCheck: null,
    });
    expect(gate).toMatchObject({ source: 'all-suites', settled: true, promotable: true, passingChecks: 2 });
  });

  it('a failed required check settles the candidate as unpromotable at once', () => {
    const gate = computeGate({
      configured: ['test', 'e2e'],
      branchRequired: null,
      observed: [run('test', 'completed', 'failure')],
      scoreCheck: null,
    });
    expect(gate).toMatchObject({ settled: true, promotable: false, reason: 'required check `test` failed' });
  });

  it('reads the score from the title, else the summary', () => {
    expect(readScore({ title: 'bench: score: 0.93', summary: 'score=0.5' })).toBe(0.93);
    expect(readScore({ title: 'no number', summary: 'result score=12' })).toBe(12);
    expect(readScore({ title: null, summary: null })).toBeNull();
    const gate = computeGate({
      configured: ['test'],
      branchRequired: null,
      observed: [run('test', 'completed', 'success'), run('bench', 'completed', 'success', 'score: 0.93')],
      scoreCheck: 'bench',
    });
    expect(gate.score).toBe(0.93);
  });

  it('waits for the scoring check before settling, so the order scores arrive in never decides', () => {
    const waiting = computeGate({
      configured: ['test'],
      branchRequired: null,
      observed: [run('test', 'completed', 'success'), run('bench', 'in_progress', null)],
      scoreCheck: 'bench',
    });
    expect(waiting).toMatchObject({ settled: false, reason: 'waiting on the scoring check `bench`' });
    const missing = computeGate({
      configured: ['test'],
      branchRequired: null,
      observed: [run('test', 'completed', 'success')],
      scoreCheck: 'bench',
    });
    expect(missing.settled).toBe(false);
    const failedRequired = computeGate({
      configured: ['test'],
      branchRequired: null,
      observed: [run('test', 'completed', 'failure')],
      scoreCheck: 'bench',
    });
    expect(failedRequired).toMatchObject({ settled: true, promotable: false });
  });

  it('the sweep settles a waiting gate as timed out and unpromotable', () => {
    const gate = timeOutGate(
      computeGate({
        configured: ['e2e'],
        branchRequired: null,
        observed: [run('e2e', 'in_progress', null)],
        scoreCheck: null,
      }),
    );
    expect(gate).toMatchObject({ settled: true, promotable: false, timedOut: true });
  });
});

describe('gate integrity', () => {
  const ci = (name: string, status: string, conclusion: string | null, app: string): ObservedCheck => ({
    ...run(name, status, conclusion),
    app,
  });
  const suite = (c: ObservedCheck, id: string): ObservedCheck => ({ ...c, suite: id });
  const base = { branchRequired: null, scoreCheck: null };
  it.each<[string, string[], ObservedCheck[], { settled: boolean; promotable: boolean; reason?: string }]>([
    [
      'a passing status does not hide a failing check run of the same name',
      ['test'],
      [ci('test', 'completed', 'failure', 'ci'), status('test', 'success')],
      { settled: true, promotable: false, reason: 'required check `test` failed' },
    ],
    [
      'a passing check run does not hide a failing status of the same name',
      ['test'],
      [status('test', 'failure'), ci('test', 'completed', 'success', 'ci')],
      { settled: true, promotable: false },
    ],
    [
      "one app's pass does not hide another app's failure",
      ['test'],
      [ci('test', 'completed', 'failure', 'ci'), ci('test', 'completed', 'success', 'other')],
      { settled: true, promotable: false },
    ],
    [
      'a pending report of the name keeps it pending',
      ['test'],
      [status('test', 'success'), ci('test', 'in_progress', null, 'ci')],
      { settled: false, promotable: false },
    ],
    [
      'within one app the latest report counts (a re-run)',
      ['test'],
      [ci('test', 'completed', 'failure', 'ci'), ci('test', 'completed', 'success', 'ci')],
      { settled: true, promotable: true },
    ],
    [
      'within one status context the latest state counts',
      ['test'],
      [status('test', 'failure'), status('test', 'success')],
      { settled: true, promotable: true },
    ],
    [
      'a pinned entry counts only its app',
      ['test@ci'],
      [ci('test', 'completed', 'success', 'impostor')],
      {
        settled: false,
        promotable: false,
        reason: 'waiting on `test`: `test` came from `impostor`; `gate.required` pins `ci`',
      },
    ],
    [
      'a pinned entry passes on its app',
      ['test@ci'],
      [ci('test', 'completed', 'success', 'ci'), ci('test', 'completed', 'success', 'impostor')],
      { settled: true, promotable: true },
    ],
    [
      'a pinned entry ignores a same-name status',
      ['test@ci'],
      [status('test', 'success')],
      { settled: false, promotable: false },
    ],
    [
      "a pinned entry fails on its app's failure",
      ['test@ci'],
      [ci('test', 'completed', 'failure', 'ci')],
      { settled: true, promotable: false },
    ],
    [
      'a pinned entry fails on a failing status of its name',
      ['test@ci'],
      [ci('test', 'completed', 'success', 'ci'), status('test', 'failure')],
      { settled: true, promotable: false, reason: 'required check `test` failed' },
    ],
    [
      "a pinned entry fails on another app's failure of its name",
      ['test@ci'],
      [ci('test', 'completed', 'success', 'ci'), ci('test', 'completed', 'failure', 'impostor')],
      { settled: true, promotable: false },
    ],
    [
      'a failure in one check suite is not hidden by a pass in another suite of the same app',
      ['test'],
      [suite(ci('test', 'completed', 'failure', 'ci'), 'S1'), suite(ci('test', 'completed', 'success', 'ci'), 'S2')],
      { settled: true, promotable: false },
    ],
    [
      'within one check suite the latest run counts (a re-run)',
      ['test@ci'],
      [suite(ci('test', 'completed', 'failure', 'ci'), 'S1'), suite(ci('test', 'completed', 'success', 'ci'), 'S1')],
      { settled: true, promotable: true },
    ],
    [
      'a pinned glob',
      ['e2e-*@ci'],
      [ci('e2e-a', 'completed', 'success', 'ci'), ci('e2e-b', 'completed', 'success', 'impostor')],
      { settled: true, promotable: true },
    ],
    [
      'a required check not yet reported is pending, not failed',
      ['test'],
      [ci('lint', 'completed', 'success', 'ci')],
      { settled: false, promotable: false, reason: 'waiting on `test`' },
    ],
    [
      'no checks at all is not promotable',
      [],
      [],
      { settled: false, promotable: false, reason: 'no checks reported yet' },
    ],
    ['no checks at all, required configured', ['test'], [], { settled: false, promotable: false }],
    [
      "Arbiter's own checks are not checks",
      [],
      [run('Arbiter / gate', 'completed', 'success')],
      { settled: false, promotable: false, reason: 'no checks reported yet' },
    ],
  ])('%s', (_label, configured, observed, expected) => {
    const gate = computeGate({ ...base, configured, observed });
    expect({ settled: gate.settled, promotable: gate.promotable }).toEqual({
      settled: expected.settled,
      promotable: expected.promotable,
    });
    if (expected.reason) expect(gate.reason).toBe(expected.reason);
  });

  it('gate.allowNoChecks lets a head with no checks pass', () => {
    const gate = computeGate({ ...base, configured: [], observed: [], allowNoChecks: true });
    expect(gate).toMatchObject({ settled: true, promotable: true });
  });

  it('a blocker (an invalid .github/arbiter.yml on the head) makes the head unpromotable whatever its checks', () => {
    const gate = computeGate({
      ...base,
      configured: ['test'],
      observed: [ci('test', 'completed', 'success', 'ci')],
      blockers: ['`.github/arbiter.yml` on this head does not validate'],
    });
    expect(gate).toMatchObject({
      settled: true,
      promotable: false,
      reason: '`.github/arbiter.yml` on this head does not validate',
    });
    expect(timeOutGate(gate)).toBe(gate);
  });

  it('a head that never reports a check times out as unpromotable', () => {
    const gate = timeOutGate(computeGate({ ...base, configured: [], observed: [] }));
    expect(gate).toMatchObject({
      settled: true,
      promotable: false,
      timedOut: true,
      reason: 'timed out: no checks reported yet',
    });
  });

  it.each([
    ['test', { pattern: 'test', app: null }],
    ['test@github-actions', { pattern: 'test', app: 'github-actions' }],
    ['ci/*@ci', { pattern: 'ci/*', app: 'ci' }],
    ['@scope/pkg', { pattern: '@scope/pkg', app: null }],
    ['build (node 20) @ x', { pattern: 'build (node 20) @ x', app: null }],
  ])('parseRequired(%s)', (entry, expected) => expect(parseRequired(entry)).toEqual(expected));
});

describe('the gate says what it waits on, and who reported what', () => {
  const input = (observed: ObservedCheck[], configured: string[]) => ({
    observed,
    configured,
    branchRequired: null,
    scoreCheck: null,
  });

  it('a check pinned to one app but reported by another names both, never an endless wait', () => {
    const fromCi = { ...run('test', 'completed', 'success'), app: 'ci' };
    const gate = computeGate(input([fromCi], ['test@github-actions']));
    expect(gate.settled).toBe(false);
    expect(gate.reason).toBe('waiting on `test`: `test` came from `ci`; `gate.required` pins `github-actions`');
    expect(gate.required[0]).toMatchObject({
      outcome: 'missing',
      pinned: { app: 'github-actions', reportedBy: ['ci'] },
    });
    expect(timeOutGate(gate).reason).toBe(`timed out: ${gate.reason}`);
  });

  it('a failing commit status shows its context and description', () => {
    const failed = { ...status('ci/jenkins', 'failure'), title: 'Build #12 failed' };
    const gate = computeGate(input([failed], ['ci/jenkins']));
    expect(gate.reason).toBe('required check `ci/jenkins` (commit status: “Build #12 failed”) failed');
    expect(gate.required[0]).toMatchObject({ detail: 'Build #12 failed' });
  });

  it('a head with no checks says so', () => {
    expect(computeGate(input([], [])).reason).toBe('no checks reported yet');
  });
});
