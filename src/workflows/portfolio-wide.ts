// Portfolio search's wide round (DESIGN.md section 7): the round's claimant reads the scoring check
// on every sibling, re-runs it while the policy needs more readings, then records the top k for the deep round.
import { z } from 'zod';
import { readWideDecision, type WideDecision } from '../core/plan-schema.ts';
import { planWideRound, type SlotView, type Unanswered } from '../core/plan/portfolio.ts';
import { MAX_READINGS, POLICIES, readingsUsed, slotOf, type Reading } from '../core/portfolio.ts';
import type { PortfolioCalls } from '../github/port.ts';
import type { ScoringRun } from '../github/portfolio-calls.ts';
import type { PortfolioRow } from '../store/portfolio-store.ts';
import type { RoundRow } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { checkAction, recordAction } from '../core/actions.ts';
import type { GroupView } from './model.ts';
import { portfolioActionKey, rerunActionKey } from '../core/keys.ts';
import { planReadings, planWideEnd, wideDecidedEvent } from '../core/plan/portfolio-readings.ts';
import { notComparedOf } from './not-compared.ts';
import { giveBackRound, recordRoundDecision } from './round-claim.ts';

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

const Requested = z.object({ rerun: z.number(), at: z.string() });
type Asked = z.infer<typeof Requested>;

/** The key of re-run request `n` (1-based) of the scoring check on `pr`: reading `n` answers it. */
const requestKey = (ctx: RepoContext, p: PortfolioRow, pr: number, n: number): string =>
  portfolioActionKey(ctx.key, p.change, p.number, 'rerun', pr, `r${n}`);

/** The re-runs of the scoring check asked for on `pr`, in order. */
async function requestsOf(ctx: RepoContext, p: PortfolioRow, pr: number): Promise<Asked[]> {
  const out: Asked[] = [];
  for (let n = 1; n <= MAX_READINGS; n++) {
    const asked = Requested.safeParse(await ctx.deps.store.getAppliedAction(requestKey(ctx, p, pr, n)));
    if (!asked.success) break;
    out.push(asked.data);
  }
  return out;
}

interface Gathered {
  /** Reading 0 is the first run's; reading n answers re-run request n. */
  readings: Reading[];
  /** The last completed run of each sibling: the one a re-run request names. */
  runs: Map<number, ScoringRun>;
  asked: Map<number, Asked[]>;
}

/**
 * The readings of the scoring check on each sibling's head, keyed by the re-run request they
 * answer (not by check run: a run updated in place is still a reading per request), stored with the
 * explore as they come, since GitHub keeps only a run's latest output.
 */
async function gatherReadings(ctx: RepoContext, p: PortfolioRow, view: GroupView): Promise<Gathered> {
  const name = ctx.config.gate.score;
  const out: Gathered = { readings: [], runs: new Map(), asked: new Map() };
  if (name === null) return out;
  const gh = portfolioGitHub(ctx);
  const siblings = [];
  for (const e of view.evidence.values()) {
    const done = (await gh.scoringRuns(e.headSha, name)).filter((r) => r.completed);
    const last = done[done.length - 1];
    if (last) out.runs.set(e.pr, last);
    const requests = await requestsOf(ctx, p, e.pr);
    out.asked.set(e.pr, requests);
    siblings.push({ pr: e.pr, done, requests });
  }
  const known = await ctx.deps.store.listReadings(ctx.key, p.change, p.number);
  const plan = planReadings({ repo: ctx.key, change: p.change, portfolio: p.number, known, siblings });
  if (plan.actions.length > 0) await executePlan(ctx, plan.actions);
  out.readings = plan.readings;
  return out;
}

/**
 * The siblings of an explore's wide round that already have a reading: their scoring check running
 * again is the round's own re-run, which the round waits for itself (up to `portfolio.composeTimeout`),
 * not CI the selection waits on. Empty when `round` is not a wide round being measured.
 */
