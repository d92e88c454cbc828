// Portfolio search's steps as plans (src/core/plan/portfolio-steps.ts): an explore's dispatches and
// its log, a candidate that fills its slot or brings its refine, and the sweep's expiries, each a
// conditional store record whose answer names what follows.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import {
  planExploreDispatch,
  planExploreEmpty,
  planPortfolioCandidate,
  planRefineExpired,
  planSlotExpired,
  type PortfolioCandidateView,
  type SlotRead,
} from '../../src/core/plan/portfolio-steps.ts';

const REPO = 'acme/todo';
const NOW = '2026-01-02T03:04:05.000Z';
const kinds = (actions: Action[]): string[] => actions.map((a) => a.kind);

const slot = (n: number, over: Partial<SlotRead> = {}): SlotRead => ({
  slot: `7-1-${n}`,
  portfolio: 1,
  approach: `approach ${n}`,
  state: 'composing',
  pr: null,
  ...over,
});

const view = (over: Partial<PortfolioCandidateView> = {}): PortfolioCandidateView => ({
  repo: REPO,
  candidate: { pr: 21, change: 7, headSha: 'head21', author: 'agent-bot' },
  named: null,
  namedSlot: null,
  explore: { number: 1, phase: 'wide', slots: [slot(1), slot(2)], deep: null },
  approaches: ['approach 1', { approach: 'approach 2', agent: 'agent-bot' }],
  ...over,
});

describe('an explore dispatches one candidate per slot, then logs itself once', () => {
  it('dispatches each slot with its agent, and the event last', () => {
    const actions = planExploreDispatch(
      {
        repo: REPO,
        change: 7,
        portfolio: { number: 2, base: 'main', baseSha: 'base0', wideRound: 3 },
        slots: [
          { slot: '7-2-1', approach: 'a', agent: null },
          { slot: '7-2-2', approach: 'b', agent: 'copilot' },
        ],
        by: 'maintainer',
      },
      NOW,
    );
    expect(kinds(actions)).toEqual(['dispatch', 'dispatch', 'event']);
    expect(actions[0]).toMatchObject({
      key: 'acme/todo#7/p2/request/7-2-1',
      payload: { change: 7, slot: '7-2-1', approach: 'a', phase: 'wide', base: 'main', base_sha: 'base0', round: 3 },
    });
    expect(actions[0].kind === 'dispatch' && 'agent' in actions[0].payload).toBe(false);
    expect(actions[1]).toMatchObject({ payload: { agent: 'copilot' } });
    expect(actions[2]).toMatchObject({
      event: 'portfolio.explore',
      data: { change: 7, portfolio: 2, slots: ['7-2-1', '7-2-2'], by: 'maintainer' },
      at: NOW,
    });
  });
});

