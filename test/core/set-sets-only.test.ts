// The decision of a Change whose only candidates are sets (core/plan/sets-only.ts): its receipt is a
// CANDIDATE_SELECTION that keeps the planner's inputs (a selection's, with no single-repository
// sibling and the sets' records) and one line per planned action, so `npm run replay` decides it
// again after a trip through JSON as the store keeps it; one flipped recorded input replays as a
// different decision. Pure tables.
import { describe, expect, it } from 'vitest';
import type { SetRecord } from '../../src/core/candidate-set.ts';
import { isSetsOnly, planSetsOnlyRound, setsDiagnostics } from '../../src/core/plan/sets-only.ts';
import { SelectionReceipt, type SelectionInputs } from '../../src/core/receipt.ts';
import { readReceiptMarker } from '../../src/core/render/markers.ts';
import { describeReplay, replayReceipt } from '../../src/core/replay.ts';
import type { Criterion, CriterionStatus } from '../../src/core/types.ts';
import { configOf } from '../support/selection-world.ts';
import { API7 as api, judgedSet, ordinaryChanges, UI9 as ui } from '../support/set-records.ts';

const crit: Criterion[] = [1, 2].map((i) => ({ id: `AC${i}`, text: `Criterion ${i}`, check: null }));

function set(name: string, statuses: CriterionStatus[], over: Partial<SetRecord> = {}): SetRecord {
  const heads = {
    [`acme/api#${api.number}`]: `${name}-a`.padEnd(40, 'a'),
    [`acme/ui#${ui.number}`]: `${name}-b`.padEnd(40, 'b'),
  };
  // Ordinary files in both members: the default risk rules ship them.
  const changes = ordinaryChanges(heads, { autoShip: ['low', 'medium'], rules: configOf().policy.rules });
  return { ...judgedSet({ name, heads, criteria: crit, statuses, changes }), seen: [api, ui], ...over };
}

/** The inputs decideSetsOnly (workflows/set-ship.ts) gives the planner. */
function inputs(records: SetRecord[]): SelectionInputs {
  return {
    repo: 'acme/app',
    change: { number: 42, title: 'Search', criteria: crit },
    round: 1,
    base: 'sets',
    siblings: [],
    judge: null,
    diagnostics: setsDiagnostics(records),
    config: configOf(),
    repairAvailable: false,
    reviewers: { users: [], teams: [] },
    branch: { requiredReviews: 0, mergeQueue: false },
    drafts: [],
    now: '2026-01-01T00:00:05.000Z',
    buttons: [],
    display: { repoUrl: 'https://github.com/acme/app' },
    sets: { records, web: 'https://github.com', order: [] },
  };
}

/** The decision's receipt as the store gives it back: through JSON. */
function recorded(records: SetRecord[]): { kind: string; data: Record<string, unknown> & { inputs: SelectionInputs } } {
  const plan = planSetsOnlyRound(inputs(records));
  if (plan === null) throw new Error('a decision was expected');
  // The receipt is the plan's first action, applied once by its key.
  expect(plan.actions[0]).toMatchObject({ kind: 'receipt', key: 'acme/app#42/sets/r1/receipt/selection' });
  return JSON.parse(JSON.stringify(plan.receipt)) as ReturnType<typeof recorded>;
}

const diffOf = (receipt: unknown): string[] => {
  const r = replayReceipt(receipt);
  expect(r.result).toBe('different');
  return r.result === 'different' ? r.diff : [];
};

