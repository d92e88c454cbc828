// Request counting: the selection step reads a group's state from GitHub with the same number
// of requests for 2 siblings as for 20 (one group GraphQL query, the branch rules, one look for
// every comment's marker, …), and its writes grow only with the decision (four per loser, a fixed
// few for the winner).
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GROUP_READ_FRESH_MS, noteRead } from '../../src/github/read-age.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import { readGroupView } from '../../src/workflows/group-view.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { RULES_WINDOW_SECONDS } from '../../src/workflows/branch-rules.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import {
  configOf,
  makeWorld,
  seedGroup,
  seedSibling,
  type SiblingSpec,
  type World,
} from '../support/selection-world.ts';

interface Counts {
  reads: string[];
  lookups: string[];
  writes: number;
}

async function decide(
  store: StoreWithDb,
  n: number,
  shape: 'ship' | 'human',
): Promise<{ world: World; counts: Counts }> {
  const config = shape === 'ship' ? configOf() : configOf({ repair: { enabled: false } });
  const world = makeWorld({ store, config });
  world.gh.files.set('.github/CODEOWNERS', '* @maintainer\n');
  // #100 is the best; shape `human`: it misses one criterion and repair is off, so a person decides.
  const siblings: SiblingSpec[] = Array.from({ length: n }, (_, i) => ({
    pr: 100 + i,
    acceptance:
      i === 0
        ? shape === 'ship'
          ? {}
          : { AC3: 'not_met' as const }
        : { AC2: 'not_met' as const, AC3: 'not_met' as const },
  }));
  await seedGroup(world, { siblings });
  await selectionStep(world.ctx('job'), 42, 'main');
  return {
    world,
    counts: { reads: [...world.gh.reads], lookups: [...world.gh.lookups], writes: world.gh.writes.length },
  };
}

const normalise = (reads: string[]): string[] =>
  reads.map((r) => r.replace(/^graphql ArbiterGroup .*/, 'graphql ArbiterGroup'));

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
    // Marking the winner ready takes its node id from the group query: no read of the PR of its own
    // before the merge. The merge commit the comparison's "merged" re-render links (issue 25) comes
    // from GitHub's answer to the merge, recorded with it: no read after the merge either.
    expect(normalise(two.counts.reads)).toEqual(['graphql ArbiterGroup', 'branch rules main']);
    expect(normalise(twenty.counts.reads)).toEqual(normalise(two.counts.reads));
    // One group query names every sibling.
    expect(twenty.counts.reads[0]).toBe(
      `graphql ArbiterGroup ${Array.from({ length: 20 }, (_, i) => `#${100 + i}`).join(',')}`,
    );
    // Writes: the comparison, three per loser (check, note, close with its label), the winner's
    // ready, merge and one check (written once, with the merge's answer), and once merged the
    // winner's short comment and the comparison's "merged" edit.
    for (const { n, counts } of [
      { n: 2, counts: two.counts },
      { n: 20, counts: twenty.counts },
    ]) {
      expect(counts.writes).toBe(1 + 3 * (n - 1) + 3 + 2);
      // Every comment looks for its marker (so a lost store never repeats a comment): one read for
      // the comparison on #42 and the losers' notes together, though the notes wait for the merge.
      // The "merged" re-render looks once more, for the comparison and the winner's comment.
      expect(counts.lookups).toEqual([
        `comments #42,${Array.from({ length: n - 1 }, (_, i) => `#${101 + i}`).join(',')}`,
        'comments #42,#100',
      ]);
    }
  });

  it('reads the same number of times for 2 and for 20 siblings when a person must decide', async () => {
    const two = await decide(opened.store, 2, 'human');
    await opened.truncate();
    const twenty = await decide(opened.store, 20, 'human');
    expect(normalise(two.counts.reads)).toEqual([
      'graphql ArbiterGroup',
      'branch rules main',
      'file .github/CODEOWNERS',
    ]);
    expect(normalise(twenty.counts.reads)).toEqual(normalise(two.counts.reads));
    for (const { n, counts } of [
      { n: 2, counts: two.counts },
      { n: 20, counts: twenty.counts },
    ]) {
      // The comparison, three per loser, and the gated winner's check, label, review request and note.
      expect(counts.writes).toBe(1 + 3 * (n - 1) + 4);
      // One read looks for the markers of every comment: the comparison, the losers' notes, the winner's.
      expect(counts.lookups).toEqual([
        `comments #42,${Array.from({ length: n - 1 }, (_, i) => `#${101 + i}`).join(',')},#100`,
      ]);
    }
    expect(twenty.world.gh.pull(100)).toMatchObject({
      reviewers: ['maintainer'],
      labels: ['arbiter:awaiting-approval'],
    });
  });
});

