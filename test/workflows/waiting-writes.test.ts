// The waiting list on `Arbiter / selection` while siblings settle: a small group shows it live on
// every sibling; a large group updates only the sibling that settled (and the minute sweep the
// rest), so the writes grow with the group, not with its square.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreWithDb } from '../../src/store/store.ts';
import { LIVE_WAITING_MAX, selectionStep } from '../../src/workflows/select.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, seedSibling, type World } from '../support/selection-world.ts';

const PENDING = [{ name: 'test', conclusion: 'pending' as const }];

/** Every sibling but the last settles, one at a time, each running the selection step as it settles. */
async function settleAllButLast(store: StoreWithDb, n: number): Promise<{ world: World; perSettle: string[][] }> {
  const world = makeWorld({ store, config: configOf() });
  const prs = Array.from({ length: n }, (_, i) => 100 + i);
  const change = await seedGroup(world, { siblings: prs.map((pr) => ({ pr, checks: PENDING, acceptance: null })) });
  const perSettle: string[][] = [];
  for (const pr of prs.slice(0, -1)) {
    await seedSibling(world, change, { pr });
    world.gh.resetRecord();
    await selectionStep(world.ctx(`settle-${pr}`), 42, 'main', { settled: pr });
    perSettle.push(world.gh.writes.filter((w) => w.includes('Arbiter / selection')));
  }
  return { world, perSettle };
}

describe('waiting-list writes while siblings settle', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-waiting');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it(`shows the live list on every sibling in a group of up to ${LIVE_WAITING_MAX}`, async () => {
    const { perSettle } = await settleAllButLast(opened.store, 3);
    // Each settle rewrites all three checks: the list changed for everyone.
    expect(perSettle.map((w) => w.length)).toEqual([3, 3]);
    expect(perSettle[1]).toEqual([
      'check #100 Arbiter / selection in_progress "Waiting on #102 (CI running)"',
      'check #101 Arbiter / selection in_progress "Waiting on #102 (CI running)"',
      'check #102 Arbiter / selection in_progress "Waiting on #102 (CI running)"',
    ]);
  });

  it('updates only the sibling that settled in a larger group: one write per settle', async () => {
    const n = 12;
    const { perSettle, world } = await settleAllButLast(opened.store, n);
    expect(perSettle.map((w) => w.length)).toEqual(Array.from({ length: n - 1 }, () => 1));
    expect(perSettle[4]).toEqual([
      `check #104 Arbiter / selection in_progress "Waiting on ${[105, 106, 107, 108, 109, 110, 111].map((p) => `#${p} (CI running)`).join(', ')}"`,
    ]);
    // The sweep (no settling sibling) brings every open sibling's list up to date at once.
    world.gh.resetRecord();
    await selectionStep(world.ctx('sweep'), 42, 'main');
    const refreshed = world.gh.writes.filter((w) => w.includes('Arbiter / selection'));
    // #110 settled last and already shows the current list; every other sibling is rewritten.
    expect(refreshed).toHaveLength(n - 1);
    expect(refreshed.every((w) => w.endsWith('"Waiting on #111 (CI running)"'))).toBe(true);
  });
});
