// A branch's rules (required checks, required reviews, merge queue), read from GitHub at most once
// per branch and per RULES_WINDOW_SECONDS of the app's clock, and kept in the store, so every
// gate evaluation and selection step of that window (every Change on the branch, every process)
// shares one read instead of one per event. A rule changed on GitHub counts from the next window;
// GitHub itself enforces the rules on the merge meanwhile (a refused merge goes to a person).
// Concurrent misses in one process share one read.
import { z } from 'zod';
import type { BranchRules } from '../github/port.ts';
import type { RepoContext } from './context.ts';
import { branchRulesKey } from '../core/keys.ts';
import { recordAction } from '../core/actions.ts';
import { executePlan } from './execute.ts';
import { singleFlight } from '../single-flight.ts';

export const RULES_WINDOW_SECONDS = 300;
const rulesFlight = singleFlight<BranchRules>();

const StoredRules = z.object({
  required: z.array(z.string()).nullable(),
  requiredReviews: z.number(),
  mergeQueue: z.boolean(),
  strict: z.boolean().optional(),
});

export async function branchRulesOf(ctx: RepoContext, branch: string): Promise<BranchRules> {
  const window = Math.floor(ctx.deps.clock.now().getTime() / (RULES_WINDOW_SECONDS * 1000));
  const key = branchRulesKey(ctx.key, branch, window);
  const stored = StoredRules.safeParse(await ctx.deps.store.getAppliedAction(key));
  if (stored.success) return stored.data;
  return rulesFlight(ctx.deps.store, key, async () => {
    const rules = await ctx.gh.branchRules(branch);
    // The first read of the window stands (another process may have read it at the same moment).
    await executePlan(ctx, [recordAction(key, rules)]);
    return rules;
  });
}
