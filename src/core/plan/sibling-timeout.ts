// The sweep's decision on a candidate whose head has waited `selection.siblingTimeout`: its required
// checks never finished (it is settled unpromotable, "timed out"), or its agent is still composing
// (its round goes on without it, once per head). Pure: the sweep reads the candidate and its gate evidence.
import { checkAction, recordAction, type Action } from '../actions.ts';
import { stillWorking } from '../agent-work.ts';
import { timeOutGate } from '../gate.ts';
import { composeTimeoutKey, siblingTimeoutKey } from '../keys.ts';
import { gateTitle, renderGateTable } from '../render/check-text.ts';
import type { GateEvidence } from '../types.ts';
import { composingTimedOut } from './agent-hold.ts';

/** What the sweep reads of a verifying candidate. */
export interface SiblingTimeoutView {
  repo: string;
  candidate: {
    pr: number;
    change: number;
    headSha: string;
    author: string;
    /** The stored reason of its last transition (an agent's work in progress says so). */
    reason: string;
    /** When its head was first seen (ISO). */
    headSeenAt: string;
  };
  /** `selection.siblingTimeout`, in seconds. */
  timeout: number;
  /** The head's stored gate evidence (null: none, or unreadable). */
  gate: GateEvidence | null;
}

export interface SiblingTimeoutPlan {
  actions: Action[];
  /**
   * The key of the action whose application hands the candidate's group to its selection step on
   * this sweep (null: nothing to do). A composing head is handed on once: its record's first
   * application only.
   */
  handsOn: string | null;
}

const NOTHING: SiblingTimeoutPlan = { actions: [], handsOn: null };

export function planSiblingTimeout(view: SiblingTimeoutView, now: string): SiblingTimeoutPlan {
  const { repo, candidate: c } = view;
  if (!composingTimedOut(c.headSeenAt, view.timeout, now)) return NOTHING;
  // Its agent still at work: its checks are not timed out; the round goes on without it, once.
  if (c.reason === stillWorking(c.author, c.pr)) {
    const key = composeTimeoutKey(repo, c.pr, c.headSha);
    return { actions: [recordAction(key, {})], handsOn: key };
  }
  // Runs that wait for a maintainer's approval wait for that person, however long: the checks say what to approve.
  if (view.gate === null || view.gate.settled || view.gate.awaitingApproval) return NOTHING;
  const gate = timeOutGate(view.gate);
  const k = (what: string): string => siblingTimeoutKey(repo, c.change, c.pr, c.headSha, now, what);
  const state = k('state');
  const head = { pr: c.pr, headSha: c.headSha, status: 'completed' as const };
  return {
    handsOn: state,
    actions: [
      { kind: 'put-evidence', key: k('gate'), pr: c.pr, headSha: c.headSha, evidence: { of: 'gate', data: gate } },
      // Observed, not decided: the checks did not finish on GitHub in time (kept in shadow mode).
      { kind: 'set-state', key: state, pr: c.pr, state: 'unpromotable', reason: 'timed out', observed: true },
      checkAction(repo, {
        ...head,
        name: 'Arbiter / gate',
        conclusion: 'failure',
        title: gateTitle(gate),
        summary: renderGateTable(gate),
      }),
      checkAction(repo, {
        ...head,
        name: 'Arbiter / acceptance',
        conclusion: 'neutral',
        title: 'Not run: the required checks did not finish',
        summary:
          'The required checks did not conclude within `selection.siblingTimeout`, so the acceptance check did not run.',
      }),
    ],
  };
}
