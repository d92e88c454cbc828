// Workflow tests of the selection step over the recording fake GitHub and the real store (PGlite
// and PostgreSQL): who wins, what losers are told, repair, the human gate, 409/405, shadow mode,
// waiting siblings, and the claim (a retry by the claimant continues; any other run does nothing).
// After each test every receipt it recorded is replayed through the pure core (npm run replay).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { replayReport, replayStored } from '../../src/replay/stored.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import { selectAndFollow } from '../../src/workflows/flow.ts';
import { promoteByPerson } from '../../src/workflows/person-promote.ts';
import { BACKENDS, openBackend, type OpenedBackend } from '../store/backends.ts';
import {
  configOf,
  makeWorld,
  mergedWebhook,
  seedGroup,
  seedSibling,
  shaOf,
  tableLlm,
  type World,
} from '../support/selection-world.ts';

const KEY = 'acme/todo';
const kinds = (receipts: { kind: string }[]): string[] => receipts.map((r) => r.kind);
const step = (w: World, token: string): Promise<void> => selectAndFollow(w.ctx(token), 42, 'main');
const selectionWrites = (w: World): string[] => w.gh.writes.filter((l) => !l.startsWith('check '));

describe.each(BACKENDS)('selection step on %s', (backend) => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend(backend, `wf-select-${backend}`);
    store = opened.store;
  });
  let replayedSame = 0;
  afterAll(async () => {
    // Ship, repair, human gate, judge verdicts, 409s and shadow mode: each selection replayed the same.
    expect(replayedSame).toBeGreaterThanOrEqual(10);
    await opened?.dispose();
  });
  beforeEach(async () => opened.truncate());
  afterEach(async () => {
    const replayed = replayStored(await store.readReceipts({}));
    const wrong = replayed.filter((r) => r.result.result === 'different' || r.result.result === 'cannot-replay');
    expect(replayReport(wrong)).toEqual([]);
    replayedSame += replayed.filter((r) => r.result.result === 'same').length;
  });

  it('waits for a sibling still running CI, then the better candidate beats the fastest one', async () => {
    const w = makeWorld({ store });
    const change = await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC3: 'not_met' } },
        { pr: 13, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null },
      ],
    });
    // #12 settled first: no claim, the waiting list is shown on it (#13, still verifying, keeps its own).
    await step(w, 'job-12');
    expect((await store.currentRound(KEY, 42, 'main', 'now')).selection).toBeNull();
    expect(w.gh.writes).toEqual(['check #12 Arbiter / selection in_progress "Waiting on #13 (CI running)"']);
    expect(w.gh.checkOn(12, 'Arbiter / selection')?.summary).toContain('Waiting on #13 (CI running).');

    // #13 settles with every criterion met: it claims the round and wins.
    await seedSibling(w, change, { pr: 13 });
    w.gh.resetRecord();
    await step(w, 'job-13');
    const sha13 = shaOf(13);
    // The winner merges first; the loser closes only once the merge succeeded (issue 14). The
    // winner's check is written once, with the merge's answer; the loser is closed and labelled in one write.
    expect(w.gh.writes).toEqual([
      'comment #42 comparison:42@main',
      'ready #13',
      `merge #13 sha=${sha13}`,
      'check #13 Arbiter / selection completed success "Selected: shipped"',
      'check #12 Arbiter / selection completed neutral "Lost to #13"',
      'comment #12 note:12:r1',
      'close #12 labels=arbiter:lost',
      // Once merged, the comparison says so and the winner hears it (issue 25).
      'edit comment #42 comparison:42@main',
      'comment #13 winner:13',
    ]);
    // The ranking the decision was made on stays on the winner's check.
    expect(w.gh.checkOn(13, 'Arbiter / selection')?.summary).toContain('#13 wins');
    const note = w.gh.commentsOn(12)[0]?.body ?? '';
    // The reason names the criterion that decided.
    const reason =
      'Lost to #13, which also meets AC3 (A card can be dragged between days). #13 met 3 of 3 criteria, this one 2 of 3.';
    expect(note).toContain(reason);
    expect(w.gh.checkOn(12, 'Arbiter / selection')?.summary).toBe(reason);
    expect(w.gh.pull(12)).toMatchObject({ state: 'closed', merged: false, labels: ['arbiter:lost'] });
    expect(w.gh.pull(13)).toMatchObject({ merged: true, draft: false });
    expect(kinds(await store.listReceipts(KEY, 42))).toEqual(['CANDIDATE_SELECTION', 'PROMOTION']);
    expect((await store.getCandidate(KEY, 12))?.state).toBe('rejected');
    expect((await store.getCandidate(KEY, 13))?.state).toBe('promoted');
    expect((await store.getChange(KEY, 42))?.state).toBe('shipped');
    const round = await store.currentRound(KEY, 42, 'main', 'now');
    expect(round.selection).toBe('job-13');
    // The comparison comment names both candidates and the decision.
    const comparison = w.gh.commentsOn(42)[0]?.body ?? '';
    expect(comparison).toContain('#13');
    expect(comparison).toContain('#12');
  });

  it('a candidate that meets more criteria but failed a required check loses to a promotable one', async () => {
    const w = makeWorld({
      store,
      config: configOf({ repair: { enabled: false }, policy: { reviewers: ['maintainer'] } }),
    });
    await seedGroup(w, {
      siblings: [
        { pr: 12, checks: [{ name: 'test', conclusion: 'failure' }] },
        { pr: 13, acceptance: { AC2: 'not_met' } },
      ],
    });
    await step(w, 'job-13');
    expect(w.gh.commentsOn(12)[0]?.body).toContain('Lost to #13: required check `test` failed here.');
    expect(w.gh.pull(12).state).toBe('closed');
    // #13 is the best promotable candidate but misses a criterion: a person decides, nothing merges.
    expect(w.gh.writes.some((l) => l.startsWith('merge'))).toBe(false);
    expect(w.gh.pull(13)).toMatchObject({
      state: 'open',
      labels: ['arbiter:awaiting-approval'],
      reviewers: ['maintainer'],
    });
    const gate = w.gh.commentsOn(13)[0]?.body ?? '';
    expect(gate).toContain('Best candidate #13 meets 2 of 3 criteria (1 not met).');
    expect(gate).toContain(
      '**Not met (the change does not do this)**: AC2 (Each day of the calendar holds a kanban list)',
    );
    expect(gate).toContain('@maintainer');
    expect(gate).toContain('`/arbiter promote`');
  });

  it('asks for exactly one repair of a winner with an unmet criterion, then hands the next round to a person', async () => {
    const w = makeWorld({ store, config: configOf({ policy: { reviewers: ['maintainer', 'agent-bot'] } }) });
    const change = await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC2: 'not_met', AC3: 'not_met' } },
        { pr: 13, acceptance: { AC3: 'not_met' } },
      ],
    });
    await step(w, 'job-a');
    expect(selectionWrites(w)).toEqual([
      'comment #42 comparison:42@main',
      'comment #12 note:12:r1',
      'close #12 labels=arbiter:lost',
      'dispatch arbiter.repair',
      'comment #42 repair:42',
    ]);
    expect(w.gh.dispatches).toHaveLength(1);
    const payload = w.gh.dispatches[0]!.payload;
    expect(Object.keys(payload).length).toBeLessThanOrEqual(10);
    expect(payload).toMatchObject({
      change: 42,
      candidate: 13,
      head_sha: shaOf(13),
      criteria: [{ id: 'AC3', text: 'A card can be dragged between days' }],
      round: 1,
    });
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      status: 'completed',
      conclusion: 'neutral',
      title: 'Repair requested',
    });
    expect(kinds(await store.listReceipts(KEY, 42))).toEqual(['CANDIDATE_SELECTION', 'ACCEPTANCE_REPAIR']);
    expect(await store.getRepair(KEY, 42)).toMatchObject({ pr: 13 });

    // The repair arrives as new commits on #13 (round 2), and still misses AC3: a person decides.
    await store.openNextRound(KEY, 42, 'main', 1, w.clock.now().toISOString());
    await seedSibling(w, change, { pr: 13, sha: shaOf(13, 1), acceptance: { AC3: 'not_met' } });
    w.gh.resetRecord();
    await step(w, 'job-b');
    expect(w.gh.dispatches).toHaveLength(1);
    expect(selectionWrites(w)).toEqual([
      'edit comment #42 comparison:42@main',
      'label #13 arbiter:awaiting-approval',
      'review #13 maintainer',
      'comment #13 gate:13',
    ]);
    expect(w.gh.commentsOn(13)[0]?.body).toContain(
      'Best candidate #13 meets 2 of 3 criteria (1 not met). Approve to ship it or cancel the change.',
    );
    expect(w.gh.commentsOn(13)[0]?.body).toContain('AC3 (A card can be dragged between days)');
    // While a person must act, the run asks for action and links the comparison.
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      conclusion: 'action_required',
      title: 'Selected: awaiting approval',
    });
    expect(w.gh.pull(13)).toMatchObject({ state: 'open', merged: false, reviewers: ['maintainer'] });
    expect(kinds(await store.listReceipts(KEY, 42))).toEqual([
      'CANDIDATE_SELECTION',
      'ACCEPTANCE_REPAIR',
      'CANDIDATE_SELECTION',
      'HUMAN_GATE',
    ]);
    expect((await store.getChange(KEY, 42))?.state).toBe('human');
  });

  it('puts both tied candidates before a person when the judge does not pick one', async () => {
    const llm = tableLlm({
      judge: { verdict: 'escalate_to_human', candidate: null, evidence: [], reason: 'both look the same' },
    });
    const w = makeWorld({ store, llm, config: configOf({ policy: { reviewers: ['maintainer'] } }) });
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13 }] });
    await step(w, 'job-a');
    expect(llm.calls.map((c) => `${c.kind} ${c.candidates?.join(',')}`)).toEqual(['judge 12,13', 'judge 13,12']);
    expect(selectionWrites(w)).toEqual([
      'comment #42 comparison:42@main',
      'label #12 arbiter:awaiting-approval',
      'review #12 maintainer',
      'label #13 arbiter:awaiting-approval',
      'review #13 maintainer',
      // A tie: one gate comment, on the Change (issue 25).
      'comment #42 gate:42@main',
    ]);
    for (const pr of [12, 13]) {
      expect(w.gh.checkOn(pr, 'Arbiter / selection')).toMatchObject({
        conclusion: 'action_required',
        title: 'A person must choose',
      });
      expect(w.gh.checkOn(pr, 'Arbiter / selection')?.summary).toContain(
        '#12, #13 are tied on every evidence key and the judge did not settle it (the model judge asked for a person)',
      );
      expect(w.gh.commentsOn(pr)).toEqual([]);
    }
    // One comment on the Change names both and mentions the reviewer once.
    const tied = w.gh.commentsOn(42).find((c) => c.body.includes('arbiter:gate:42@main'))?.body ?? '';
    expect(tied).toContain('#12, #13 are tied on every evidence key');
    expect(tied.match(/@maintainer/g)).toHaveLength(1);
  });

  it('merges the tied candidate a valid judge verdict prefers, and says so to the other', async () => {
    const llm = tableLlm({
      judge: {
        verdict: 'prefer_candidate',
        candidate: 13,
        evidence: ['ev:13:acceptance:AC1'],
        reason: 'clearer calendar',
      },
    });
    const w = makeWorld({ store, llm });
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13 }] });
    await step(w, 'job-a');
    expect(w.gh.commentsOn(12)[0]?.body).toContain(
      'Lost to #13: same evidence, and the model judge preferred #13: “clearer calendar”.',
    );
    expect(w.gh.applied().filter((l) => l.startsWith('merge') || l.startsWith('close'))).toEqual([
      `merge #13 sha=${shaOf(13)}`,
      'close #12 labels=arbiter:lost',
    ]);
  });

  it('opens the next round and reports no merge when the head moved (409)', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    // GitHub keeps answering 409 for this sha: round 2 re-verifies it once, tries once more, and stops.
    w.gh.fail({ match: 'merge #13', status: 409, times: 5 });
    await step(w, 'job-a');
    expect(w.gh.writes.filter((l) => l.startsWith('merge'))).toEqual([
      `merge #13 sha=${shaOf(13)} → 409`,
      `merge #13 sha=${shaOf(13)} → 409`,
    ]);
    expect(w.gh.pull(13).merged).toBe(false);
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      conclusion: 'neutral',
      title: 'Head moved during promotion',
    });
    expect(kinds(await store.listReceipts(KEY, 42)).filter((k) => k === 'PROMOTION')).toEqual([]);
    expect((await store.currentRound(KEY, 42, 'main', 'now')).number).toBe(3);
    expect((await store.getCandidate(KEY, 13))?.state).toBe('verifying');
    expect((await store.getChange(KEY, 42))?.state).toBe('open');
  });

  it('after one 409 with an unchanged head, round 2 verifies the candidate again and ships it', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    w.gh.fail({ match: 'merge #13', status: 409, times: 1 });
    await step(w, 'job-a');
    expect(w.gh.writes.filter((l) => l.startsWith('merge'))).toEqual([
      `merge #13 sha=${shaOf(13)} → 409`,
      `merge #13 sha=${shaOf(13)}`,
    ]);
    expect(w.gh.pull(13).merged).toBe(true);
    expect(kinds(await store.listReceipts(KEY, 42)).filter((k) => k === 'PROMOTION')).toEqual(['PROMOTION']);
    expect((await store.currentRound(KEY, 42, 'main', 'now')).number).toBe(2);
  });

  it('asks a person when GitHub refuses the merge as not mergeable (405)', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    w.gh.pull(13).mergeable = false;
    await step(w, 'job-a');
    // The loser stays open, and the comparison says what happened.
    expect(w.gh.writes.slice(-6)).toEqual([
      `merge #13 sha=${shaOf(13)} → 405`,
      'edit comment #42 comparison:42@main',
      'check #12 Arbiter / selection completed neutral "Open: #13 was not merged"',
      'label #13 arbiter:awaiting-approval',
      'comment #13 refused:13:main/r1',
      'check #13 Arbiter / selection completed neutral "Not mergeable: a person must act"',
    ]);
    expect(w.gh.commentsOn(13)[0]?.body).toContain('GitHub refused to merge #13 (405');
    expect(w.gh.pull(12)).toMatchObject({ state: 'open', labels: [] });
    expect(w.gh.commentsOn(42)[0]?.body).toContain(
      '#13 won, but GitHub did not merge it: a person must act. #12 stays open until a person decides.',
    );
    expect(kinds(await store.listReceipts(KEY, 42))).toEqual(['CANDIDATE_SELECTION', 'HUMAN_GATE']);
    expect((await store.getChange(KEY, 42))?.state).toBe('human');
  });

  it('a winner a person promotes after a refused merge: the losers close as lost, with their reason', async () => {
    const w = makeWorld({ store });
    const change = await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    w.gh.pull(13).mergeable = false;
    await step(w, 'job-a');
    expect(w.gh.pull(12).state).toBe('open');
    // A maintainer resolves it and promotes #13; its merge's webhook follows (the claimant is long done).
    w.gh.pull(13).mergeable = true;
    const promoted = await promoteByPerson(w.ctx('promote-13'), 13, 'maintainer', 'comment');
    expect(promoted.ok).toBe(true);
    await mergedWebhook(w, change, 13, { token: 'merged-13' });
    expect(w.gh.pull(12)).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
    expect(w.gh.checkOn(12, 'Arbiter / selection')?.title).toBe('Lost to #13');
    expect((await store.getCandidate(KEY, 12))?.state).toBe('rejected');
  });

  it('in shadow mode writes only the comparison, notes and check runs', async () => {
    const w = makeWorld({ store, config: configOf({ mode: 'shadow' }) });
    await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC3: 'not_met' } },
        { pr: 13 },
        { pr: 14, checks: [{ name: 'test', conclusion: 'failure' }] },
      ],
    });
    await step(w, 'job-a');
    expect(w.gh.writes.length).toBeGreaterThan(0);
    expect(w.gh.writes.filter((l) => !l.startsWith('comment ') && !l.startsWith('check '))).toEqual([]);
    expect(w.gh.comments.some((c) => c.issue === 42)).toBe(true);
    for (const pr of [12, 13, 14])
      expect(w.gh.pull(pr)).toMatchObject({ state: 'open', merged: false, labels: [], draft: true });
    expect(w.gh.dispatches).toEqual([]);
    expect(kinds(await store.listReceipts(KEY, 42))).not.toContain('PROMOTION');
  });

  it('with a pending sibling, nobody claims and the waiting list names it', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, {
      siblings: [
        { pr: 12, checks: [{ name: 'test', conclusion: 'pending' }], acceptance: null },
        { pr: 13 },
        { pr: 14, acceptance: null },
      ],
    });
    await step(w, 'job-13');
    await step(w, 'job-14');
    expect((await store.currentRound(KEY, 42, 'main', 'now')).selection).toBeNull();
    expect(w.gh.writes.filter((l) => !l.startsWith('check '))).toEqual([]);
    expect(w.gh.checkOn(13, 'Arbiter / selection')?.title).toBe('Waiting on #12 (CI running), #14 (acceptance)');
    expect(await store.listReceipts(KEY, 42)).toEqual([]);
  });

  it('a retry by the claimant after a failure part-way continues without repeating a write', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC1: 'not_met' } },
        { pr: 13, acceptance: { AC1: 'not_met', AC2: 'not_met' } },
        { pr: 14 },
      ],
    });
    w.gh.fail({ match: 'close #13', status: 422 });
    await expect(step(w, 'job-a')).rejects.toThrow(/422/);
    const before = w.gh.applied();
    expect(before).toContain('close #12 labels=arbiter:lost');
    expect(before.some((l) => l.startsWith('close #13'))).toBe(false);
    // Another run (a sibling's job) leaves it to the claimant: nothing at all.
    await step(w, 'job-b');
    expect(w.gh.applied()).toEqual(before);
    // The claimant's retry (same token) finishes the plan; every write landed exactly once.
    await step(w, 'job-a');
    const all = w.gh.applied();
    expect(all.slice(0, before.length)).toEqual(before);
    expect(new Set(all).size).toBe(all.length);
    // The retry asks GitHub first (the closure may have landed), then closes and labels in one write.
    expect(all.filter((l) => l.startsWith('close'))).toEqual([
      'close #12 labels=arbiter:lost',
      'close #13 labels=arbiter:lost',
    ]);
    expect(all.filter((l) => l.startsWith('merge'))).toEqual([`merge #14 sha=${shaOf(14)}`]);
    expect(kinds(await store.listReceipts(KEY, 42))).toEqual(['CANDIDATE_SELECTION', 'PROMOTION']);
  });

  it('a second run with another token does nothing once the round is decided', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    await step(w, 'job-a');
    w.gh.resetRecord();
    await step(w, 'job-b');
    await step(w, 'job-a');
    expect(w.gh.writes).toEqual([]);
    expect(kinds(await store.listReceipts(KEY, 42))).toEqual(['CANDIDATE_SELECTION', 'PROMOTION']);
  });
});
