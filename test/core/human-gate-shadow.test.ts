// The human gate in shadow mode says what would happen: nothing ships there, so its ways out are
// what would ship the winner in live mode, no line tells a person "to ship" it now, and nobody is
// mentioned (shadow mode asks nobody). The same for a tie's one comment on the Change. Rendered
// with the GFM parser, read as the visible text.
import { describe, expect, it } from 'vitest';
import {
  renderHumanGate,
  renderTiedGate,
  type HumanGateInput,
  type TiedGateInput,
} from '../../src/core/render/human-gate.ts';
import { planHumanGate, type HumanGatePlanInput } from '../../src/core/plan/human-gate.ts';
import { structureOf } from '../support/gfm.ts';

const input: HumanGateInput = {
  marker: 'gate:12:r1',
  pr: 12,
  winner: 12,
  candidates: [12],
  change: 5,
  title: 'Add the export button',
  why: 'a criterion is not met',
  criteria: [{ id: 'C1', text: 'The page has an export button.', check: null }],
  evidence: undefined,
  prefix: '/arbiter',
  mentions: ['@alice'],
  losers: [13],
  repoUrl: 'https://github.com/acme/web',
  config: { mode: 'live' },
};

const tied: TiedGateInput = {
  marker: 'gate:5@main',
  candidates: [12, 14],
  change: 5,
  why: 'the judge could not separate them',
  criteria: input.criteria,
  prefix: '/arbiter',
  mentions: ['@alice'],
  losers: [13],
  repoUrl: 'https://github.com/acme/web',
  evidence: new Map(),
  config: { mode: 'live' },
};

const shadow = { mode: 'shadow' } as const;

describe('the human gate, live and shadow', () => {
  it('live: a person must decide, the reviewer is mentioned, and the ways out ship it', () => {
    const text = structureOf(renderHumanGate(input)).visible;
    expect(text).toContain('#12 waits for a person');
    expect(text).toContain('@alice: your decision is needed.');
    expect(text).toContain('To ship #12, do one of:');
    expect(text).toContain('approve #12 in a review (write access);');
  });

  it('shadow: every line says "would", none tells a person to ship it now, nobody is mentioned', () => {
    const text = structureOf(renderHumanGate({ ...input, config: shadow })).visible;
    expect(text).toContain('#12 would wait for a person');
    expect(text).toContain('a person would decide whether it ships');
    expect(text).toContain('In live mode, any one of these would ship #12');
    expect(text).toContain('nothing would be merged');
    expect(text).toContain('an approval of #12 in a review (write access);');
    expect(text).toContain('would stop the Change');
    expect(text).toContain('would ship it instead');
    expect(text).not.toMatch(/to ship|approve #12|must decide|waits for|@alice/i);
  });
});

describe("a tie's gate on the Change, live and shadow", () => {
  it('live: a person must choose, and each way out is an order', () => {
    const text = structureOf(renderTiedGate(tied)).visible;
    expect(text).toContain('#12 and #14 wait for a person to choose one');
    expect(text).toContain('@alice: your decision is needed.');
    expect(text).toContain('a person must choose which ships');
    expect(text).toContain('To ship one of them, on that pull request do one of:');
    expect(text).toContain('to stop the Change, comment /arbiter cancel on #5.');
  });

  it('shadow: the ways out are what would ship one in live mode, and nobody is mentioned', () => {
    const structure = structureOf(renderTiedGate({ ...tied, config: shadow }));
    const text = structure.visible;
    expect(text).toContain('#12 and #14 would wait for a person to choose one');
    expect(text).toContain('a person would choose which ships');
    expect(text).toContain('In live mode, any one of these on one of them would ship it');
    expect(text).toContain('nothing would be merged');
    expect(text).toContain('an approval of it in a review (write access);');
    expect(text).toContain('the comment /arbiter cancel on #5 would stop the Change.');
    expect(text).toContain('would ship it instead');
    expect(text).not.toMatch(/to ship|approve it|must choose|press \*\*Promote|@alice/i);
    // Two lists (the ways that would ship, the others), kept apart as in live mode.
    expect(structure.lists).toBe(structureOf(renderTiedGate(tied)).lists);
  });
});

describe("the gate's plan: the same actions in both modes, only the words differ", () => {
  const plan = (config: HumanGatePlanInput['config']) =>
    planHumanGate({
      repo: 'acme/web',
      change: { number: 5, criteria: input.criteria },
      base: 'main',
      before: [12, 14],
      winner: null,
      why: 'tied',
      evidence: new Map(),
      heads: new Map([
        [12, 'a'],
        [14, 'b'],
      ]),
      repoUrl: 'https://github.com/acme/web',
      prefix: '/arbiter',
      reviewers: { users: ['alice'], teams: [] },
      config,
      losers: [],
      buttons: [],
      key: (s) => `k/${s}`,
    });

  it('plans the same keys in live and shadow mode (the filter decides what shadow mode writes)', () => {
    expect(plan(shadow).map((a) => a.key)).toEqual(plan({ mode: 'live' }).map((a) => a.key));
    const checks = plan(shadow).flatMap((a) => (a.kind === 'check-run' ? [a.title] : []));
    expect(checks).toEqual(['Shadow: a person would decide', 'Shadow: a person would decide']);
  });
});
