// A candidate set's hold on its Change's round (core/plan/set-hold.ts): composing or verifying holds
// up to the sibling timeout, and so does a set whose gate passed until its acceptance judged these
// heads; not a candidate, or a failed gate, holds nothing.
import { describe, expect, it } from 'vitest';
import { setHeadsKey, type SetRecord } from '../../src/core/candidate-set.ts';
import { setHold, setsHoldingRound } from '../../src/core/plan/set-hold.ts';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (s: number): string => new Date(Date.parse(T0) + s * 1000).toISOString();
const record = (over: Partial<SetRecord>): SetRecord => ({
  change: { repo: 'acme/app', number: 42 },
  name: 'search',
  first: { repo: 'acme/api', number: 7 },
  parts: [
    { repo: 'acme/api', number: 7 },
    { repo: 'acme/ui', number: 9 },
  ],
  seen: [{ repo: 'acme/api', number: 7 }],
  state: 'composing',
  reason: 'acme/ui#9 has not opened',
  heads: {},
  since: T0,
  headsAt: T0,
  ...over,
});
const gate = (settled: boolean, promotable: boolean) => ({ settled, promotable, reason: '' });
const HEADS = { 'acme/api#7': 'a', 'acme/ui#9': 'b' };
const judged = (heads: Record<string, string>): SetRecord['acceptance'] => ({
  heads: setHeadsKey(heads),
  evidence: { status: 'none', results: [], truncated: false, modelCalls: { small: 0, large: 0 } },
});

describe('setHold', () => {
  it.each([
    ['composing', record({}), 10, { holds: true, why: 'composing' }],
    ['composing past the timeout', record({}), 600, { holds: false, timedOut: { since: T0 } }],
    ['verifying', record({ state: 'candidate', gate: gate(false, false) }), 10, { holds: true, why: 'CI running' }],
    [
      'verifying, timed from its heads',
      record({ state: 'candidate', gate: gate(false, false), headsAt: at(500) }),
      700,
      { holds: true, why: 'CI running' },
    ],
    [
      'gate passed, not judged yet',
      record({ state: 'candidate', gate: gate(true, true) }),
      10,
      { holds: true, why: 'acceptance running' },
    ],
    [
      'gate passed, not judged past the timeout',
      record({ state: 'candidate', gate: gate(true, true) }),
      600,
      { holds: false, timedOut: { since: T0 } },
    ],
    [
      'gate passed and judged on these heads',
      record({ state: 'candidate', gate: gate(true, true), heads: HEADS, acceptance: judged(HEADS) }),
      10,
      { holds: false, timedOut: null },
    ],
    [
      'gate passed, judged on other heads (a member pushed since)',
      record({ state: 'candidate', gate: gate(true, true), heads: HEADS, acceptance: judged({ 'acme/api#7': 'c' }) }),
      10,
      { holds: true, why: 'acceptance running' },
    ],
    [
      'composing while an agent is at work on a member',
      record({ heads: HEADS, working: ['acme/ui#9'] }),
      10,
      { holds: true, why: 'composing: acme/ui#9 still at work' },
    ],
    [
      'an agent at work, timed from the members’ last heads (a push keeps the hold)',
      record({ heads: HEADS, working: ['acme/ui#9'], headsAt: at(500) }),
      700,
      { holds: true, why: 'composing: acme/ui#9 still at work' },
    ],
    [
      'an agent at work past the timeout from its last head: the round goes on without the set',
      record({ heads: HEADS, working: ['acme/ui#9'], headsAt: at(500) }),
      1100,
      { holds: false, timedOut: { since: at(500) } },
    ],
    [
      'a member still to open: timed from when the set was first recorded',
      record({ headsAt: at(500) }),
      700,
      { holds: false, timedOut: { since: T0 } },
    ],
    ['gate failed', record({ state: 'candidate', gate: gate(true, false) }), 10, { holds: false, timedOut: null }],
    ['not a candidate', record({ state: 'not-candidate' }), 10, { holds: false, timedOut: null }],
    ['recorded before holds existed', record({ since: undefined }), 10, { holds: false, timedOut: null }],
  ])('%s', (_name, r, seconds, expected) => {
    expect(setHold(r, 600, at(seconds))).toMatchObject(expected);
  });

  it('names each holding set with its members, in name order', () => {
    const held = setsHoldingRound(
      [record({ name: 'zeta' }), record({ name: 'alpha', state: 'candidate', gate: gate(true, false) }), record({})],
      600,
      at(1),
    );
    expect(held).toEqual([
      { pr: 0, label: 'set search (acme/api#7, acme/ui#9)', why: 'composing' },
      { pr: 0, label: 'set zeta (acme/api#7, acme/ui#9)', why: 'composing' },
    ]);
  });
});
