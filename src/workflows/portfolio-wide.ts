// Portfolio search's wide round (DESIGN.md section 7): the round's claimant reads the scoring check
// on every sibling, re-runs it while the policy needs more readings, then records the top k for the deep round.
import { z } from 'zod';
import { readWideDecision, type WideDecision } from '../core/plan-schema.ts';
import { planWideRound, type SlotView } from '../core/plan/portfolio.ts';
import { MAX_READINGS, POLICIES, readingsUsed, slotOf, type Reading } from '../core/portfolio.ts';
import type { PortfolioCalls } from '../github/port.ts';
import type { PortfolioRow } from '../store/portfolio-store.ts';
import type { RoundRow } from '../store/types.ts';
import { claimOnce, nowIso, type RepoContext } from './context.ts';
import { executePlan, writeCheck } from './execute.ts';
import type { GroupView } from './select.ts';
import { roundDoneKey } from '../core/keys.ts';

const portfolioGitHub = (ctx: RepoContext): PortfolioCalls => ctx.gh.portfolio;

/** Candidates of the view whose `Arbiter-slot` names no slot they fill. */
async function unlinkedOf(
  ctx: RepoContext,
  view: GroupView,
  slots: SlotView[],
): Promise<{ pr: number; slot: string }[]> {
  const out: { pr: number; slot: string }[] = [];
  for (const s of view.siblings) {
    const named = slotOf(view.pulls.get(s.pr)?.body);
    if (named !== null && !slots.some((x) => x.slot === named && x.pr === s.pr)) out.push({ pr: s.pr, slot: named });
  }
  return out;
}

/** Every completed reading of the scoring check on each sibling's head, stored with the explore. */
async function gatherReadings(
  ctx: RepoContext,
  p: PortfolioRow,
  view: GroupView,
): Promise<{ readings: Reading[]; runs: Map<number, { id: number; appSlug: string | null }> }> {
  const name = ctx.config.gate.score;
  const runs = new Map<number, { id: number; appSlug: string | null }>();
  if (name === null) return { readings: [], runs };
  const readings: Reading[] = [];
  const gh = portfolioGitHub(ctx);
  for (const e of view.evidence.values()) {
    const all = await gh.scoringRuns(e.headSha, name);
    const done = all.filter((r) => r.completed);
    for (const r of done) if (r.score !== null) readings.push({ pr: e.pr, run: r.id, value: r.score });
    const last = done[done.length - 1];
    if (last) runs.set(e.pr, { id: last.id, appSlug: last.appSlug });
  }
  await ctx.deps.store.putReadings(
    readings.map((r) => ({ repo: ctx.key, change: p.change, portfolio: p.number, ...r })),
  );
  return { readings, runs };
}

/**
 * The wide round of an explore, run by the round's claimant in place of the normal selection. A
 * policy that needs another reading re-runs the scoring check and gives the claim back: the last
 * sibling to settle again claims the round. False when `round` is not an explore's wide round.
 */
