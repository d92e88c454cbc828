// Replaying the receipts of planners other than selection (issue 26, item 4): a receipt that
// carries its planner's inputs is decided again by that planner, after a trip through JSON as the
// store keeps it; flipping one recorded input shows the difference. One table row per kind (the
// promotion, merge answer, shipped, given-up, combine and wide-round rows are in
// replay-decisions.test.ts, the selection's in replay.test.ts). Every kind but ACCEPTANCE replays:
// a receipt of a planned kind that carries no inputs (and no plan given made it) cannot be
// replayed, and a scenario run holding one fails (sim/runner/replay-run.ts), so every fixture's
// run shows each kind it records re-decided.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import type { CombineRecord } from '../../src/core/combine.ts';
import { planAutoMergeLost, type AutoMergeLostView } from '../../src/core/plan/auto-merge-lost.ts';
import { isOpened, planRebuildEnded, planRebuilt } from '../../src/core/plan/combine-rebuild.ts';
import { planCancel, planRejection, type CancelInput, type RejectionInput } from '../../src/core/plan/person.ts';
import { planRepairTimeout, type RepairTimeoutInput } from '../../src/core/plan/sweep.ts';
import { Receipt } from '../../src/core/receipt.ts';
import { describeReplay, replayReceipt } from '../../src/core/replay.ts';
import { replayRun } from '../../sim/runner/replay-run.ts';

/** The receipt a plan holds, as the store gives it back: through JSON. */
function receiptOf(actions: Action[]): {
  kind: string;
  data: { planned: { inputs: Record<string, unknown>; outcome: string[] } };
} {
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

const record: CombineRecord = {
  proposal: {
    change: 42,
    round: 1,
    a: { pr: 12, headSha: 'b'.repeat(40), met: ['AC1'], changedPaths: ['src/12.ts'] },
    b: { pr: 13, headSha: 'c'.repeat(40), met: ['AC2'], changedPaths: ['src/13.ts'], brings: ['AC2'] },
    together: ['AC1', 'AC2'],
    branch: 'arbiter/combined/42',
    base: 'main',
  },
  outcome: { outcome: 'opened', pr: 43, headSha: 'd'.repeat(40), baseSha: 'e'.repeat(40), merges: [] },
};
if (!isOpened(record)) throw new Error('the combine record must be an opened one');
const opened = record;

const rebuildEnded = {
  repo: 'acme/todo',
  record: opened,
  headSha: 'd'.repeat(40),
  source: 12,
  sha: 'f'.repeat(40),
  answer: { ok: false as const, status: 409, message: 'Merge conflict' },
  now: '2026-03-02T10:00:00.000Z',
};

const rebuilt = {
  repo: 'acme/todo',
  record: opened,
  merged: [{ pr: 12, sha: '1'.repeat(40) }],
  headSha: '2'.repeat(40),
  now: '2026-03-02T10:00:00.000Z',
};

/** A person turned off the auto-merge Arbiter enabled on the winner: the Change goes to a person. */
const autoMergeLost: AutoMergeLostView = {
  repo: 'acme/todo',
  change: { number: 42, criteria: [] },
  base: 'main',
  pr: 12,
  lost: 'auto-merge',
  on: { pr: 12, sha: 'a'.repeat(40), round: 1 },
  reason: 'not yet',
  by: 'maintainer',
  byPerson: true,
  live: {
    open: true,
    headSha: 'a'.repeat(40),
    baseRef: 'main',
    autoMergeBy: null,
    inMergeQueue: false,
    merge: null,
  },
  bot: 'arbiter[bot]',
  changeState: 'open',
  candidateState: 'selected',
  round: { number: 1, ships: { pr: 12, sha: 'a'.repeat(40) } },
  actedBefore: false,
  method: 'squash',
  branch: { requiredReviews: 0, mergeQueue: false },
  prefix: '/arbiter',
  evidence: null,
  repoUrl: null,
  reviewers: { users: ['maintainer'], teams: [] },
  now: '2026-03-02T10:00:00.000Z',
};

function autoMergeLostActions(): Action[] {
  const plan = planAutoMergeLost(autoMergeLost);
  if (plan.kind !== 'person') throw new Error('expected the Change to go to a person');
  return plan.actions;
}

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
  {
    planner: 'rebuild-ended',
    kind: 'COMBINED_CANDIDATE',
    actions: () => planRebuildEnded(rebuildEnded),
    // GitHub refused the merge for another reason than a conflict: the reason the receipt keeps says so.
    flip: (inputs: Record<string, unknown>) => ({ ...inputs, answer: { ok: false, status: 422, message: 'Refused' } }),
    differs: /reason: .*conflicts with the rest of #43.* → .*GitHub refused to merge its new head/,
  },
  {
    planner: 'rebuilt',
    kind: 'COMBINED_CANDIDATE',
    actions: () => planRebuilt(rebuilt),
    // The parent's merge landed at another commit.
    flip: (inputs: Record<string, unknown>) => ({ ...inputs, merged: [{ pr: 12, sha: '3'.repeat(40) }] }),
    differs: /merges: \[.*"1{40}".*\] → \[.*"3{40}".*\]/,
  },
  {
    planner: 'auto-merge-lost',
    kind: 'HUMAN_GATE',
    actions: autoMergeLostActions,
    // GitHub, not a person, turned it off: Arbiter takes the merge path again, and hands nothing over.
    flip: (inputs: Record<string, unknown>) => ({ ...inputs, byPerson: false }),
    differs: /why: .* → \(not planned\)/,
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
    // The planned actions differ too, line by line (- recorded, + now), where the plan holds more than its receipt.
    if (receipt.data.planned.outcome.length > 0) expect(lines.some((l) => /^ {2}[-+] /.test(l))).toBe(true);
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

  it('a rebuild whose recorded combine opened no combined candidate cannot be replayed, and says why', () => {
    const receipt = receiptOf(planRebuilt(rebuilt));
    const { outcome: _opened, ...rest } = record;
    const refused = { outcome: 'refused', step: 'merge', status: 409, message: 'conflict' };
    receipt.data.planned.inputs = { ...receipt.data.planned.inputs, record: { ...rest, outcome: refused } };
    expect(replayReceipt(receipt)).toMatchObject({ result: 'cannot-replay', why: expect.stringMatching(/opened no/) });
  });

  it('a receipt whose recorded inputs no longer parse cannot be replayed, and says why', () => {
    const receipt = receiptOf(planRepairTimeout(repairTimeout).actions);
    receipt.data.planned.inputs = { ...receipt.data.planned.inputs, targets: 'none' };
    expect(replayReceipt(receipt)).toMatchObject({ result: 'cannot-replay' });
  });
});

