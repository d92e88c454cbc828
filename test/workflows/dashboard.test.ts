// The dashboard workflow over the recording fake and a real store: one issue of Arbiter's own,
// found again (by number, marker or title) and never opened twice, whatever runs at once, is
// retried or was left by a stranger; written at most once a minute; deferred when the budget is low.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DASHBOARD_MARKER, DASHBOARD_TITLE } from '../../src/core/render/dashboard.ts';
import { markerFor } from '../../src/core/render/markers.ts';
import { rateBudgets } from '../../src/github/rate-budget.ts';
import { dashboardJob } from '../../src/jobs/dashboard-job.ts';
import { deliveryJob } from '../../src/jobs/delivery-job.ts';
import type { JobContext } from '../../src/jobs/queue-types.ts';
import { InstallationBlocks } from '../../src/github/rate-limit.ts';
import { refreshChange } from '../../src/workflows/changes.ts';
import { DASHBOARD_RUN_PREFIXES, refreshDashboard, requestDashboard } from '../../src/workflows/dashboard.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { structureOf } from '../support/gfm.ts';
import { configOf, makeWorld, silentLog, START, type World } from '../support/selection-world.ts';

const REPO = 'acme/todo';
const jobOf = (id: string, data: Record<string, unknown>): JobContext => ({
  id,
  name: 'job',
  data,
  retryCount: 0,
  retryLimit: 3,
  final: false,
  log: silentLog,
});
const opened = (w: World) => w.gh.writes.filter((l) => l.startsWith('open issue'));
const dashboards = (w: World) => [...w.gh.issues].filter(([, i]) => i.author === w.gh.botLogin);
/** The one dashboard issue: its number and its state in the fake. */
function theDashboard(w: World): { number: number; issue: { body: string; state: string } } {
  const all = dashboards(w);
  expect(all).toHaveLength(1);
  const [number, issue] = all[0]!;
  return { number, issue };
}

async function seed(w: World): Promise<void> {
  const { store } = w;
  await store.upsertChange({
    repo: REPO,
    number: 42,
    installationId: 7,
    title: 'Calendar',
    body: '',
    criteria: [],
    state: 'shipped',
  });
  await store.upsertChange({
    repo: REPO,
    number: 43,
    installationId: 7,
    title: 'Dark mode',
    body: '',
    criteria: [],
    state: 'human',
  });
  await store.upsertCandidate({
    repo: REPO,
    pr: 21,
    change: 43,
    base: 'main',
    headSha: 'a'.repeat(40),
    author: 'agent-bot',
    state: 'selected',
    reason: 'meets 1 of 2',
  });
  await store.addReceipt({
    kind: 'PROMOTION',
    repo: REPO,
    change: 42,
    round: 1,
    at: new Date(START).toISOString(),
    data: { candidate: 12, headSha: 'b'.repeat(40), by: 'arbiter', method: 'squash' },
  });
  await store.addReceipt({
    kind: 'HUMAN_GATE',
    repo: REPO,
    change: 43,
    round: 1,
    at: new Date(START).toISOString(),
    data: { candidates: [21], winner: 21, why: 'Best candidate #21 meets 1 of 2 criteria.' },
  });
}

