// The runner on its own, against a stand-in app that speaks the same process contract:
// a quiet run has the §9 transcript shape, restarts and redeliveries happen as scripted,
// and a dead or never-idle app fails the run loudly.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScenario, type Scenario } from '../../sim/scenario-schema.ts';
import { runScenario, SCENARIO_EPOCH_MS, ScenarioRunError, type RunOptions } from '../../sim/runner/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-runner-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function scenario(extra: Record<string, unknown> = {}): Scenario {
  const r = parseScenario({
    repo: 'acme/todo',
    files: { 'README.md': '# todo\n' },
    change: { number: 42, title: 'Search', body: '## Acceptance criteria\n- A search box\n' },
    candidates: [
      {
        number: 12,
        branch: 'agent/search',
        files: { 'src/search.ts': 'export const search = (q: string) => q;\n' },
        checks: [
          { name: 'test', conclusion: 'success', at: 1 },
          { name: 'ci/lint', kind: 'status', state: 'success', at: 1 },
        ],
      },
    ],
    ...extra,
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

async function run(s: Scenario, env: Record<string, string> = {}, opts: RunOptions = {}) {
  const logFile = join(dir, `stand-in-${++n}.log`);
  const lines: string[] = [];
  const transcript = await runScenario(s, {
    appArgs: ['--import', 'tsx', 'test/scenarios/fixtures/stand-in-app.ts'],
    appEnv: { STAND_IN_LOG: logFile, ...env },
    log: (l) => lines.push(l),
    ...opts,
  });
  const appLog = readFileSync(logFile, 'utf8').trim().split('\n');
  return { transcript, lines, appLog };
}

describe('runScenario with a stand-in app', { timeout: 120_000 }, () => {
  it('runs a scenario where the app does nothing and returns the §9 transcript', async () => {
    const { transcript, lines, appLog } = await run(scenario());
    expect(Object.keys(transcript).sort()).toEqual(['dispatches', 'issues', 'prs', 'receipts', 'restarts', 'writes']);
    expect(transcript.writes).toEqual([]);
    // The stand-in records no decision: nothing to replay.
    expect(transcript.receipts).toEqual([]);
    expect(transcript.restarts).toEqual([]);
    expect(transcript.dispatches).toEqual([]);
    expect(transcript.issues['42']).toMatchObject({ state: 'open', comments: [] });
    const pr = transcript.prs['12'];
    expect(pr).toMatchObject({ state: 'open', merged: false, draft: true });
    expect(pr.checks.test).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(lines).toContain('t=0    requester opened Change #42: Search');
    expect(lines).toContain('t=1    CI: test success on #12');
    expect(lines.at(-1)).toMatch(/^No winner: a person must decide/);
    // The app's clock followed the scenario, and it received the Change and the PR.
    expect(appLog).toEqual(expect.arrayContaining([`clock ${SCENARIO_EPOCH_MS}`, `clock ${SCENARIO_EPOCH_MS + 1000}`]));
    expect(appLog.some((l) => /^delivery issues \S+ opened$/.test(l))).toBe(true);
    expect(appLog.some((l) => /^delivery pull_request \S+ opened$/.test(l))).toBe(true);
    expect(appLog.filter((l) => l.startsWith('bad-signature'))).toEqual([]);
  });

  it('delivers every webhook `copies` times when redelivery is scripted', async () => {
    const { appLog } = await run(scenario({ faults: { redeliver: { copies: 3, seed: 7 } } }));
    const ids = appLog.filter((l) => l.startsWith('delivery ')).map((l) => l.split(' ')[2]);
    expect(ids.length).toBeGreaterThan(3);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...new Set(counts.values())]).toEqual([3]);
  });

  it('kills the app at a scripted time and starts a fresh one on the same store', async () => {
    const { transcript, appLog } = await run(scenario({ faults: { restart: [{ at: 2 }] }, until: 3 }));
    expect(transcript.restarts).toEqual([{ at: 2, afterSeq: 0 }]);
    const starts = appLog.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith('start '));
    expect(starts).toHaveLength(2);
    expect(starts[0][0].split(' ')[1]).not.toBe(starts[1][0].split(' ')[1]);
    // The fresh process gets the current virtual time before anything else happens.
    expect(appLog[starts[1][1] + 1]).toBe(`clock ${SCENARIO_EPOCH_MS + 2000}`);
    expect(appLog).toContain(`clock ${SCENARIO_EPOCH_MS + 3000}`);
  });

  it('kills the app right after the nth matching write, before it sees the answer', async () => {
    const { transcript, lines, appLog } = await run(
      scenario({
        faults: { restart: [{ after: 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments', nth: 1 }] },
      }),
      { STAND_IN_COMMENT: '1' },
    );
    const comment = transcript.writes.find((w) => w.route === '/repos/{owner}/{repo}/issues/{issue_number}/comments');
    expect(comment).toMatchObject({ method: 'POST', path: '/repos/acme/todo/issues/42/comments', status: 201 });
    expect(transcript.restarts).toEqual([{ at: 0, afterSeq: comment!.seq }]);
    expect(transcript.issues['42'].comments).toHaveLength(1);
    expect(appLog.filter((l) => l.startsWith('start '))).toHaveLength(2);
    expect(appLog.filter((l) => l.startsWith('commented'))).toEqual([]);
    expect(lines.some((l) => /^t=0 +Arbiter: /.test(l))).toBe(true);
    expect(lines.some((l) => /Restart: Arbiter killed \(SIGKILL\) after write \d+/.test(l))).toBe(true);
  });

  it('fails loudly, with its output, when the app dies unexpectedly', async () => {
    const err = await run(scenario(), { STAND_IN_DIE_AT: String(SCENARIO_EPOCH_MS + 1000) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioRunError);
    expect(String((err as Error).message)).toMatch(/exited unexpectedly/);
    expect(String((err as Error).message)).toMatch(/dying on purpose/);
  });

  it('fails naming what is pending when the app never becomes idle', async () => {
    const err = await run(scenario(), { STAND_IN_BUSY: '1' }, { quietTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScenarioRunError);
    expect(String((err as Error).message)).toMatch(
      /t=0: still not quiet after 0.3 s: app busy \(queued 1, active 0, inflight 0\)/,
    );
  });

  it('gives a PostgreSQL run a fresh database and drops it afterwards', async () => {
    const server = 'postgres://postgres@127.0.0.1:5432/test';
    const { appLog } = await run(scenario(), {}, { databaseUrl: server });
    const url = appLog.find((l) => l.startsWith('start '))!.split(' ')[2];
    const name = new URL(url).pathname.slice(1);
    expect(name).toMatch(/^arbiter_sim_\d+_[0-9a-f]{8}$/);
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    const left = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    await client.end();
    expect(left.rowCount).toBe(0);
  });
});
