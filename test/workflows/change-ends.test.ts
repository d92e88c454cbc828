// Workflow tests for how things end (issue 14, item 7, and the Change's own close, reopen and lock):
// a candidate that leaves gets its own unfinished checks completed with the reason, the
// awaiting-approval label goes when its reason ends, a trusted person closing the Change cancels
// it, reopening lets its rounds resume, a locked Change takes no comment without stopping the
// decision, and one base shipping leaves another base's group to be decided.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onIssues } from '../../src/handlers/issues.ts';
import { onPullRequest } from '../../src/handlers/pull-request.ts';
import { onReview } from '../../src/handlers/review.ts';
import type { ChangeRow } from '../../src/store/types.ts';
import { recordCandidate } from '../../src/workflows/candidates.ts';
import { runSteps, verifyAndSelect } from '../../src/workflows/flow.ts';
import { cancelChange, rejectByPerson } from '../../src/workflows/people.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { expireRepair } from '../../src/workflows/sweep.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import {
  configOf,
  makeWorld,
  mergedWebhook,
  seedGroup,
  seedSibling,
  shaOf,
  type World,
} from '../support/selection-world.ts';

const AWAITING = 'arbiter:awaiting-approval';
const PENDING = [{ name: 'test', conclusion: 'pending' as const }];

let opened: OpenedBackend;
let run = 0;
let w: World;
let key: string;

beforeAll(async () => {
  opened = await openBackend('postgres', 'wf-change-ends');
});
afterAll(async () => opened?.dispose());

beforeEach(async () => {
  w = makeWorld({
    store: opened.store,
    gh: new FakeGitHub({ repo: `ends-${run++}` }),
    config: configOf({ policy: { reviewers: ['maintainer'] } }),
  });
  key = w.ctx('read').key;
});

/** The stored patch of a head, so recording it reads nothing more from GitHub. */
const patchOf = (pr: number, sha: string) =>
  w.store.putPatch({
    repo: key,
    pr,
    headSha: sha,
    mergeBase: 'base0000',
    patch: '',
    truncated: false,
    files: [{ path: 'src/calendar.ts', status: 'modified', additions: 3, deletions: 0 }],
  });

/**
 * #12 settled, #13 with one required check passed and one running: its gate check is shown in
 * progress (the acceptance check appears only with its result, so it has none yet).
 */
async function groupWithPendingSibling(): Promise<ChangeRow> {
  w = makeWorld({
    store: opened.store,
    gh: w.gh,
    config: configOf({ gate: { required: ['test', 'lint'] }, policy: { reviewers: ['maintainer'] } }),
  });
  const both = [
    { name: 'test', conclusion: 'success' as const },
    { name: 'lint', conclusion: 'success' as const },
  ];
  const halfway = [
    { name: 'test', conclusion: 'success' as const },
    { name: 'lint', conclusion: 'pending' as const },
  ];
  const change = await seedGroup(w, {
    siblings: [
      { pr: 12, checks: both },
      { pr: 13, checks: halfway, acceptance: null },
    ],
  });
  await verifyAndSelect(w.ctx('ci-13'), 13);
  expect(w.gh.checkOn(13, 'Arbiter / gate')?.status).toBe('in_progress');
  expect(w.gh.checkOn(13, 'Arbiter / acceptance')).toBeUndefined();
  return change;
}

function expectOwnChecksEnded(pr: number, reason: RegExp): void {
  for (const name of ['Arbiter / gate', 'Arbiter / selection'] as const) {
    expect(w.gh.checkOn(pr, name), name).toMatchObject({ status: 'completed', conclusion: 'neutral' });
  }
  expect(w.gh.checkOn(pr, 'Arbiter / gate')?.title).toMatch(reason);
  // Never shown while CI ran, so nothing to end.
  expect(w.gh.checkOn(pr, 'Arbiter / acceptance')).toBeUndefined();
}

function closedHook(pr: number, sender: string): Record<string, unknown> {
  const p = w.gh.pull(pr);
  return {
    action: 'closed',
    sender: { login: sender },
    pull_request: {
      number: pr,
      state: 'closed',
      draft: p.draft,
      merged: false,
      body: p.body,
      user: { login: p.author },
      base: { ref: p.baseRef },
      head: { sha: p.headSha },
      labels: [],
    },
  };
}

