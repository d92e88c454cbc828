// Whether a check event reads GitHub. A check nobody decides on (not required, not the scoring
// check, named by no criterion) that concludes while a required check is still pending changes no
// decision: the candidate waits for that required check, whose own conclusion reads the head and
// sees this one too. A required check that passes while another has not reported at all waits for
// that one in the same way. So such an event is recorded without a read (issue 28). Pure: the step
// (src/workflows/check-read.ts) reads the stored gates and the required names, and plans here.
import picomatch from 'picomatch';
import { parseRequired } from '../gate.ts';
import type { GateEvidence } from '../types.ts';

/** The checks whose conclusions can change a decision on a candidate's head. */
export interface DecidingChecks {
  /** `gate.required`, else the base branch's required checks; null with neither: every check counts. */
  required: string[] | null;
  /** `gate.score`: the scoring check ranks siblings. */
  score: string | null;
  /** Checks named by `(check: NAME)` criteria of the Change. */
  criteria: string[];
}

/**
 * Whether a check's conclusion can change a decision. A null name (a check suite, an event
 * recorded before names were, a "Re-run") always can. By name alone: an entry pinned to an app
 * (`test@ci`) counts every app's `test`, which reads more, never less.
 */
export function decidesOn(checks: DecidingChecks, name: string | null): boolean {
  if (name === null || checks.required === null) return true;
  if (name === checks.score || checks.criteria.includes(name)) return true;
  return checks.required.some((entry) => {
    const { pattern } = parseRequired(entry);
    return pattern === name || picomatch.isMatch(name, pattern);
  });
}

export interface CheckReadView {
  /** The concluded check's name as its delivery recorded it at intake (null: see `decidesOn`). */
  check: string | null;
  /** The event says the check passed (success, neutral, skipped): only then may a deciding check wait. */
  passed: boolean;
  /** Checks whose conclusions were delivered on this head, done or not (this one included). */
  delivered: string[];
  /** This delivery's run went past this point before (a retry): it may hold claims, so it reads. */
  retry: boolean;
  /** Each open candidate on the head: what decides on it, and its gate as last read (null: never read). */
  candidates: { pr: number; deciding: DecidingChecks; gate: GateEvidence | null }[];
}

/** `waitingOn`: the required check each unsettled candidate still waits for (a settled one waits for none). */
export type CheckRead = { read: true } | { read: false; waitingOn: { pr: number; check: string }[] };

const named = (name: string, entry: string): boolean => name === entry || picomatch.isMatch(name, entry);

/**
 * Reads unless, for every candidate on the head, the gate last read is unsettled and still waits
 * for a required check, or the check decides nothing and that gate is settled (passed or failed).
 *
 * - A check nobody decides on waits for any required check still pending or not reported yet: that
 *   check's own conclusion reads the head and sees this one too.
 * - A deciding check that passed waits only for a required check whose conclusion nobody has
 *   delivered on this head yet (issue 28). The last of them to be delivered finds every other one
 *   delivered, so it reads, and its read sees them all; an earlier one reads nothing a later read
 *   would not. A failure always reads: it settles the gate at once.
 *
 * A settled gate's read already ran its selection step, and a check nobody decides on changes only
 * its count of passing checks, which a selection reads fresh from the group. A gate the sweep timed
 * out reads (a late result may complete it), and so does one waiting for a person's approval of
 * Actions runs: that approval comes as no check conclusion.
 */
export function planCheckRead(view: CheckReadView): CheckRead {
  const { check } = view;
  if (check === null || view.retry || view.candidates.length === 0) return { read: true };
  const waitingOn: { pr: number; check: string }[] = [];
  for (const c of view.candidates) {
    const gate = c.gate;
    if (!gate || gate.timedOut || gate.awaitingApproval) return { read: true };
    const deciding = decidesOn(c.deciding, check);
    if (deciding && (!view.passed || gate.settled)) return { read: true };
    if (gate.settled) continue;
    const pending = gate.required.find(
      (r) =>
        (r.outcome === 'pending' || r.outcome === 'missing') &&
        decidesOn(c.deciding, r.name) &&
        (!deciding || (!named(check, r.name) && !view.delivered.some((d) => named(d, r.name)))),
    );
    if (!pending) return { read: true };
    waitingOn.push({ pr: c.pr, check: pending.name });
  }
  return { read: false, waitingOn };
}
