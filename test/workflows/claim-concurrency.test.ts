// The claim under concurrency: seeded randomised groups of 2–6 settled siblings, the selection
// step run at once for every sibling (each its own job token), split across TWO stores on the
// same PostgreSQL database; every trial must end with exactly one claim and one set of decision
// writes. A smaller number of trials runs on PGlite (one connection: interleaving, no parallelism).
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Criterion, type CriterionStatus } from '../../src/core/types.ts';
import { computeGate } from '../../src/core/gate.ts';
import { parseCriteria } from '../../src/core/criteria.ts';
import { createStore, type StoreWithDb } from '../../src/store/store.ts';
import type { ChangeRow, Store } from '../../src/store/types.ts';
import { criteriaHash } from '../../src/workflows/evidence.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { dropSchema, openBackend, TEST_DATABASE_URL, uniqueSchema } from '../store/backends.ts';
import { bulkSeed, emptyRows, type BulkRows } from '../support/bulk-seed.ts';
import { FakeGitHub, type FakeCheck } from '../support/fake-github.ts';
import { seeded, type Rng } from '../support/random.ts';
import {
  acceptanceOf,
  configOf,
  CRITERIA_TEXT,
  makeWorld,
  observedChecks,
  shaOf,
  START,
  type World,
} from '../support/selection-world.ts';

const SEED = 20260302;
const CHANGE = 42;
const AT = new Date(START).toISOString();

interface Trial {
  index: number;
  world: World;
  prs: number[];
  winner: number;
  losers: number[];
}

/** Randomised seeded yields before every fake GitHub call, so concurrent runs interleave differently. */
const yields = (rng: Rng) => async (): Promise<void> => {
  for (let i = rng.int(0, 2); i > 0; i--) await new Promise<void>((resolve) => setImmediate(resolve));
};

/**
 * One group: a unique best sibling (every criterion met, `test` and `lint` pass) and rivals that
 * are strictly worse on some key (a failed required check, fewer criteria met, or fewer passing checks).
 * A rival is "fewer met" by a judged criterion, never by a gap alone: a sibling that could equal the
 * best once its gaps are judged goes to a person with it (src/core/rank.ts `unjudgedChallengers`).
 */
