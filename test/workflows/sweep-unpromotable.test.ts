// The minute sweep and a group with an unpromotable candidate (issue 28 item 2): while a sibling is
// still verifying, that sibling's own settling runs the selection step, so the sweep leaves the
// group alone and reads nothing from GitHub. Selecting it every minute read the group once a minute
// for as long as the sibling's CI ran. Once no sibling verifies, the sweep selects it, as before (a
// selection that failed part-way is resumed), and so it does once the verifying sibling is past its
// timeout (its settling may never come). The real `runSweep` runs over the fake.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ArbiterConfig } from '../../src/config/schema.ts';
import type { GitHubGateway } from '../../src/github/gateway.ts';
import { runSweep } from '../../src/workflows/sweep.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { configOf, makeWorld, seedGroup, seedSibling, type World } from '../support/selection-world.ts';

const rig: { world?: World } = {};
vi.mock(import('../../src/workflows/context.ts'), async (importOriginal) => ({
  ...(await importOriginal()),
  gatewayFor: async () => rig.world!.gh.asGateway() as GitHubGateway,
}));
vi.mock(import('../../src/config/check.ts'), async (importOriginal) => ({
  ...(await importOriginal()),
  getRepoConfig: async () => rig.world!.config as ArbiterConfig,
}));

let opened: OpenedBackend;
beforeAll(async () => {
  opened = await openBackend('pglite', 'wf-sweep-unpromotable');
});
afterAll(async () => opened?.dispose());

it('reads nothing for a group whose sibling still verifies, and selects it once none does', async () => {
  const w = makeWorld({ store: opened.store, gh: new FakeGitHub(), config: configOf({}) });
  rig.world = w;
  const change = await seedGroup(w, {
    criteria: [],
    siblings: [
      { pr: 100, checks: [{ name: 'test', conclusion: 'failure' }] },
      { pr: 101, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null },
    ],
  });
  const key = w.ctx('read').key;
  expect((await w.store.getCandidate(key, 100))?.state).toBe('unpromotable');
  expect((await w.store.getCandidate(key, 101))?.state).toBe('verifying');
  const groupReads = () => w.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup')).length;
  for (let minute = 1; minute <= 5; minute++) {
    w.clock.advance(60_000);
    await runSweep(w.deps);
  }
  expect(groupReads()).toBe(0);
  expect((await w.store.currentRound(key, 42, 'main', 'now')).decision).toBeNull();

  // #101 settled, but its selection step never ran (its job failed part-way): the sweep decides.
  await seedSibling(w, change, { pr: 101, checks: [{ name: 'test', conclusion: 'failure' }] });
  expect((await w.store.getCandidate(key, 101))?.state).toBe('unpromotable');
  w.clock.advance(60_000);
  await runSweep(w.deps);
  expect(groupReads()).toBeGreaterThan(0);
  expect((await w.store.currentRound(key, 42, 'main', 'now')).decision).not.toBeNull();
});

it('selects the group again once the verifying sibling is past its timeout (its settling may never come)', async () => {
  const w = makeWorld({
    store: opened.store,
    gh: new FakeGitHub(),
    config: configOf({ selection: { siblingTimeout: 600 } }),
  });
  rig.world = w;
  await opened.truncate();
  await seedGroup(w, {
    criteria: [],
    siblings: [{ pr: 100, checks: [{ name: 'test', conclusion: 'failure' }] }, { pr: 101 }],
  });
  const key = w.ctx('read').key;
  // #101's gate settled, but the run judging its acceptance died: it stays verifying, and its gate
  // is no longer one the timeout acts on.
  await w.store.setCandidateState(key, 101, 'verifying', 'acceptance running');
  const groupReads = () => w.gh.reads.filter((r) => r.startsWith('graphql ArbiterGroup')).length;
  w.clock.advance(60_000);
  await runSweep(w.deps);
  expect(groupReads()).toBe(0);
  w.clock.advance(600_000);
  await runSweep(w.deps);
  expect(groupReads()).toBeGreaterThan(0);
});
