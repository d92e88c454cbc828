// A person's rejection stands (DESIGN.md section 6): a round's repair verdict does not shield the
// candidate from a rejection, a combined candidate leaves with a rejected source, and a repair that
// came before the rejection never brings the rejected candidate back.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import { rejectByPerson } from '../../src/workflows/people.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup, seedSibling, shaOf, type World } from '../support/selection-world.ts';

const KEY = 'acme/todo';

function reopened(w: World, pr: number): Record<string, unknown> {
  const p = w.gh.pull(pr);
  return {
    action: 'reopened',
    sender: { login: 'agent-bot' },
    pull_request: {
      number: pr,
      state: p.state,
      draft: p.draft,
      merged: p.merged,
      body: p.body,
      user: { login: p.author },
      base: { ref: p.baseRef },
      head: { sha: p.headSha },
      labels: p.labels.map((name) => ({ name })),
    },
  };
}

describe('a person’s rejection stands', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-rejection-stands');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  const world = (): World =>
    makeWorld({ store, config: configOf({ policy: { reviewers: ['maintainer'] }, repair: { timeout: 600 } }) });

  it('rejects the target of a round’s repair verdict: the repair was spent on it, no new one starts', async () => {
    const w = world();
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC3: 'not_met' } }] });
    // The round gave the repair verdict for #12: it is selected and holds the Change's one repair.
    await store.setCandidateState(KEY, 12, 'selected', 'repair requested');
    expect(await store.claimRepair(KEY, 42, 12, w.clock.now().toISOString())).toBe(true);
    w.clock.advance(60_000);

    const result = await rejectByPerson(w.ctx('job-reject'), 12, 'maintainer', 'wrong approach');
    expect(result.ok).toBe(true);
    expect(result.ok && result.message).toContain("the Change's one repair was already spent on #12");
    expect((await store.getCandidate(KEY, 12))?.state).toBe('rejected');
    expect(w.gh.pull(12)).toMatchObject({ state: 'closed', merged: false });
    expect(w.gh.applied().filter((line) => line.startsWith('dispatch') || line.startsWith('merge'))).toEqual([]);
  });

  it('a combined candidate built from the rejected sibling is rejected and closed with it', async () => {
    const w = world();
    const siblings = [
      { pr: 11, acceptance: { AC3: 'not_met' as const } },
      { pr: 12, acceptance: { AC1: 'not_met' as const } },
    ];
    const change = await seedGroup(w, { siblings });
    await seedSibling(w, change, { pr: 20, author: 'arbiter[bot]' });
    const side = (pr: number) => ({ pr, headSha: shaOf(pr), met: ['AC1'], changedPaths: ['src/calendar.ts'] });
    await store.recordAppliedAction(
      `combined:${KEY}#42`,
      {
        proposal: {
          change: 42,
          round: 1,
          a: side(11),
          b: { ...side(12), brings: ['AC3'] },
          together: ['AC1', 'AC2', 'AC3'],
          branch: 'arbiter/combined-42',
          base: 'main',
        },
        outcome: { outcome: 'opened', pr: 20, headSha: shaOf(20), baseSha: 'base0000', merges: [] },
      },
      w.clock.now().toISOString(),
    );
    w.gh.resetRecord();

    const result = await rejectByPerson(w.ctx('job-reject'), 12, 'maintainer', 'breaks the API');
    expect(result.ok && result.message).toContain('#20, built from #12, was rejected and closed too');
    expect((await store.getCandidate(KEY, 20))?.state).toBe('rejected');
    expect(w.gh.pull(20)).toMatchObject({ state: 'closed', merged: false });
    expect(
      w.gh
        .commentsOn(20)
        .map((c) => c.body)
        .join('\n'),
    ).toContain('built from #12, which @maintainer rejected');
    expect(w.gh.applied()).not.toContain(`merge #20 sha=${shaOf(20)}`);
  });

  it('a repair from before the rejection does not bring the rejected candidate back', async () => {
    const w = world();
    const change = await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC3: 'not_met' } }] });
    expect(await store.claimRepair(KEY, 42, 12, w.clock.now().toISOString())).toBe(true);
    w.clock.advance(60_000);
    // The repair's commits arrive; then a person rejects the new head (closed).
    await seedSibling(w, change, { pr: 12, sha: shaOf(12, 1) });
    const result = await rejectByPerson(w.ctx('job-reject'), 12, 'maintainer', 'still wrong');
    expect(result.ok).toBe(true);
    expect(w.gh.pull(12).state).toBe('closed');

    // The agent pushes again and reopens: the rejection stands.
    w.clock.advance(60_000);
    w.gh.push(12, shaOf(12, 2), [{ name: 'test', conclusion: 'success' }]);
    w.gh.pull(12).state = 'open';
    await onPullRequest(w.ctx('job-reopen'), reopened(w, 12));
    expect((await store.getCandidate(KEY, 12))?.state).toBe('rejected');
    expect(w.gh.applied().filter((line) => line.startsWith('merge'))).toEqual([]);
  });
});
