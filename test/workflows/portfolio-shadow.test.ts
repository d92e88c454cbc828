// Shadow mode in portfolio search: a policy that needs another reading of the scoring check re-runs
// CI only in live mode; shadow mode writes nothing but comments and checks (DESIGN.md section 6).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PortfolioPolicy } from '../../src/core/portfolio.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import { decidePortfolioRound, explore } from '../../src/workflows/portfolio.ts';
import { readGroupView } from '../../src/workflows/group-view.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, shaOf, type World } from '../support/selection-world.ts';

const KEY = 'acme/todo';
const PRS = [31, 32, 33];

async function wideRound(w: World, policy: PortfolioPolicy = 'successive-halving'): Promise<void> {
  const bench = (pr: number) => ({ name: 'bench', conclusion: 'success', title: `score: 0.${pr}` });
  const checks = (pr: number) => [{ name: 'test', conclusion: 'success' }, bench(pr)];
  await seedGroup(w, { siblings: PRS.map((pr) => ({ pr, checks: checks(pr) })) });
  // One completed reading of the scoring check per head, as the fake's portfolio calls read them.
  PRS.forEach((pr, i) => {
    const run = { id: 900 + i, sha: shaOf(pr), pr, status: 'completed', summary: '', buttons: [] };
    w.gh.checkRuns.push({ ...run, ...bench(pr) });
  });
  const now = w.clock.now().toISOString();
  await w.store.startPortfolio({
    repo: KEY,
    change: 42,
    number: 1,
    base: 'main',
    baseSha: 'base0000',
    policy,
    k: 1,
    phase: 'wide',
    wideRound: 1,
    requestedBy: 'maintainer',
    token: 'job-explore',
    startedAt: now,
  });
  w.gh.resetRecord();
}

describe('portfolio re-runs and shadow mode', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-portfolio-shadow');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it.each([
    { mode: 'live', reruns: PRS.length },
    { mode: 'shadow', reruns: 0 },
  ])('successive halving asks for another reading: $mode mode re-runs $reruns checks', async ({ mode, reruns }) => {
    const portfolio = { approaches: ['a', 'b', 'c'], k: 1, policy: 'successive-halving' };
    const w = makeWorld({ store, config: configOf({ mode, gate: { required: ['test'], score: 'bench' }, portfolio }) });
    await wideRound(w);
    const ctx = w.ctx('job-claimant');
    const view = await readGroupView(ctx, 42, 'main');
    expect(view).not.toBeNull();
    expect(await decidePortfolioRound(ctx, view!, view!.round)).toBe(true);
    expect(w.gh.applied().filter((line) => line.startsWith('rerun'))).toHaveLength(reruns);
    const others = w.gh.applied().filter((line) => !line.startsWith('check ') && !line.startsWith('comment '));
    if (mode === 'shadow') expect(others).toEqual([]);
  });

  // The wide round's plan is the same in both modes; the executor's one filter keeps its closures
  // and refine dispatches back in shadow mode (src/core/shadow.ts), as it does for every plan.
  it.each([
    { mode: 'live', closed: 2, dispatched: 1 },
    { mode: 'shadow', closed: 0, dispatched: 0 },
  ])('top-k decides the wide round: $mode mode closes $closed and dispatches $dispatched', async (c) => {
    const portfolio = { approaches: ['a', 'b', 'c'], k: 1, policy: 'top-k' };
    const w = makeWorld({
      store,
      config: configOf({ mode: c.mode, gate: { required: ['test'], score: 'bench' }, portfolio }),
    });
    await wideRound(w, 'top-k');
    const ctx = w.ctx('job-claimant');
    const view = await readGroupView(ctx, 42, 'main');
    // The last sibling to settle claims the round, then decides it.
    expect(await store.claimRound(view!.round.id, ctx.token)).not.toBe('taken');
    expect(await decidePortfolioRound(ctx, view!, view!.round)).toBe(true);
    const applied = w.gh.applied();
    expect(applied.filter((line) => line.startsWith('close '))).toHaveLength(c.closed);
    expect(applied.filter((line) => line.startsWith('dispatch '))).toHaveLength(c.dispatched);
    if (c.mode === 'shadow') {
      expect(applied.filter((line) => !line.startsWith('check ') && !line.startsWith('comment '))).toEqual([]);
      // Nobody leaves the running on a decision that was not carried out.
      for (const pr of PRS) expect((await store.getCandidate(KEY, pr))?.state).not.toBe('rejected');
    }
  });

  // Starting an explore is a decided state change (its portfolio, its slots, the round it opens):
  // the filter keeps it back in shadow mode, and the answer says what would be dispatched.
  it.each([
    { mode: 'live', dispatched: 2, round: 2 },
    { mode: 'shadow', dispatched: 0, round: 1 },
  ])('explore: $mode mode dispatches $dispatched candidates (round $round)', async (c) => {
    const portfolio = { approaches: ['a', 'b'], k: 1, policy: 'top-k' };
    const w = makeWorld({ store, config: configOf({ mode: c.mode, portfolio }) });
    await seedGroup(w, { siblings: [] });
    // The group's round was claimed already: a live explore opens the next one for its wide round.
    const first = await store.currentRound(KEY, 42, 'main', w.clock.now().toISOString());
    expect(await store.claimRound(first.id, 'job-earlier')).not.toBe('taken');
    const target = {
      owner: w.gh.owner,
      repo: w.gh.repo,
      installationId: 7,
      issueNumber: 42,
      isPullRequest: false,
      user: 'maintainer',
      userIsBot: false,
      commentId: 1,
      commentBody: '/arbiter explore',
      source: 'comment' as const,
    };
    const answer = await explore(w.ctx('job-explore'), target, null);
    expect(answer.ok).toBe(true);
    expect(w.gh.applied().filter((line) => line.startsWith('dispatch '))).toHaveLength(c.dispatched);
    expect((await store.currentRound(KEY, 42, 'main', w.clock.now().toISOString())).number).toBe(c.round);
    const started = await store.latestPortfolio(KEY, 42);
    if (c.mode === 'live') {
      expect(started).toMatchObject({ number: 1, phase: 'wide', wideRound: 2 });
      expect((await store.listSlots(KEY, 42, 1)).map((s) => s.state)).toEqual(['composing', 'composing']);
    } else {
      expect(started).toBeNull();
      expect(answer.message).toBe(
        'Shadow mode: Arbiter would dispatch 2 candidates for #42, one per approach; nothing was dispatched.',
      );
      expect(w.gh.applied()).toEqual([]);
    }
  });
});