/** Each receipt kind, and a plan that records one (ACCEPTANCE: none, a model's judgement is no plan). */
const PLANNED_KINDS: [string, () => Action[]][] = [
  ['HUMAN_GATE', () => planRepairTimeout(repairTimeout).actions],
  ['ACCEPTANCE_REPAIR', () => planRejection({ ...rejection, repair: 'granted' }).actions],
  ['CANCEL', () => planCancel(cancel).actions],
  ['COMBINED_CANDIDATE', () => planRebuilt(rebuilt)],
];

describe('a receipt of a planned kind that carries no inputs', () => {
  it('every kind but ACCEPTANCE is decided by a planner', () => {
    // The kinds the receipt schema knows; each planned one has a planner row in these tests.
    const kinds = Receipt.options.map((o) => o.shape.kind.value).sort();
    expect(kinds).toEqual([
      'ACCEPTANCE',
      'ACCEPTANCE_REPAIR',
      'CANCEL',
      'CANDIDATE_SELECTION',
      'COMBINED_CANDIDATE',
      'HUMAN_GATE',
      'PORTFOLIO_DEEP',
      'PORTFOLIO_WIDE',
      'PROMOTION',
    ]);
  });

  it.each(PLANNED_KINDS)('%s: recorded by an older version, it cannot be replayed and says why', (kind, actions) => {
    const receipt = receiptOf(actions());
    expect(receipt.kind).toBe(kind);
    const { planned: _planned, ...older } = receipt.data;
    const replayed = replayReceipt({ ...receipt, data: older });
    expect(replayed).toMatchObject({ result: 'cannot-replay' });
    expect(describeReplay(replayed)[0]).toMatch(/^cannot replay: this \w+ receipt carries no planner inputs/);
  });

  it("an acceptance check's results are a record: no planner decided them", () => {
    const acceptance = {
      kind: 'ACCEPTANCE',
      repo: 'acme/todo',
      change: 42,
      round: 0,
      at: '2026-03-02T10:00:00.000Z',
      data: {
        candidate: 12,
        headSha: 'b'.repeat(40),
        status: 'pass',
        results: [{ id: 'AC1', status: 'met', source: 'small' }],
        modelCalls: { small: 1, large: 0 },
        truncated: false,
      },
    };
    expect(replayReceipt(acceptance)).toEqual({ result: 'record', kind: 'ACCEPTANCE', round: 0 });
  });

  it('a scenario run whose receipt of a planned kind carries no inputs fails (every fixture is replayed so)', () => {
    const receipt = receiptOf(planCancel(cancel).actions);
    expect(replayRun([{ id: 1, recorded: receipt }])).toEqual([{ id: 1, kind: 'CANCEL', round: 0, replay: 'same' }]);
    const { planned: _planned, ...older } = receipt.data;
    expect(() => replayRun([{ id: 1, recorded: { ...receipt, data: older } }])).toThrow(/does not replay/);
  });
});