export async function measuredInWide(ctx: RepoContext, change: number, round: RoundRow): Promise<Set<number>> {
  const p = await ctx.deps.store.latestPortfolio(ctx.key, change);
  if (!p || p.phase !== 'wide' || p.base !== round.base || p.wideRound !== round.number) return new Set();
  return new Set((await ctx.deps.store.listReadings(ctx.key, change, p.number)).map((r) => r.pr));
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
    const gathered = await gatherReadings(ctx, p, view);
    const { readings } = gathered;
    let step = POLICIES[p.policy]({ evidence, readings, k: p.k, maxReadings: MAX_READINGS });
    let unanswered: Unanswered[] = [];
    if (step.kind === 'rerun') {
      const stalled = await requestReruns(ctx, p, view, step.prs, gathered);
      if (stalled === null) {
        await giveBackRound(ctx, round);
        return true;
      }
      // The re-runs were not answered within `portfolio.composeTimeout`: choose on the readings there are.
      unanswered = stalled;
      const counts = step.prs.map((pr) => readings.filter((r) => r.pr === pr).length);
      step = POLICIES[p.policy]({ evidence, readings, k: p.k, maxReadings: Math.max(1, Math.min(...counts)) });
      if (step.kind === 'rerun') {
        await giveBackRound(ctx, round);
        return true;
      }
    }
    // A slot a linked pull request answered whose author Arbiter does not act for: the round says so.
    const strangers = await notComparedOf(ctx, view.change.number, new Set(view.siblings.map((c) => c.pr)));
    const slots: SlotView[] = (await store.listSlots(ctx.key, p.change, p.number)).map((s) => ({
      slot: s.slot,
      approach: s.approach,
      state: s.state,
      pr: s.pr,
      reason: s.reason,
      untrusted: s.state === 'open' ? null : (strangers.find((n) => n.slot === s.slot) ?? null),
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
      unanswered,
      slots,
      unlinked: await unlinkedOf(ctx, view, slots),
      scoreCheck: ctx.config.gate.score ?? '',
      config: ctx.config,
      now: nowIso(ctx),
    });
    const decision: WideDecision = {
      verdict: { kind: 'portfolio-wide', deep: step.deep, out: step.out },
      actions: plan.actions,
    };
    await recordRoundDecision(ctx, round, decision);
    current = (await store.getRound(round.id)) ?? current;
    if (current.decision === null) return true;
    await executePlan(ctx, [wideDecidedEvent(ctx.key, p.change, p.number, round.number, nowIso(ctx))]);
  }
  const decided = readWideDecision(current.decision);
  const result = await executePlan(ctx, decided.actions);
  // What the executor held back (shadow mode) went nowhere: no refine is awaited, and the explore is done.
  const end = { repo: ctx.key, change: p.change, portfolio: p.number, roundId: round.id, token: ctx.token };
  await executePlan(ctx, planWideEnd({ ...end, withheld: result.withheld.length > 0 }));
  return true;
}

/**
 * Asks for the next reading of each of `prs` (one re-run request each, an action key per request).
 * When every one of them already has its request outstanding since `portfolio.composeTimeout` or
 * longer, asks nothing and returns those requests (the round decides without them); else null.
 */
async function requestReruns(
  ctx: RepoContext,
  p: PortfolioRow,
  view: GroupView,
  prs: number[],
  gathered: Gathered,
): Promise<Unanswered[] | null> {
  const name = ctx.config.gate.score ?? '';
  const stalled: Unanswered[] = [];
  let waiting = prs.length === 0;
  for (const pr of prs) {
    // Request n asks for reading n: the one outstanding, if the last request was never answered.
    const n = gathered.readings.filter((r) => r.pr === pr).length;
    const outstanding = gathered.asked.get(pr)?.[n - 1];
    if (outstanding) {
      const age = ctx.deps.clock.now().getTime() - Date.parse(outstanding.at);
      if (age >= ctx.config.portfolio.composeTimeout * 1000) stalled.push({ pr, askedAt: outstanding.at });
      else waiting = true;
      continue;
    }
    const run = gathered.runs.get(pr);
    const e = view.evidence.get(pr);
    if (!run || !e) continue;
    waiting = true;
    const key = requestKey(ctx, p, pr, n);
    // The re-run, then the request recorded (in shadow mode too: the round then decides on the readings it has).
    const asked = await executePlan(ctx, [
      { kind: 'rerun', key: rerunActionKey(key), pr, run: { id: run.id, appSlug: run.appSlug } },
      recordAction(key, { rerun: run.id, at: nowIso(ctx) }),
    ]);
    // Another run holds this request: it is that run's to show.
    if (!asked.results.has(key)) continue;
    // Shadow mode held the re-run back (it runs no CI, DESIGN.md section 6): the check says "would".
    const shadow = asked.withheld.length > 0;
    await executePlan(ctx, [
      checkAction(ctx.key, {
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
      }),
    ]);
  }
  return waiting || stalled.length === 0 ? null : stalled;
}