function buildTrial(rng: Rng, index: number, store: Store, rows: BulkRows): Trial {
  const gh = new FakeGitHub({ repo: `c${index}`, latency: yields(seeded(SEED ^ (index * 7919))) });
  const world = makeWorld({ store, gh, config: configOf() });
  const repo = `${gh.owner}/${gh.repo}`;
  const texts = CRITERIA_TEXT.slice(0, rng.int(1, 3));
  const body = `## Acceptance criteria\n${texts.map((t) => `- ${t}`).join('\n')}\n`;
  const criteria = z.array(Criterion).parse(JSON.parse(JSON.stringify(parseCriteria(body))));
  const change: ChangeRow = {
    repo,
    number: CHANGE,
    installationId: 7,
    title: 'Calendar',
    body,
    criteria,
    state: 'open',
    updatedAt: AT,
  };
  rows.changes.push({ repo, number: CHANGE, installation_id: 7, title: change.title, body, criteria, state: 'open' });
  rows.rounds.push({ repo, change: CHANGE, base: 'main', number: 1, opened_at: AT });
  gh.issues.set(CHANGE, { title: change.title, body, state: 'open' });

  const prs = rng.shuffle(Array.from({ length: 90 }, (_, i) => 10 + i)).slice(0, rng.int(2, 6));
  const winner = rng.pick(prs);
  for (const pr of prs) {
    let checks: FakeCheck[] = [
      { name: 'test', conclusion: 'success' },
      { name: 'lint', conclusion: 'success' },
    ];
    const statuses: Partial<Record<string, CriterionStatus>> = {};
    if (pr !== winner) {
      for (const c of criteria) if (rng.next() < 0.3) statuses[c.id] = rng.pick(['met', 'not_met', 'gap'] as const);
      const weakness = rng.pick(['failed-test', 'fewer-met', 'fewer-passing'] as const);
      if (weakness === 'failed-test')
        checks = [
          { name: 'test', conclusion: rng.pick(['failure', 'cancelled', 'timed_out']) },
          { name: 'lint', conclusion: 'success' },
        ];
      if (weakness === 'fewer-passing')
        checks = [
          { name: 'test', conclusion: 'success' },
          { name: 'lint', conclusion: 'failure' },
        ];
      if (weakness === 'fewer-met')
        statuses[rng.pick(criteria).id] = rng.pick(['not_met', 'unclear', 'uncheckable'] as const);
    }
    const sha = shaOf(pr, index);
    gh.addPull({ number: pr, headSha: sha, checks, draft: rng.next() < 0.7, body: `Candidate-for: #${CHANGE}` });
    const gate = computeGate({
      configured: world.config.gate.required,
      branchRequired: null,
      observed: observedChecks(checks),
      scoreCheck: null,
    });
    rows.candidates.push({
      repo,
      pr,
      change: CHANGE,
      base: 'main',
      head_sha: sha,
      author: 'agent-bot',
      state: gate.promotable ? 'verified' : 'unpromotable',
      reason: gate.reason,
      head_seen_at: AT,
      created_at: AT,
    });
    rows.patches.push({
      repo,
      pr,
      head_sha: sha,
      merge_base: 'base',
      patch: '',
      truncated: false,
      files: [{ path: 'src/calendar.ts', status: 'modified', additions: 10, deletions: 0 }],
    });
    rows.evidence.push({ repo, pr, head_sha: sha, kind: 'gate', data: gate });
    rows.evidence.push({
      repo,
      pr,
      head_sha: sha,
      kind: 'acceptance',
      data: { ...acceptanceOf(change, statuses), criteriaHash: criteriaHash(change) },
    });
  }
  return { index, world, prs, winner, losers: prs.filter((p) => p !== winner) };
}

/** Starts every sibling's run at once, each with its own token, alternating between the stores. */
async function runTrial(trial: Trial, stores: Store[], rng: Rng): Promise<string[]> {
  const tokens = trial.prs.map((pr) => `t${trial.index}-pr${pr}`);
  const order = rng.shuffle(trial.prs.map((_, i) => i));
  await Promise.all(
    order.map((i, k) =>
      selectionStep(trial.world.ctx(tokens[i]!, { store: stores[k % stores.length] }), CHANGE, 'main'),
    ),
  );
  return tokens;
}

