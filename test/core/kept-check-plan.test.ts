// The pure planners of a kept check event: keep it on the head with the run's time, take the head's
// kept events; each run and time is its own record (a second event keeps again), and shadow mode
// keeps both (they change nothing on GitHub).
import { describe, expect, it } from 'vitest';
import { planKeepCheck, planTakeKept } from '../../src/core/plan/kept-check.ts';
import { forMode } from '../../src/core/shadow.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const view = { repo: 'acme/todo', headSha: 'abc1234', token: 'delivery:1' };

describe('planKeepCheck and planTakeKept', () => {
  it('keeps the event on its head at the run’s time, and takes the head’s kept events', () => {
    expect(planKeepCheck(view, NOW)).toMatchObject([{ kind: 'keep-check', headSha: 'abc1234', at: NOW }]);
    expect(planTakeKept(view, NOW)).toMatchObject([{ kind: 'take-kept-checks', headSha: 'abc1234' }]);
    const both = [...planKeepCheck(view, NOW), ...planTakeKept(view, NOW)];
    expect(forMode(both, { mode: 'shadow' })).toEqual(both);
  });

  it('records each event on its own: another run, a later time, and the take apart from the keep', () => {
    const key = (v = view, at = NOW): string => planKeepCheck(v, at)[0]!.key;
    expect(key()).toBe(key());
    expect(key({ ...view, token: 'delivery:2' })).not.toBe(key());
    expect(key(view, '2026-01-01T00:00:00.001Z')).not.toBe(key());
    expect(key({ ...view, headSha: 'def5678' })).not.toBe(key());
    expect(planTakeKept(view, NOW)[0]!.key).not.toBe(key());
  });
});
