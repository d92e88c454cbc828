// What a workflow leaves to the job's driver (src/workflows/flow.ts) instead of calling it
// itself: verifying a candidate settles it and asks for its group's selection step; a merge
// answered 409 asks for the candidate to be verified again. So no workflow re-enters another.

import type { PullState } from '../github/group-query.ts';
import type { NextStep } from './model.ts';

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
