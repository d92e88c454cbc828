// A combine in shadow mode is the round's end (issue 26): live mode would combine #12 and #13 and
// ship the combined PR if it passes; shadow mode builds nothing, so no next round would ever decide.
// The round is decided with what live mode would do, the sweep never resumes it, and a second run
// of the selection repeats nothing.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WouldCombineDecision } from '../../src/core/plan-schema.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup } from '../support/selection-world.ts';

const KEY = 'acme/todo';

describe('a combine in shadow mode', () => {
  let opened: OpenedBackend;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-shadow-combine');
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('decides the round with what live mode would do, and ends there', async () => {
    const w = makeWorld({ store: opened.store, config: configOf({ mode: 'shadow' }) });
    // #12 meets AC1 and AC2, #13 meets AC3: together they meet every criterion.
    await seedGroup(w, {
      siblings: [
        { pr: 12, acceptance: { AC3: 'not_met' } },
        { pr: 13, acceptance: { AC1: 'not_met', AC2: 'not_met' } },
      ],
    });
    expect(await selectionStep(w.ctx('job-a'), 42, 'main')).toEqual([]);
    const round = await opened.store.currentRound(KEY, 42, 'main', new Date().toISOString());
    const decided = WouldCombineDecision.safeParse(round.decision);
    expect(decided.success && decided.data.verdict).toEqual({ kind: 'would-combine', a: 12, b: 13 });
    // Nothing was built or closed: GitHub saw checks and a comment only.
    expect(w.gh.writes.filter((l) => !/^(check|comment|update comment) /.test(l))).toEqual([]);
    for (const pr of [12, 13])
      expect(w.gh.checkOn(pr, 'Arbiter / selection')).toMatchObject({
        status: 'completed',
        conclusion: 'neutral',
        title: 'Shadow: would combine #12 and #13',
      });
    expect((await opened.store.listReceipts(KEY, 42)).map((r) => r.kind)).toEqual(['COMBINED_CANDIDATE']);
    // The round is done: the sweep finds nothing to resume, and another run writes nothing.
    expect((await opened.store.listUnfinishedRounds(10)).map((r) => r.change)).toEqual([]);
    const before = w.gh.writes.length;
    expect(await selectionStep(w.ctx('job-b'), 42, 'main')).toEqual([]);
    expect(w.gh.writes.slice(before)).toEqual([]);
  });
});
