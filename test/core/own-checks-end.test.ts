// The pure planner of a leaving candidate's own checks: which of `Arbiter / gate` and
// `Arbiter / acceptance` it completes, under which keys, and with the reason in title and summary.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planOwnChecksEnd, type OwnChecksView } from '../../src/core/plan/own-checks-end.ts';

const open: OwnChecksView = {
  pr: 7,
  headSha: 'abc123',
  change: 1,
  gate: 'open',
  acceptanceRecorded: false,
  shown: { gate: true, acceptance: true },
};
const names = (actions: Action[]): string[] => actions.map((a) => (a.kind === 'check-run' ? a.name : a.kind));

describe('planOwnChecksEnd', () => {
  it('completes both shown checks still in progress, neutral, with the reason', () => {
    const actions = planOwnChecksEnd(open, 'Rejected by @alice', 'o/r');
    expect(names(actions)).toEqual(['Arbiter / gate', 'Arbiter / acceptance']);
    expect(new Set(actions.map((a) => a.key)).size).toBe(2);
    for (const a of actions) {
      if (a.kind !== 'check-run') throw new Error(`not a check run: ${a.kind}`);
      expect(a).toMatchObject({ pr: 7, headSha: 'abc123', status: 'completed', conclusion: 'neutral' });
      expect(a.title).toContain('Rejected by @alice');
      expect(a.summary).toContain('Rejected by @alice');
    }
  });

  it.each<[string, Partial<OwnChecksView>, string[]]>([
    ['a settled gate is left alone', { gate: 'settled' }, ['Arbiter / acceptance']],
    ['recorded acceptance is left alone', { acceptanceRecorded: true }, ['Arbiter / gate']],
    [
      'a gate check never shown is not completed',
      { shown: { gate: false, acceptance: true } },
      ['Arbiter / acceptance'],
    ],
    [
      'an acceptance check never shown is not completed',
      { shown: { gate: true, acceptance: false } },
      ['Arbiter / gate'],
    ],
    ['nothing shown, nothing completed', { shown: { gate: false, acceptance: false } }, []],
    ['both finished, nothing completed', { gate: 'settled', acceptanceRecorded: true }, []],
    ['a head never evaluated has no checks to complete', { gate: 'unevaluated' }, []],
  ])('%s', (_, change, expected) => {
    expect(names(planOwnChecksEnd({ ...open, ...change }, 'Change cancelled', 'o/r'))).toEqual(expected);
  });

  it('keys each completion by its candidate and head, so a new head completes its own checks again', () => {
    const before = planOwnChecksEnd(open, 'Change cancelled', 'o/r').map((a) => a.key);
    const after = planOwnChecksEnd({ ...open, headSha: 'def456' }, 'Change cancelled', 'o/r').map((a) => a.key);
    expect(after.filter((k) => before.includes(k))).toEqual([]);
  });
});