describe('a sets-only decision', () => {
  const good = set('good', ['met', 'met']);
  const half = set('half', ['met', 'not_met']);

  it('ships the set that met every criterion; its receipt says ship, rows each set, and keeps the inputs', () => {
    const plan = planSetsOnlyRound(inputs([half, good]))!;
    expect(plan.ship).toMatchObject({ name: 'good', order: [api, ui] });
    expect(SelectionReceipt.parse(plan.receipt).data).toMatchObject({
      verdict: 'ship',
      winner: null,
      ranking: [],
      diagnostics: { submittedCandidates: 2, eligibleCandidates: 2, excludedCandidates: { fail: 0, inconclusive: 0 } },
      headline: expect.stringMatching(/^The best candidate is set `good` .*: it met 2 of 2 criteria/),
      sets: [
        expect.objectContaining({ set: 'good', outcome: 'won', met: 2 }),
        expect.objectContaining({ set: 'half', outcome: 'lost', met: 1 }),
      ],
    });
    expect(plan.receipt.data.outcome).toContain(
      'ship set good: merge acme/api#7, then acme/ui#9, each at its verified head',
    );
    // The comparison carries the receipt (without its inputs) in its hidden marker, as a round's does.
    expect(readReceiptMarker(plan.comparison.body)).toMatchObject({
      kind: 'CANDIDATE_SELECTION',
      data: { verdict: 'ship' },
    });
  });

  it('with no set that met every criterion, a person decides and the other sets stay open', () => {
    const plan = planSetsOnlyRound(inputs([half, set('third', ['not_met', 'not_met'])]))!;
    expect(plan.ship).toBeNull();
    expect(plan.receipt.data).toMatchObject({
      verdict: 'human',
      sets: [
        expect.objectContaining({ set: 'half', outcome: 'won' }),
        expect.objectContaining({ set: 'third', outcome: 'open' }),
      ],
    });
    expect(plan.afterShip).toEqual([]);
  });

  it('decides nothing while no set stands settled as a candidate', () => {
    expect(planSetsOnlyRound(inputs([set('x', ['met', 'met'], { state: 'composing' })]))).toBeNull();
  });

  it('is told apart from a round with single-repository candidates by its inputs', () => {
    expect(isSetsOnly(inputs([good]))).toBe(true);
    expect(isSetsOnly({ ...inputs([good]), base: 'main' })).toBe(false);
    expect(isSetsOnly({ ...inputs([good]), sets: undefined })).toBe(false);
  });
});

describe('replaying a sets-only decision', () => {
  it.each([
    ['a set that ships', [set('good', ['met', 'met']), set('half', ['met', 'not_met'])]],
    ['a set for a person', [set('half', ['met', 'not_met'])]],
    [
      'nothing promotable',
      [
        set('broken', ['met', 'met'], {
          gate: { settled: true, promotable: false, reason: 'member acme/ui#9: required check `test` failed' },
        }),
      ],
    ],
  ])('%s: decides the same again from the inputs it recorded', (_name, records) => {
    const replayed = replayReceipt(recorded(records));
    expect(replayed).toMatchObject({ result: 'same', kind: 'CANDIDATE_SELECTION', round: 1 });
    expect(describeReplay(replayed)[0]).toMatch(
      /^same decision: the CANDIDATE_SELECTION of round 1 plans the same \d+ actions again$/,
    );
  });

  it('one flipped criterion of the winning set: it no longer ships, a person decides', () => {
    const receipt = recorded([set('good', ['met', 'met']), set('half', ['met', 'not_met'])]);
    receipt.data.inputs.sets!.records[0]!.acceptance!.evidence.results[1]!.status = 'not_met';
    const diff = diffOf(receipt);
    expect(diff).toContain('verdict: "ship" → "human"');
    expect(diff.some((l) => l.startsWith('- ship set good'))).toBe(true);
  });

  it('a member changing a workflow in the recorded changes: the set is held by the policy', () => {
    const receipt = recorded([set('good', ['met', 'met'])]);
    receipt.data.inputs.sets!.records[0]!.changes![1]!.changedPaths = ['.github/workflows/ci.yml'];
    const diff = diffOf(receipt);
    expect(diff.find((l) => l.startsWith('headline: '))).toMatch(/→ ".*The set is high risk \(member acme\/ui#9: high/);
  });

  it('a recorded set that no longer stands as a candidate: nothing is decided', () => {
    const receipt = recorded([set('good', ['met', 'met'])]);
    receipt.data.inputs.sets!.records[0]!.state = 'composing';
    const diff = diffOf(receipt);
    expect(diff).toContain('verdict: "ship" → (not planned)');
  });
});
