// The pure planner of a promotion's store records: the Change's state a decided round or a merge's
// answer leaves, the next round a moved or updated head opens, keyed so each applies once, and
// kept in shadow mode (they record what happened, as the direct writes they replace did).
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import {
  planPromotionRecords,
  reverifyOnce,
  type PromotionRecordsView,
} from '../../src/core/plan/promotion-records.ts';
import { forMode } from '../../src/core/shadow.ts';

const view: PromotionRecordsView = {
  repo: 'o/r',
  change: 1,
  base: 'main',
  round: 3,
  scope: 'main/r3',
  now: '2026-01-01T00:00:00.000Z',
};
const SHA = 'a'.repeat(40);
const kinds = (actions: Action[]): string[] => actions.map((a) => a.kind);
const changeState = (actions: Action[]): string[] =>
  actions.flatMap((a) => (a.kind === 'set-change-state' ? [a.state] : []));

describe('planPromotionRecords', () => {
  it.each<['human' | 'repair', string]>([
    ['human', 'human'],
    ['repair', 'open'],
  ])('a round decided %s leaves the Change %s', (verdict, state) => {
    expect(changeState(planPromotionRecords({ ...view, what: 'verdict', verdict }))).toEqual([state]);
  });

  it('a refused merge puts the Change before a person; a shipped one marks it shipped', () => {
    expect(changeState(planPromotionRecords({ ...view, what: 'refused', pr: 7, sha: SHA }))).toEqual(['human']);
    expect(changeState(planPromotionRecords({ ...view, what: 'shipped', pr: 7, sha: SHA }))).toEqual(['shipped']);
  });

  it.each<['moved' | 'updated', string, string[]]>([
    ['moved', 'promotion.head-moved', ['open-round', 'set-state', 'event']],
    ['updated', 'promotion.branch-updated', ['open-round', 'set-state', 'event', 'record']],
  ])('a %s head opens the next round from this one and is verified again', (what, event, expected) => {
    const actions = planPromotionRecords({ ...view, what, pr: 7, sha: SHA });
    expect(kinds(actions)).toEqual(expected);
    expect(actions[0]).toMatchObject({ change: 1, base: 'main', from: 3, at: view.now });
    expect(actions[1]).toMatchObject({ pr: 7, state: 'verifying' });
    expect(actions[2]).toMatchObject({ event, data: { pr: 7, sha: SHA, round: 3 } });
  });

  it('keys each record by the decision and the PR, so a redelivery applies it once and another round anew', () => {
    const moved = planPromotionRecords({ ...view, what: 'moved', pr: 7, sha: SHA });
    expect(new Set(moved.map((a) => a.key)).size).toBe(moved.length);
    expect(planPromotionRecords({ ...view, what: 'moved', pr: 7, sha: SHA })).toEqual(moved);
    const next = planPromotionRecords({ ...view, round: 4, scope: 'main/r4', what: 'moved', pr: 7, sha: SHA });
    for (const a of next) expect(moved.map((m) => m.key)).not.toContain(a.key);
    const other = planPromotionRecords({ ...view, what: 'moved', pr: 8, sha: SHA });
    for (const a of other) expect(moved.map((m) => m.key)).not.toContain(a.key);
    // Updated and moved in one round are two answers, each with its own records.
    const updated = planPromotionRecords({ ...view, what: 'updated', pr: 7, sha: SHA });
    for (const a of updated) expect(moved.map((m) => m.key)).not.toContain(a.key);
  });

  it('the shipped state is keyed by the candidate, not the run that saw the merge', () => {
    const byPromote = planPromotionRecords({ ...view, scope: `promote/7@${SHA}`, what: 'shipped', pr: 7, sha: SHA });
    const byWebhook = planPromotionRecords({ ...view, what: 'shipped', pr: 7, sha: SHA });
    expect(byPromote.map((a) => a.key)).toEqual(byWebhook.map((a) => a.key));
  });

  it('shadow mode keeps every record, as it kept the writes they replace', () => {
    const all: Action[] = [
      ...planPromotionRecords({ ...view, what: 'verdict', verdict: 'human' }),
      ...planPromotionRecords({ ...view, what: 'refused', pr: 7, sha: SHA }),
      ...planPromotionRecords({ ...view, what: 'shipped', pr: 7, sha: SHA }),
      ...planPromotionRecords({ ...view, what: 'moved', pr: 7, sha: SHA }),
      ...planPromotionRecords({ ...view, what: 'updated', pr: 7, sha: SHA }),
      reverifyOnce(view, 7, SHA),
    ];
    expect(forMode(all, { mode: 'shadow' })).toEqual(all);
  });

  it('shadow mode still drops a decided change of state that is not observed', () => {
    const decided: Action = { kind: 'set-change-state', key: 'k', change: 1, state: 'cancelled' };
    expect(forMode([decided], { mode: 'shadow' })).toEqual([]);
  });

  it('re-verifies a moved head once per PR and head', () => {
    expect(reverifyOnce(view, 7, SHA).key).not.toBe(reverifyOnce(view, 7, 'b'.repeat(40)).key);
    expect(reverifyOnce(view, 7, SHA).key).toBe(reverifyOnce({ ...view, round: 4 }, 7, SHA).key);
  });
});
