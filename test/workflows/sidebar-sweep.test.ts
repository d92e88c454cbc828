// The minute sweep looks for pull requests linked in the Development sidebar (which sends no
// webhook) every fifth minute only (issue 28 item 2): the pull request's next event records it
// anyway, and a look every minute cost one GraphQL read per Change with open candidates. The real
// `runSweep` runs over the fake: its own context (gateway, config) is the world's.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ArbiterConfig } from '../../src/config/schema.ts';
import type { GitHubGateway } from '../../src/github/gateway.ts';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import { runSweep, SIDEBAR_SWEEP_MINUTES } from '../../src/workflows/sweep.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

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
  opened = await openBackend('pglite', 'wf-sidebar-sweep');
});
afterAll(async () => opened?.dispose());

it('the minute sweep looks for sidebar links every fifth minute of the clock', async () => {
  const w = makeWorld({
    store: opened.store,
    gh: new FakeGitHub(),
    config: configOf({ trust: { agents: ['copilot'] } }),
  });
  rig.world = w;
  await seedGroup(w, { siblings: [] });
  const pending = [{ name: 'test', conclusion: 'pending' as const }];
  for (const pr of [110, 111])
    await w.store.putPatch({
      repo: w.ctx('seed').key,
      pr,
      headSha: shaOf(pr),
      mergeBase: 'base0000',
      patch: '',
      truncated: false,
      files: [{ path: 'src/calendar.ts', status: 'modified', additions: 3, deletions: 0 }],
    });
  w.gh.addPull({ number: 110, headSha: shaOf(110), author: 'Copilot', body: 'Candidate-for: #42', checks: pending });
  await onPullRequest(w.ctx('d1'), {
    action: 'opened',
    sender: { login: 'Copilot' },
    pull_request: { number: 110, body: 'Candidate-for: #42' },
  });
  expect((await w.store.getCandidate(w.ctx('read').key, 110))?.state).toBe('verifying');
  // #111 is linked in the sidebar only, and sends no event.
  w.gh.addPull({ number: 111, headSha: shaOf(111), author: 'Copilot', body: 'Done.', checks: pending });
  w.gh.pull(111).closing = [42];
  const sidebarReads = () => w.gh.reads.filter((r) => r.startsWith('graphql ArbiterLinkedPulls')).length;
  const recorded = async () => (await w.store.getCandidate(w.ctx('read').key, 111))?.state;

  // The world's clock starts on a minute that is a multiple of five: the next four sweeps skip.
  for (let minute = 1; minute < SIDEBAR_SWEEP_MINUTES; minute++) {
    w.clock.advance(60_000);
    await runSweep(w.deps);
  }
  expect(sidebarReads()).toBe(0);
  expect(await recorded()).toBeUndefined();

  w.clock.advance(60_000);
  await runSweep(w.deps);
  expect(sidebarReads()).toBe(1);
  expect(await recorded()).toBe('verifying');
});
