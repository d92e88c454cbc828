// Replaying a selection receipt (src/core/replay.ts, npm run replay): the planner run again on the
// inputs the receipt recorded decides the same, after a trip through JSON as the store keeps it;
// an edited input shows the difference line by line; a receipt of an older version is reported,
// never cast; the CLI answers 0 for "same decision" and 1 for a difference.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SELECTION_BUTTONS } from '../../src/core/buttons.ts';
import type { SetRecord } from '../../src/core/candidate-set.ts';
import { planSelection, type SelectionInput } from '../../src/core/plan/selection.ts';
import { rankCandidates } from '../../src/core/rank.ts';
import { replayReceipt } from '../../src/core/replay.ts';
import { CandidateEvidence, type Criterion, type CriterionStatus } from '../../src/core/types.ts';
import { diagnose } from '../../src/judge/diagnostics.ts';
import { runReplay } from '../../src/replay/cli.ts';
import { createStore } from '../../src/store/store.ts';
import { createTempDatabase } from '../../sim/runner/temp-database.ts';
import { TEST_DATABASE_URL } from '../store/backends.ts';
import { configOf } from '../support/selection-world.ts';
import { judgedSet, ordinaryChanges } from '../support/set-records.ts';

const crit: Criterion[] = [1, 2, 3].map((i) => ({ id: `AC${i}`, text: `Criterion ${i}`, check: null }));

function evidence(pr: number, statuses: CriterionStatus[]): CandidateEvidence {
  const results = crit.map((c, i) => ({ id: c.id, status: statuses[i], citation: null, reason: '' }));
  return CandidateEvidence.parse({
    pr,
    headSha: `sha-${pr}`,
    gate: {
      required: [{ name: 'test', outcome: 'pass', raw: 'success' }],
      source: 'config',
      settled: true,
      promotable: true,
      reason: 'every required check passed',
      passingChecks: 2,
      score: null,
    },
    acceptance: { status: results.every((r) => r.status === 'met') ? 'pass' : 'fail', results },
    changedPaths: ['src/calendar.ts'],
    changedLines: 40,
    author: `agent-${pr}`,
  });
}

function input(siblings: CandidateEvidence[]): SelectionInput {
  return {
    repo: 'acme/planner',
    change: { number: 42, title: 'Calendar view', criteria: crit },
    round: 1,
    base: 'main',
    siblings,
    ranking: rankCandidates(siblings),
    judge: null,
    diagnostics: diagnose({ evidence: siblings, judge: null }),
    config: configOf({ repair: { enabled: false } }),
    repairAvailable: false,
    reviewers: { users: ['maintainer'], teams: [] },
    branch: { requiredReviews: 0, mergeQueue: false },
    drafts: [13],
    now: '2026-01-01T00:00:05.000Z',
    buttons: [...SELECTION_BUTTONS],
    display: { repoUrl: 'https://github.com/acme/planner', titles: { 12: 'Fast', 13: 'Thorough' }, earlier: [] },
  };
}

/** The selection receipt as the store gives it back: through JSON. */
const recorded = (i: SelectionInput): Record<string, unknown> => JSON.parse(JSON.stringify(planSelection(i).receipt));

