// A late sibling: a PR that links a Change that already shipped or was cancelled. It holds no
// round; it is answered and closed as stale by the plan of src/core/plan/late-sibling.ts.
import { planLateSibling } from '../core/plan/late-sibling.ts';
import type { CandidateRow, ChangeRow } from '../store/types.ts';
import type { PullFacts } from './model.ts';
import { OPEN_STATES } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { shippedOn } from './shipped.ts';

/** True when the PR came after its Change ended: then it was answered here, and is not a sibling. */
export async function answerLateSibling(
  ctx: RepoContext,
  change: ChangeRow,
  pull: PullFacts,
  existing: CandidateRow | null,
): Promise<boolean> {
  // Shipping ends the group of its base only: a PR on another base is that group's sibling.
  const shipped = await shippedOn(ctx, change.number, pull.base);
  if (change.state !== 'cancelled' && !shipped) return false;
  if (existing && (OPEN_STATES.has(existing.state) || existing.state === 'promoted')) return false;
  const plan = planLateSibling({
    repo: ctx.key,
    change: change.number,
    shipped: shipped ? shipped.pr : null,
    pull: { number: pull.number, headSha: pull.headSha, base: pull.base, author: pull.author },
    config: ctx.config,
    now: nowIso(ctx),
  });
  await executePlan(ctx, plan);
  return true;
}
