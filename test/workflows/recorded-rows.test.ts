// Rows read back are parsed, never cast: a round's recorded plan that does not have this
// version's shape (an unknown set-state, a missing verdict) is decided-but-unreadable (an error
// line and a comment naming the round, nothing re-decided or merged), one of ad01e9d's parses, a merge result of the wrong shape is refused, and a receipt a selection
// planned is found among that selection's actions when replayed from the store.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readSelectionPlan, RecordedShapeError, parseRecorded } from '../../src/core/plan-schema.ts';
import { MergeResult } from '../../src/github/port.ts';
import { replayStored } from '../../src/replay/stored.ts';
import type { StoreWithDb } from '../../src/store/store.ts';
import { selectionStep } from '../../src/workflows/select.ts';
import { selectAndFollow } from '../../src/workflows/flow.ts';
import { unreadableMarker } from '../../src/workflows/recorded-plan.ts';
import { markerFor } from '../../src/core/render/markers.ts';
import { structureOf } from '../support/gfm.ts';
import pino from 'pino';
import { openBackend, type OpenedBackend } from '../store/backends.ts';
import { configOf, makeWorld, seedGroup } from '../support/selection-world.ts';

const KEY = 'acme/todo';

describe('recorded rows', () => {
  let opened: OpenedBackend;
  let store: StoreWithDb;
  beforeAll(async () => {
    opened = await openBackend('pglite', 'wf-recorded-rows');
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());
  beforeEach(async () => opened.truncate());

  it('a recorded plan that does not parse is decided-but-unreadable: nothing re-decided or merged, the run ends, a person is told the round', async () => {
    const w = makeWorld({ store });
    await seedGroup(w, { siblings: [{ pr: 12 }, { pr: 13, acceptance: { AC3: 'not_met' } }] });
    const round = await store.currentRound(KEY, 42, 'main', w.clock.now().toISOString());
    expect(await store.claimRound(round.id, 'delivery:d-1')).toBe('claimed');
    // An older version's shape: a set-state this version does not know, no receipt.
    const plan = {
      verdict: { kind: 'ship', winner: 12, losers: [13], risk: { risk: 'low', reasons: [], mayShip: true } },
      actions: [
        { kind: 'set-state', key: 'k', pr: 12, state: 'archived', reason: 'x' },
        { kind: 'merge', key: 'm', pr: 12, sha: 'a'.repeat(40), method: 'squash' },
      ],
    };
    await store.recordDecision(round.id, plan, w.clock.now().toISOString(), 'delivery:d-1');
    const lines: Array<{ level: number; msg: string; roundId?: number }> = [];
    const log = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const ctx = { ...w.ctx('delivery:d-1'), log };
    // The delivery's driver (and its retry) under the claimant's token: it ends, it does not throw.
    await expect(selectAndFollow(ctx, 42, 'main')).resolves.toBeUndefined();
    const errors = lines.filter((l) => l.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.roundId).toBe(round.id);
    expect(errors[0]!.msg).toContain(`round ${round.id} (Change #42`);
    expect(errors[0]!.msg).toMatch(/actions\.0\.state/);
    // The only write is the comment on the Change; nothing merged, closed or set.
    expect(w.gh.writes.filter((l) => !l.startsWith('check '))).toEqual([`comment #42 ${unreadableMarker(round.id)}`]);
    const said = w.gh.commentsOn(42).find((c) => c.body.includes(markerFor(unreadableMarker(round.id))));
    const { visible } = structureOf(said!.body);
    expect(visible).toContain(`round id ${round.id}`);
    expect(visible).toContain('A person must look.');
    expect((await store.getCandidate(KEY, 12))?.state).not.toBe('archived');
    expect((await store.getRound(round.id))?.decision).toEqual(plan); // nothing re-decided
    // A retry, or the next delivery, ends at once: no second comment, no second error.
    w.gh.resetRecord();
    await expect(selectAndFollow(ctx, 42, 'main')).resolves.toBeUndefined();
    await expect(selectAndFollow({ ...w.ctx('delivery:d-2'), log }, 42, 'main')).resolves.toBeUndefined();
    expect(w.gh.writes.filter((l) => !l.startsWith('check '))).toEqual([]);
    expect(lines.filter((l) => l.level >= 50)).toHaveLength(1);
  });

  it('a plan recorded at ad01e9d (receipt data then a free record) parses', () => {
    // Built by hand from that version's SelectionPlan and planSelection (a ship of #12 over #13), as stored (JSON).
    const k = (s: string) => `${KEY}#42@main/r1/${s}`;
    const receipt = {
      kind: 'CANDIDATE_SELECTION',
      repo: KEY,
      change: 42,
      round: 1,
      at: '2026-03-02T09:00:00.000Z',
      data: {
        verdict: 'ship',
        winner: 12,
        repairTarget: null,
        beforePerson: [],
        losers: [{ pr: 13, reason: 'Lost to #12: meets 2 of 3 criteria' }],
        ranking: [
          { pr: 12, rank: 1, promotable: true, met: 3, gaps: 0, score: null, passing: 3 },
          { pr: 13, rank: 2, promotable: false, met: 2, gaps: 1, score: null, passing: 3 },
        ],
        judge: null,
        risk: { risk: 'low', reasons: [] },
        diagnostics: {
          submittedCandidates: 2,
          eligibleCandidates: 2,
          excludedCandidates: { fail: 0, inconclusive: 0 },
          comparison: 'not-compared',
        },
        mode: 'live',
        headline: '#12 wins: meets 3 of 3 criteria. It ships (low risk).',
      },
    };
    const check = (pr: number, conclusion: string, title: string) => ({
      kind: 'check-run',
      key: k(`check/selection/${pr}`),
      pr,
      headSha: String(pr).padEnd(40, 'a'),
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion,
      title,
      summary: title,
      text: 'ranking',
    });
    const recorded: unknown = JSON.parse(
      JSON.stringify({
        verdict: { kind: 'ship', winner: 12, losers: [13], risk: { risk: 'low', reasons: [], mayShip: true } },
        receipt,
        actions: [
          { kind: 'receipt', key: k('receipt/selection'), receipt },
          { kind: 'comment', key: k('comparison'), issue: 42, marker: 'comparison:42@main', body: 'comparison' },
          check(12, 'success', 'Selected: ships'),
          { kind: 'set-state', key: k('state/12'), pr: 12, state: 'selected', reason: 'wins' },
          { kind: 'merge', key: k('merge/12'), pr: 12, sha: '12'.padEnd(40, 'a'), method: 'squash' },
        ],
        afterShip: [
          check(13, 'neutral', 'Lost to #12'),
          { kind: 'comment', key: k('note/13'), issue: 13, marker: 'note:13:r1', body: 'Lost to #12.' },
          { kind: 'label', key: k('label-lost/13'), issue: 13, labels: ['arbiter:lost'] },
          { kind: 'close', key: k('close/13'), pr: 13 },
          { kind: 'set-state', key: k('state/13'), pr: 13, state: 'rejected', reason: 'Lost to #12' },
        ],
        onRefused: [
          { kind: 'comment', key: k('comparison/refused'), issue: 42, marker: 'comparison:42@main', body: 'refused' },
        ],
      }),
    );
    const plan = readSelectionPlan(recorded);
    expect(plan?.verdict).toEqual({
      kind: 'ship',
      winner: 12,
      losers: [13],
      risk: { risk: 'low', reasons: [], mayShip: true },
    });
    expect(plan?.actions.map((a) => a.kind)).toEqual(['receipt', 'comment', 'check-run', 'set-state', 'merge']);
    expect(plan?.afterShip?.map((a) => a.kind)).toEqual(['check-run', 'comment', 'label', 'close', 'set-state']);
  });

  it('a portfolio wide decision is no selection plan, and a merge result of another shape is refused', () => {
    expect(readSelectionPlan({ verdict: { kind: 'portfolio-wide', deep: [21], out: [23] }, actions: [] })).toBeNull();
    expect(readSelectionPlan(null)).toBeNull();
    expect(() => readSelectionPlan({ verdict: { kind: 'ship' } })).toThrow(RecordedShapeError);
    expect(parseRecorded(MergeResult, { ok: false, status: 409, message: 'head moved' }, 'merge')).toEqual({
      ok: false,
      status: 409,
      message: 'head moved',
    });
    expect(() => parseRecorded(MergeResult, { done: true }, 'the merge result')).toThrow(
      /the merge result recorded by an older version does not parse/,
    );
  });

  it('the repair receipt a selection planned replays with that selection', async () => {
    const w = makeWorld({ store, config: configOf() });
    await seedGroup(w, { siblings: [{ pr: 13, acceptance: { AC3: 'not_met' } }] });
    await selectionStep(w.ctx('job-a'), 42, 'main');
    const replayed = replayStored(await store.readReceipts({}));
    expect(replayed.map((r) => [r.kind, r.result.result])).toEqual([
      ['CANDIDATE_SELECTION', 'same'],
      ['ACCEPTANCE_REPAIR', 'part-of-selection'],
    ]);
  });
});
