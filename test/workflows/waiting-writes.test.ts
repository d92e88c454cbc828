// The waiting list on `Arbiter / selection` while siblings settle: the sibling that settled is
// told at once what it waits for; the other settled siblings' lists are brought up to date by the
// next sweep (marked stale meanwhile), and a sibling still verifying keeps "Waiting for evidence".
// So the writes grow with the number of settles, not with the square of the group.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreWithDb } from '../../src/store/store.ts';
import { waitingStaleKey } from '../../src/core/keys.ts';
import { selectionStep } from '../../src/workflows/select.ts';
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

  it.each([3, 12])('writes one check per settle in a group of %i, and the sweep the rest', async (n) => {
    const { perSettle, world } = await settleAllButLast(opened.store, n);
    const last = 100 + n - 1;
    expect(perSettle.map((w) => w.length)).toEqual(Array.from({ length: n - 1 }, () => 1));
    expect(perSettle[1]).toEqual([
      `check #101 Arbiter / selection in_progress "Waiting on ${Array.from({ length: n - 2 }, (_, i) => `#${102 + i} (CI running)`).join(', ')}"`,
    ]);
    // The earlier settlers' lists are behind: the group is marked for the sweep.
    expect(
      await opened.store.getAppliedAction(waitingStaleKey(`${world.gh.owner}/${world.gh.repo}`, 42, 'main')),
    ).not.toBeNull();
    // The sweep (no settling sibling) brings every settled sibling's list up to date at once, and
    // leaves the one still verifying alone; the sibling that settled last is current already.
    world.gh.resetRecord();
    await selectionStep(world.ctx('sweep'), 42, 'main');
    const refreshed = world.gh.writes.filter((w) => w.includes('Arbiter / selection'));
    expect(refreshed).toHaveLength(n - 2);
    expect(refreshed.every((w) => w.endsWith(`"Waiting on #${last} (CI running)"`))).toBe(true);
    expect(refreshed.some((w) => w.startsWith(`check #${last} `))).toBe(false);
    // The mark stays for the sweep job, which takes it before it reads the group (sweep.ts).
  });
});
