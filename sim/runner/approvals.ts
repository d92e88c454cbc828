// Scripted GitHub Actions runs that wait for a maintainer's approval (`awaitsApproval: true`): per
// head, the checks that wait, whether a maintainer approved them, and those whose `at` came first.
import type { CheckSpec } from '../scenario-schema.ts';

interface Waiting {
  pr: number;
  checks: CheckSpec[];
  approved: boolean;
  /** Checks whose `at` came before the approval: they conclude as soon as it comes. */
  due: CheckSpec[];
}

export class WorkflowApprovals {
  private readonly heads = new Map<string, Waiting>();

  /** Notes a head's checks that wait for approval; true when the head has any. */
  note(sha: string, pr: number, checks: CheckSpec[]): boolean {
    const waiting = checks.filter((c) => c.awaitsApproval === true);
    if (waiting.length === 0) return false;
    this.heads.set(sha, { pr, checks: waiting, approved: false, due: [] });
    return true;
  }

  /** Whether this check of this head still waits for approval (and then: remember it is due). */
  holds(sha: string, check: CheckSpec): boolean {
    const waiting = this.heads.get(sha);
    if (!waiting || waiting.approved || !waiting.checks.includes(check)) return false;
    waiting.due.push(check);
    return true;
  }

  /** The head was approved: its waiting checks (to start now) and those already due (to conclude now). */
  approve(sha: string): { start: CheckSpec[]; conclude: CheckSpec[]; pr: number } | null {
    const waiting = this.heads.get(sha);
    if (!waiting || waiting.approved) return null;
    waiting.approved = true;
    return { start: waiting.checks, conclude: waiting.due, pr: waiting.pr };
  }
}
