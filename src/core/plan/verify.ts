// What verifying a candidate's head records (workflows/verify.ts), planned: its gate evidence and
// gate check, its acceptance evidence once judged, and the state it settles in. Pure: the step reads
// the head's checks and stored evidence, and runs the acceptance check (the model call) between plans.
import { checkAction, recordAction, type Action } from '../actions.ts';
import { digest } from '../digest.ts';
import { gateInProgressKey, verifyActionKey } from '../keys.ts';
import { gateTitle, renderGateTable } from '../render/check-text.ts';
import type { AcceptanceEvidence, CandidateState, GateEvidence } from '../types.ts';

/** The head being verified, and the run (its token) that verifies it. */
export interface VerifyHead {
  repo: string;
  change: number;
  pr: number;
  headSha: string;
  token: string;
}

const keyOf = (head: VerifyHead, now: string, what: string, content: unknown): string =>
  verifyActionKey(head.repo, head.change, head.pr, head.headSha, now, head.token, `${what}:${digest(content)}`);

/** Whether one of the gate's required checks has concluded (passed or failed). */
export const gateConcluded = (gate: GateEvidence): boolean =>
  gate.required.some((r) => r.outcome === 'pass' || r.outcome === 'fail');

export interface GateView {
  head: VerifyHead;
  gate: GateEvidence;
  /** Whether the gate's in-progress table was shown on this head already (read only while it matters). */
  inProgressShown: boolean;
}

/**
 * The gate evidence (stored first: a sibling's selection step reads it), then the gate check: once
 * a required check concluded while others still run (its first table, recorded as shown), and on
 * every settled content. While nothing has concluded it says nothing GitHub's own list does not.
 */
export function planGate(view: GateView, now: string): Action[] {
  const { head, gate } = view;
  const { repo, pr, headSha } = head;
  const evidence: Action = {
    kind: 'put-evidence',
    key: keyOf(head, now, 'gate', gate),
    pr,
    headSha,
    evidence: { of: 'gate', data: gate },
  };
  const firstTable = !gate.settled && gateConcluded(gate) && !view.inProgressShown;
  if (!gate.settled && !firstTable) return [evidence];
  return [
    evidence,
    checkAction(repo, {
      pr,
      headSha,
      name: 'Arbiter / gate',
      status: gate.settled ? 'completed' : 'in_progress',
      conclusion: gate.settled ? (gate.promotable ? 'success' : 'failure') : undefined,
      title: gateTitle(gate),
      summary: renderGateTable(gate),
    }),
    ...(firstTable ? [recordAction(gateInProgressKey(repo, pr, headSha), {})] : []),
  ];
}

/** Acceptance evidence, stamped with the criteria it judged. */
export type StampedAcceptance = AcceptanceEvidence & { criteriaHash: string };

/** The acceptance evidence of the head, stored as soon as it is judged (or refreshed). */
export const planAcceptance = (head: VerifyHead, evidence: StampedAcceptance, now: string): Action[] => [
  {
    kind: 'put-evidence',
    key: keyOf(head, now, 'acceptance', evidence),
    pr: head.pr,
    headSha: head.headSha,
    evidence: { of: 'acceptance', data: evidence },
  },
];

/** States a settled gate moves between (a re-run can turn either into the other). */
const SETTLED: ReadonlySet<CandidateState> = new Set(['verified', 'unpromotable']);

export interface SettleView {
  head: VerifyHead;
  /** The candidate's stored state. */
  state: CandidateState;
  gate: Pick<GateEvidence, 'settled' | 'promotable' | 'reason'>;
  /** Acceptance evidence its `(check: NAME)` criteria refreshed (null: unchanged), stored first. */
  refreshed: StampedAcceptance | null;
  /** Whether a check a criterion follows still runs: the head waits, and does not settle yet. */
  pending: boolean;
}

/**
 * The head settles once every required check concluded and its acceptance is judged, with no
 * criterion's check still running: its state follows its
 * gate, and the settle is logged. A required check re-run to green makes an unpromotable candidate
 * verified again, and one that fails on a re-run makes a verified one unpromotable. Observed, not
 * decided (the checks concluded on GitHub): kept in shadow mode.
 */
export function planSettle(view: SettleView, now: string): Action[] {
  const { head, gate } = view;
  const refreshed = view.refreshed ? planAcceptance(head, view.refreshed, now) : [];
  if (view.pending) return refreshed;
  const settledState: CandidateState = gate.promotable ? 'verified' : 'unpromotable';
  const follows = view.state === 'verifying' || (gate.settled && SETTLED.has(view.state));
  const data = { pr: head.pr, headSha: head.headSha, promotable: gate.promotable };
  return [
    ...refreshed,
    ...(follows && view.state !== settledState
      ? [
          {
            kind: 'set-state' as const,
            key: keyOf(head, now, 'state', settledState),
            pr: head.pr,
            state: settledState,
            reason: gate.reason,
            observed: true,
          },
        ]
      : []),
    { kind: 'event', key: keyOf(head, now, 'settled', data), event: 'candidate.settled', data, at: now },
  ];
}
