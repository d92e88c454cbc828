// An auto-merge's withdrawal that another run holds ends the plan there: the store's mark of the
// auto-merge is taken only once GitHub was asked to withdraw it, by the run that holds the write
// (or its retry). Taken by a run that skipped the held write, the mark would be gone while GitHub
// kept the auto-merge, and nothing would withdraw it again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actionKey, autoMergeOnKey, claimKey } from '../../src/core/keys.ts';
import { planAutoMergeOff } from '../../src/core/plan/auto-merge-off.ts';
import { executePlan } from '../../src/workflows/execute.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { makeWorld, seedGroup } from '../support/selection-world.ts';

describe('a held auto-merge withdrawal', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-auto-merge-held');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('leaves the mark to the run that holds the withdrawal', async () => {
    const w = makeWorld({ store: opened.store });
    const marker = autoMergeOnKey('acme/todo', 42, 'main');
    const on = { pr: 13, sha: 'a'.repeat(40), round: 1 };
    await opened.store.recordAppliedAction(marker, on, '2026-03-02T09:00:00.000Z');
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13 }] });
    // Its head moved on: the auto-merge Arbiter enabled on the old head cannot stand.
    const plan = planAutoMergeOff({
      repo: 'acme/todo',
      change: 42,
      base: 'main',
      on,
      live: { open: true, headSha: 'b'.repeat(40), autoMergeBy: 'arbiter[bot]' },
      bot: 'arbiter[bot]',
      changeState: 'open',
      candidateState: 'verifying',
      round: { number: 1, ships: null },
    });
    const withdrawal = plan.find((a) => a.kind === 'disable-auto-merge');
    expect(withdrawal).toBeDefined();
    // Another run claimed the withdrawal, and has not answered yet (it may have died before asking GitHub).
    await opened.store.claimAppliedAction(
      claimKey(actionKey(withdrawal?.key ?? '')),
      { token: 'delivery:holder' },
      '2026-03-02T09:00:01.000Z',
    );
    await executePlan(w.ctx('delivery:other'), plan);
    expect(await opened.store.getAppliedAction(marker)).toEqual(on);
    // The holder's retry withdraws it and takes the mark.
    await executePlan(w.ctx('delivery:holder'), plan);
    expect(await opened.store.getAppliedAction(marker)).toBeNull();
  });
});
