// An installation low on GitHub's rate limit defers what can wait: the waiting list is written
// only on the sibling that settled, the sweep's refresh of the others waits for the budget.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rateBudgets } from '../../src/github/rate-budget.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, seedSibling } from '../support/selection-world.ts';

const PENDING = [{ name: 'test', conclusion: 'pending' as const }];
const INSTALLATION = 7; // the selection world's installation
const low = { 'x-ratelimit-remaining': '120', 'x-ratelimit-limit': '5000' };
const plenty = { 'x-ratelimit-remaining': '4000', 'x-ratelimit-limit': '5000' };

describe('waiting-list refreshes under a low rate limit', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-rate-budget');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());
  afterEach(() => rateBudgets.clear());

  it('writes the settled sibling only, and the sweep nothing, until the budget is back', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    const change = await seedGroup(world, {
      siblings: [100, 101, 102].map((pr) => ({ pr, checks: PENDING, acceptance: null })),
    });
    await seedSibling(world, change, { pr: 100 });
    rateBudgets.record(INSTALLATION, low);
    world.gh.resetRecord();
    await selectionStep(world.ctx('settle-100'), 42, 'main', { settled: 100 });
    expect(world.gh.writes.filter((w) => w.includes('Arbiter / selection'))).toEqual([
      'check #100 Arbiter / selection in_progress "Waiting on #101 (CI running), #102 (CI running)"',
    ]);
    // #101 settles too: it is told, #100's list (now behind) waits.
    await seedSibling(world, change, { pr: 101 });
    world.gh.resetRecord();
    await selectionStep(world.ctx('settle-101'), 42, 'main', { settled: 101 });
    expect(world.gh.writes.filter((w) => w.includes('Arbiter / selection'))).toEqual([
      'check #101 Arbiter / selection in_progress "Waiting on #102 (CI running)"',
    ]);
    world.gh.resetRecord();
    await selectionStep(world.ctx('sweep'), 42, 'main');
    expect(world.gh.writes.filter((w) => w.includes('Arbiter / selection'))).toEqual([]);
    // Another installation's budget does not hold this one back.
    rateBudgets.record(INSTALLATION, plenty);
    rateBudgets.record(8, low);
    world.gh.resetRecord();
    await selectionStep(world.ctx('sweep-2'), 42, 'main');
    expect(world.gh.writes.filter((w) => w.includes('Arbiter / selection'))).toEqual([
      'check #100 Arbiter / selection in_progress "Waiting on #102 (CI running)"',
    ]);
  });
});
