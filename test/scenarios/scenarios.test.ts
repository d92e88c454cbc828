// Every bundled scenario against the real app: the final state of each transcript is what
// DESIGN.md says must happen (winner, losers, labels, Arbiter's check runs, dispatches),
// and no comment, closure, label or merge is ever written twice. The runner replays every receipt
// each run recorded (sim/runner/replay-run.ts): a decision that replays differently fails the run.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GitHubEmulator } from '../../sim/github/index.ts';
import {
  loadScenarioFile,
  runScenario,
  verdictLine,
  type RunOptions,
  type Scenario,
  type Transcript,
} from '../../sim/runner/index.ts';
import { expectRendersClean } from '../support/gfm.ts';
import { TEST_DATABASE_URL } from '../store/backends.ts';

const SELECTION = 'Arbiter / selection';
const MERGE = '/repos/{owner}/{repo}/pulls/{pull_number}/merge';

const load = (name: string) =>
  loadScenarioFile(fileURLToPath(new URL(`../../fixtures/scenarios/${name}.yml`, import.meta.url)));

function applied(t: Transcript) {
  return t.writes.filter((w) => w.status < 300);
}

/** Closures, merges and labels are each written once; no comment body appears twice in one thread. */
function expectNoDuplicateWrites(t: Transcript): void {
  const once = applied(t)
    .map((w) => w.summary)
    .filter((s) => /^(close|merge|label) /.test(s));
  expect(
    once.filter((s, i) => once.indexOf(s) !== i),
    'repeated writes',
  ).toEqual([]);
  const threads = [...Object.entries(t.prs), ...Object.entries(t.issues)];
  for (const [num, thread] of threads) {
    const bodies = thread.comments.map((c) => `${c.user}\n${c.body}`);
    expect(
      bodies.filter((b, i) => bodies.indexOf(b) !== i),
      `repeated comment on #${num}`,
    ).toEqual([]);
  }
  expect(applied(t).filter((w) => w.route === MERGE)).toHaveLength(Object.values(t.prs).filter((p) => p.merged).length);
}

function lostTo(t: Transcript, loser: number, winner: number): void {
  const pr = t.prs[String(loser)];
  expect(pr, `#${loser}`).toMatchObject({ state: 'closed', merged: false });
  expect(pr.labels).toContain('arbiter:lost');
  expect(pr.checks[SELECTION]).toMatchObject({ status: 'completed', conclusion: 'neutral' });
  expect(pr.checks[SELECTION].title ?? '').toContain(`Lost to #${winner}`);
}

function shipped(t: Transcript, winner: number): void {
  expect(t.prs[String(winner)], `#${winner}`).toMatchObject({ state: 'closed', merged: true });
  expect(t.prs[String(winner)].checks[SELECTION]).toMatchObject({ status: 'completed', conclusion: 'success' });
  expect(verdictLine(t)).toMatch(new RegExp(`^Winner: #${winner} shipped`));
}

/** Sums the samples of one metric whose label text matches `labels`. */
function total(text: string, name: string, labels: RegExp = /.*/): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{.*\})? (\S+)$/.exec(line);
    if (m && m[1] === name && labels.test(m[2] ?? '')) sum += Number(m[3]);
  }
  return sum;
}

async function run(s: Scenario, inspect?: RunOptions['inspect']) {
  const lines: string[] = [];
  const t = expectRendersClean(await runScenario(s, { log: (l) => lines.push(l), inspect }));
  return { t, lines };
}

// Each run boots the real app on the embedded PGlite default and plays a whole story: allow minutes on a busy machine.
const SLOW = { timeout: 240_000 };
const METRICS_TOKEN = 'scenario-metrics-token';