describe('replaying a selection receipt', () => {
  const ship = input([evidence(12, ['met', 'not_met', 'met']), evidence(13, ['met', 'met', 'met'])]);

  it('decides the same again from the inputs it recorded, and the receipt names only the config values used', () => {
    const receipt = recorded(ship);
    expect(replayReceipt(receipt)).toEqual({
      result: 'same',
      kind: 'CANDIDATE_SELECTION',
      round: 1,
      actions: expect.any(Number),
    });
    expect(Object.keys((receipt.data as { inputs: { config: object } }).inputs.config).sort()).toEqual([
      'acceptance',
      'commands',
      'mode',
      'policy',
      'repair',
    ]);
    // The published receipt (check-run text, comment marker) stays as it was: no inputs in it.
    const plan = planSelection(ship);
    const comparison = plan.actions.find((a) => a.kind === 'comment');
    expect(comparison?.kind === 'comment' && comparison.body).not.toContain('"inputs"');
  });

  it('shows what an edited input changes: the verdict, the winner, and the actions line by line', () => {
    const receipt = recorded(ship);
    const inputs = (
      receipt.data as { inputs: { siblings: { acceptance: { status: string; results: { status: string }[] } }[] } }
    ).inputs;
    // Recorded evidence that no longer holds: #13 now misses AC2 too, so the two tie.
    inputs.siblings[1].acceptance.results[1].status = 'not_met';
    inputs.siblings[1].acceptance.status = 'fail';
    const r = replayReceipt(receipt);
    expect(r.result).toBe('different');
    const diff = r.result === 'different' ? r.diff : [];
    expect(diff).toContain('verdict: "ship" → "human"');
    expect(diff).toContain('winner: 13 → null');
    expect(diff.some((l) => l.startsWith('- merge #13 at sha-13 (squash)'))).toBe(true);
    expect(diff.some((l) => l.startsWith('+ label #13 arbiter:awaiting-approval'))).toBe(true);
  });

  it('reports a receipt recorded by an older version (no inputs, or another shape) as one it cannot replay', () => {
    const receipt = recorded(ship);
    const data = receipt.data as Record<string, unknown>;
    delete data.inputs;
    expect(replayReceipt(receipt)).toEqual({
      result: 'cannot-replay',
      why: 'cannot replay: recorded by an older version (the receipt carries no planner inputs)',
    });
    const old = {
      kind: 'CANDIDATE_SELECTION',
      repo: 'acme/planner',
      change: 42,
      round: 1,
      at: 'then',
      data: { winner: 12 },
    };
    const r = replayReceipt(old);
    expect(r.result).toBe('cannot-replay');
    expect(r.result === 'cannot-replay' && r.why).toMatch(
      /^cannot replay: recorded by an older version \(CANDIDATE_SELECTION: data\.verdict: /,
    );
  });

  it('finds the human gate a selection planned among that selection’s actions', () => {
    const tie = input([evidence(12, ['met', 'not_met', 'met']), evidence(13, ['met', 'not_met', 'met'])]);
    const plan = planSelection(tie);
    const gate = plan.actions.find((a) => a.kind === 'receipt' && a.receipt.kind === 'HUMAN_GATE');
    const stored = JSON.parse(JSON.stringify(gate?.kind === 'receipt' ? gate.receipt : null));
    expect(replayReceipt(stored, [recorded(tie)])).toEqual({
      result: 'part-of-selection',
      kind: 'HUMAN_GATE',
      round: 1,
    });
    // Without its selection it carries nothing to run again: it cannot be replayed, and says so.
    expect(replayReceipt(stored, [])).toMatchObject({ result: 'cannot-replay' });
  });
});

describe('npm run replay -- RECEIPT.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (...argv: string[]) => {
    const lines: string[] = [];
    const code = await runReplay(argv, (l) => lines.push(l), {});
    return { code, text: lines.join('\n') };
  };

  it('prints "same decision" and exits 0, or the difference and exits 1', async () => {
    const ship = input([evidence(12, ['met', 'not_met', 'met']), evidence(13, ['met', 'met', 'met'])]);
    const file = join(dir, 'receipt.json');
    const receipt = recorded(ship);
    writeFileSync(file, JSON.stringify(receipt));
    expect(await run(file)).toEqual({
      code: 0,
      text: expect.stringMatching(/^receipt \(CANDIDATE_SELECTION, round 1\): same decision/),
    });
    (receipt.data as { inputs: { config: { mode: string } } }).inputs.config.mode = 'shadow';
    writeFileSync(file, JSON.stringify(receipt));
    const changed = await run(file);
    expect(changed.code).toBe(1);
    expect(changed.text).toContain('different decision');
    expect(changed.text).toContain('mode: "live" → "shadow"');
  });

  it('replays one receipt of a store by id, and every receipt of it', async () => {
    const db = await createTempDatabase(TEST_DATABASE_URL);
    try {
      const store = await createStore({ databaseUrl: db.url, poolSize: 1 });
      const tie = input([evidence(12, ['met', 'not_met', 'met']), evidence(13, ['met', 'not_met', 'met'])]);
      const plan = planSelection(tie);
      const ids: number[] = [];
      for (const a of plan.actions) if (a.kind === 'receipt') ids.push(await store.addReceipt(a.receipt));
      await store.db.query(
        `INSERT INTO receipts (kind, repo, change, round, at, data) VALUES ('CANDIDATE_SELECTION', 'acme/planner', 42, 0, now(), '{"winner": 12}')`,
      );
      await store.close();
      const one = await run('--database-url', db.url, '--id', String(ids[1]));
      expect(one).toEqual({
        code: 0,
        text: `receipt ${ids[1]} (HUMAN_GATE, round 1): same decision: this HUMAN_GATE receipt of round 1 is one of the actions its selection planned, and replays with it`,
      });
      const all = await run('--database-url', db.url);
      expect(all.code).toBe(1);
      expect(all.text.split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^receipt ${ids[0]} \\(CANDIDATE_SELECTION, round 1\\): same decision`)),
        expect.stringMatching(new RegExp(`^receipt ${ids[1]} \\(HUMAN_GATE, round 1\\): same decision`)),
        expect.stringMatching(
          /^receipt \d+ \(CANDIDATE_SELECTION, round 0\): cannot replay: recorded by an older version \(CANDIDATE_SELECTION: data\.verdict: /,
        ),
      ]);
      expect(await run('--database-url', db.url, '--id', '999999')).toEqual({
        code: 2,
        text: 'cannot read the receipts: no receipt with id 999999 in the store',
      });
    } finally {
      await db.drop();
    }
  });

  it('says how to call it when the arguments are wrong', async () => {
    expect(await run()).toEqual({ code: 2, text: expect.stringContaining('usage: npm run replay -- RECEIPT.json') });
    expect((await run('--id', 'x', '--data-dir', dir)).code).toBe(2);
  });
});

describe('replaying a selection with a candidate set', () => {
  const heads = { 'acme/api#7': 'a'.repeat(40), 'acme/ui#9': 'b'.repeat(40) };
  const set = (statuses: CriterionStatus[]): SetRecord =>
    judgedSet({
      change: { repo: 'acme/planner', number: 42 },
      heads,
      criteria: crit,
      statuses,
      // Each member's changes at its head, read for the risk policy (the default one applies to both).
      changes: ordinaryChanges(heads, { autoShip: ['low', 'medium'], rules: configOf().policy.rules }),
    });

  const withSet = (statuses: CriterionStatus[]): SelectionInput => ({
    ...input([evidence(12, ['met', 'not_met', 'met'])]),
    config: configOf({ repair: { enabled: false } }),
    sets: { records: [set(statuses)], web: 'https://github.com' },
  });

  it('records the set among the inputs and in the ranking, and decides the same again', () => {
    const receipt = recorded(withSet(['met', 'met', 'met']));
    const data = receipt.data as { verdict: string; sets: unknown[]; losers: { pr: number; reason: string }[] };
    // The set ships by itself: the receipt says ship, and no person's gate is put up (no HUMAN_GATE receipt).
    expect(data.verdict).toBe('ship');
    expect((receipt.data as { outcome: string[] }).outcome.filter((l) => l.includes('HUMAN_GATE'))).toEqual([]);
    expect(data.sets).toEqual([
      {
        set: 'good',
        members: ['acme/api#7', 'acme/ui#9'],
        rank: 1,
        promotable: true,
        met: 3,
        gaps: 0,
        score: null,
        passing: 2,
        outcome: 'won',
      },
    ]);
    // The set met every criterion, so it ships; #12 closes once its members merged.
    expect(data.losers[0]!.reason).toMatch(
      /^loses to set `good` \(acme\/api#7, acme\/ui#9\) once its members merged: set `good` \(acme\/api#7, acme\/ui#9\) met 3 of 3/,
    );
    expect((receipt.data as { outcome: string[] }).outcome).toContain(
      'ship set good: merge acme/api#7, then acme/ui#9, each at its verified head',
    );
    expect(replayReceipt(receipt)).toMatchObject({ result: 'same' });
  });

  it('an edited set evidence shows the difference: #12 is the best candidate, the set stays open', () => {
    const receipt = recorded(withSet(['met', 'met', 'met']));
    const inputs = (receipt.data as { inputs: { sets: { records: SetRecord[] } } }).inputs;
    inputs.sets.records[0]!.acceptance!.evidence.results[1]!.status = 'not_met';
    inputs.sets.records[0]!.acceptance!.evidence.results[2]!.status = 'not_met';
    const r = replayReceipt(receipt);
    expect(r.result).toBe('different');
    const diff = r.result === 'different' ? r.diff : [];
    expect(diff).toContain('winner: null → 12');
    // The set's members no longer ship.
    expect(diff.some((l) => l.startsWith('- ') && l.includes('acme/api'))).toBe(true);
  });

  it('the members’ changes are among the recorded inputs: a member changing a workflow replays as a set held by the policy', () => {
    const receipt = recorded(withSet(['met', 'met', 'met']));
    const inputs = (receipt.data as { inputs: { sets: { records: SetRecord[] } } }).inputs;
    inputs.sets.records[0]!.changes![1]!.changedPaths = ['.github/workflows/ci.yml'];
    const r = replayReceipt(receipt);
    expect(r.result).toBe('different');
    const diff = r.result === 'different' ? r.diff : [];
    expect(diff.some((l) => l.startsWith('- ') && l.includes('ship set good'))).toBe(true);
    expect(diff.find((l) => l.startsWith('headline: '))).toMatch(
      /→ ".*The set is high risk \(member acme\/ui#9: high: changes `acme\/ui: \.github\/workflows\/ci\.yml`\), which the policy does not ship without a person/,
    );
  });
});
