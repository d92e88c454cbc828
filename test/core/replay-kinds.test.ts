// Replaying the receipts of planners other than selection (issue 26, item 4): a receipt that
// carries its planner's inputs is decided again by that planner, after a trip through JSON as the
// store keeps it; flipping one recorded input shows the difference. One table row per kind.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import { planCancel, planRejection, type CancelInput, type RejectionInput } from '../../src/core/plan/person.ts';
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
  decided: null,
  buttons: [{ label: 'Promote', description: 'Ship this candidate', identifier: 'promote' }],
  now: '2026-03-02T10:00:00.000Z',
};

const rejection: RejectionInput = {
  repo: 'acme/todo',
  change: 42,
  pr: 12,
  headSha: 'b'.repeat(40),
  base: 'main',
  round: 1,
  user: 'maintainer',
  reason: 'not what we asked for',
  repair: 'not-gated',
  awaiting: true,
  config: { mode: 'live' },
  repairTimeout: 3600,
  now: '2026-03-02T10:00:00.000Z',
};

const cancel: CancelInput = {
  repo: 'acme/todo',
  change: 42,
  token: 'delivery:abc',
  user: 'maintainer',
  how: 'Cancelled by @maintainer.',
  candidates: [
    { pr: 12, headSha: 'b'.repeat(40), awaiting: false },
    { pr: 13, headSha: 'c'.repeat(40), awaiting: true },
  ],
  config: { mode: 'live' },
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
  {
    planner: 'rejection',
    kind: 'HUMAN_GATE',
    actions: () => planRejection(rejection).actions,
    // Had the repair been the Change's to grant, the rejection would have asked for it.
    flip: (inputs: Record<string, unknown>) => ({ ...inputs, repair: 'disabled' }),
    differs: /repair: "not-gated" → "disabled"/,
  },
  {
    planner: 'rejection',
    kind: 'ACCEPTANCE_REPAIR',
    actions: () => planRejection({ ...rejection, repair: 'granted' }).actions,
    // The same rejection in shadow mode dispatches nothing and says "would".
    flip: (inputs: Record<string, unknown>) => ({ ...inputs, config: { mode: 'shadow' } }),
    differs: /Shadow: would reject/,
  },
  {
    planner: 'cancel',
    kind: 'CANCEL',
    actions: () => planCancel(cancel).actions,
    // One candidate fewer was open when the Change was cancelled.
    flip: (inputs: Record<string, unknown>) => ({ ...inputs, candidates: [cancel.candidates[0]] }),
    differs: /closed: \[12,13\] → \[12\]/,
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
    expect(lines.some((l) => /^ {2}[-+] /.test(l))).toBe(true);
  });

  it.each([
    ['rejection', () => planRejection({ ...rejection, repair: 'granted' }).actions],
    ['cancel', () => planCancel(cancel).actions],
  ] as const)(
    '%s: inputs recorded before the planner took the config (`shadow: false`) replay as live mode',
    (_planner, actions) => {
      const receipt = receiptOf(actions());
      const { config, ...rest } = receipt.data.planned.inputs;
      expect(config).toEqual({ mode: 'live' });
      receipt.data.planned.inputs = { ...rest, shadow: false };
      expect(replayReceipt(receipt)).toMatchObject({ result: 'same' });
      receipt.data.planned.inputs = { ...rest, shadow: true };
      expect(replayReceipt(receipt)).toMatchObject({ result: 'different' });
    },
  );

  it('keeps of the config a planner takes for its words only the mode', () => {
    const config = { mode: 'shadow' as const, commands: { prefix: '/arbiter' }, repair: { enabled: true } };
    const receipt = receiptOf(planRejection({ ...rejection, config }).actions);
    expect(receipt.data.planned.inputs['config']).toEqual({ mode: 'shadow' });
    expect(replayReceipt(receipt)).toMatchObject({ result: 'same' });
  });

  it('a receipt whose recorded inputs no longer parse cannot be replayed, and says why', () => {
    const receipt = receiptOf(planRepairTimeout(repairTimeout).actions);
    receipt.data.planned.inputs = { ...receipt.data.planned.inputs, targets: 'none' };
    expect(replayReceipt(receipt)).toMatchObject({ result: 'cannot-replay' });
  });
});