const issueHook = (action: string, sender: string, number = 42): Record<string, unknown> => ({
  action,
  sender: { login: sender },
  issue: { number, state: action === 'closed' ? 'closed' : 'open' },
});

describe('a candidate that leaves: its own in-progress checks are completed, neutral, with the reason', () => {
  it('withdrawn (closed by a person)', async () => {
    await groupWithPendingSibling();
    w.gh.pull(13).state = 'closed';
    await onPullRequest(w.ctx('close-13'), closedHook(13, 'maintainer'));
    expect((await w.store.getCandidate(key, 13))?.state).toBe('withdrawn');
    expectOwnChecksEnded(13, /Withdrawn: closed by @maintainer/);
  });

  it('stale (a sibling shipped)', async () => {
    const change = await groupWithPendingSibling();
    w.gh.pull(12).merged = true;
    w.gh.pull(12).state = 'closed';
    await mergedWebhook(w, change, 12, { token: 'merged-12', by: 'maintainer' });
    expect((await w.store.getCandidate(key, 13))?.state).toBe('stale');
    expect(w.gh.pull(13).state).toBe('closed');
    expectOwnChecksEnded(13, /Superseded: #12 shipped/);
  });

  it('rejected by a person', async () => {
    await groupWithPendingSibling();
    const result = await rejectByPerson(w.ctx('reject-13'), 13, 'maintainer', 'wrong approach');
    expect(result.ok).toBe(true);
    expect((await w.store.getCandidate(key, 13))?.state).toBe('rejected');
    expectOwnChecksEnded(13, /Rejected by @maintainer/);
  });
});

describe('arbiter:awaiting-approval goes when its reason ends', () => {
  /** A rubric-free human gate: #12 misses a criterion, repair is off, so #12 waits for a person. */
  async function gated(): Promise<ChangeRow> {
    w = makeWorld({
      store: opened.store,
      gh: w.gh,
      config: configOf({
        repair: { enabled: false },
        combine: { enabled: false },
        policy: { reviewers: ['maintainer'] },
      }),
    });
    const change = await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC3: 'not_met' } }] });
    await selectionStep(w.ctx('decide'), 42, 'main');
    expect(w.gh.pull(12).labels).toContain(AWAITING);
    return change;
  }

  it('after a push moves the candidate on', async () => {
    await gated();
    w.gh.push(12, shaOf(12, 1), PENDING);
    await patchOf(12, shaOf(12, 1));
    const p = w.gh.pull(12);
    await recordCandidate(w.ctx('push-12'), {
      number: 12,
      draft: p.draft,
      state: 'open',
      body: p.body,
      base: 'main',
      headSha: p.headSha,
      author: p.author,
      labels: [...p.labels],
    });
    expect(w.gh.pull(12).labels).not.toContain(AWAITING);
  });

  it('after a cancel', async () => {
    await gated();
    await cancelChange(w.ctx('cancel'), 42, 'maintainer');
    expect(w.gh.pull(12).labels).not.toContain(AWAITING);
    expect(w.gh.pull(12).state).toBe('closed');
  });

  it('after a sibling ships', async () => {
    const change = await gated();
    await seedSibling(w, change, { pr: 14 });
    w.gh.pull(14).merged = true;
    w.gh.pull(14).state = 'closed';
    await mergedWebhook(w, change, 14, { token: 'merged-14', by: 'maintainer', round: 2 });
    expect(w.gh.pull(12).labels).not.toContain(AWAITING);
    expect(w.gh.pull(12).state).toBe('closed');
  });
});

