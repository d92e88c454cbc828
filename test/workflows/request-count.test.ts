// Request counting: the selection step reads a group's state from GitHub with the same number
// of requests for 2 siblings as for 20 (one group GraphQL query, the branch rules, one look for
// every comment's marker, …), and its writes grow only with the decision (four per loser, a fixed
// few for the winner).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoreWithDb } from '../../src/store/store.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, type SiblingSpec, type World } from '../support/selection-world.ts';

interface Counts {
  reads: string[];
  lookups: string[];
  writes: number;
}

async function decide(store: StoreWithDb, n: number, shape: 'ship' | 'human'): Promise<{ world: World; counts: Counts }> {
  const config = shape === 'ship' ? configOf() : configOf({ repair: { enabled: false } });
  const world = makeWorld({ store, config });
  world.gh.files.set('.github/CODEOWNERS', '* @maintainer\n');
  // #100 is the best; shape `human`: it misses one criterion and repair is off, so a person decides.
  const siblings: SiblingSpec[] = Array.from({ length: n }, (_, i) => ({
    pr: 100 + i,
    acceptance: i === 0 ? (shape === 'ship' ? {} : { AC3: 'not_met' as const }) : { AC2: 'not_met' as const, AC3: 'not_met' as const },
  }));
  await seedGroup(world, { siblings });
  await selectionStep(world.ctx('job'), 42, 'main');
  return { world, counts: { reads: [...world.gh.reads], lookups: [...world.gh.lookups], writes: world.gh.writes.length } };
}

const normalise = (reads: string[]): string[] => reads.map((r) => r.replace(/^graphql ArbiterGroup .*/, 'graphql ArbiterGroup'));

describe('GitHub requests of the selection step', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('postgres', 'wf-count');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('reads the same number of times for 2 and for 20 siblings when the winner ships', async () => {
    const two = await decide(opened.store, 2, 'ship');
    await opened.truncate();
    const twenty = await decide(opened.store, 20, 'ship');
    expect(normalise(two.counts.reads)).toEqual(['graphql ArbiterGroup', 'branch rules main', 'pull #100']);
    expect(normalise(twenty.counts.reads)).toEqual(normalise(two.counts.reads));
    // One group query names every sibling.
    expect(twenty.counts.reads[0]).toBe(`graphql ArbiterGroup ${Array.from({ length: 20 }, (_, i) => `#${100 + i}`).join(',')}`);
    // Writes: the comparison, four per loser (check, note, label, close), and the winner's check, ready, merge, shipped check.
    for (const { n, counts } of [{ n: 2, counts: two.counts }, { n: 20, counts: twenty.counts }]) {
      expect(counts.writes).toBe(1 + 4 * (n - 1) + 4);
      // Every comment looks for its marker (so a lost store never repeats a comment): one read for
      // the comparison on #42, and, since the losers close only after the merge succeeded, one read
      // for all the losers' notes together.
      expect(counts.lookups).toEqual(['comments #42', `comments ${Array.from({ length: n - 1 }, (_, i) => `#${101 + i}`).join(',')}`]);
    }
  });

  it('reads the same number of times for 2 and for 20 siblings when a person must decide', async () => {
    const two = await decide(opened.store, 2, 'human');
    await opened.truncate();
    const twenty = await decide(opened.store, 20, 'human');
    expect(normalise(two.counts.reads)).toEqual(['graphql ArbiterGroup', 'branch rules main', 'file .github/CODEOWNERS']);
    expect(normalise(twenty.counts.reads)).toEqual(normalise(two.counts.reads));
    for (const { n, counts } of [{ n: 2, counts: two.counts }, { n: 20, counts: twenty.counts }]) {
      // The comparison, four per loser, and the gated winner's check, label, review request and note.
      expect(counts.writes).toBe(1 + 4 * (n - 1) + 4);
      // One read looks for the markers of every comment: the comparison, the losers' notes, the winner's.
      expect(counts.lookups).toEqual([`comments #42,${Array.from({ length: n - 1 }, (_, i) => `#${101 + i}`).join(',')},#100`]);
    }
    expect(twenty.world.gh.pull(100)).toMatchObject({ reviewers: ['maintainer'], labels: ['arbiter:awaiting-approval'] });
  });
});
