// The sweep's part in portfolio search: a slot whose agent never opened its PR is dropped after
// `portfolio.composeTimeout`, and a deep candidate whose refinement never came competes as it is;
// either way the group's round is decided without waiting any longer.
import type { Deps } from '../deps.ts';
import { markerFor } from '../core/render/markers.ts';
import { OPEN_STATES } from '../core/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { selectAndFollow } from './flow.ts';
import { changeActionKey, markerKey, sweepRoundToken } from '../core/keys.ts';

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
  if (open.length > 0 || !(await store.setPortfolioPhase(ctx.key, change, portfolio, 'wide', 'done'))) return;
  const marker = markerKey('portfolio-empty', change, portfolio);
  await executePlan(ctx, [
    {
      kind: 'comment',
      key: changeActionKey(ctx.key, change, `p${portfolio}`, 'empty'),
      issue: change,
      marker,
      body: `${markerFor(marker)}\nExplore ${portfolio} of #${change} ended: no agent opened a pull request within \`portfolio.composeTimeout\` (${slots.map((s) => `\`${s.slot}\``).join(', ')} dropped).`,
    },
  ]);
}

export async function sweepPortfolios(deps: Deps, contextOf: ContextOf): Promise<void> {
  const now = deps.clock.now().toISOString();
  for (const slot of await deps.store.listComposingSince(now)) {
    try {
      const ctx = await contextOf(slot);
      if (!ctx || !expired(ctx, slot.dispatchedAt)) continue;
      const reason = `no pull request within ${ctx.config.portfolio.composeTimeout} s (\`portfolio.composeTimeout\`)`;
      if (!(await deps.store.dropSlot(slot.repo, slot.change, slot.slot, reason))) continue;
      await deps.store.addEvent(
        slot.repo,
        'portfolio.slot-dropped',
        { change: slot.change, slot: slot.slot, reason },
        now,
      );
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
      if (!(await deps.store.settleDeep(deep.repo, deep.change, deep.portfolio, deep.pr, 'expired'))) continue;
      await deps.store.addEvent(deep.repo, 'portfolio.refine-expired', { change: deep.change, pr: deep.pr }, now);
      const candidate = await deps.store.getCandidate(deep.repo, deep.pr);
      if (!candidate) continue;
      // No refinement arrived at all: the decided wide round is still current, so the normal selection opens now.
      const round = await deps.store.currentRound(deep.repo, deep.change, candidate.base, now);
      const p = await deps.store.latestPortfolio(deep.repo, deep.change);
      if (p && p.number === deep.portfolio && round.number === p.wideRound && round.decision !== null) {
        await deps.store.openNextRound(deep.repo, deep.change, candidate.base, round.number, now);
      }
      await stepGroup(ctx, deep.change, candidate.base);
    } catch (error) {
      deps.log.warn({ err: error, repo: deep.repo, pr: deep.pr }, 'sweep: portfolio refine skipped');
    }
  }
}
