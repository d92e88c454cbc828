// Shipping is per group: a Change's candidates on one base branch are decided apart from those on
// another, so one base shipping ends that group only (DESIGN.md section 1, Siblings).
import type { CandidateRow } from '../store/types.ts';
import type { RepoContext } from './context.ts';

/** The candidate of this Change that shipped on this base, or null while that group is still open. */
export async function shippedOn(ctx: RepoContext, change: number, base: string): Promise<CandidateRow | null> {
  const all = await ctx.deps.store.listCandidates(ctx.key, change, base);
  return all.find((c) => c.state === 'promoted') ?? null;
}
