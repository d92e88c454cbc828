// The human gate in shadow mode says what would happen: nothing ships there, so its ways out are
// what would ship the winner in live mode, and no line tells a person "to ship" it now. Rendered
// with the GFM parser, read as the visible text.
import { describe, expect, it } from 'vitest';
import { renderHumanGate, type HumanGateInput } from '../../src/core/render/human-gate.ts';
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
  mentions: [],
  losers: [13],
  repoUrl: 'https://github.com/acme/web',
};

describe('the human gate, live and shadow', () => {
  it('live: a person must decide, and the ways out ship it', () => {
    const text = structureOf(renderHumanGate(input)).visible;
    expect(text).toContain('#12 waits for a person');
    expect(text).toContain('To ship #12, do one of:');
    expect(text).toContain('approve #12 in a review (write access);');
  });

  it('shadow: every line says "would", none tells a person to ship it now', () => {
    const text = structureOf(renderHumanGate({ ...input, shadow: true })).visible;
    expect(text).toContain('#12 would wait for a person');
    expect(text).toContain('a person would decide whether it ships');
    expect(text).toContain('In live mode, any one of these would ship #12');
    expect(text).toContain('nothing would be merged');
    expect(text).toContain('an approval of #12 in a review (write access);');
    expect(text).toContain('would stop the Change');
    expect(text).toContain('would ship it instead');
    expect(text).not.toMatch(/to ship|approve #12|must decide|waits for/i);
  });
});
