// The late sibling's plan (src/core/plan/late-sibling.ts): answered and closed as stale, then
// recorded; the same actions in both modes, and the one shadow filter keeps only the words and the record.
import { describe, expect, it } from 'vitest';
import { planLateSibling, type LateSiblingInput } from '../../src/core/plan/late-sibling.ts';
import { forMode } from '../../src/core/shadow.ts';

const input: LateSiblingInput = {
  repo: 'acme/todo',
  change: 7,
  shipped: 21,
  pull: { number: 23, headSha: 'abc1234', base: 'main', author: 'agent' },
  config: { mode: 'live' },
  now: '2026-01-01T00:00:00.000Z',
};

describe('planLateSibling', () => {
  it('answers, closes as stale, then records the candidate stale, in that order', () => {
    const plan = planLateSibling(input);
    expect(plan.map((a) => a.kind)).toEqual(['check-run', 'comment', 'close', 'record-candidate']);
    expect(plan[0]).toMatchObject({ conclusion: 'neutral', title: '#21 already shipped for #7' });
    expect(plan[3]).toMatchObject({
      candidate: { pr: 23, change: 7, state: 'stale', reason: '#21 already shipped for #7.' },
    });
    expect(planLateSibling({ ...input, shipped: null })[0]).toMatchObject({ title: '#7 was cancelled' });
  });

  it('shadow mode: the same plan, said as "would"; the filter keeps all but the closure', () => {
    const plan = planLateSibling({ ...input, config: { mode: 'shadow' } });
    expect(plan.map((a) => a.kind)).toEqual(planLateSibling(input).map((a) => a.kind));
    expect(plan[1]).toMatchObject({ body: expect.stringContaining('Shadow mode: Arbiter would close it as stale.') });
    expect(forMode(plan, { mode: 'shadow' }).map((a) => a.kind)).toEqual(['check-run', 'comment', 'record-candidate']);
  });
});