describe('GitHub requests shared across steps', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-count-shared');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it(`reads a branch's rules once per ${RULES_WINDOW_SECONDS} s window, whatever the number of steps`, async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    await seedGroup(world, {
      siblings: [{ pr: 100 }, { pr: 101, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null }],
    });
    const rulesReads = () => world.gh.reads.filter((r) => r === 'branch rules main').length;
    // #101 is still running CI: each step shows the waiting list, and reads the group each time.
    await readGroupView(world.ctx('a'), 42, 'main');
    await readGroupView(world.ctx('b'), 42, 'main');
    expect(rulesReads()).toBe(1);
    expect(world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'))).toHaveLength(2);
    world.clock.advance(RULES_WINDOW_SECONDS * 1000);
    await readGroupView(world.ctx('c'), 42, 'main');
    expect(rulesReads()).toBe(2);
  });

  it("reuses the job's own group read, where it holds every sibling", async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    await seedGroup(world, { siblings: [{ pr: 100 }, { pr: 101 }] });
    const read = await world.gh.readGroup([100, 101]);
    world.gh.resetRecord();
    const view = await readGroupView(world.ctx('a'), 42, 'main', read);
    expect(view?.pending).toEqual([]);
    expect(world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'))).toEqual([]);
    // A read that misses a sibling is not used: the group is read whole.
    await readGroupView(world.ctx('b'), 42, 'main', await world.gh.readGroup([100]));
    expect(world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'))).toEqual([
      'graphql ArbiterGroup #100',
      'graphql ArbiterGroup #100,#101',
    ]);
  });

  it('reads the group again when its own read is older than the model calls may make it', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    await seedGroup(world, { siblings: [{ pr: 100 }, { pr: 101 }] });
    const read = await world.gh.readGroup([100, 101]);
    noteRead(read, new Date(world.clock.now().getTime() - GROUP_READ_FRESH_MS - 1000));
    world.gh.resetRecord();
    await readGroupView(world.ctx('a'), 42, 'main', read);
    expect(world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'))).toEqual([
      'graphql ArbiterGroup #100,#101',
    ]);
  });

  it("ages a read on the app's clock: a moved clock makes it old, the wall clock alone does not", async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    await seedGroup(world, { siblings: [{ pr: 100 }, { pr: 101 }] });
    const groupReads = () => world.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup'));
    // The wall clock moves a minute on, the app's clock stays: the read is still recent.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const read = await world.gh.readGroup([100, 101]);
      world.gh.resetRecord();
      vi.setSystemTime(Date.now() + 60_000);
      await readGroupView(world.ctx('a'), 42, 'main', read);
      expect(groupReads()).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    // The app's clock moves past the window, the wall clock barely: the read is old.
    const read = await world.gh.readGroup([100, 101]);
    world.gh.resetRecord();
    world.clock.advance(GROUP_READ_FRESH_MS + 1);
    await readGroupView(world.ctx('a'), 42, 'main', read);
    expect(groupReads()).toEqual(['graphql ArbiterGroup #100,#101']);
  });

  it('counts a sibling as settled when its own job stored a settled gate after this job read the group', async () => {
    const world = makeWorld({ store: opened.store, config: configOf() });
    const change = await seedGroup(world, {
      siblings: [{ pr: 100 }, { pr: 101, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null }],
    });
    const read = await world.gh.readGroup([100, 101]);
    expect((await readGroupView(world.ctx('a'), 42, 'main', read))?.pending).toEqual([{ pr: 101, why: 'CI running' }]);
    // #101's CI passed and its job stored its gate and acceptance: the older read does not hide it.
    await seedSibling(world, change, { pr: 101 });
    expect((await readGroupView(world.ctx('a'), 42, 'main', read))?.pending).toEqual([]);
  });
});
