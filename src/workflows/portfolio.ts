// Portfolio search (DESIGN.md section 7), the shell: `/arbiter explore N` dispatches one agent
// per distinct approach; slots compose until their PRs open; the wide round ranks them (reading
// the scoring check again under successive halving) and sends the top k to the deep round.
import { z } from 'zod';
import type { CommandTarget, VerbResult } from '../commands/types.ts';
import type { Action } from '../core/actions.ts';
import { readWideDecision, type WideDecision } from '../core/plan-schema.ts';
import { planWideRound, type SlotView } from '../core/plan/portfolio.ts';
import { MAX_EXPLORE, MAX_READINGS, POLICIES, readingsUsed, slotName, slotOf, type Reading } from '../core/portfolio.ts';
import { markerFor } from '../core/render/markers.ts';
import type { PortfolioCalls } from '../github/port.ts';
import type { PortfolioRow } from '../store/portfolio-store.ts';
import type { CandidateRow, ChangeRow, RoundRow } from '../store/types.ts';
import { refreshChange, trackedChange } from './changes.ts';
import { recordAdoption } from './trust.ts';
import { claimOnce, nowIso, type RepoContext } from './context.ts';
import { executePlan, writeCheck } from './execute.ts';
import type { GroupView } from './select.ts';

const refused = (code: string, message: string): VerbResult => ({ ok: false, code, message });

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
  const awaited = (await store.listDeep(ctx.key, p.change, p.number)).filter((d) => d.state === 'awaiting').map((d) => `#${d.pr}`);
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
  const change = (await store.getChange(ctx.key, t.issueNumber)) ?? (await trackedChange(ctx, t.issueNumber, null)) ?? (await adoptToExplore(ctx, t));
  if (!change) return refused('not_a_change', `#${t.issueNumber} is not an issue Arbiter can read.`);
  if (change.state === 'shipped' || change.state === 'cancelled') return refused('change_closed', `#${change.number} is ${change.state}; nothing is explored for it.`);
  if (change.criteria.length === 0) {
    return refused('no_criteria', `#${change.number} lists no acceptance criteria, so the candidates could not be compared: add them under an "Acceptance criteria" heading first.`);
  }
  const approaches = cfg.approaches;
  const want = n ?? Math.min(approaches.length, MAX_EXPLORE);
  if (approaches.length === 0) {
    return refused('no_approaches', 'Portfolio search needs distinct approaches and generates none: list them under `portfolio.approaches` in `.github/arbiter.yml`. Nothing was dispatched.');
  }
  if (want > approaches.length) {
    return refused(
      'too_few_approaches',
      `\`explore ${want}\` needs ${want} distinct approaches, but \`portfolio.approaches\` lists ${approaches.length}: add more there, or explore ${approaches.length}. Nothing was dispatched.`,
    );
  }
  if (cfg.policy === 'successive-halving' && ctx.config.gate.score === null) {
    return refused('no_scoring_check', '`portfolio.policy: successive-halving` re-runs the scoring check, but `gate.score` names none. Nothing was dispatched.');
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
  if (ctx.config.mode === 'shadow') {
    return { ok: true, message: `Shadow mode: Arbiter would dispatch ${want} candidates for #${change.number}, one per approach; nothing was dispatched.` };
  }
  const head = await portfolioGitHub(ctx).defaultBranchHead();
  const now = nowIso(ctx);
  let round: RoundRow = await store.currentRound(ctx.key, change.number, head.branch, now);
  if (mine === null && (round.decision !== null || round.selection !== null)) round = await store.openNextRound(ctx.key, change.number, head.branch, round.number, now);
  const number = mine ? mine.number : (latest?.number ?? 0) + 1;
  const start = await store.startPortfolio({
    repo: ctx.key,
    change: change.number,
    number,
    base: head.branch,
    baseSha: head.sha,
    policy: cfg.policy,
    k: cfg.k,
    phase: 'wide',
    wideRound: mine ? mine.wideRound : round.number,
    requestedBy: t.user,
    token: ctx.token,
    startedAt: now,
  });
  if (!start.started) return refused('explore_running', `Another explore of #${change.number} is running: ${await describeRunning(ctx, start.portfolio)}.`);
  const p = start.portfolio;
  const slots = approaches.slice(0, want).map((approach, i) => ({ slot: slotName(change.number, p.number, i + 1), approach }));
  await store.addSlots(slots.map((s) => ({ repo: ctx.key, change: change.number, slot: s.slot, portfolio: p.number, approach: s.approach, state: 'composing' as const, pr: null, reason: '', dispatchedAt: p.startedAt })));
  const actions: Action[] = slots.map((s) => ({
    kind: 'dispatch',
    key: `${ctx.key}#${change.number}/p${p.number}/request/${s.slot}`,
    eventType: 'arbiter.candidate.requested',
    payload: { change: change.number, slot: s.slot, approach: s.approach, phase: 'wide', base: p.base, base_sha: p.baseSha, round: p.wideRound },
  }));
  await executePlan(ctx, actions);
  await store.addEvent(ctx.key, 'portfolio.explore', { change: change.number, portfolio: p.number, slots: slots.map((s) => s.slot), by: t.user }, now);
  const list = slots.map((s) => `- \`${s.slot}\`: ${s.approach}`).join('\n');
  return {
    ok: true,
    message: `Explore ${p.number} of #${change.number}: dispatched ${slots.length} candidates, one per approach (\`arbiter.candidate.requested\`):\n\n${list}\n\nThe wide round (${p.policy}, k = ${p.k}) waits up to ${minutes(cfg.composeTimeout)} for each draft pull request with \`Candidate-for: #${change.number}\` and \`Arbiter-slot: <slot>\`; it ships nothing, and the top ${p.k} go on to a deep round.`,
  };
}

