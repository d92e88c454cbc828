// Replaying the receipts of planners other than selection (issue 26, item 4): a receipt that
// carries its planner's inputs is decided again by that planner, after a trip through JSON as the
// store keeps it; flipping one recorded input shows the difference. One table row per kind.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planRepairTimeout, type RepairTimeoutInput } from '../../src/core/plan/sweep.ts';
import { describeReplay, replayReceipt } from '../../src/core/replay.ts';

/** The receipt a plan holds, as the store gives it back: through JSON. */
function receiptOf(actions: Action[]): { kind: string; data: { planned: { inputs: Record<string, unknown> } } } {
  const receipt = actions.find((a) => a.kind === 'receipt');
  if (!receipt || receipt.kind !== 'receipt') throw new Error('the plan holds no receipt');
  return JSON.parse(JSON.stringify(receipt.receipt));
}

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
  now: '2026-03-02T10:00:00.000Z',
};

const KINDS = [
  {
    planner: 'repair-timeout',
    kind: 'HUMAN_GATE',
    actions: () => planRepairTimeout(repairTimeout).actions,
    // A person had rejected the repair's candidate: it stays out, and the check says so.
    flip: (inputs: Record<string, unknown>) => ({ ...inputs, repairOf: { pr: 13, rejected: true } }),
    differs: /winner: 13 → null/,
  },
];

describe('replaying the receipts of every planner that records its inputs', () => {
  it.each(KINDS)('$planner ($kind): decides the same again from its recorded inputs', ({ kind, actions, planner }) => {
    const receipt = receiptOf(actions());
    expect(receipt.kind).toBe(kind);
    const replayed = replayReceipt(receipt);
    expect(replayed).toMatchObject({ result: 'same', kind, planner });
    expect(describeReplay(replayed)[0]).toMatch(new RegExp(`^same decision: the ${kind} \\(${planner}\\) of round`));
  });

  it.each(KINDS)('$planner ($kind): one flipped recorded input replays differently', ({ actions, flip, differs }) => {
    const receipt = receiptOf(actions());
    receipt.data.planned.inputs = flip(receipt.data.planned.inputs);
    const replayed = replayReceipt(receipt);
    expect(replayed.result).toBe('different');
    const lines = describeReplay(replayed);
    expect(lines[0]).toMatch(/^different decision: /);
    expect(lines.join('\n')).toMatch(differs);
    // The planned actions differ too, line by line (- recorded, + now).
    expect(lines.some((l) => l.startsWith('  - '))).toBe(true);
    expect(lines.some((l) => l.startsWith('  + '))).toBe(true);
  });

  it('a receipt whose recorded inputs no longer parse cannot be replayed, and says why', () => {
    const receipt = receiptOf(planRepairTimeout(repairTimeout).actions);
    receipt.data.planned.inputs = { ...receipt.data.planned.inputs, targets: 'none' };
    expect(replayReceipt(receipt)).toMatchObject({ result: 'cannot-replay' });
  });
});
