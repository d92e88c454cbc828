// Which repair a person's rejection granted: the store's repair row names only the PR, so the
// rejection that took it records its PR and head here (DESIGN.md section 6: a rejection stands).
import { z } from 'zod';
import { recordAction } from '../core/actions.ts';
import type { RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { repairByRejectionKey } from '../core/keys.ts';

const ByRejection = z.object({ pr: z.number(), headSha: z.string() });
export type RepairByRejection = z.infer<typeof ByRejection>;

const keyOf = (ctx: RepoContext, change: number): string => repairByRejectionKey(ctx.key, change);

/** Records that the Change's one repair was granted by the rejection of `pr` at `headSha`. */
export async function recordRepairByRejection(
  ctx: RepoContext,
  change: number,
  pr: number,
  headSha: string,
): Promise<void> {
  await executePlan(ctx, [recordAction(keyOf(ctx, change), { pr, headSha })]);
}

/** The rejection that granted the Change's repair, or null when no rejection did (a round's repair verdict). */
export async function repairByRejection(ctx: RepoContext, change: number): Promise<RepairByRejection | null> {
  const parsed = ByRejection.safeParse(await ctx.deps.store.getAppliedAction(keyOf(ctx, change)));
  return parsed.success ? parsed.data : null;
}
