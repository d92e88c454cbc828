// Portfolio search (DESIGN.md section 7), the shell: `/arbiter explore N` dispatches one agent
// per distinct approach; slots compose until their PRs open and refinements arrive. The wide round
// that ranks them and sends the top k to the deep round is in portfolio-wide.ts.
import { z } from 'zod';
import type { CommandTarget, VerbResult } from '../commands/types.ts';
import { approachAgent, approachText, MAX_EXPLORE, slotName, slotOf } from '../core/portfolio.ts';
import { planExploreDispatch, planPortfolioCandidate } from '../core/plan/portfolio-steps.ts';
import type { PortfolioCalls } from '../github/port.ts';
import type { PortfolioRow } from '../store/portfolio-store.ts';
import type { CandidateRow, ChangeRow } from '../store/types.ts';
import { refreshChange, trackedChange } from './changes.ts';
import { recordAdoption } from './trust.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executeGated, executePlan } from './execute.ts';
import { changeActionKey } from '../core/keys.ts';
import { parseRecorded } from '../core/plan-schema.ts';

export { decidePortfolioRound } from './portfolio-wide.ts';

const refused = (code: string, message: string): VerbResult => ({ ok: false, code, message });

/** What starting an explore answered (the executor's `start-portfolio`), as the store keeps it. */
const PortfolioStart = z.object({
  started: z.boolean(),
  portfolio: z.object({
    repo: z.string(),
    change: z.number().int(),
    number: z.number().int(),
    base: z.string(),
    baseSha: z.string(),
    policy: z.enum(['top-k', 'successive-halving']),
    k: z.number().int(),
    phase: z.enum(['wide', 'deep', 'done']),
    wideRound: z.number().int(),
    requestedBy: z.string(),
    token: z.string(),
    startedAt: z.string(),
  }),
});

const portfolioGitHub = (ctx: RepoContext): PortfolioCalls => ctx.gh.portfolio;

const minutes = (s: number): string => (s % 60 === 0 ? `${s / 60} minutes` : `${s} seconds`);

/** Where a running explore stands, in words, for the refusal of a second one. */
async function describeRunning(ctx: RepoContext, p: PortfolioRow): Promise<string> {
  const { store } = ctx.deps;
  if (p.phase === 'wide') {
    const slots = await store.listSlots(ctx.key, p.change, p.number);
    const composing = slots.filter((s) => s.state === 'composing').map((s) => `\`${s.slot}\``);
    const open = slots.filter((s) => s.state === 'open').map((s) => `#${s.pr}`);
    return `explore ${p.number} (requested by @${p.requestedBy}) is in its wide round: ${composing.length > 0 ? `${composing.join(', ')} still composing` : 'every slot has reported'}${open.length > 0 ? `; candidates ${open.join(', ')}` : ''}`;
  }
  const awaited = (await store.listDeep(ctx.key, p.change, p.number))
    .filter((d) => d.state === 'awaiting')
    .map((d) => `#${d.pr}`);
  return `explore ${p.number} (requested by @${p.requestedBy}) is in its deep round: waiting for the refinement of ${awaited.join(', ')}`;
}

/** The maintainer who runs `explore` on an issue nobody trusted opened adopts it, as `track` would. */
async function adoptToExplore(ctx: RepoContext, t: CommandTarget): Promise<ChangeRow | null> {
  const issue = await ctx.gh.getIssue(t.issueNumber);
  if (!issue || issue.pull_request) return null;
  await recordAdoption(ctx, t.issueNumber, t.user, 'command');
  return refreshChange(ctx, t.issueNumber, issue);
}