describe('a candidate of an explore', () => {
  it('naming a composing slot fills it; the event follows only when it did, else the PR is told', () => {
    const plan = planPortfolioCandidate(view({ named: '7-1-1', namedSlot: slot(1) }), NOW);
    expect(plan.actions).toEqual([]);
    expect(plan.fill).not.toBeNull();
    const fill = plan.fill!;
    expect(fill.actions).toEqual([
      { kind: 'settle-slot', key: fill.gate, change: 7, slot: '7-1-1', to: { state: 'open', pr: 21 } },
    ]);
    expect(fill.then).toMatchObject([
      { kind: 'event', event: 'portfolio.slot-filled', data: { change: 7, slot: '7-1-1', pr: 21 } },
    ]);
    expect(kinds(fill.otherwise)).toEqual(['comment']);
  });

  it('naming a slot that is not open is told so, and fills nothing', () => {
    const plan = planPortfolioCandidate(view({ named: '7-1-1', namedSlot: slot(1, { state: 'open', pr: 22 }) }), NOW);
    expect(plan.fill).toBeNull();
    expect(plan.actions).toHaveLength(1);
    const [note] = plan.actions;
    expect(note.kind === 'comment' && note.body).toContain('slot `7-1-1` is open (filled by #22)');
    expect(note).toMatchObject({ issue: 21, marker: 'unlinked-slot:21', key: 'acme/todo#7/unlinked-slot/21/7-1-1' });
  });

  it('naming a slot it already fills does nothing', () => {
    const plan = planPortfolioCandidate(view({ named: '7-1-1', namedSlot: slot(1, { state: 'open', pr: 21 }) }), NOW);
    expect(plan).toEqual({ actions: [], fill: null });
  });

  it('without the line fills the composing slot whose approach names its author, logged as by the agent', () => {
    const plan = planPortfolioCandidate(view(), NOW);
    expect(plan.fill?.actions).toMatchObject([{ kind: 'settle-slot', slot: '7-1-2', to: { state: 'open', pr: 21 } }]);
    expect(plan.fill?.then).toMatchObject([{ data: { slot: '7-1-2', pr: 21, by: 'agent' } }]);
    expect(plan.fill?.otherwise).toEqual([]);
    // Another author, or a PR that fills a slot already, or no wide round: nothing.
    const other = { ...view().candidate, author: 'someone' };
    expect(planPortfolioCandidate(view({ candidate: other }), NOW)).toEqual({ actions: [], fill: null });
    const filled = view({ explore: { number: 1, phase: 'wide', slots: [slot(2, { pr: 21 })], deep: null } });
    expect(planPortfolioCandidate(filled, NOW)).toEqual({ actions: [], fill: null });
  });

  it('a new head on an awaited deep candidate settles its refine as arrived; the same head does not', () => {
    const deep = (headSha: string) =>
      view({ explore: { number: 1, phase: 'deep', slots: [], deep: { headSha, state: 'awaiting' } } });
    expect(planPortfolioCandidate(deep('old'), NOW).actions).toEqual([
      { kind: 'settle-deep', key: 'acme/todo#7/p1/deep/21/arrived', change: 7, portfolio: 1, pr: 21, state: 'arrived' },
    ]);
    expect(planPortfolioCandidate(deep('head21'), NOW).actions).toEqual([]);
  });
});

describe("the sweep's expiries", () => {
  it('a slot past its compose timeout is dropped with the reason, logged only when this drop took it', () => {
    const plan = planSlotExpired({ repo: REPO, change: 7, portfolio: 1, slot: '7-1-2', timeout: 600 }, NOW);
    const reason = 'no pull request within 600 s (`portfolio.composeTimeout`)';
    expect(plan.actions).toEqual([
      { kind: 'settle-slot', key: plan.gate, change: 7, slot: '7-1-2', to: { state: 'dropped', reason } },
    ]);
    expect(plan.then).toMatchObject([{ kind: 'event', event: 'portfolio.slot-dropped', data: { reason }, at: NOW }]);
    expect(plan.otherwise).toEqual([]);
  });

  it('an explore ends from its wide round when no slot composes and no candidate is open, said once', () => {
    const slots = [
      { slot: '7-1-1', state: 'dropped' as const },
      { slot: '7-1-2', state: 'dropped' as const },
    ];
    const plan = planExploreEmpty({ repo: REPO, change: 7, portfolio: 1, slots, open: 0 });
    expect(plan?.actions).toEqual([
      { kind: 'portfolio-phase', key: plan?.gate, change: 7, portfolio: 1, from: 'wide', to: 'done' },
    ]);
    expect(plan?.then).toMatchObject([{ kind: 'comment', key: 'acme/todo#7/p1/empty', marker: 'portfolio-empty:7:1' }]);
    expect(planExploreEmpty({ repo: REPO, change: 7, portfolio: 1, slots, open: 1 })).toBeNull();
    const composing = [slots[0], { slot: '7-1-2', state: 'composing' as const }];
    expect(planExploreEmpty({ repo: REPO, change: 7, portfolio: 1, slots: composing, open: 0 })).toBeNull();
  });

  it('an expired refine is logged, and opens the next round only while the decided wide round is current', () => {
    const base = { repo: REPO, change: 7, portfolio: 1, pr: 21 };
    const open = planRefineExpired({ ...base, wideDecided: { base: 'main', round: 2 } }, NOW);
    expect(open.actions).toEqual([
      { kind: 'settle-deep', key: open.gate, change: 7, portfolio: 1, pr: 21, state: 'expired' },
    ]);
    expect(open.then).toMatchObject([
      { kind: 'event', event: 'portfolio.refine-expired', data: { change: 7, pr: 21 } },
      { kind: 'open-round', change: 7, base: 'main', from: 2, at: NOW },
    ]);
    expect(kinds(planRefineExpired({ ...base, wideDecided: null }, NOW).then)).toEqual(['event']);
  });
});
