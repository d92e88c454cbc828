// The sweep's part in portfolio search: a slot whose agent never opened its PR is dropped after
// `portfolio.composeTimeout`, and a deep candidate whose refinement never came competes as it is;
// either way the group's round is decided without waiting any longer.
import type { Deps } from '../deps.ts';
import { planExploreEmpty, planRefineExpired, planSlotExpired } from '../core/plan/portfolio-steps.ts';
import { OPEN_STATES } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executeGated } from './execute.ts';
import { selectAndFollow } from './flow.ts';
import { sweepRoundToken } from '../core/keys.ts';

type ContextOf = (c: { repo: string; change: number }) => Promise<RepoContext | null>;

const expired = (ctx: RepoContext, since: string): boolean =>
  ctx.deps.clock.now().getTime() - Date.parse(since) >= ctx.config.portfolio.composeTimeout * 1000;

/** Runs the group's selection step under the sweep's token for its current round. */
async function stepGroup(ctx: RepoContext, change: number, base: string): Promise<void> {
  const round = await ctx.deps.store.currentRound(ctx.key, change, base, nowIso(ctx));
  await selectAndFollow({ ...ctx, token: sweepRoundToken(ctx.key, change, base, round.number) }, change, base);
}

/** Every slot of an explore reported or was dropped, and no candidate came: the explore ends, said once on the Change. */
async function endIfEmpty(ctx: RepoContext, change: number, portfolio: number, base: string): Promise<void> {
  const { store } = ctx.deps;
  const slots = await store.listSlots(ctx.key, change, portfolio);
  if (slots.some((s) => s.state === 'composing')) return;
  const open = (await store.listCandidates(ctx.key, change, base)).filter((c) => OPEN_STATES.has(c.state));
  const plan = planExploreEmpty({ repo: ctx.key, change, portfolio, slots, open: open.length });
  if (plan) await executeGated(ctx, plan);
}

export async function sweepPortfolios(deps: Deps, contextOf: ContextOf): Promise<void> {
  const now = deps.clock.now().toISOString();
  for (const slot of await deps.store.listComposingSince(now)) {
    try {
      const ctx = await contextOf(slot);
      if (!ctx || !expired(ctx, slot.dispatchedAt)) continue;
      const timeout = ctx.config.portfolio.composeTimeout;
      const view = { repo: ctx.key, change: slot.change, portfolio: slot.portfolio, slot: slot.slot, timeout };
      if ((await executeGated(ctx, planSlotExpired(view, now))) !== true) continue;
      const p = await deps.store.latestPortfolio(slot.repo, slot.change);
      if (!p || p.number !== slot.portfolio) continue;
      await endIfEmpty(ctx, slot.change, p.number, p.base);
      await stepGroup(ctx, slot.change, p.base);
    } catch (error) {
      deps.log.warn({ err: error, repo: slot.repo, slot: slot.slot }, 'sweep: portfolio slot skipped');
    }
  }
  // A wide round waiting on re-runs of the scoring check that never came is decided on what it has.
  for (const p of await deps.store.listWideSince(now)) {
    try {
      const ctx = await contextOf(p);
      if (ctx && p.policy === 'successive-halving' && expired(ctx, p.startedAt)) await stepGroup(ctx, p.change, p.base);
    } catch (error) {
      deps.log.warn({ err: error, repo: p.repo, change: p.change }, 'sweep: portfolio wide round skipped');
    }
  }
  for (const deep of await deps.store.listAwaitingDeepSince(now)) {
    try {
      const ctx = await contextOf(deep);
      if (!ctx || !expired(ctx, deep.dispatchedAt)) continue;
      const candidate = await deps.store.getCandidate(deep.repo, deep.pr);
      // No refinement arrived at all: the decided wide round is still current, so the normal selection opens now.
      const round = candidate && (await deps.store.currentRound(deep.repo, deep.change, candidate.base, now));
      const p = await deps.store.latestPortfolio(deep.repo, deep.change);
      const wideDecided =
        candidate && round && p?.number === deep.portfolio && round.number === p.wideRound && round.decision !== null
          ? { base: candidate.base, round: round.number }
          : null;
      const { change, portfolio, pr } = deep;
      const plan = planRefineExpired({ repo: ctx.key, change, portfolio, pr, wideDecided }, now);
      if ((await executeGated(ctx, plan)) !== true || !candidate) continue;
      await stepGroup(ctx, deep.change, candidate.base);
    } catch (error) {
      deps.log.warn({ err: error, repo: deep.repo, pr: deep.pr }, 'sweep: portfolio refine skipped');
    }
  }
}