/** `/arbiter explore [N]` on a Change issue: one `arbiter.candidate.requested` dispatch per distinct approach. */
export async function explore(ctx: RepoContext, t: CommandTarget, n: number | null): Promise<VerbResult> {
  const { store } = ctx.deps;
  const cfg = ctx.config.portfolio;
  const change =
    (await store.getChange(ctx.key, t.issueNumber)) ??
    (await trackedChange(ctx, t.issueNumber, null)) ??
    (await adoptToExplore(ctx, t));
  if (!change) return refused('not_a_change', `#${t.issueNumber} is not an issue Arbiter can read.`);
  if (change.state === 'shipped' || change.state === 'cancelled')
    return refused('change_closed', `#${change.number} is ${change.state}; nothing is explored for it.`);
  if (change.criteria.length === 0) {
    return refused(
      'no_criteria',
      `#${change.number} lists no acceptance criteria, so the candidates could not be compared: add them under an "Acceptance criteria" heading first.`,
    );
  }
  const approaches = cfg.approaches;
  const want = n ?? Math.min(approaches.length, MAX_EXPLORE);
  if (approaches.length === 0) {
    return refused(
      'no_approaches',
      'Portfolio search needs distinct approaches and generates none: list them under `portfolio.approaches` in `.github/arbiter.yml`. Nothing was dispatched.',
    );
  }
  if (want > approaches.length) {
    return refused(
      'too_few_approaches',
      `\`explore ${want}\` needs ${want} distinct approaches, but \`portfolio.approaches\` lists ${approaches.length}: add more there, or explore ${approaches.length}. Nothing was dispatched.`,
    );
  }
  if (cfg.policy === 'successive-halving' && ctx.config.gate.score === null) {
    return refused(
      'no_scoring_check',
      '`portfolio.policy: successive-halving` re-runs the scoring check, but `gate.score` names none. Nothing was dispatched.',
    );
  }
  const latest = await store.latestPortfolio(ctx.key, change.number);
  const mine = latest !== null && latest.token === ctx.token ? latest : null;
  const used = await store.portfolioDispatches(ctx.key, change.number);
  const cost = want + Math.min(cfg.k, want);
  if (mine === null && used + cost > cfg.maxDispatches) {
    return refused(
      'dispatch_budget',
      `Exploring ${want} approaches costs up to ${cost} dispatches (${want} candidates and ${Math.min(cfg.k, want)} refinements); #${change.number} has used ${used} of \`portfolio.maxDispatches\` (${cfg.maxDispatches}). Nothing was dispatched.`,
    );
  }
  const head = await portfolioGitHub(ctx).defaultBranchHead();
  const now = nowIso(ctx);
  const number = mine ? mine.number : (latest?.number ?? 0) + 1;
  const slots = approaches.slice(0, want).map((entry, i) => ({
    slot: slotName(change.number, number, i + 1),
    approach: approachText(entry),
    agent: approachAgent(entry),
  }));
  const startKey = changeActionKey(ctx.key, change.number, 'explore', ctx.token, 'start');
  const starting = await executePlan(ctx, [
    {
      kind: 'start-portfolio',
      key: startKey,
      portfolio: {
        change: change.number,
        number,
        base: head.branch,
        baseSha: head.sha,
        policy: cfg.policy,
        k: cfg.k,
        // A retry of the run that started it keeps its round.
        wideRound: mine ? mine.wideRound : null,
        requestedBy: t.user,
        token: ctx.token,
        startedAt: now,
      },
      slots: slots.map(({ slot, approach }) => ({ slot, approach })),
    },
  ]);
  // The filter kept the start back (shadow mode): no slot composes, so nothing is dispatched either.
  if (starting.withheld.length > 0) {
    return {
      ok: true,
      message: `Shadow mode: Arbiter would dispatch ${want} candidates for #${change.number}, one per approach; nothing was dispatched.`,
    };
  }
  const start = parseRecorded(PortfolioStart, starting.results.get(startKey), `the start of explore ${number}`);
  if (!start.started)
    return refused(
      'explore_running',
      `Another explore of #${change.number} is running: ${await describeRunning(ctx, start.portfolio)}.`,
    );
  const p = start.portfolio;
  await executePlan(
    ctx,
    planExploreDispatch({ repo: ctx.key, change: change.number, portfolio: p, slots, by: t.user }, now),
  );
  const list = slots.map((s) => `- \`${s.slot}\`: ${s.approach}`).join('\n');
  return {
    ok: true,
    message: `Explore ${p.number} of #${change.number}: dispatched ${slots.length} candidates, one per approach (\`arbiter.candidate.requested\`):\n\n${list}\n\nThe wide round (${p.policy}, k = ${p.k}) waits up to ${minutes(cfg.composeTimeout)} for each draft pull request with \`Candidate-for: #${change.number}\` and \`Arbiter-slot: <slot>\`; it ships nothing, and the top ${p.k} go on to a deep round.`,
  };
}

/** What an open explore holds a group's round for: slots still composing, and deep candidates whose refinement has not arrived. */
export async function portfolioPending(
  ctx: RepoContext,
  change: number,
  base: string,
  siblings: CandidateRow[],
): Promise<{ pr: number; why: string; label?: string }[]> {
  const { store } = ctx.deps;
  const p = await store.latestPortfolio(ctx.key, change);
  if (!p || p.base !== base || p.phase === 'done') return [];
  if (p.phase === 'wide') {
    const slots = await store.listSlots(ctx.key, change, p.number);
    return slots
      .filter((s) => s.state === 'composing')
      .map((s) => ({ pr: 0, label: `slot ${s.slot}`, why: 'composing' }));
  }
  const open = new Map(siblings.map((s) => [s.pr, s]));
  return (await store.listDeep(ctx.key, change, p.number))
    .filter((d) => d.state === 'awaiting' && open.get(d.pr)?.headSha === d.headSha)
    .map((d) => ({ pr: d.pr, why: 'refining' }));
}

/**
 * A candidate was recorded or got a new head: a PR naming a composing slot fills it; a new head on
 * a deep candidate is its refinement. A slot that is not open leaves it an ordinary candidate, and
 * the PR is told so once (core/plan/portfolio-steps.ts).
 */
export async function notePortfolioCandidate(
  ctx: RepoContext,
  candidate: CandidateRow,
  body: string | null,
): Promise<void> {
  const { store } = ctx.deps;
  const p = await store.latestPortfolio(ctx.key, candidate.change);
  const named = slotOf(body);
  const deep =
    p?.phase === 'deep'
      ? ((await store.listDeep(ctx.key, candidate.change, p.number)).find((d) => d.pr === candidate.pr) ?? null)
      : null;
  const plan = planPortfolioCandidate(
    {
      repo: ctx.key,
      candidate,
      named,
      namedSlot: named === null ? null : await store.getSlot(ctx.key, candidate.change, named),
      explore: p && {
        number: p.number,
        phase: p.phase,
        // The slots an agent's PR without the line may fill (wide round only).
        slots: named === null && p.phase === 'wide' ? await store.listSlots(ctx.key, candidate.change, p.number) : [],
        deep,
      },
      approaches: ctx.config.portfolio.approaches,
    },
    nowIso(ctx),
  );
  if (plan.actions.length > 0) await executePlan(ctx, plan.actions);
  if (plan.fill) await executeGated(ctx, plan.fill);
}