describe('a repair a person asked for ends somewhere', () => {
  it('a changes-requested review on a gated winner starts the repair; when nothing arrives in time, a person is asked with a review request', async () => {
    w = makeWorld({
      store: opened.store,
      gh: w.gh,
      config: configOf({
        repair: { timeout: 600 },
        combine: { enabled: false },
        policy: { reviewers: ['maintainer'] },
      }),
    });
    // AC3 unclear: no repair from the round, so #12 waits before a person.
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC3: 'unclear' } }] });
    await selectionStep(w.ctx('decide'), 42, 'main');
    expect(w.gh.pull(12).labels).toContain(AWAITING);
    const review = {
      action: 'submitted',
      review: { state: 'changes_requested', body: 'the calendar starts on Sunday', user: { login: 'maintainer' } },
      pull_request: { number: 12, labels: [] },
      sender: { login: 'maintainer' },
    };
    await onReview(w.ctx('review-12'), review);
    expect(w.gh.dispatches.map((d) => `${d.eventType} #${String(d.payload.candidate)}`)).toEqual([
      'arbiter.repair #12',
    ]);
    expect(w.gh.pull(12).state).toBe('open');
    expect((await w.store.getCandidate(key, 12))?.state).toBe('rejected');
    // Nothing arrives within repair.timeout: the sweep puts the Change before a person, in full.
    w.gh.resetRecord();
    w.clock.advance(601_000);
    await expireRepair(w.ctx('sweep'), 42);
    expect(w.gh.applied()).toEqual(
      expect.arrayContaining(['label #12 arbiter:awaiting-approval', 'review #12 maintainer']),
    );
    // The full human gate, with the first round's conclusion (issue 25).
    expect(w.gh.checkOn(12, 'Arbiter / selection')).toMatchObject({
      status: 'completed',
      conclusion: 'action_required',
      title: 'Repair timed out: a person must decide',
    });
    const said = (n: number): string =>
      w.gh
        .commentsOn(n)
        .map((c) => c.body)
        .join('\n');
    expect(said(12)).toContain(
      'The requested repair of #12 did not arrive within 10 minutes. #12 was rejected by a person and stays out',
    );
    expect(said(42)).toContain('waits for a person: the requested repair of #12 did not arrive within 10 minutes.');
    expect((await w.store.getChange(key, 42))?.state).toBe('human');
  });
});