describe('the dashboard issue', () => {
  let db: OpenedBackend;
  beforeAll(async () => {
    db = await openBackend('postgres', 'wf-dashboard');
  });
  afterAll(async () => db?.dispose());
  beforeEach(async () => db.truncate());
  afterEach(() => rateBudgets.clear());

  it('is opened once, on the first Change, listing what waits with its action; then edited in place', async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    expect(await refreshDashboard(w.ctx('job-0'))).toBe('off'); // no Change yet: no issue
    await requestDashboard(w.ctx('delivery-0'));
    expect(w.queue.sent).toEqual([]);
    await seed(w);
    await requestDashboard(w.ctx('delivery-1'));
    await requestDashboard(w.ctx('delivery-1-again')); // a redelivery, a second event of that minute
    expect(w.queue.sent).toEqual([
      `dashboard ${REPO}@${START / 60_000 + 1} at ${new Date(START + 60_000).toISOString()}`,
    ]);
    w.clock.advance(60_000);
    expect(await refreshDashboard(w.ctx('job-1'))).toBe('created');
    expect(opened(w)).toEqual([`open issue "${DASHBOARD_TITLE}"`]);
    const { number, issue } = theDashboard(w);
    const { tables } = structureOf(issue.body);
    expect(tables[0]!.rows.map((r) => [r[0], r[2]])).toEqual([['#43 Dark mode', '#21']]);
    expect(tables[0]!.rows[0]![3]).toContain('/arbiter promote on #21');
    // Nothing new: nothing written. Something new: the same issue edited.
    w.clock.advance(60_000);
    expect(await refreshDashboard(w.ctx('job-2'))).toBe('unchanged');
    await db.store.setChangeState(REPO, 43, 'shipped');
    w.clock.advance(60_000);
    w.gh.resetRecord();
    expect(await refreshDashboard(w.ctx('job-3'))).toBe('edited');
    expect(w.gh.writes).toEqual([`edit issue #${number}`]);
    expect(structureOf(w.gh.issues.get(number)!.body).visible).toContain('Nothing waits for a person.');
    // A pull request that names the dashboard as its Change does not make it one.
    expect(await refreshChange(w.ctx('delivery-2'), number)).toBeNull();
    expect(await db.store.getChange(REPO, number)).toBeNull();
  });

  it('shows a config that does not validate, naming its lines, and opens no issue for it', async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    await seed(w);
    // While invalid, with no dashboard yet: none is opened (the file may have turned it off).
    await db.store.setConfigValid(
      REPO,
      false,
      'invalid on the default branch:\ngate.required (line 3): Expected array',
    );
    expect(await refreshDashboard(w.ctx('job-0'), undefined, { openNone: true })).toBe('off');
    expect(opened(w)).toEqual([]);
    await db.store.setConfigValid(REPO, true, '');
    w.clock.advance(60_000);
    expect(await refreshDashboard(w.ctx('job-1'))).toBe('created');
    const { number } = theDashboard(w);
    expect(structureOf(w.gh.issues.get(number)!.body).visible).not.toContain('does not validate');
    // The config breaks: the existing dashboard says so, with the line.
    await db.store.setConfigValid(
      REPO,
      false,
      'invalid on the default branch:\ngate.required (line 3): Expected array',
    );
    w.clock.advance(60_000);
    expect(await refreshDashboard(w.ctx('job-2'), undefined, { openNone: true })).toBe('edited');
    const shown = structureOf(w.gh.issues.get(number)!.body).visible;
    expect(shown).toContain('.github/arbiter.yml does not validate');
    expect(shown).toContain('gate.required (line 3): Expected array');
    expect(opened(w)).toHaveLength(1);
  });

  it('is written at most once a minute: a second run within the minute waits for the next one', async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    await seed(w);
    w.clock.advance(30_000);
    expect(await refreshDashboard(w.ctx('job-a'))).toBe('created');
    w.clock.advance(31_000); // the next minute of the clock, 31 s after the write
    await db.store.setChangeState(REPO, 43, 'shipped');
    expect(await refreshDashboard(w.ctx('job-b'))).toBe('deferred');
    expect(w.queue.sent.at(-1)).toBe(
      `dashboard ${REPO}@${START / 60_000 + 2} at ${new Date(START + 120_000).toISOString()}`,
    );
    w.clock.set(START + 120_000);
    expect(await refreshDashboard(w.ctx('job-c'))).toBe('edited');
    expect(w.gh.writes.filter((l) => /^(open|edit) issue/.test(l))).toHaveLength(2);
  });

  it('opens one issue when two runs race, and a retry after a lost answer finds the one it opened', async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    await seed(w);
    // Two jobs of the same minute at once (on PostgreSQL, so they truly overlap): one writes.
    const both = await Promise.all([refreshDashboard(w.ctx('job-x')), refreshDashboard(w.ctx('job-y'))]);
    expect(both.sort()).toEqual(['created', 'deferred']);
    expect(opened(w)).toHaveLength(1);

    // A lost answer: the issue is opened, the run fails; its retry (same token) finds it.
    await db.truncate();
    w.gh.issues.clear();
    w.gh.resetRecord();
    await seed(w);
    w.clock.advance(120_000);
    w.gh.fail({ match: 'open issue', status: 502, when: 'after' });
    await expect(refreshDashboard(w.ctx('job-z'))).rejects.toThrow();
    expect(await refreshDashboard(w.ctx('job-z'))).not.toBe('created');
    expect(dashboards(w)).toHaveLength(1);
  });

  it("opens one issue when a run stalls past its minute before opening: a later minute's run leaves the opening to it", async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    await seed(w);
    // job-a takes the opening and fails before GitHub answers (the stand-in for a stall).
    w.gh.fail({ match: 'open issue', status: 502, when: 'before' });
    await expect(refreshDashboard(w.ctx('job-a'))).rejects.toThrow();
    w.clock.advance(120_000);
    expect(await refreshDashboard(w.ctx('job-b'))).toBe('deferred');
    expect(dashboards(w)).toHaveLength(0);
    // Once the opening window (ten minutes) is over, a run opens it; from then on every run finds it.
    w.clock.set((Math.floor(w.clock.now().getTime() / 600_000) + 1) * 600_000);
    expect(await refreshDashboard(w.ctx('job-c0'))).toBe('created');
    w.clock.advance(120_000);
    await db.store.setChangeState(REPO, 43, 'shipped');
    expect(await refreshDashboard(w.ctx('job-c'))).toBe('edited');
    expect(dashboards(w)).toHaveLength(1);
    // The per-minute claims and the edits are pruned (the sweep drops those older than an hour),
    // and so are the executor's claims of those edits.
    w.clock.advance(3_600_001);
    const hourAgo = new Date(w.clock.now().getTime() - 3_600_000).toISOString();
    const [runs, claims] = DASHBOARD_RUN_PREFIXES;
    expect(await db.store.pruneAppliedActions(runs!, hourAgo)).toBeGreaterThanOrEqual(3);
    expect(await db.store.pruneAppliedActions(claims!, hourAgo)).toBe(1);
  });

  it("counts only Arbiter's own issue: a stranger's copy is ignored, a closed or edited one is kept", async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    await seed(w);
    w.gh.issues.set(5, {
      title: DASHBOARD_TITLE,
      body: `${markerFor(DASHBOARD_MARKER)}\nfake`,
      state: 'open',
      author: 'mallory',
    });
    expect(await refreshDashboard(w.ctx('job-1'))).toBe('created');
    expect(w.gh.issues.get(5)!.body).toContain('fake');
    const { number } = theDashboard(w);
    // A person closes it and rewrites its body without the marker; the store is lost.
    const ours = w.gh.issues.get(number)!;
    ours.state = 'closed';
    ours.body = 'we do not need this';
    await db.truncate();
    await seed(w);
    w.clock.advance(120_000);
    w.gh.resetRecord();
    expect(await refreshDashboard(w.ctx('job-2'))).toBe('edited');
    expect(w.gh.writes).toEqual([`edit issue #${number}`]);
    expect(ours.state).toBe('closed');
    expect(dashboards(w)).toHaveLength(1);
  });

  it("is written in shadow mode too (Arbiter's own issue), saying what would wait", async () => {
    const w = makeWorld({ store: db.store, config: configOf({ mode: 'shadow' }) });
    await seed(w);
    expect(await refreshDashboard(w.ctx('job-1'))).toBe('created');
    const { issue } = theDashboard(w);
    const { visible, tables } = structureOf(issue.body);
    expect(visible).toContain('What would wait for a person');
    expect(tables[0]!.rows.map((r) => r[2])).toEqual(['#21']);
  });

  it('waits while the installation is low on its rate limit, and is off with dashboard: false', async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    await seed(w);
    rateBudgets.record(7, {
      'x-ratelimit-remaining': '10',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-reset': String((START + 600_000) / 1000),
    });
    expect(await refreshDashboard(w.ctx('job-1'))).toBe('deferred');
    expect(w.gh.writes).toEqual([]);
    expect(w.queue.sent).toEqual([
      `dashboard ${REPO}@${(START + 600_000) / 60_000 + 1} at ${new Date(START + 660_000).toISOString()}`,
    ]);
    const off = makeWorld({ store: db.store, config: configOf({ dashboard: false }) });
    rateBudgets.clear();
    await requestDashboard(off.ctx('delivery-1'));
    expect(await refreshDashboard(off.ctx('job-2'))).toBe('off');
    expect(off.queue.sent).toEqual([]);
    expect(off.gh.writes).toEqual([]);
  });

  it("waits out a rate-limit refusal of its own write, and that refusal holds the installation's other jobs too", async () => {
    const w = makeWorld({ store: db.store, config: configOf() });
    await seed(w);
    const blocks = new InstallationBlocks(); // the app's one record, shared by its jobs
    w.gh.fail({ match: 'open issue', status: 403, retryAfter: 300 });
    expect(await refreshDashboard(w.ctx('dashboard:job-1'), blocks)).toBe('deferred');
    const end = START + 300_000;
    expect(blocks.blockedUntil(7, w.clock.now())).toEqual(new Date(end));
    const due = `dashboard ${REPO}@${end / 60_000} at ${new Date(end).toISOString()}`;
    expect(w.queue.sent).toEqual([due]);
    // While blocked: a dashboard job reads nothing from GitHub (the world's octokitFor throws) and
    // asks for the refresh at the end of the wait; a delivery of the installation is deferred there.
    w.clock.advance(60_000);
    w.gh.resetRecord();
    await dashboardJob(w.deps, blocks)(jobOf('job-2', { owner: 'acme', repo: 'todo', installationId: 7 }));
    expect(await refreshDashboard(w.ctx('dashboard:job-3'), blocks)).toBe('deferred');
    expect(w.gh.reads.length + w.gh.writes.length + w.gh.lookups.length).toBe(0);
    expect(w.queue.sent).toEqual([due]);
    await db.store.recordDeliveries([{ id: 'd-1', event: 'issues', payload: { installation: { id: 7 } } }]);
    const handled: string[] = [];
    const deferred: string[] = [];
    const delivery = deliveryJob(w.deps, async (_deps, d) => void handled.push(d.id), {
      blocks,
      defer: async (id, until) => void deferred.push(`${id} at ${until.toISOString()}`),
    });
    await delivery.handler(jobOf('delivery-1', { id: 'd-1' }));
    expect(handled).toEqual([]);
    expect(deferred).toEqual([`d-1 at ${new Date(end).toISOString()}`]);
    // After the wait, the deferred run (its token) opens the one issue.
    w.clock.set(end);
    expect(blocks.blockedUntil(7, w.clock.now())).toBeNull();
    expect(await refreshDashboard(w.ctx('dashboard:job-1'), blocks)).toBe('created');
    expect(opened(w)).toEqual([`open issue "${DASHBOARD_TITLE}"`]);
    theDashboard(w);
  });
});
