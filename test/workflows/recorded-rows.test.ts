// Rows read back are parsed, never cast: a round's recorded plan that does not have this
// version's shape (an unknown set-state, a missing verdict) stops the claimant with an error
// naming the field, a merge result of the wrong shape is refused, and a receipt a selection
// planned is found among that selection's actions when replayed from the store.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readSelectionPlan, RecordedShapeError, parseRecorded } from '../../src/core/plan-schema.ts';
import { MergeResult } from '../../src/github/port.ts';
import { replayStored } from '../../src/replay/stored.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup } from '../support/selection-world.ts';

const KEY = 'acme/todo';

describe('recorded rows', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-recorded-rows');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('a recorded plan with an unknown set-state is an error naming it, and the claimant writes nothing', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13, acceptance: { AC3: 'not_met' } }] });
    const round = await store.currentRound(KEY, 42, 'main', w.clock.now().toISOString());
    expect(await store.claimRound(round.id, 'job-a')).toBe('claimed');
    const plan = {
      verdict: { kind: 'human', winner: 12, before: [12], losers: [], why: 'x' },
      actions: [{ kind: 'set-state', key: 'k', pr: 12, state: 'archived', reason: 'x' }],
    };
    await store.recordDecision(round.id, plan, w.clock.now().toISOString(), 'job-a');
    const error = await selectionStep(w.ctx('job-a'), 42, 'main').then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RecordedShapeError);
    expect(String(error)).toMatch(
      /the selection plan recorded by an older version does not parse: .*actions\.0\.state/,
    );
    expect(w.gh.writes.filter((l) => !l.startsWith('check '))).toEqual([]);
    expect((await store.getCandidate(KEY, 12))?.state).not.toBe('archived');
  });

  it('a portfolio wide decision is no selection plan, and a merge result of another shape is refused', () => {
    expect(readSelectionPlan({ verdict: { kind: 'portfolio-wide', deep: [21], out: [23] }, actions: [] })).toBeNull();
    expect(readSelectionPlan(null)).toBeNull();
    expect(() => readSelectionPlan({ verdict: { kind: 'ship' } })).toThrow(RecordedShapeError);
    expect(parseRecorded(MergeResult, { ok: false, status: 409, message: 'head moved' }, 'merge')).toEqual({
      ok: false,
      status: 409,
      message: 'head moved',
    });
    expect(() => parseRecorded(MergeResult, { done: true }, 'the merge result')).toThrow(
      /the merge result recorded by an older version does not parse/,
    );
  });

  it('the repair receipt a selection planned replays with that selection', async () => {
    const w = makeWorld({ store, config: configOf() });
    await seedGroup(w, { siblings: [{ pr: 13, acceptance: { AC3: 'not_met' } }] });
    await selectionStep(w.ctx('job-a'), 42, 'main');
    const replayed = replayStored(await store.readReceipts({}));
    expect(replayed.map((r) => [r.kind, r.result.result])).toEqual([
      ['CANDIDATE_SELECTION', 'same'],
      ['ACCEPTANCE_REPAIR', 'part-of-selection'],
    ]);
  });
});
