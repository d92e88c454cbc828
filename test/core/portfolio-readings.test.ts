// The wide round's records as plans (src/core/plan/portfolio-readings.ts): readings keyed by the
// request they answer and kept once, and the round's end (the explore's next phase, the round done).
import { describe, expect, it } from 'vitest';
import { planReadings, planWideEnd, wideDecidedEvent } from '../../src/core/plan/portfolio-readings.ts';

const REPO = 'acme/todo';
const base = { repo: REPO, change: 7, portfolio: 1 };
const run = (id: number, score: number | null, completedAt: string | null = '2026-01-01T00:00:00.000Z') => ({
  id,
  score,
  completedAt,
});

describe('readings of the scoring check', () => {
  it('reading 0 is the first scored run; each later one answers a request; the new ones are kept', () => {
    const plan = planReadings({
      ...base,
      known: [],
      siblings: [
        { pr: 21, done: [run(100, null), run(101, 0.8)], requests: [] },
        { pr: 22, done: [run(200, 0.5), run(201, 0.7)], requests: [{ rerun: 200, at: '2026-01-01T00:00:00.000Z' }] },
      ],
    });
    expect(plan.readings).toEqual([
      { pr: 21, run: 0, value: 0.8 },
      { pr: 22, run: 0, value: 0.5 },
      { pr: 22, run: 1, value: 0.7 },
    ]);
    expect(plan.actions).toEqual([
      { kind: 'put-readings', key: plan.actions[0].key, change: 7, portfolio: 1, readings: plan.readings },
    ]);
    expect(plan.actions[0].key).toMatch(/^acme\/todo#7\/p1\/readings\//);
  });

  it('a run updated in place answers a request only when it completed again after it', () => {
    const asked = { rerun: 300, at: '2026-01-01T00:10:00.000Z' };
    const view = (completedAt: string) => ({
      ...base,
      known: [{ pr: 23, run: 0, value: 0.4 }],
      siblings: [{ pr: 23, done: [run(300, 0.6, completedAt)], requests: [asked] }],
    });
    expect(planReadings(view('2026-01-01T00:05:00.000Z'))).toEqual({
      readings: [{ pr: 23, run: 0, value: 0.4 }],
      actions: [],
    });
    expect(planReadings(view('2026-01-01T00:15:00.000Z')).readings).toEqual([
      { pr: 23, run: 0, value: 0.4 },
      { pr: 23, run: 1, value: 0.6 },
    ]);
  });

  it('keeps nothing it has already', () => {
    const known = [{ pr: 21, run: 0, value: 0.8 }];
    const plan = planReadings({ ...base, known, siblings: [{ pr: 21, done: [run(101, 0.9)], requests: [] }] });
    expect(plan).toEqual({ readings: known, actions: [] });
  });
});

describe('the wide round carried out', () => {
  it('goes deep, or is done when the filter kept the refines back; the round is done either way', () => {
    const end = { ...base, roundId: 12, token: 'job-1' };
    expect(planWideEnd({ ...end, withheld: false })).toEqual([
      { kind: 'portfolio-phase', key: 'acme/todo#7/p1/wide/end', change: 7, portfolio: 1, from: 'wide', to: 'deep' },
      { kind: 'record', key: 'round-done:12', value: { token: 'job-1' } },
    ]);
    expect(planWideEnd({ ...end, withheld: true })[0]).toMatchObject({ to: 'done' });
  });

  it('logs the decision once per explore', () => {
    expect(wideDecidedEvent(REPO, 7, 1, 3, 'at')).toEqual({
      kind: 'event',
      key: 'acme/todo#7/p1/wide/decided',
      event: 'round.decided',
      data: { change: 7, round: 3, verdict: 'portfolio-wide' },
      at: 'at',
    });
  });
});