async function assertOneDecision(trial: Trial, tokens: string[], db: StoreWithDb): Promise<void> {
  const { gh } = trial.world;
  const repo = `${gh.owner}/${gh.repo}`;
  const label = `trial ${trial.index} (#${trial.winner} beats ${trial.losers.map((p) => `#${p}`).join(', ')})`;
  const rounds = await db.db.query('SELECT number, selection FROM rounds WHERE repo = $1 ORDER BY number', [repo]);
  expect(
    rounds.rows.map((r) => r.number),
    label,
  ).toEqual([1]);
  expect(tokens, label).toContain(rounds.rows[0]?.selection);
  const decided = await db.db.query(
    `SELECT count(*)::int AS n FROM events WHERE repo = $1 AND kind = 'round.decided'`,
    [repo],
  );
  expect(decided.rows[0]?.n, label).toBe(1);
  expect(
    (await db.listReceipts(repo, CHANGE)).map((r) => r.kind),
    label,
  ).toEqual(['CANDIDATE_SELECTION', 'PROMOTION']);

  const applied = gh.applied();
  expect(
    gh.writes.filter((w) => w.includes(' → ')),
    label,
  ).toEqual([]);
  expect(
    applied.filter((w) => w.startsWith('merge')),
    label,
  ).toEqual([`merge #${trial.winner} sha=${shaOf(trial.winner, trial.index)}`]);
  const sorted = [...trial.losers].sort((a, b) => a - b);
  // Each loser is closed and labelled lost once, in one write.
  expect(applied.filter((w) => w.startsWith('close')).sort(), label).toEqual(
    sorted.map((p) => `close #${p} labels=arbiter:lost`).sort(),
  );
  expect(applied.filter((w) => w.startsWith('label')).sort(), label).toEqual([]);
  expect(applied.filter((w) => w.startsWith('comment') || w.startsWith('edit comment')).sort(), label).toEqual(
    [
      `comment #${CHANGE} comparison:${CHANGE}@main`,
      ...sorted.map((p) => `comment #${p} note:${p}:r1`),
      // Once merged: the winner's short comment, and the comparison re-rendered to say "merged".
      `comment #${trial.winner} winner:${trial.winner}`,
      `edit comment #${CHANGE} comparison:${CHANGE}@main`,
    ].sort(),
  );
  expect(
    applied.filter((w) => w.includes('Waiting on')),
    label,
  ).toEqual([]);
  // What is left on GitHub: the winner merged and selected, every loser closed with its reason.
  expect(gh.pull(trial.winner).merged, label).toBe(true);
  expect(gh.checkOn(trial.winner, 'Arbiter / selection'), label).toMatchObject({
    status: 'completed',
    conclusion: 'success',
  });
  for (const p of trial.losers) {
    expect(gh.pull(p), label).toMatchObject({ state: 'closed', merged: false });
    expect(gh.checkOn(p, 'Arbiter / selection')?.title, label).toBe(`Lost to #${trial.winner}`);
  }
}

async function runTrials(input: { count: number; seed: number; stores: StoreWithDb[]; batch: number }): Promise<void> {
  const rng = seeded(input.seed);
  const [first] = input.stores;
  for (let start = 0; start < input.count; start += input.batch) {
    const rows = emptyRows();
    const trials = Array.from({ length: Math.min(input.batch, input.count - start) }, (_, i) =>
      buildTrial(rng, (input.seed % 1000) + start + i, first!, rows),
    );
    await bulkSeed(first!.db, rows);
    const tokens = await Promise.all(trials.map((t) => runTrial(t, input.stores, rng)));
    for (const [i, t] of trials.entries()) await assertOneDecision(t, tokens[i]!, first!);
  }
}

describe('the claim under concurrency', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanup) await c();
  });

  // A ceiling for a loaded machine, not a timing assertion.
  it(
    'on PostgreSQL, 200 seeded trials from two stores: one claim and one set of decision writes each',
    { timeout: 240_000 },
    async () => {
      const schema = uniqueSchema('wf_claim');
      // Commit durability is not what this test is about: without waiting for each WAL flush the
      // 200 trials take far less time, and the claim is still one conditional UPDATE between two
      // pools. A URL's `options` replace the store's own, so the search_path is repeated here.
      const options = `-c search_path=${schema},public -c synchronous_commit=off`;
      const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(options)}`;
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      const path = (await probe.query('SHOW search_path')).rows[0]?.search_path;
      await probe.end();
      expect(String(path).split(',')[0]?.trim()).toBe(schema);
      const stores = await Promise.all([0, 1].map(() => createStore({ databaseUrl: url, schema })));
      cleanup.push(async () => {
        await Promise.all(stores.map((s) => s.close()));
        await dropSchema(schema);
      });
      for (const s of stores) expect((await s.db.query('SELECT current_schema() AS s')).rows[0]?.s).toBe(schema);
      await runTrials({ count: 200, seed: SEED, stores, batch: 16 });
    },
  );

  it('on PGlite, 8 seeded trials: one claim and one set of decision writes each', async () => {
    const opened = await openBackend('pglite', 'wf-claim');
    cleanup.push(() => opened.dispose());
    await runTrials({ count: 8, seed: SEED + 1, stores: [opened.store], batch: 4 });
  });
});
