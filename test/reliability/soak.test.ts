// Reliability item 3 in small: the soak (sim/soak/) plays 5 schedules against 2 Arbiter processes
// on one PostgreSQL, behind the proxy, under faults drawn from each schedule's seed, and finds no
// invariant violated; then the same soak with the round's claim broken in the run's database
// must fail, so a soak that passes is one that could have failed.
//
// The claim is broken by a trigger the soak installs in the run's database (`breakClaim`, an
// option of the soak's API that only this test sets, not a flag of `npm run soak` nor of the
// app): the app under test stays the real build, unchanged, and no switch for breaking it ships
// in the product.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSoak, type SoakReport } from '../../sim/soak/soak.ts';
import { violations } from '../../sim/soak/invariants.ts';
import { loadScenarioFile, type Transcript } from '../../sim/runner/index.ts';
import { PG_URL } from './helpers.ts';

// Two small stories: one merge after GitHub's 502s, and an untrusted stranger beside the agent.
const FIXTURES = ['merge-502', 'trust-stranger-sibling'].map((n) =>
  fileURLToPath(new URL(`../../fixtures/scenarios/${n}.yml`, import.meta.url)),
);
/**
 * Two fault-free runs, then five runs of two processes each, with kills. At load 35 on 2 cores
 * that took over 15 minutes (docs/RELIABILITY.md); the limit is for a machine that busy.
 */
const SOAK = { timeout: 1_800_000 };

/** The fault-free runs, played once for both soaks below. */
const baselines = new Map<string, Transcript>();

const failures = (r: SoakReport) => r.schedules.flatMap((s) => s.violations.map((v) => `seed ${s.seed}: ${v}`));

describe('the soak across replicas', () => {
  it('plays 5 schedules on 2 replicas with faults and finds no invariant violated', SOAK, async () => {
    const report = await runSoak({
      databaseUrl: PG_URL,
      replicas: 2,
      seeds: [1, 2, 3, 4, 5],
      fixtures: FIXTURES,
      baselines,
    });
    expect(report.schedules.map((s) => s.seed)).toEqual([1, 2, 3, 4, 5]);
    expect(failures(report)).toEqual([]);
    // The faults were laid and the kills came: this soak was not a fault-free run.
    expect(report.schedules.every((s) => s.faults.length > 0)).toBe(true);
    expect(report.schedules.reduce((n, s) => n + s.kills, 0)).toBeGreaterThan(0);
  });

  it('fails, naming the seed, when the round claim is broken', SOAK, async () => {
    const report = await runSoak({
      databaseUrl: PG_URL,
      replicas: 2,
      seeds: [1],
      fixtures: FIXTURES,
      baselines,
      breakClaim: true,
    });
    const found = failures(report);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((f) => f.startsWith('seed 1: '))).toBe(true);
    // Found by the invariants, not by a run that never settled: nobody decides the round.
    expect(found.some((f) => /ends neither merged|outcome differs/.test(f))).toBe(true);
    expect(found.some((f) => f.includes('the run failed'))).toBe(false);
  });
});

describe('the soak invariants', () => {
  it('name a second merge, a comment written twice and an untrusted author merged', async () => {
    const scenario = await loadScenarioFile(FIXTURES[1]);
    const pr = (merged: boolean, body: string, comments: { user: string; body: string }[] = []) => ({
      body,
      state: merged ? 'closed' : 'open',
      merged,
      draft: false,
      labels: [],
      reviewers: [],
      checks: {},
      comments,
      reactions: [],
    });
    const issue = (comments: { user: string; body: string }[]) => ({ state: 'open', labels: [], comments });
    const said = { user: 'arbiter[bot]', body: 'Arbiter: comparison' };
    const baseline: Transcript = {
      writes: [],
      prs: { '21': pr(false, 'Candidate-for: #7'), '22': pr(true, 'Candidate-for: #7') },
      issues: { '7': issue([said]) },
      dispatches: [],
      restarts: [],
    };
    const broken: Transcript = {
      ...baseline,
      prs: { '21': pr(true, 'Candidate-for: #7'), '22': pr(true, 'Candidate-for: #7') },
      issues: { '7': issue([said, said]) },
    };
    expect(violations(scenario, baseline, baseline)).toEqual([]);
    const found = violations(scenario, baseline, broken);
    expect(found).toContain("untrusted author's #21 was merged");
    expect(found).toContain('Change #7 had 2 merges (#21, #22)');
    expect(found.some((f) => f.startsWith('comment on #7 written 2 times'))).toBe(true);
    expect(found.some((f) => f.startsWith('outcome differs on #21'))).toBe(true);
  });

  it('count merge requests per pull request, against the fault-free run', async () => {
    const scenario = await loadScenarioFile(FIXTURES[1]);
    const write = (seq: number, pr: number) => ({
      seq,
      at: seq,
      method: 'POST',
      route: '/graphql',
      path: '/api/graphql',
      operation: 'enablePullRequestAutoMerge',
      status: 200,
      summary: `auto-merge #${pr}`,
    });
    const empty = { prs: {}, issues: {}, dispatches: [], restarts: [] };
    // Auto-merge on two pull requests: one request each, though both go to the one GraphQL path.
    const two: Transcript = { ...empty, writes: [write(1, 21), write(2, 22)] };
    expect(violations(scenario, two, two)).toEqual([]);
    // The same pull request twice: a violation, unless the fault-free run asked twice as well (auto-merge
    // enabled again after GitHub turned it off).
    const again: Transcript = { ...empty, writes: [write(1, 21), write(2, 21)] };
    expect(violations(scenario, two, again)).toEqual([
      'merge request /api/graphql enablePullRequestAutoMerge #21 succeeded 2 times (the fault-free run: 1)',
    ]);
    expect(violations(scenario, again, again)).toEqual([]);
  });
});