describe('bundled scenarios', () => {
  // One showcase run serves three tests: its outcome, its acceptance check run, and (the app runs
  // with ARBITER_METRICS_TOKEN) its /metrics. Each full-app run costs seconds of CI.
  describe('the showcase, played once', () => {
    let sent: { event: string; status: number }[] = [];
    let violations: string[] = ['not inspected'];
    let acceptance: ReturnType<GitHubEmulator['checkRunDetail']> = null;
    let metrics = '';
    let t: Transcript;
    beforeAll(async () => {
      t = expectRendersClean(
        await runScenario(await load('showcase'), {
          log: () => {},
          appEnv: { ARBITER_METRICS_TOKEN: METRICS_TOKEN },
          inspect: async (emulator, app) => {
            sent = emulator.sentWebhooks.map((w) => ({ event: w.event, status: w.status }));
            violations = [...emulator.violations];
            acceptance = emulator.checkRunDetail('acme/planner', 13, 'Arbiter / acceptance');
            metrics = await (
              await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
            ).text();
          },
        }),
      );
    }, SLOW.timeout);

    it('showcase: the fastest candidate loses to the one that meets every criterion', () => {
      shipped(t, 13);
      lostTo(t, 12, 13);
      const reason = [...t.prs['12'].comments.map((c) => c.body), t.prs['12'].checks[SELECTION].title ?? ''].join('\n');
      // #12 met AC3 only (AC1 not met, AC2 unclear): the reason names what #13 met beyond it.
      expect(reason).toContain(
        'Lost to #13, which also meets AC1 (The home page shows a calendar of the current month) and AC2.',
      );
      expect(reason).toContain('#13 met 3 of 3 criteria, this one 1 of 3.');
      expect(t.issues['42'].comments.filter((c) => c.user === 'arbiter[bot]').length).toBeGreaterThanOrEqual(1);
      expect(t.dispatches).toEqual([]);
      expectNoDuplicateWrites(t);
      // The runner replayed every receipt of the run (every fixture's run does; one that differs fails it).
      expect(t.receipts?.map((r) => `${r.kind}: ${r.replay}`)).toEqual([
        'ACCEPTANCE: record',
        'ACCEPTANCE: record',
        'CANDIDATE_SELECTION: same',
        'PROMOTION: same',
      ]);
      // Every webhook the emulator sent validated against GitHub's schemas and was accepted.
      expect(violations).toEqual([]);
      expect(sent.length).toBeGreaterThan(5);
      expect(sent.filter((w) => w.status < 200 || w.status >= 300)).toEqual([]);
    });

    it('the showcase winner carries the acceptance table and one annotation per verified citation', () => {
      expect(acceptance).toMatchObject({ conclusion: 'success', title: '3 of 3 criteria met' });
      expect(acceptance!.summary).toContain('| AC1 |');
      expect(acceptance!.summary).toContain('src/calendar.ts');
      expect(acceptance!.annotations.map((a) => a.path).sort()).toEqual([
        'src/calendar.ts',
        'src/calendar.ts',
        'src/kanban.ts',
      ]);
      expect(acceptance!.annotations.every((a) => a.start_line > 0)).toBe(true);
    });

    // /metrics shows the GitHub requests it made (token requests included), the rate limit the
    // emulator reported, the model calls and tokens, and the decision.
    it('metrics count the requests, the tokens and the decision of the showcase', () => {
      expect(total(metrics, 'arbiter_webhooks_received_total')).toBeGreaterThan(0);
      expect(total(metrics, 'arbiter_github_requests_total', /route="POST \/graphql"/)).toBeGreaterThan(0);
      expect(total(metrics, 'arbiter_github_requests_total', /access_tokens",status="201"/)).toBeGreaterThan(0);
      expect(total(metrics, 'arbiter_github_rate_limit_remaining')).toBeGreaterThan(0);
      expect(total(metrics, 'arbiter_model_calls_total', /outcome="ok"/)).toBeGreaterThan(0);
      expect(total(metrics, 'arbiter_model_tokens_total', /direction="input"/)).toBeGreaterThan(0);
      expect(total(metrics, 'arbiter_model_tokens_total', /direction="output"/)).toBeGreaterThan(0);
      expect(total(metrics, 'arbiter_decisions_total')).toBeGreaterThanOrEqual(1);
      expect(total(metrics, 'arbiter_settle_to_decision_seconds_count')).toBeGreaterThanOrEqual(1);
    });
  });

  it('showcase on PostgreSQL: the same outcome as on PGlite', SLOW, async () => {
    const t = await runScenario(await load('showcase'), { databaseUrl: TEST_DATABASE_URL });
    shipped(t, 13);
    lostTo(t, 12, 13);
    expectNoDuplicateWrites(t);
  });

  it('a required check fails on the candidate that meets more criteria: it loses', SLOW, async () => {
    const { t } = await run(await load('required-check-fails'));
    lostTo(t, 22, 21);
    expect(t.prs['21'].merged).toBe(false);
    expect(t.dispatches.filter((d) => d.event_type === 'arbiter.repair')).toHaveLength(1);
    expectNoDuplicateWrites(t);
  });

  it('unmet criteria: one repair, then a person; never a merge', SLOW, async () => {
    const { t } = await run(await load('unmet-criteria'));
    expect(t.prs['31']).toMatchObject({ state: 'open', merged: false });
    expect(t.dispatches.filter((d) => d.event_type === 'arbiter.repair')).toHaveLength(1);
    expect(t.prs['31'].labels).toContain('arbiter:awaiting-approval');
    expect(verdictLine(t)).toMatch(/^A person must decide: #31 awaits approval/);
    expectNoDuplicateWrites(t);
  });

  it('/arbiter promote by a write user ships a gated winner; a read user cannot', SLOW, async () => {
    const { t } = await run(await load('promote-command'));
    shipped(t, 41);
    // The human gate named the PR and the command, asked the people it mentions, and asked for action.
    const gate = t.prs['41'].comments.find((c) => c.body.includes('<!-- arbiter:gate:41 -->'))?.body ?? '';
    expect(gate).toContain('#41');
    expect(gate).toContain('`/arbiter promote`');
    const mentioned = [...(/^(@\S+(?: @\S+)*): your decision is needed\.$/m.exec(gate)?.[1].split(' ') ?? [])].map(
      (m) => m.slice(1),
    );
    expect(mentioned.length).toBeGreaterThan(0);
    expect(t.prs['41'].reviewers).toEqual(expect.arrayContaining(mentioned));
    expect(applied(t).map((w) => w.summary)).toContain(
      'check-run Arbiter / selection on #41: completed action_required',
    );
    // Once it shipped, the finished run offers no button.
    expect(t.prs['41'].checks[SELECTION].actions).toEqual([]);
    const merges = applied(t).filter((w) => w.route === MERGE);
    expect(merges).toHaveLength(1);
    expect(merges[0].at).toBeGreaterThanOrEqual(6);
    expect(t.dispatches).toEqual([]);
    expectNoDuplicateWrites(t);
  });

  it('every webhook redelivered three times: the same outcome, nothing written twice', SLOW, async () => {
    const { t } = await run(await load('redeliver'));
    shipped(t, 52);
    lostTo(t, 51, 52);
    expectNoDuplicateWrites(t);
  });

  it('GitHub answers 502 to the merge twice: retried, merged once', SLOW, async () => {
    const { t } = await run(await load('merge-502'));
    shipped(t, 61);
    expect(t.writes.filter((w) => w.route === MERGE).map((w) => w.status)).toEqual([502, 502, 200]);
    expectNoDuplicateWrites(t);
  });

  it(
    'Arbiter killed in the middle of a selection: the same final state, no write repeated',
    { timeout: 480_000 },
    async () => {
      const scenario = await load('restart-mid-selection');
      // The undisturbed run is the same scenario without the restart (one after the other: two
      // app processes at once starve each other on a two-core machine).
      const disturbed = (await run(scenario)).t;
      const calm = (await run({ ...scenario, faults: { ...scenario.faults, restart: [] } })).t;
      expect(disturbed.restarts).toHaveLength(1);
      const killedAfter = disturbed.writes.find((w) => w.seq === disturbed.restarts[0].afterSeq);
      expect(killedAfter?.summary).toMatch(/^close #/);
      shipped(disturbed, 73);
      lostTo(disturbed, 71, 73);
      lostTo(disturbed, 72, 73);
      expectNoDuplicateWrites(disturbed);
      const outcome = (t: Transcript) => ({
        prs: Object.fromEntries(
          Object.entries(t.prs).map(([n, p]) => [n, { ...p, comments: p.comments.map((c) => c.user) }]),
        ),
        issues: Object.fromEntries(
          Object.entries(t.issues).map(([n, i]) => [n, { ...i, comments: i.comments.map((c) => c.user) }]),
        ),
        dispatches: t.dispatches,
      });
      // Links in check-run texts name the emulator's host, whose port differs from run to run.
      const stable = (t: Transcript): unknown =>
        JSON.parse(JSON.stringify(outcome(t)).replace(/127\.0\.0\.1:\d+/g, 'HOST'));
      expect(stable(disturbed)).toEqual(stable(calm));
    },
  );
});
