// Arbiter brings a winner's branch up to date once per head: the update's own merge commit falling
// behind again goes to a person, but a later head the agent pushes may be updated once more (the
// record is keyed by PR and the head updated from, not by the PR alone).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreWithDb } from '../../src/store/store.ts';
import { planPromotionRecords } from '../../src/core/plan/promotion-records.ts';
import { branchUpdatedFrom } from '../../src/workflows/branch-updated.ts';
import { executePlan } from '../../src/workflows/execute.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld } from '../support/selection-world.ts';

const H1 = '1'.repeat(40);
const H2 = '2'.repeat(40);
const H3 = '3'.repeat(40);
const BASE = 'b'.repeat(40);

describe('the branch update, once per head', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-branch-updated');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('counts the head updated from and the merge commit it produced, not a later head of the same PR', async () => {
    const ctx = makeWorld({ store, config: configOf() }).ctx('job-update');
    expect(await branchUpdatedFrom(ctx, 12, [H1])).toBe(false);
    // The record the update's answer plans (its other records need a round and a candidate this test has not).
    const view = { repo: ctx.key, change: 1, base: 'main', round: 1, scope: 'main/r1', now: '2026-01-01T00:00:00Z' };
    const planned = planPromotionRecords({ ...view, what: 'updated', pr: 12, sha: H1 });
    await executePlan(
      ctx,
      planned.filter((a) => a.kind === 'record'),
    );
    // The update was asked and GitHub has not moved the head yet: not updated twice.
    expect(await branchUpdatedFrom(ctx, 12, [H1])).toBe(true);
    // The update's merge commit H2 (parents H1 and the base) falls behind again: a person's turn.
    expect(await branchUpdatedFrom(ctx, 12, [H2, H1, BASE])).toBe(true);
    // The agent pushes H3 on top of H2: a head Arbiter never updated, so it may be updated once.
    expect(await branchUpdatedFrom(ctx, 12, [H3, H2])).toBe(false);
    // Another pull request is its own.
    expect(await branchUpdatedFrom(ctx, 13, [H1])).toBe(false);
  });
});
