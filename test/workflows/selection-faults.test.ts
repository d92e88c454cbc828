// The selection step when things go wrong between two runs: a merge that landed although its
// answer was lost (the process died), and a run that read the group before the round was decided
// and reads GitHub only after the claimant acted.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/types.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { RESUME_BUDGET, resumeAbandonedRounds } from '../../src/workflows/sweep.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { FakeGitHub } from '../support/fake-github.ts';
import { configOf, makeWorld, mergedWebhook, seedGroup, seedSibling, shaOf } from '../support/selection-world.ts';

const KEY = 'acme/todo';
const kinds = (receipts: { kind: string }[]): string[] => receipts.map((r) => r.kind);

describe('selection step faults', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('postgres', 'wf-faults');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('recognises on retry a merge that landed before the run died, and ships rather than asking a person', async () => {
    const w = makeWorld({ store: opened.store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    // The merge is applied on GitHub, then the run dies before it hears the answer.
    w.gh.fail({ match: 'merge #13', status: 401, when: 'after' });
    await expect(selectionStep(w.ctx('job-a'), 42, 'main')).rejects.toThrow(/401/);
    expect(w.gh.pull(13).merged).toBe(true);
    // The job's retry: GitHub now answers 405 (already merged); that is a shipped candidate.
    await selectionStep(w.ctx('job-a'), 42, 'main');
    expect(kinds(await opened.store.listReceipts(KEY, 42))).toEqual(['CANDIDATE_SELECTION', 'PROMOTION']);
    expect(w.gh.pull(13).labels).not.toContain('arbiter:awaiting-approval');
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      conclusion: 'success',
      title: 'Selected: shipped',
    });
    expect((await opened.store.getChange(KEY, 42))?.state).toBe('shipped');
  });

  it("the sweep carries through a round whose claimant failed for good, under the claimant's token, repeating nothing", async () => {
    const w = makeWorld({ store: opened.store });
    await seedGroup(w, {
      siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }, { pr: 14, acceptance: { AC2: 'not_met' } }],
    });
    await opened.store.recordDelivery('dlv-claimant', 'check_run', {});
    // The claimant closes #12, then GitHub refuses to close #14, and its job fails.
    w.gh.fail({ match: 'close #14', status: 422 });
    await expect(selectionStep(w.ctx('delivery:dlv-claimant'), 42, 'main')).rejects.toThrow(/422/);
    expect(w.gh.pull(12).state).toBe('closed');
    const resume = () => resumeAbandonedRounds(w.deps, async () => w.ctx('sweep:elsewhere'));
    // While its job may still be retried, the round stays the claimant's: the sweep leaves it.
    await resume();
    expect(w.gh.pull(14).state).toBe('open');
    // Its job has failed for good: the next sweep finishes the round as the claimant would have.
    await opened.store.failDelivery('dlv-claimant', 'handler broke', {
      repo: KEY,
      data: {},
      at: '2026-03-02T09:05:00.000Z',
    });
    await resume();
    expect(w.gh.pull(14).state).toBe('closed');
    expect(w.gh.pull(13).merged).toBe(true);
    expect(w.gh.applied().filter((line) => line.startsWith('close #12'))).toHaveLength(1);
    expect(w.gh.applied().filter((line) => line.startsWith('comment #42 comparison'))).toHaveLength(1);
    expect((await opened.store.getChange(KEY, 42))?.state).toBe('shipped');
    // Finished: a later sweep finds nothing left to resume.
    expect(await opened.store.listUnfinishedRounds(10)).toEqual([]);
  });

  it('the sweep never retries the same refused write for good: after its budget the Change goes to a person', async () => {
    const w = makeWorld({ store: opened.store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    await opened.store.recordDelivery('dlv-refused', 'check_run', {});
    // GitHub refuses to close #12 every time, in its own words.
    w.gh.fail({ match: 'close #12', status: 422, times: 100 });
    await expect(selectionStep(w.ctx('delivery:dlv-refused'), 42, 'main')).rejects.toThrow(/422/);
    await opened.store.failDelivery('dlv-refused', 'handler broke', {
      repo: KEY,
      data: {},
      at: '2026-03-02T09:05:00.000Z',
    });
    const resume = () => resumeAbandonedRounds(w.deps, async () => w.ctx('sweep:elsewhere'));
    for (let i = 1; i < RESUME_BUDGET; i++) await resume();
    console.log(JSON.stringify(w.gh.writes));
    expect(await opened.store.listUnfinishedRounds(10)).toHaveLength(1);
    await resume();
    const closesBefore = w.gh.writes.filter((line) => line.startsWith('close #12')).length;
    expect(closesBefore).toBe(RESUME_BUDGET + 1); // the claimant's try, then one per sweep
    // The budget is spent: a person is told, with GitHub's answer, and the round is not resumed again.
    expect(await opened.store.listUnfinishedRounds(10)).toEqual([]);
    expect((await opened.store.getChange(KEY, 42))?.state).toBe('human');
    const note = w.gh.commentsOn(42).find((c) => c.body.includes('could not finish round'));
    expect(note?.body).toContain('after 5 tries');
    await resume();
    expect(w.gh.writes.filter((line) => line.startsWith('close #12')).length).toBe(closesBefore);
    expect(kinds(await opened.store.listReceipts(KEY, 42))).toContain('HUMAN_GATE');
  });

  it('a resumption a rate limit stopped sends the next sweep for the end of the wait, and spends no budget', async () => {
    const w = makeWorld({ store: opened.store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    await opened.store.recordDelivery('dlv-limited', 'check_run', {});
    w.gh.fail({ match: 'close #12', status: 422 });
    await expect(selectionStep(w.ctx('delivery:dlv-limited'), 42, 'main')).rejects.toThrow(/422/);
    await opened.store.failDelivery('dlv-limited', 'handler broke', {
      repo: KEY,
      data: {},
      at: '2026-03-02T09:05:00.000Z',
    });
    // The resumption meets GitHub's 429 with retry-after: 30, twice (two replicas' sweeps of one minute).
    w.gh.fail({ match: 'close #12', status: 429, retryAfter: 30, times: 2 });
    const resume = () => resumeAbandonedRounds(w.deps, async () => w.ctx('sweep:elsewhere'));
    await resume();
    await resume();
    const due = new Date(w.clock.now().getTime() + 30_000).toISOString();
    expect(w.queue.sent).toEqual([`sweep sweep:after-limit/${due} at ${due}`]);
    expect(await opened.store.listUnfinishedRounds(10)).toHaveLength(1);
    // The sweep at the end of the wait finishes the round.
    w.clock.set(new Date(due).getTime());
    await resume();
    expect(w.gh.pull(12).state).toBe('closed');
    expect(await opened.store.listUnfinishedRounds(10)).toEqual([]);
  });

  it('the sweep also resumes a round whose claimant job expired on its last attempt (its delivery never marked done)', async () => {
    const w = makeWorld({ store: opened.store });
    await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    await opened.store.recordDelivery('dlv-expired', 'check_run', {});
    w.gh.fail({ match: 'close #12', status: 422 });
    await expect(selectionStep(w.ctx('delivery:dlv-expired'), 42, 'main')).rejects.toThrow(/422/);
    const resume = () => resumeAbandonedRounds(w.deps, async () => w.ctx('sweep:elsewhere'));
    // Waiting to be retried: left alone.
    w.queue.states.set('dlv-expired', 'pending');
    await resume();
    expect(w.gh.pull(12).state).toBe('open');
    // pg-boss expired it on its last attempt: the job is over although the delivery is not done.
    w.queue.states.set('dlv-expired', 'over');
    await resume();
    expect(w.gh.pull(12).state).toBe('closed');
    expect(w.gh.pull(13).merged).toBe(true);
    expect(await opened.store.listUnfinishedRounds(10)).toEqual([]);
  });

  it("a claimant that dies among the losers' actions after the merge finishes them on retry, though the merge's webhook marked the Change shipped", async () => {
    const w = makeWorld({ store: opened.store });
    const change = await seedGroup(w, {
      siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }, { pr: 14, acceptance: { AC2: 'not_met' } }],
    });
    // The claimant merges #13 and closes #12, then dies while closing #14 (it claimed that action).
    w.gh.fail({ match: 'close #14', status: 401 });
    await expect(selectionStep(w.ctx('delivery:claimant'), 42, 'main')).rejects.toThrow(/401/);
    expect(w.gh.pull(13).merged).toBe(true);
    // The merge's own webhook (another run) ships the Change; it leaves #14's claimed close to the claimant.
    await mergedWebhook(w, change, 13);
    expect((await opened.store.getChange(KEY, 42))?.state).toBe('shipped');
    expect(w.gh.pull(14).state).toBe('open');
    // The claimant's retry carries the decided round through: #14 closes as lost, its check says so.
    await selectionStep(w.ctx('delivery:claimant'), 42, 'main');
    expect(w.gh.pull(14).state).toBe('closed');
    expect(w.gh.pull(14).labels).toContain('arbiter:lost');
    expect(w.gh.checkOn(14, 'Arbiter / selection')).toMatchObject({
      status: 'completed',
      conclusion: 'neutral',
      title: 'Lost to #13',
    });
    expect(w.gh.applied().filter((line) => line.startsWith('close #'))).toEqual([
      'close #12 labels=arbiter:lost',
      'close #14 labels=arbiter:lost',
    ]);
    expect(await opened.store.listUnfinishedRounds(10)).toEqual([]);
  });

  it("a claimant that dies right after the merge: the winner's one check is written by its retry, not left in progress", async () => {
    const w = makeWorld({ store: opened.store });
    const change = await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    w.gh.fail({ match: 'check #13 Arbiter / selection completed', status: 401 });
    await expect(selectionStep(w.ctx('delivery:claimant'), 42, 'main')).rejects.toThrow(/401/);
    expect(w.gh.pull(13).merged).toBe(true);
    expect(w.gh.checkOn(13, 'Arbiter / selection')?.status).toBe('in_progress');
    // The merge's own webhook leaves the check to the round's plan (it carries the decision's text).
    await mergedWebhook(w, change, 13);
    expect(w.gh.checkOn(13, 'Arbiter / selection')?.status).toBe('in_progress');
    await selectionStep(w.ctx('delivery:claimant'), 42, 'main');
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      title: 'Selected: shipped',
    });
    expect(w.gh.checkOn(13, 'Arbiter / selection')?.summary).toContain('#13 wins');
    expect(w.gh.applied().filter((l) => l.startsWith('check #13'))).toHaveLength(1);
    expect(w.gh.pull(12)).toMatchObject({ state: 'closed', labels: ['arbiter:lost'] });
    expect(await opened.store.listUnfinishedRounds(10)).toEqual([]);
  });

  it("a lone winner's claimant whose retry comes before the merge's webhook still writes the winner's check", async () => {
    // One candidate: once merged it reads as closed, so the group the retry reads has no sibling
    // left to compare. The retry carries out the decision it recorded all the same; the merge's
    // webhook, coming after, leaves the check to it as before.
    const w = makeWorld({ store: opened.store });
    const change = await seedGroup(w, { siblings: [{ pr: 13 }] });
    w.gh.fail({ match: 'check #13 Arbiter / selection completed', status: 401 });
    await expect(selectionStep(w.ctx('delivery:claimant'), 42, 'main')).rejects.toThrow(/401/);
    expect(w.gh.pull(13).merged).toBe(true);
    await selectionStep(w.ctx('delivery:claimant'), 42, 'main');
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({ status: 'completed', conclusion: 'success' });
    await mergedWebhook(w, change, 13);
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      title: 'Selected: shipped',
    });
    expect(w.gh.applied().filter((l) => l.startsWith('check #13 Arbiter / selection completed'))).toHaveLength(1);
    expect((await opened.store.getChange(KEY, 42))?.state).toBe('shipped');
    expect(await opened.store.listUnfinishedRounds(10)).toEqual([]);
  });

  it('a claimant that stopped before deciding gives the claim back when a sibling is pending again, so the round is decided', async () => {
    const w = makeWorld({ store: opened.store });
    const change = await seedGroup(w, { siblings: [{ pr: 12, acceptance: { AC1: 'not_met' } }, { pr: 13 }] });
    // The claimant took the round and died before deciding; then #12 got new commits, CI running.
    const round = await opened.store.currentRound(KEY, 42, 'main', '2026-03-02T09:00:00.000Z');
    expect(await opened.store.claimRound(round.id, 'delivery:dead')).toBe('claimed');
    await seedSibling(w, change, {
      pr: 12,
      sha: shaOf(12, 1),
      checks: [{ name: 'test', conclusion: 'pending' }],
      acceptance: null,
    });
    // Its retry (or the sweep under its token) sees #12 pending: it lets go and shows the wait.
    await selectionStep(w.ctx('delivery:dead'), 42, 'main');
    expect((await opened.store.getRound(round.id))?.selection).toBeNull();
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      status: 'in_progress',
      title: 'Waiting on #12 (CI running)',
    });
    // #12 settles; its run claims the round and decides it.
    await seedSibling(w, change, { pr: 12, sha: shaOf(12, 1), acceptance: { AC1: 'not_met' } });
    await selectionStep(w.ctx('delivery:settle-12'), 42, 'main', { settled: 12 });
    expect((await opened.store.getRound(round.id))?.selection).toBe('delivery:settle-12');
    expect(w.gh.pull(13).merged).toBe(true);
    expect(w.gh.pull(12).state).toBe('closed');
  });

  it('a run that read the round before the claim does not cover the decision with a waiting list', async () => {
    // Run B reads the group from GitHub only after run A has decided: its group query is held.
    let holding = false;
    let release: () => void = () => undefined;
    let reached: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const atHold = new Promise<void>((resolve) => (reached = resolve));
    const gh = new FakeGitHub({
      latency: async (call) => {
        if (!holding || !call.startsWith('graphql ArbiterGroup')) return;
        holding = false;
        reached();
        await held;
      },
    });
    // #12 and #13 together meet every criterion: combining is off, this test is about the waiting list.
    const config = configOf({
      repair: { enabled: false },
      combine: { enabled: false },
      policy: { reviewers: ['maintainer'] },
    });
    const w = makeWorld({ store: opened.store, gh, config });
    await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC1: 'not_met', AC2: 'not_met' } },
        { pr: 13, acceptance: { AC3: 'not_met' } },
      ],
    });
    holding = true;
    const late = selectionStep(w.ctx('job-b'), 42, 'main');
    await atHold;
    await selectionStep(w.ctx('job-a'), 42, 'main');
    const decided = w.gh.checkOn(13, 'Arbiter / selection');
    expect(decided).toMatchObject({ status: 'completed', title: 'Selected: awaiting approval' });
    release();
    await late;
    expect(w.gh.checkOn(13, 'Arbiter / selection')).toMatchObject({
      status: 'completed',
      title: 'Selected: awaiting approval',
    });
    expect(w.gh.writes.filter((l) => l.includes('Waiting on'))).toEqual([]);
  });

  it('a claimant that dies after taking the repair but before recording its decision still sends that repair on retry', async () => {
    const w = makeWorld({ store: opened.store });
    await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC2: 'not_met', AC3: 'not_met' } },
        { pr: 13, acceptance: { AC3: 'not_met' } },
      ],
    });
    // The store goes away once, right when the decision is to be recorded.
    let failures = 1;
    const flaky: Store = {
      ...opened.store,
      async recordDecision(...args) {
        if (failures-- > 0) throw new Error('connection lost');
        return opened.store.recordDecision(...args);
      },
    };
    await expect(selectionStep(w.ctx('job-a', { store: flaky }), 42, 'main')).rejects.toThrow('connection lost');
    expect(await opened.store.getRepair(KEY, 42)).toMatchObject({ pr: 13 });
    await selectionStep(w.ctx('job-a', { store: flaky }), 42, 'main');
    expect(w.gh.dispatches.map((d) => `${d.eventType} #${String(d.payload.candidate)}`)).toEqual([
      'arbiter.repair #13',
    ]);
    expect(kinds(await opened.store.listReceipts(KEY, 42))).toEqual(['CANDIDATE_SELECTION', 'ACCEPTANCE_REPAIR']);
    expect(w.gh.pull(13).labels).not.toContain('arbiter:awaiting-approval');
    // Another run with another token still cannot take a second repair.
    await selectionStep(w.ctx('job-b'), 42, 'main');
    expect(w.gh.dispatches).toHaveLength(1);
  });
});
