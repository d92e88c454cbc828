// What a workflow leaves to the job's driver (src/workflows/flow.ts) instead of calling it
// itself: verifying a candidate settles it and asks for its group's selection step; a merge
// answered 409 asks for the candidate to be verified again. So no workflow re-enters another.

import type { PullState } from '../github/group-query.ts';

export type NextStep =
  /**
   * Run the selection step of a group; `settled`: the sibling whose settling asked for it;
   * `pulls`: the group as this job already read it from GitHub, so it is not read twice.
   */
  | {
      kind: 'select';
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
  | { kind: 'verify'; pr: number; recheck?: string; state?: PullState; group?: ReadonlyMap<number, PullState> };

export const selectStep = (
  change: number,
  base: string,
  settled?: number | readonly number[],
  pulls?: ReadonlyMap<number, PullState>,
): NextStep => ({
  kind: 'select',
  change,
  base,
  ...(settled === undefined ? {} : { settled }),
  ...(pulls === undefined ? {} : { pulls }),
});