describe('the Change itself closed, reopened or locked', () => {
  it('closed by a trusted person: the change is cancelled, its candidates closed with their checks completed; reopened: a new round', async () => {
    await groupWithPendingSibling();
    w.gh.issues.get(42)!.state = 'closed';
    await onIssues(w.ctx('close-42'), issueHook('closed', 'maintainer'));
    expect((await w.store.getChange(key, 42))?.state).toBe('cancelled');
    for (const pr of [12, 13]) {
      expect(w.gh.pull(pr).state).toBe('closed');
      expect(w.gh.checkOn(pr, 'Arbiter / selection')).toMatchObject({
        status: 'completed',
        conclusion: 'neutral',
        title: 'Change cancelled',
      });
    }
    expectOwnChecksEnded(13, /Change cancelled/);
    expect(w.gh.commentsOn(42).at(-1)?.body).toMatch(/@maintainer closed #42[\s\S]*Reopen #42/);
    // Reopened: the Change is open again, and a candidate reopened on GitHub is compared afresh.
    w.gh.issues.get(42)!.state = 'open';
    await onIssues(w.ctx('reopen-42'), issueHook('reopened', 'maintainer'));
    expect((await w.store.getChange(key, 42))?.state).toBe('open');
    w.gh.pull(12).state = 'open';
    const p = w.gh.pull(12);
    const reopenCtx = w.ctx('reopen-12');
    const back = await recordCandidate(
      reopenCtx,
      {
        number: 12,
        draft: p.draft,
        state: 'open',
        body: p.body,
        base: 'main',
        headSha: p.headSha,
        author: p.author,
        labels: [],
      },
      { revive: 'reopened' },
    );
    await runSteps(reopenCtx, back.next);
    expect(back.candidate?.state).toBe('verifying');
    expect((await w.store.currentRound(key, 42, 'main', '2026-03-02T10:00:00.000Z')).number).toBeGreaterThan(0);
    expect(w.gh.checkOn(12, 'Arbiter / selection')?.status).toBe('in_progress');
  });

  it('closed by someone without write access, or by a merge with a closing keyword: nothing is cancelled', async () => {
    await groupWithPendingSibling();
    w.gh.issues.get(42)!.state = 'closed';
    await onIssues(w.ctx('close-stranger'), issueHook('closed', 'stranger'));
    expect((await w.store.getChange(key, 42))?.state).toBe('open');
    w.gh.pull(12).merged = true;
    w.gh.pull(12).state = 'closed';
    await onIssues(w.ctx('close-by-merge'), issueHook('closed', 'maintainer'));
    expect((await w.store.getChange(key, 42))?.state).not.toBe('cancelled');
    expect(w.gh.pull(13).state).toBe('open');
  });

  it('locked: the decision is carried out without its comment on the Change, and nothing is retried', async () => {
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    w.gh.locked.add(42);
    await selectionStep(w.ctx('decide'), 42, 'main');
    expect(w.gh.pull(13).merged).toBe(true);
    expect(w.gh.pull(12).state).toBe('closed');
    expect(w.gh.commentsOn(42)).toEqual([]);
    expect(w.gh.checkOn(12, 'Arbiter / selection')).toMatchObject({ status: 'completed', title: 'Lost to #13' });
    // One refused attempt each (the decision's comparison, then its "merged" re-render), recorded: a second run writes nothing more.
    const refused = w.gh.writes.filter((l) => l.startsWith('comment #42') && l.endsWith('→ 403'));
    expect(refused).toHaveLength(2);
    const before = w.gh.writes.length;
    await selectionStep(w.ctx('decide'), 42, 'main');
    expect(w.gh.writes.length).toBe(before);
  });
});

describe('shipping is per base branch', () => {
  it('closing the Change after one base shipped (its closing keyword) cancels nothing: the other base goes on', async () => {
    const change = await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    await w.store.currentRound(key, 42, 'release', w.clock.now().toISOString());
    await seedSibling(w, change, { pr: 21, checks: PENDING, acceptance: null }, { base: 'release' });
    await seedSibling(w, change, { pr: 22 }, { base: 'release' });
    await selectionStep(w.ctx('decide-main'), 42, 'main');
    expect(w.gh.pull(13).merged).toBe(true);
    // #13's "Closes #42" closes the issue, with the person who merged as its sender.
    w.gh.issues.get(42)!.state = 'closed';
    await onIssues(w.ctx('closed-by-keyword'), issueHook('closed', 'maintainer'));
    expect((await w.store.getChange(key, 42))?.state).not.toBe('cancelled');
    expect(w.gh.pull(21).state).toBe('open');
    expect(w.gh.pull(22).state).toBe('open');
  });

  it('one base shipping leaves the other base group to be decided, and only its own late PRs are "already shipped"', async () => {
    const change = await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    await w.store.currentRound(key, 42, 'release', w.clock.now().toISOString());
    await seedSibling(w, change, { pr: 21, checks: PENDING, acceptance: null }, { base: 'release' });
    await seedSibling(w, change, { pr: 22 }, { base: 'release' });
    await selectionStep(w.ctx('decide-main'), 42, 'main');
    expect(w.gh.pull(13).merged).toBe(true);
    // The release group still waits on #21, and decides once it settles.
    await seedSibling(w, change, { pr: 21, acceptance: { AC2: 'not_met' } }, { base: 'release' });
    await selectionStep(w.ctx('decide-release'), 42, 'release', { settled: 21 });
    expect(w.gh.pull(22).merged).toBe(true);
    expect(w.gh.pull(21).state).toBe('closed');
    expect(w.gh.checkOn(21, 'Arbiter / selection')?.title).toBe('Lost to #22');
    // A late PR on main is answered as shipped; on a third base it is a candidate of its own group.
    w.gh.addPull({
      number: 31,
      headSha: shaOf(31),
      body: 'Candidate-for: #42',
      author: 'agent-bot',
      baseRef: 'main',
      checks: PENDING,
    });
    const lateCtx = w.ctx('open-31');
    const late = await recordCandidate(lateCtx, {
      number: 31,
      draft: true,
      state: 'open',
      body: 'Candidate-for: #42',
      base: 'main',
      headSha: shaOf(31),
      author: 'agent-bot',
      labels: [],
    });
    await runSteps(lateCtx, late.next);
    expect(late.candidate).toBeNull();
    expect(w.gh.checkOn(31, 'Arbiter / selection')).toMatchObject({
      status: 'completed',
      conclusion: 'neutral',
      title: '#13 already shipped for #42',
    });
    await patchOf(32, shaOf(32));
    w.gh.addPull({
      number: 32,
      headSha: shaOf(32),
      body: 'Candidate-for: #42',
      author: 'agent-bot',
      baseRef: 'v2',
      checks: PENDING,
    });
    const otherCtx = w.ctx('open-32');
    const other = await recordCandidate(otherCtx, {
      number: 32,
      draft: true,
      state: 'open',
      body: 'Candidate-for: #42',
      base: 'v2',
      headSha: shaOf(32),
      author: 'agent-bot',
      labels: [],
    });
    await runSteps(otherCtx, other.next);
    expect(other.candidate?.state).toBe('verifying');
    expect(w.gh.checkOn(32, 'Arbiter / selection')?.status).toBe('in_progress');
  });
});