/** What an open explore holds a group's round for: slots still composing, and deep candidates whose refinement has not arrived. */
export async function portfolioPending(ctx: RepoContext, change: number, base: string, siblings: CandidateRow[]): Promise<{ pr: number; why: string; label?: string }[]> {
  const { store } = ctx.deps;
  const p = await store.latestPortfolio(ctx.key, change);
  if (!p || p.base !== base || p.phase === 'done') return [];
  if (p.phase === 'wide') {
    const slots = await store.listSlots(ctx.key, change, p.number);
    return slots.filter((s) => s.state === 'composing').map((s) => ({ pr: 0, label: `slot ${s.slot}`, why: 'composing' }));
  }
  const open = new Map(siblings.map((s) => [s.pr, s]));
  return (await store.listDeep(ctx.key, change, p.number))
    .filter((d) => d.state === 'awaiting' && open.get(d.pr)?.headSha === d.headSha)
    .map((d) => ({ pr: d.pr, why: 'refining' }));
}

/**
 * A candidate was recorded or got a new head: a PR naming a composing slot fills it; a new head on
 * a deep candidate is its refinement. A slot that is not open leaves it an ordinary candidate, and
 * the PR is told so once.
 */
export async function notePortfolioCandidate(ctx: RepoContext, candidate: CandidateRow, body: string | null): Promise<void> {
  const { store } = ctx.deps;
  const p = await store.latestPortfolio(ctx.key, candidate.change);
  if (p?.phase === 'deep') {
    const deep = (await store.listDeep(ctx.key, candidate.change, p.number)).find((d) => d.pr === candidate.pr);
    if (deep?.state === 'awaiting' && deep.headSha !== candidate.headSha) await store.settleDeep(ctx.key, candidate.change, p.number, candidate.pr, 'arrived');
  }
  const named = slotOf(body);
  if (named === null) return;
  const slot = await store.getSlot(ctx.key, candidate.change, named);
  if (slot?.pr === candidate.pr) return;
  if (slot?.state === 'composing' && (await store.fillSlot(ctx.key, candidate.change, named, candidate.pr))) {
    await store.addEvent(ctx.key, 'portfolio.slot-filled', { change: candidate.change, slot: named, pr: candidate.pr }, nowIso(ctx));
    return;
  }
  const why = slot ? `slot \`${named}\` is ${slot.state}${slot.pr !== null ? ` (filled by #${slot.pr})` : ''}` : `#${candidate.change} has no slot \`${named}\``;
  const marker = `unlinked-slot:${candidate.pr}`;
  await executePlan(ctx, [
    {
      kind: 'comment',
      key: `${ctx.key}#${candidate.change}/unlinked-slot/${candidate.pr}/${named}`,
      issue: candidate.pr,
      marker,
      body: `${markerFor(marker)}\n\`Arbiter-slot: ${named}\` names no open slot (${why}), so #${candidate.pr} is an ordinary candidate for #${candidate.change}.`,
    },
  ]);
}

/** Candidates of the view whose `Arbiter-slot` names no slot they fill. */
async function unlinkedOf(ctx: RepoContext, view: GroupView, slots: SlotView[]): Promise<{ pr: number; slot: string }[]> {
  const out: { pr: number; slot: string }[] = [];
  for (const s of view.siblings) {
    const named = slotOf(view.pulls.get(s.pr)?.body);
    if (named !== null && !slots.some((x) => x.slot === named && x.pr === s.pr)) out.push({ pr: s.pr, slot: named });
  }
  return out;
}

/** Every completed reading of the scoring check on each sibling's head, stored with the explore. */
async function gatherReadings(ctx: RepoContext, p: PortfolioRow, view: GroupView): Promise<{ readings: Reading[]; runs: Map<number, { id: number; appSlug: string | null }> }> {
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
  await ctx.deps.store.putReadings(readings.map((r) => ({ repo: ctx.key, change: p.change, portfolio: p.number, ...r })));
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
    const slots: SlotView[] = (await store.listSlots(ctx.key, p.change, p.number)).map((s) => ({ slot: s.slot, approach: s.approach, state: s.state, pr: s.pr, reason: s.reason }));
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
    const decision: WideDecision = { verdict: { kind: 'portfolio-wide', deep: step.deep, out: step.out }, actions: plan.actions };
    await store.recordDecision(round.id, decision, nowIso(ctx), ctx.token);
    current = (await store.getRound(round.id)) ?? current;
    if (current.decision === null) return true;
    await store.addEvent(ctx.key, 'round.decided', { change: p.change, round: round.number, verdict: 'portfolio-wide' }, nowIso(ctx));
  }
  const decided = readWideDecision(current.decision);
  const heads = new Map(view.siblings.map((s) => [s.pr, s.headSha]));
  if (ctx.config.mode !== 'shadow') {
    await store.addDeep(decided.verdict.deep.map((pr) => ({ repo: ctx.key, change: p.change, portfolio: p.number, pr, headSha: heads.get(pr) ?? '', state: 'awaiting' as const, dispatchedAt: nowIso(ctx) })));
  }
  await executePlan(ctx, decided.actions);
  await store.setPortfolioPhase(ctx.key, p.change, p.number, 'wide', ctx.config.mode === 'shadow' ? 'done' : 'deep');
  await store.recordAppliedAction(`round-done:${round.id}`, { token: ctx.token }, nowIso(ctx));
  return true;
}

const Requested = z.object({ rerun: z.number(), at: z.string() });

/**
 * Re-runs the scoring check of each of `prs` once per reading it needs (an action key per run).
 * True when every one was asked for before, `portfolio.composeTimeout` ago, and never answered.
 */
async function requestReruns(ctx: RepoContext, p: PortfolioRow, view: GroupView, prs: number[], runs: Map<number, { id: number; appSlug: string | null }>): Promise<boolean> {
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
      stalled &&= ctx.deps.clock.now().getTime() - Date.parse(asked.data.at) >= ctx.config.portfolio.composeTimeout * 1000;
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
      title: (shadow ? `Shadow: would measure \`${name}\` again` : `Wide round: measuring \`${name}\` again`)
        .slice(0, 200),
      summary: shadow
        ? `Round ${view.round.number} of #${p.change} (${p.policy}): Arbiter would re-run ` +
          `the scoring check \`${name}\` on this head to average its readings; shadow mode re-runs no CI.`
        : `Round ${view.round.number} of #${p.change} (${p.policy}): Arbiter re-ran the scoring check \`${name}\` on this head to average its readings before choosing the top ${p.k}.`,
    });
  }
  return stalled;
}
