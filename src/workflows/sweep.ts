// The periodic sweep: settles siblings whose checks never finish after `selection.siblingTimeout`
// (unpromotable, "timed out"), and sends a Change to the human gate when its repair never came.
import { getRepoConfig } from '../config/check.ts';
import { DELIVERY_QUEUE, SWEEP_QUEUE } from '../deps.ts';
import { planKeptHead, planRepairExpired, planResumeFailure } from '../core/plan/sweep.ts';
import { planSiblingTimeout } from '../core/plan/sibling-timeout.ts';
import { composingTimedOut } from '../core/plan/agent-hold.ts';
import { GitHubError } from '../github/errors.ts';
import { MAX_RATE_LIMIT_WAIT_SECONDS, rateLimitOf } from '../github/rate-limit.ts';
import { GateEvidence } from '../core/types.ts';
import type { Deps } from '../deps.ts';
import type { CandidateRow, RoundRow } from '../store/types.ts';
import { OPEN_STATES } from '../core/types.ts';
import { deliveryOfToken, gatewayFor, nowIso, repoContext, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { executeUpkeep } from './execute-records.ts';
import { planUpkeep } from '../core/plan/upkeep.ts';
import { z } from 'zod';
import { DASHBOARD_RUN_PREFIXES } from './dashboard.ts';
import { sweepPortfolios } from './portfolio-sweep.ts';
import { sweepSetHolds } from './set-sweep.ts';
import { resolveReviewers } from './reviewers.ts';
import { selectAndFollow, verifyAndSelect } from './flow.ts';
import { shippedOn } from './shipped.ts';
import { pickUpLinkedPulls } from './link.ts';
import { readablePlan } from './recorded-plan.ts';
import { SELECTION_BUTTONS } from '../core/buttons.ts';
import {
  changeId,
  groupId,
  isSweepToken,
  repairExpiredKey,
  resumeFailedKey,
  sweepAfterLimitKey,
  sweepRoundToken,
  sweepToken,
  waitingStaleKey,
  waitingTakenKey,
} from '../core/keys.ts';

/** The answer of a `forget` action: whether the mark was there. */
const Forgotten = z.object({ forgotten: z.boolean() });

async function contextFor(deps: Deps, c: { repo: string; change: number }, token: string): Promise<RepoContext | null> {
  const change = await deps.store.getChange(c.repo, c.change);
  if (!change) return null;
  const [owner, repo] = c.repo.split('/');
  const gh = await gatewayFor(deps, change.installationId, owner, repo);
  const config = await getRepoConfig(deps, gh, { owner, repo });
  if (!config) return null;
  return repoContext(deps, { owner, repo, installationId: change.installationId, config, token, gh });
}

/**
 * A candidate whose head has waited `selection.siblingTimeout` (core/plan/sibling-timeout.ts): its
 * checks timed out, or its agent is still composing (select.ts reads the title from GitHub and
 * leaves it out, neither ranked nor closed). Whether its group's selection runs on this sweep.
 */
async function siblingTimedOut(ctx: RepoContext, c: CandidateRow): Promise<boolean> {
  const stored = GateEvidence.safeParse(await ctx.deps.store.getEvidence(ctx.key, c.pr, c.headSha, 'gate'));
  const plan = planSiblingTimeout(
    { repo: ctx.key, candidate: c, timeout: ctx.config.selection.siblingTimeout, gate: stored.data ?? null },
    nowIso(ctx),
  );
  if (plan.handsOn === null) return false;
  return (await executePlan(ctx, plan.actions)).applied.includes(plan.handsOn);
}

/** A group whose siblings' waiting lists are behind: a sibling settled and only its own was rewritten (select.ts). */
async function staleWaiting(ctx: RepoContext, c: CandidateRow): Promise<boolean> {
  return (await ctx.deps.store.getAppliedAction(waitingStaleKey(ctx.key, c.change, c.base))) !== null;
}

/**
 * A repair (of either origin: a decided round, or a person's rejection) that nothing answered
 * within `repair.timeout`: no new commits and no new candidate since it was requested. The Change
 * goes to the human gate in full: label, review request, the reason, the check and the receipt.
 */
export async function expireRepair(ctx: RepoContext, change: number): Promise<void> {
  const { store } = ctx.deps;
  const repair = await store.getRepair(ctx.key, change);
  const state = (await store.getChange(ctx.key, change))?.state;
  if (!repair || state === undefined || state === 'cancelled') return;
  const asked = Date.parse(repair.at);
  if (ctx.deps.clock.now().getTime() - asked < ctx.config.repair.timeout * 1000) return;
  const done = repairExpiredKey(ctx.key, change, repair.at);
  if ((await store.getAppliedAction(done)) !== null) return;
  const all = await store.listCandidatesOfChange(ctx.key, change);
  if (all.some((c) => Date.parse(c.headSeenAt) > asked)) return; // answered: the next round decides
  const target = all.find((c) => c.pr === repair.pr);
  // A group that shipped meanwhile needs no person (shipping is per base).
  if (!target || (await shippedOn(ctx, change, target.base))) return;
  const rejected = target.state === 'rejected';
  if (!rejected && !OPEN_STATES.has(target.state)) return;
  const open = all.filter((c) => c.base === target.base && OPEN_STATES.has(c.state));
  const targets = rejected ? (open.length > 0 ? open : [target]) : [target];
  if (rejected && open.length === 0 && (await ctx.gh.pullState(target.pr)).state !== 'open') return;
  const paths = (await Promise.all(targets.map((t) => store.getPatch(ctx.key, t.pr, t.headSha)))).flatMap(
    (p) => p?.files.map((f) => f.path) ?? [],
  );
  const reviewers = await resolveReviewers(
    ctx,
    paths,
    targets.map((t) => t.author),
  );
  const round = await store.currentRound(ctx.key, change, target.base, nowIso(ctx));
  const plan = planRepairExpired(
    {
      repo: ctx.key,
      change,
      round: round.number,
      base: target.base,
      repairOf: { pr: target.pr, rejected },
      targets: targets.map((t) => ({ pr: t.pr, headSha: t.headSha })),
      reviewers,
      timeout: ctx.config.repair.timeout,
      prefix: ctx.config.commands.prefix,
      decided: await readablePlan(ctx, round),
      buttons: [...SELECTION_BUTTONS],
      now: nowIso(ctx),
    },
    repair.at,
  );
  await executePlan(ctx, plan.actions);
}

/**
 * Whether the claimant of a round will never continue it: its delivery is done (processed, or
 * failed for good), or its job is over or gone (a job that expired on its last attempt fails
 * without a word to Arbiter), or it is a sweep, which only the sweep runs (one at a time).
 * Such a round is resumed under the claimant's own token, exactly as its retry would have done:
 * every action it claimed stays its own, and one it may have applied is looked up first.
 */
export async function abandonedClaimant(deps: Pick<Deps, 'store' | 'queue'>, token: string): Promise<boolean> {
  if (isSweepToken(token)) return true;
  const delivery = deliveryOfToken(token);
  if (delivery === null) return false;
  const d = await deps.store.getDelivery(delivery);
  if (d === null || d.doneAt) return true;
  const job = await deps.queue.jobState(DELIVERY_QUEUE, delivery);
  return job === 'over' || job === 'missing';
}

export async function resumeAbandonedRounds(
  deps: Deps,
  contextOf: (round: RoundRow) => Promise<RepoContext | null>,
): Promise<void> {
  for (const round of await deps.store.listUnfinishedRounds(500)) {
    const claimant = round.selection;
    let ctx: RepoContext | null = null;
    try {
      if (claimant === null || !(await abandonedClaimant(deps, claimant))) continue;
      ctx = await contextOf(round);
      if (!ctx) continue;
      deps.log.warn(
        { repo: round.repo, change: round.change, round: round.number, claimant },
        'sweep: resuming a round its claimant left unfinished',
      );
      await selectAndFollow({ ...ctx, token: claimant }, round.change, round.base);
    } catch (error) {
      await resumeFailed(deps, ctx ?? (await contextOf(round).catch(() => null)), round, error);
    }
  }
}

/**
 * A rate limit stopped a step of the sweep: another sweep is sent for the end of GitHub's wait, on
 * the app's clock, as a delivery job defers itself. The minute schedule would try again anyway; this
 * one is on time for a wait of a second, and is the only one where the clock moves only as work
 * comes due (the scenario runner). One job per end of wait, however many steps met the limit.
 */
async function sweepAfterLimit(deps: Pick<Deps, 'queue' | 'clock' | 'log'>, error: unknown): Promise<void> {
  const limit = rateLimitOf(error);
  if (limit?.retryAfter == null) return;
  const now = deps.clock.now();
  const due = new Date(now.getTime() + Math.min(limit.retryAfter, MAX_RATE_LIMIT_WAIT_SECONDS) * 1000);
  try {
    await deps.queue.sendOnceAt(SWEEP_QUEUE, {}, sweepAfterLimitKey(due.toISOString()), due, now);
  } catch (sendError) {
    deps.log.warn({ err: sendError }, 'sweep: the sweep after a rate limit was not sent; the minute schedule runs it');
  }
}

/** How many times the sweep resumes a round whose claimant left it before a person is asked. */
export const RESUME_BUDGET = 5;

/**
 * A resumed round failed again. Transient failures (GitHub 5xx, a rate limit, no answer) are
 * tried again by the next sweep; after RESUME_BUDGET other failures (a refusal) the round is given up:
 * the Change goes to a person with the last answer in GitHub's words, and the round is done.
 */
async function resumeFailed(deps: Deps, ctx: RepoContext | null, round: RoundRow, error: unknown): Promise<void> {
  if (error instanceof GitHubError && error.transient) {
    // GitHub's "try later" (5xx, a rate limit, no answer) is not a refusal: it spends no budget.
    await sweepAfterLimit(deps, error);
    deps.log.warn({ err: error, repo: round.repo, change: round.change }, 'sweep: resuming a round failed for now');
    return;
  }
  if (!ctx) {
    deps.log.warn({ err: error, repo: round.repo, change: round.change }, 'sweep: resuming a round failed; no context');
    return;
  }
  // One record per failed try (a recorded action is written once): the first free slot is this one.
  const keys = Array.from({ length: RESUME_BUDGET }, (_, i) => resumeFailedKey(round.id, i + 1));
  const done = await deps.store.getAppliedActions(keys);
  const words =
    error instanceof GitHubError ? error.githubWords : error instanceof Error ? error.message : String(error);
  const view = { round, recorded: keys.filter((k) => done.has(k)).length, budget: RESUME_BUDGET, error: words };
  const plan = planResumeFailure({ ...view, prefix: ctx.config.commands.prefix }, nowIso(ctx));
  const { attempts } = plan;
  const sweepCtx = { ...ctx, token: sweepRoundToken(round.repo, round.change, round.base, round.number) };
  if (!plan.gaveUp) {
    await executePlan(sweepCtx, plan.actions);
    deps.log.warn(
      { err: error, repo: round.repo, change: round.change, attempts },
      'sweep: resuming a round failed; the next sweep tries again',
    );
    return;
  }
  deps.log.error(
    { repo: round.repo, change: round.change, round: round.number, attempts, error: words },
    'sweep: a round failed on every try of its budget; the Change goes to a person',
  );
  try {
    await executePlan(sweepCtx, plan.actions);
  } catch (writeError) {
    deps.log.warn({ err: writeError, repo: round.repo }, 'sweep: telling a person failed; the next sweep tries again');
  }
}

/** A kept head this old whose candidate is recorded was left to a run that did not verify it: the sweep does. */
export const KEPT_HEAD_GRACE_SECONDS = 60;

/**
 * Heads whose check event was left to a later delivery on a sibling's head that, once it ran, did
 * not verify this one (the sibling left the group meanwhile): verified now, as that event's run
 * would have. A head no candidate has recorded stays kept for its recording.
 */
export async function verifyKeptHeads(
  deps: Deps,
  now: Date,
  ctxFor: (c: CandidateRow) => Promise<RepoContext | null>,
): Promise<void> {
  const before = new Date(now.getTime() - KEPT_HEAD_GRACE_SECONDS * 1000).toISOString();
  for (const kept of await deps.store.listKeptCheckEvents(before, 200)) {
    try {
      const open = (await deps.store.listCandidatesByHead(kept.repo, kept.headSha)).filter((c) =>
        OPEN_STATES.has(c.state),
      );
      const plan = planKeptHead({ ...kept, open: open.map((c) => c.pr) }, now.toISOString());
      const first = open[0];
      if (plan.actions.length === 0 || !first) continue;
      const ctx = await ctxFor(first);
      if (!ctx) continue;
      await executePlan(ctx, plan.actions);
      for (const pr of plan.verify) await verifyAndSelect(ctx, pr);
    } catch (error) {
      deps.log.warn({ err: error, repo: kept.repo, head: kept.headSha }, 'sweep: a kept head was not verified');
    }
  }
}

/**
 * How often the sweep looks for sidebar links, in minutes. A link made in the Development sidebar
 * sends no webhook, but the pull request's next event (a push, a check) records it anyway: the
 * sweep is the backstop for one that sends none, so every fifth minute is enough, and a minute's
 * look cost one GraphQL read per Change with open candidates (the realistic bench's 3 per candidate).
 */
export const SIDEBAR_SWEEP_MINUTES = 5;

/** Each Change with open candidates: pull requests linked to it in the sidebar (no webhook) are recorded. */
async function pickUpSidebarLinks(deps: Deps, token: string): Promise<void> {
  if (Math.floor(deps.clock.now().getTime() / 60_000) % SIDEBAR_SWEEP_MINUTES !== 0) return;
  const changes = new Map<string, CandidateRow>();
  for (const state of OPEN_STATES)
    for (const c of await deps.store.listCandidatesInState(state)) changes.set(changeId(c.repo, c.change), c);
  for (const c of changes.values()) {
    try {
      const ctx = await contextFor(deps, c, token);
      if (ctx) await pickUpLinkedPulls(ctx, c.change);
    } catch (error) {
      deps.log.warn({ err: error, repo: c.repo, change: c.change }, 'sweep: linked pull requests not read');
    }
  }
}

export async function runSweep(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  const token = sweepToken(now.toISOString());
  // What can no longer matter goes first (core/plan/upkeep.ts).
  await executeUpkeep(deps, planUpkeep({ dashboardRuns: DASHBOARD_RUN_PREFIXES }, now.toISOString()));
  const groups = new Map<string, { c: CandidateRow; ctx: RepoContext }>();
  for (const c of await deps.store.listVerifyingSince(now.toISOString())) {
    try {
      const ctx = await contextFor(deps, c, token);
      if (!ctx) continue;
      // Only a group this sweep changed (a sibling timed out) or one whose waiting lists are behind
      // needs its selection step; any other waits for its own webhooks.
      if ((await siblingTimedOut(ctx, c)) || (await staleWaiting(ctx, c)))
        groups.set(groupId(c.repo, c.change, c.base), { c, ctx });
    } catch (error) {
      deps.log.warn({ err: error, repo: c.repo, pr: c.pr }, 'sweep: candidate skipped');
    }
  }
  // A timed-out sibling may complete its group; a selection that failed part-way on an earlier
  // sweep is resumed, because each group's sweep token is stable for its round. A group with a
  // sibling still verifying within `selection.siblingTimeout` is left to that sibling: its own
  // settling runs the selection step, and the timeout above acts on it otherwise. Selecting it
  // every minute read the group from GitHub each time, for as long as its CI ran (issue 28). A
  // sibling past its timeout and still verifying (an agent still composing, whose group is handed
  // on once) holds nothing: its group is selected every minute again, as before.
  for (const c of await deps.store.listCandidatesInState('unpromotable')) {
    const key = groupId(c.repo, c.change, c.base);
    if (groups.has(key)) continue;
    const ctx = await contextFor(deps, c, token).catch(() => null);
    if (!ctx) continue;
    const siblings = await deps.store.listCandidates(c.repo, c.change, c.base);
    const timeout = ctx.config.selection.siblingTimeout;
    const settling = (s: CandidateRow) =>
      s.state === 'verifying' && !composingTimedOut(s.headSeenAt, timeout, now.toISOString());
    if (siblings.some(settling)) continue;
    groups.set(key, { c, ctx });
  }
  for (const { c, ctx } of groups.values()) {
    // Taken before the group is read: a sibling that settles meanwhile marks it again.
    const stale = waitingStaleKey(c.repo, c.change, c.base);
    const take = waitingTakenKey(c.repo, c.change, c.base, now.toISOString(), 'take');
    const taken = await executePlan(ctx, [{ kind: 'forget', key: take, record: stale }]);
    const wasStale = Forgotten.safeParse(taken.results.get(take)).data?.forgotten === true;
    try {
      const round = await deps.store.currentRound(c.repo, c.change, c.base, now.toISOString());
      await selectAndFollow(
        { ...ctx, token: sweepRoundToken(c.repo, c.change, c.base, round.number) },
        c.change,
        c.base,
      );
    } catch (error) {
      if (wasStale) {
        // Marked again for the next sweep (unless a sibling did already: the first mark stands).
        const again = waitingTakenKey(c.repo, c.change, c.base, now.toISOString(), 'again');
        await executePlan(ctx, [{ kind: 'put-record', key: again, record: stale, value: {}, replace: false }]);
      }
      await sweepAfterLimit(deps, error);
      deps.log.warn(
        { err: error, repo: c.repo, change: c.change },
        'sweep: selection failed; the next sweep resumes it',
      );
    }
  }
  await pickUpSidebarLinks(deps, token);
  await verifyKeptHeads(deps, now, (c) => contextFor(deps, c, token));
  await sweepPortfolios(deps, (c) => contextFor(deps, c, token));
  await sweepSetHolds(deps, (c) => contextFor(deps, c, token));
  await resumeAbandonedRounds(deps, (round) => contextFor(deps, round, token));
  // A repair's candidate is `selected` (planned by a round) or `rejected` (by a person, kept open).
  const repairs = new Map<string, CandidateRow>();
  for (const c of [
    ...(await deps.store.listCandidatesInState('selected')),
    ...(await deps.store.listCandidatesInState('rejected')),
  ])
    repairs.set(changeId(c.repo, c.change), c);
  for (const c of repairs.values()) {
    try {
      const ctx = await contextFor(deps, c, token);
      if (ctx) await expireRepair(ctx, c.change);
    } catch (error) {
      deps.log.warn({ err: error, repo: c.repo, pr: c.pr }, 'sweep: repair check skipped');
    }
  }
}
