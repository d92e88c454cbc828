// The pure planners of recording a head as a candidate: the row (verifying afresh) and the take of
// its kept check events, logged when any were taken; the next round only when the round was decided
// or claimed (a Change waiting for a person is open again); the patch once fetched; and every record
// kept in shadow mode, as the direct writes were.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import {
  planKeptApplied,
  planPatch,
  planRecorded,
  planRecording,
  planWaitingForEvidence,
  type RecordedView,
  type RecordingHead,
} from '../../src/core/plan/recording.ts';
import { forMode } from '../../src/core/shadow.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const head: RecordingHead = {
  repo: 'acme/todo',
  change: 42,
  pr: 12,
  base: 'main',
  headSha: 'abc1234',
  author: 'dev',
  token: 'delivery:1',
};
const kinds = (actions: Action[]): string[] => actions.map((a) => (a.kind === 'event' ? a.event : a.kind));
const shadowKeeps = (actions: Action[]): void => expect(forMode(actions, { mode: 'shadow' })).toEqual(actions);

describe('planRecording', () => {
  it('records the candidate verifying, then takes its head’s kept check events', () => {
    const plan = planRecording({ head, existing: false }, NOW);
    expect(kinds(plan.actions)).toEqual(['record-candidate', 'take-kept-checks']);
    expect(plan.actions[0]).toMatchObject({
      candidate: { pr: 12, change: 42, base: 'main', headSha: 'abc1234', author: 'dev', state: 'verifying' },
    });
    expect(plan.actions[0]).toMatchObject({ candidate: { reason: 'recorded', headSeenAt: NOW } });
    expect(plan.actions[1]).toMatchObject({ key: plan.takesKept, headSha: 'abc1234' });
    shadowKeeps(plan.actions);
  });

  it('says a stored candidate has new commits, and records again at a later time', () => {
    const again = planRecording({ head, existing: true }, NOW);
    expect(again.actions[0]).toMatchObject({ candidate: { reason: 'new commits' } });
    const later = planRecording({ head, existing: true }, '2026-01-01T00:00:01.000Z');
    expect(later.actions.map((a) => a.key)).not.toEqual(again.actions.map((a) => a.key));
  });

  it('logs the kept events only when some were taken', () => {
    expect(planKeptApplied(head, 0, NOW)).toEqual([]);
    expect(planKeptApplied(head, 3, NOW)).toMatchObject([
      { kind: 'event', event: 'check.kept-applied', data: { pr: 12, headSha: 'abc1234', events: 3 }, at: NOW },
    ]);
  });
});

describe('planRecorded', () => {
  const view = (over: Partial<RecordedView> = {}): RecordedView => ({
    head,
    existing: false,
    round: { number: 3, decided: false },
    changeState: 'open',
    ...over,
  });

  it('logs the recording alone while the round is undecided', () => {
    expect(kinds(planRecorded(view(), NOW))).toEqual(['candidate.recorded']);
    expect(kinds(planRecorded(view({ existing: true, changeState: 'human' }), NOW))).toEqual(['candidate.new-head']);
  });

  it('opens the next round after a decided one, and opens a Change that waited for a person', () => {
    const decided = planRecorded(view({ round: { number: 3, decided: true } }), NOW);
    expect(kinds(decided)).toEqual(['open-round', 'candidate.recorded']);
    expect(decided[0]).toMatchObject({ change: 42, base: 'main', from: 3, at: NOW });
    const human = planRecorded(view({ round: { number: 3, decided: true }, changeState: 'human' }), NOW);
    expect(kinds(human)).toEqual(['open-round', 'set-change-state', 'candidate.recorded']);
    expect(human[1]).toMatchObject({ change: 42, state: 'open' });
    shadowKeeps(human);
    // Only a Change that waited for a person is opened: a shipped one stays shipped.
    const shipped = planRecorded(view({ round: { number: 3, decided: true }, changeState: 'shipped' }), NOW);
    expect(kinds(shipped)).toEqual(['open-round', 'candidate.recorded']);
  });
});

describe('planPatch and planWaitingForEvidence', () => {
  it('stores a fetched patch, and nothing when it was stored already', () => {
    const patch = { pr: 12, headSha: 'abc1234', mergeBase: 'base1', patch: 'diff', truncated: false, files: [] };
    expect(planPatch(head, null, NOW)).toEqual([]);
    expect(planPatch(head, patch, NOW)).toMatchObject([{ kind: 'put-patch', patch }]);
  });

  it('shows the selection check waiting for evidence on the head', () => {
    expect(planWaitingForEvidence(head)).toMatchObject({
      kind: 'check-run',
      pr: 12,
      headSha: 'abc1234',
      name: 'Arbiter / selection',
      status: 'in_progress',
      title: 'Waiting for evidence',
    });
  });
});