export async function decidePortfolioRound(ctx: RepoContext, view: GroupView, round: RoundRow): Promise<boolean> {
  const { store } = ctx.deps;
  const p = await store.latestPortfolio(ctx.key, view.change.number);
  if (!p || p.base !== round.base || p.wideRound !== round.number) return false;
  let current = (await store.getRound(round.id)) ?? round;
  if (current.decision === null) {
    const evidence = [...view.evidence.values()];
    const { readings, runs } = await gatherReadings(ctx, p, view);
    let step = POLICIES[p.policy]({ evidence, readings, k: p.k, maxReadings: MAX_READINGS });
    if (step.kind === 'rerun') {
      if (!(await requestReruns(ctx, p, view, step.prs, runs))) {
        await store.releaseRound(round.id, ctx.token);
        return true;
      }
      // The check's app never answered the re-runs: choose on the readings there are.
      const counts = step.prs.map((pr) => readings.filter((r) => r.pr === pr).length);
      step = POLICIES[p.policy]({ evidence, readings, k: p.k, maxReadings: Math.max(1, Math.min(...counts)) });
      if (step.kind === 'rerun') return true;
    }
    const slots: SlotView[] = (await store.listSlots(ctx.key, p.change, p.number)).map((s) => ({
      slot: s.slot,
      approach: s.approach,
      state: s.state,
      pr: s.pr,
      reason: s.reason,
    }));
    const plan = planWideRound({
      repo: ctx.key,
      change: { number: view.change.number, title: view.change.title, criteria: view.change.criteria },
      portfolio: p.number,
      round: round.number,
      policy: p.policy,
      k: p.k,
      siblings: evidence,
      step,
      readings: readingsUsed(step, readings, p.policy),
      slots,
      unlinked: await unlinkedOf(ctx, view, slots),
      config: ctx.config,
      now: nowIso(ctx),
    });
    const decision: WideDecision = {
      verdict: { kind: 'portfolio-wide', deep: step.deep, out: step.out },
      actions: plan.actions,
    };
    await store.recordDecision(round.id, decision, nowIso(ctx), ctx.token);
    current = (await store.getRound(round.id)) ?? current;
    if (current.decision === null) return true;
    await store.addEvent(
      ctx.key,
      'round.decided',
      { change: p.change, round: round.number, verdict: 'portfolio-wide' },
      nowIso(ctx),
    );
  }
  const decided = readWideDecision(current.decision);
  const heads = new Map(view.siblings.map((s) => [s.pr, s.headSha]));
  if (ctx.config.mode !== 'shadow') {
    await store.addDeep(
      decided.verdict.deep.map((pr) => ({
        repo: ctx.key,
        change: p.change,
        portfolio: p.number,
        pr,
        headSha: heads.get(pr) ?? '',
        state: 'awaiting' as const,
        dispatchedAt: nowIso(ctx),
      })),
    );
  }
  await executePlan(ctx, decided.actions);
  await store.setPortfolioPhase(ctx.key, p.change, p.number, 'wide', ctx.config.mode === 'shadow' ? 'done' : 'deep');
  await store.recordAppliedAction(roundDoneKey(round.id), { token: ctx.token }, nowIso(ctx));
  return true;
}

const Requested = z.object({ rerun: z.number(), at: z.string() });

/**
 * Re-runs the scoring check of each of `prs` once per reading it needs (an action key per run).
 * True when every one was asked for before, `portfolio.composeTimeout` ago, and never answered.
 */
async function requestReruns(
  ctx: RepoContext,
  p: PortfolioRow,
  view: GroupView,
  prs: number[],
  runs: Map<number, { id: number; appSlug: string | null }>,
): Promise<boolean> {
  const gh = portfolioGitHub(ctx);
  const name = ctx.config.gate.score ?? '';
  let stalled = prs.length > 0;
  for (const pr of prs) {
    const run = runs.get(pr);
    const e = view.evidence.get(pr);
    if (!run || !e) continue;
    const key = `${ctx.key}#${p.change}/p${p.number}/rerun/${pr}/${run.id}`;
    const asked = Requested.safeParse(await ctx.deps.store.getAppliedAction(key));
    if (asked.success) {
      stalled &&=
        ctx.deps.clock.now().getTime() - Date.parse(asked.data.at) >= ctx.config.portfolio.composeTimeout * 1000;
      continue;
    }
    stalled = false;
    if (!(await claimOnce(ctx, key))) continue;
    // Shadow mode writes nothing but comments and checks: it re-runs no CI (DESIGN.md section 6).
    const shadow = ctx.config.mode === 'shadow';
    if (!shadow) await gh.rerun({ id: run.id, completed: true, score: null, appSlug: run.appSlug });
    await ctx.deps.store.recordAppliedAction(key, { rerun: run.id, at: nowIso(ctx) }, nowIso(ctx));
    await writeCheck(ctx, {
      pr,
      headSha: e.headSha,
      name: 'Arbiter / selection',
      status: 'in_progress',
      title: (shadow ? `Shadow: would measure \`${name}\` again` : `Wide round: measuring \`${name}\` again`).slice(
        0,
        200,
      ),
      summary: shadow
        ? `Round ${view.round.number} of #${p.change} (${p.policy}): Arbiter would re-run ` +
          `the scoring check \`${name}\` on this head to average its readings; shadow mode re-runs no CI.`
        : `Round ${view.round.number} of #${p.change} (${p.policy}): Arbiter re-ran the scoring check \`${name}\` on this head to average its readings before choosing the top ${p.k}.`,
    });
  }
  return stalled;
}
