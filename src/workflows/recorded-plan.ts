// A round's recorded selection plan, read back. A plan recorded by an older version that this one
// cannot parse is decided-but-unreadable: nothing is decided again or merged on a guess, the run
// ends (no retry can make it parse), an error-level log line and a comment on the Change name the
// round, and a person looks.
import { readSelectionPlan, RecordedShapeError, type SelectionPlan } from '../core/plan-schema.ts';
import { markerFor } from '../core/render/markers.ts';
import type { RoundRow } from '../store/types.ts';
import type { RepoContext } from './context.ts';
import { executePlan } from './execute.ts';

/** The round's plan could not be read: what was wrong with it. */
export interface UnreadablePlan {
  unreadable: true;
  issues: string[];
}

export const unreadableMarker = (roundId: number): string => `unreadable-plan:${roundId}`;

/**
 * The round's selection plan (null while none is recorded, or for a wide round), or, for a plan
 * that does not parse, an UnreadablePlan after saying so (once per round on the Change).
 */
export async function readRoundPlan(ctx: RepoContext, round: RoundRow): Promise<SelectionPlan | null | UnreadablePlan> {
  try {
    return readSelectionPlan(round.decision);
  } catch (error) {
    if (!(error instanceof RecordedShapeError)) throw error;
    ctx.log.error(
      { change: round.change, base: round.base, round: round.number, roundId: round.id, issues: error.issues },
      `round ${round.id} (Change #${round.change}, base ${round.base}, round ${round.number}): ${error.message}; nothing is decided again or merged, a person must look`,
    );
    const marker = unreadableMarker(round.id);
    const body = [
      markerFor(marker),
      `Arbiter cannot read the decision it recorded for round ${round.number} on \`${round.base}\` (round id ${round.id}): it was recorded by an older version and does not have the shape this version reads.`,
      '',
      ...error.issues.map((i) => `- \`${i.replaceAll('`', "'")}\``),
      '',
      'Nothing was decided again, merged or closed for this round. **A person must look.**',
    ].join('\n');
    await executePlan(ctx, [{ kind: 'comment', key: `${marker}/comment`, issue: round.change, marker, body }]);
    return { unreadable: true, issues: error.issues };
  }
}

export const isUnreadable = (p: SelectionPlan | null | UnreadablePlan): p is UnreadablePlan =>
  p !== null && 'unreadable' in p;

/** The plan when it reads, else null (the round said it could not be read). */
export async function readablePlan(ctx: RepoContext, round: RoundRow): Promise<SelectionPlan | null> {
  const plan = await readRoundPlan(ctx, round);
  return isUnreadable(plan) ? null : plan;
}
