// The one HUMAN_GATE receipt builder every planner uses when a decision goes to a person: the
// receipt it builds is the one the store reads back, field for field and in the same order (a
// stored receipt is parsed with the schema and replayed; a reordered field would change its digest).
import { describe, expect, it } from 'vitest';
import { humanGateReceipt, type HumanGateData } from '../../src/core/plan/human-gate.ts';
import { Receipt } from '../../src/core/receipt.ts';

const at = { repo: 'acme/web', change: 5, round: 2, now: '2026-01-01T00:00:00.000Z' };

// The shapes of data each planner records (selection, after-merge, auto-merge-lost, sweep, promotion, rejection).
const DATA: [string, HumanGateData][] = [
  ['a round before a person', { candidates: [12, 14], winner: null, why: 'the judge could not separate them' }],
  ['a refused merge', { candidates: [12], winner: 12, why: 'merge refused (405: not mergeable)' }],
  [
    'a repair that timed out',
    { candidates: [12], winner: 12, why: 'repair timed out', reviewers: { users: ['alice'], teams: [] } },
  ],
  ['a spent retry budget', { candidates: [], winner: null, why: 'retry budget spent: 502' }],
  [
    'a promotion',
    {
      candidates: [12],
      winner: 12,
      decision: 'promoted by a person',
      by: 'alice',
      source: 'command',
      broughtBack: true,
    },
  ],
  [
    'a rejection',
    { candidates: [12], decision: 'rejected by a person', by: 'alice', reason: 'wrong approach', repair: 'granted' },
  ],
];

describe('humanGateReceipt', () => {
  it.each(DATA)('records %s as a receipt the store reads back unchanged', (_, data) => {
    const action = humanGateReceipt('acme/web#5@main/r2/receipt', at, data);
    expect(action).toMatchObject({ kind: 'receipt', key: 'acme/web#5@main/r2/receipt' });
    if (action.kind !== 'receipt') throw new Error('not a receipt');
    const { receipt } = action;
    expect(receipt).toMatchObject({ kind: 'HUMAN_GATE', repo: 'acme/web', change: 5, round: 2, at: at.now, data });
    // Parsed as the store parses it, the receipt serialises to the same text: same fields, same order.
    expect(JSON.stringify(Receipt.parse(JSON.parse(JSON.stringify(receipt))))).toBe(JSON.stringify(receipt));
  });
});
