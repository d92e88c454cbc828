// The types the workflow steps share, owned by no behaviour file (so no import cycle closes
// through them): a pull request's facts as read, a group's view before it is planned, and the
// step a workflow hands back to the job's driver (src/workflows/flow.ts).
import type { IssueRef } from '../core/link.ts';
import type { CandidateEvidence } from '../core/types.ts';
import type { PullState } from '../github/group-query.ts';
import type { CandidateRow, ChangeRow, RoundRow } from '../store/types.ts';

export interface PullFacts {
  number: number;
  draft: boolean;
  state: string; // open | closed
  body: string | null;
  base: string;
  headSha: string;
  author: string;
  labels: string[];
  /** GitHub's `closingIssuesReferences` (keyword and sidebar links), when the read asked for it. */
  closing?: IssueRef[] | undefined;
}

export interface GroupView {
  change: ChangeRow;
  round: RoundRow;
  siblings: CandidateRow[];
  pulls: Map<number, PullState>;
  evidence: Map<number, CandidateEvidence>;
  /**
   * Siblings that have not settled, with why: "CI running", "acceptance", "new commits"; `label` names
   * what has no PR yet (a composing slot); `says` is the whole phrase ("@Copilot is still working on #101").
   */
  pending: { pr: number; why: string; label?: string; says?: string }[];
  branch: { required: string[] | null; requiredReviews: number; mergeQueue: boolean; strict?: boolean };
}

export type NextStep =
  /**
   * Run the selection step of a group; `settled`: the sibling whose settling asked for it;
   * `pulls`: the group as this job already read it from GitHub, so it is not read twice.
   */
  | {
      kind: 'select';
      /** The group's repository when it is not the job's (a candidate set's member settled in another). */
      repo?: string;
      change: number;
      base: string;
      settled?: number | readonly number[];
      pulls?: ReadonlyMap<number, PullState>;
    }
  /**
   * Verify a candidate (again); `recheck` names a person's re-check, judged afresh once; `state`:
   * the PR as this job just read it from GitHub; `group`: its whole group as read (handed on to
   * the selection step).
   */
  | { kind: 'verify'; pr: number; recheck?: string; state?: PullState; group?: ReadonlyMap<number, PullState> }
  /**
   * Decide a Change whose only candidates are candidate sets (no single-repository candidate is
   * open): the best set ships (workflows/set-ship.ts). `repo`: the Change's, when not the job's.
   */
  | { kind: 'sets'; repo?: string; change: number };
