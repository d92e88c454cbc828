// A round's claim, release and decision as plan actions (src/core/round-actions.ts): the executor
// asks the store every time, so each answer is this run's now, never an earlier answer read back
// from the ledger (a run that gave its claim back and claims again must really claim it again).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitingStaleKey } from '../../src/core/keys.ts';
import { executePlan } from '../../src/workflows/execute.ts';
import { claimRoundOnce, giveBackRound, recordRoundDecision } from '../../src/workflows/round-claim.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, type World } from '../support/selection-world.ts';

const KEY = 'acme/todo';

describe('the round claim as actions', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-round-claim');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  const roundOf = async (w: World) => w.store.currentRound(KEY, 42, 'main', w.clock.now().toISOString());

  for (const mode of ['live', 'shadow'] as const)
    it(`answers claimed, mine and taken, and a claim given back is claimed again (${mode} mode)`, async () => {
      const w = makeWorld({ store: opened.store, config: configOf({ mode }) });
      await seedGroup(w, { siblings: [{ pr: 12 }] });
      const round = await roundOf(w);
      const a = w.ctx('job-a');
      const b = w.ctx('job-b');
      expect(await claimRoundOnce(a, round)).toBe('claimed');
      expect(await claimRoundOnce(a, round)).toBe('mine');
      expect(await claimRoundOnce(b, round)).toBe('taken');
      // Only the holder gives it back; then another run claims it, and the first is refused.
      expect(await giveBackRound(b, round)).toBe(false);
      expect(await giveBackRound(a, round)).toBe(true);
      expect((await roundOf(w)).selection).toBeNull();
      expect(await claimRoundOnce(b, round)).toBe('claimed');
      expect(await claimRoundOnce(a, round)).toBe('taken');
      expect(await giveBackRound(b, round)).toBe(true);
      // The same run claims again: asked afresh, not the first answer read back.
      expect(await claimRoundOnce(a, round)).toBe('claimed');
      expect((await roundOf(w)).selection).toBe('job-a');
    });

  it('records the first decision of the holder only, and a decided round is not given back', async () => {
    const w = makeWorld({ store: opened.store });
    await seedGroup(w, { siblings: [{ pr: 12 }] });
    const round = await roundOf(w);
    const a = w.ctx('job-a');
    const b = w.ctx('job-b');
    // Nobody holds the round: nothing is recorded.
    expect(await recordRoundDecision(a, round, { first: true })).toBe(false);
    expect(await claimRoundOnce(a, round)).toBe('claimed');
    expect(await recordRoundDecision(b, round, { other: true })).toBe(false);
    expect(await recordRoundDecision(a, round, { first: true })).toBe(true);
    expect(await recordRoundDecision(a, round, { second: true })).toBe(false);
    expect((await roundOf(w)).decision).toEqual({ first: true });
    expect(await giveBackRound(a, round)).toBe(false);
    expect((await roundOf(w)).selection).toBe('job-a');
  });

  it('sets the waiting-stale mark again after the sweep took it', async () => {
    const w = makeWorld({ store: opened.store });
    const stale = waitingStaleKey(KEY, 42, 'main');
    const mark = (round: number) => ({
      kind: 'mark' as const,
      key: stale,
      value: { round },
      at: w.clock.now().toISOString(),
    });
    await executePlan(w.ctx('job-a'), [mark(1)]);
    expect(await w.store.getAppliedAction(stale)).toEqual({ round: 1 });
    // A mark already set stays as it is (the first stands).
    await executePlan(w.ctx('job-b'), [mark(2)]);
    expect(await w.store.getAppliedAction(stale)).toEqual({ round: 1 });
    expect(await w.store.forgetAppliedAction(stale)).toBe(true);
    await executePlan(w.ctx('job-b'), [mark(2)]);
    expect(await w.store.getAppliedAction(stale)).toEqual({ round: 2 });
  });
});
