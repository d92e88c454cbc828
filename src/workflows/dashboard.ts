// The dashboard issue of a repository: asked for after every delivery, refreshed by a job due at
// the next minute of the app's clock (one job per repository and minute), so it is written at
// most once a minute. One issue, Arbiter's own, found again by its number, then among the issues
// Arbiter's bot opened by its hidden marker or title; opened only when none is found.
import { z } from 'zod';
import {
  DASHBOARD_DECISIONS,
  DASHBOARD_MARKER,
  DASHBOARD_TITLE,
  describeDecision,
  type DashboardView,
  type OpenRound,
  type WaitingChange,
} from '../core/render/dashboard.ts';
import { hasMarker } from '../core/render/markers.ts';
import { OPEN_STATES } from '../core/types.ts';
import { rateBudgets } from '../github/rate-budget.ts';
import { rateLimitOf, type InstallationBlocks } from '../github/rate-limit.ts';
import type { IssueSnapshot } from '../github/port.ts';
import type { DashboardRows } from '../store/dashboard-store.ts';
import { nowIso, type RepoContext } from './context.ts';
import { claimAnswer, executePlan } from './execute.ts';
import { claimAction } from '../core/actions.ts';
import { planDashboardWrite } from '../core/plan/dashboard.ts';
import {
  KEY_NAMESPACES,
  actionKey,
  claimKey,
  dashboardIssueKey,
  dashboardOpenKey,
  dashboardRunKey,
} from '../core/keys.ts';

export const DASHBOARD_QUEUE = 'dashboard';
const MINUTE_MS = 60_000;

export const DashboardJobData = z.object({
  owner: z.string().min(1),
  repo: z.string().min(1),
  installationId: z.number().int(),
  /** The token of the run this job continues (a refresh deferred by a rate limit keeps its claims). */
  run: z.string().min(1).optional(),
});
export type DashboardJobData = z.infer<typeof DashboardJobData>;

const dashboardOn = (ctx: RepoContext): boolean => ctx.config.dashboard && ctx.deps.dashboards !== false;
const issueKey = (ctx: RepoContext): string => dashboardIssueKey(ctx.key);
/**
 * What the sweep drops after an hour: the per-minute claims that space runs out, the body's edits
 * keyed by their minute, and the executor's claims of those edits.
 */
export const DASHBOARD_RUN_PREFIXES = [KEY_NAMESPACES.dashboardRun, claimKey(actionKey(KEY_NAMESPACES.dashboardRun))];
const runKey = (ctx: RepoContext, minute: number): string => dashboardRunKey(ctx.key, minute);
/**
 * Taken by the one run that may open the repository's dashboard issue within a ten-minute window:
 * a run stalled past its minute never races a later one, and a run that failed for good holds the
 * opening only until the window ends.
 */
const OPEN_WINDOW_MS = 10 * MINUTE_MS;

/** Claims `key` for this run (`at`: kept with it): whether it holds it, taken now or before (a retry). */
async function holds(ctx: RepoContext, key: string, at?: string): Promise<boolean> {
  const answer = claimAnswer(await executePlan(ctx, [claimAction(key, ctx.token, at)]), key);
  return answer === 'new' || answer === 'mine';
}

/** The refresh job of the first minute boundary after `notBefore`; a second ask for it adds nothing. */
export async function scheduleDashboard(
  deps: Pick<RepoContext['deps'], 'queue' | 'clock'>,
  data: DashboardJobData,
  notBefore: number,
): Promise<void> {
  const minute = Math.floor(notBefore / MINUTE_MS) + 1;
  await deps.queue.sendOnceAt(
    DASHBOARD_QUEUE,
    { ...data },
    `${data.owner}/${data.repo}@${minute}`,
    new Date(minute * MINUTE_MS),
    deps.clock.now(),
  );
}

const scheduleRefresh = (ctx: RepoContext, notBefore: number): Promise<void> =>
  scheduleDashboard(ctx.deps, { owner: ctx.owner, repo: ctx.repo, installationId: ctx.installationId }, notBefore);

/** The refresh of the first minute boundary at or after the end of an installation's wait. */
export const scheduleAfterBlock = (
  deps: Pick<RepoContext['deps'], 'queue' | 'clock'>,
  data: DashboardJobData,
  until: Date,
): Promise<void> => scheduleDashboard(deps, data, until.getTime() - 1);

/** Asks for the dashboard to be brought up to date: from the first Change on, unless it is turned off. */
export async function requestDashboard(ctx: RepoContext): Promise<void> {
  if (!dashboardOn(ctx)) return;
  if (!(await ctx.deps.store.hasChanges(ctx.key))) return;
  await scheduleRefresh(ctx, ctx.deps.clock.now().getTime());
}

export type RefreshResult = 'off' | 'deferred' | 'created' | 'edited' | 'unchanged';

const Ran = z.object({ token: z.string(), at: z.string() });
const Stored = z.object({ issue: z.number().int() });

/**
 * Brings the dashboard up to date. Deferred (a job for a later minute) while the installation is
 * low on GitHub's rate limit or waits out a rate-limit refusal (`blocks`, shared with the app's
 * other jobs), when it was written less than a minute ago, or when another run holds this minute.
 * A refusal with a rate limit blocks the installation for every job sharing `blocks` and defers
 * the refresh to the end of the wait. A run that failed is retried under the same token and first
 * looks again for the issue it may have opened, so a lost answer never opens a second one.
 */
export async function refreshDashboard(
  ctx: RepoContext,
  blocks?: InstallationBlocks,
  /** `openNone`: only an existing dashboard issue is edited (while the config is invalid). */
  opts: { openNone?: boolean } = {},
): Promise<RefreshResult> {
  if (!dashboardOn(ctx)) return 'off';
  const data = { owner: ctx.owner, repo: ctx.repo, installationId: ctx.installationId };
  const blocked = blocks?.blockedUntil(ctx.installationId, ctx.deps.clock.now());
  if (blocked) {
    await scheduleAfterBlock(ctx.deps, data, blocked);
    return 'deferred';
  }
  try {
    return await refreshUnblocked(ctx, opts.openNone === true);
  } catch (error) {
    const limit = rateLimitOf(error);
    if (!limit || !blocks) throw error;
    const until = blocks.block(ctx.installationId, ctx.deps.clock.now(), limit.retryAfter ?? 0);
    ctx.log.warn(
      { status: limit.status, operation: limit.operation, until: until.toISOString() },
      'GitHub rate limit: dashboard refresh deferred',
    );
    await scheduleAfterBlock(ctx.deps, { ...data, run: ctx.token }, until);
    return 'deferred';
  }
}

async function refreshUnblocked(ctx: RepoContext, openNone: boolean): Promise<RefreshResult> {
  const { store } = ctx.deps;
  const now = ctx.deps.clock.now().getTime();
  if (rateBudgets.isLow(ctx.installationId, now)) {
    // Deferrable work: it waits for the window to reset, and asks again then.
    await scheduleRefresh(ctx, Math.max(now, rateBudgets.get(ctx.installationId)?.resetAtMs ?? 0));
    return 'deferred';
  }
  const minute = Math.floor(now / MINUTE_MS);
  const before = Ran.safeParse(await store.getAppliedAction(runKey(ctx, minute - 1)));
  if (before.success && before.data.token !== ctx.token && now - Date.parse(before.data.at) < MINUTE_MS) {
    await scheduleRefresh(ctx, Date.parse(before.data.at) + MINUTE_MS);
    return 'deferred';
  }
  // A claim: its one conditional insert decides which run has the minute (a retry keeps it), and
  // the next minute's run reads its holder and time.
  if (!(await holds(ctx, runKey(ctx, minute), nowIso(ctx)))) {
    await scheduleRefresh(ctx, now);
    return 'deferred';
  }
  const view = dashboardView(ctx, await store.readDashboard(ctx.key, DASHBOARD_DECISIONS));
  const dashboard = { ...view, configProblems: await store.configProblems(ctx.key) };
  const issue = await findDashboard(ctx);
  const window = Math.floor(now / OPEN_WINDOW_MS);
  if (!issue) {
    if (openNone || !(await store.hasChanges(ctx.key))) return 'off';
    // One run of the window opens it (a retry of that run keeps its token). Another run that finds
    // no issue meets a run still opening it (stalled past its minute): it opens none, and asks
    // again once the window is over. A claim decides the race, as the run's claim above does.
    if (!(await holds(ctx, dashboardOpenKey(ctx.key, window)))) {
      await scheduleRefresh(ctx, (window + 1) * OPEN_WINDOW_MS);
      return 'deferred';
    }
  }
  const found = issue && { number: issue.number, body: issue.body };
  const plan = planDashboardWrite({ repo: ctx.key, dashboard, issue: found, minute, window });
  await executePlan(ctx, plan.actions);
  return plan.result;
}

/** Arbiter's own dashboard issue: the one it recorded, else the oldest of its issues with the marker or the title. */
async function findDashboard(ctx: RepoContext): Promise<IssueSnapshot | null> {
  const ours = (i: IssueSnapshot | null): i is IssueSnapshot =>
    i !== null && !i.pull_request && i.user?.login === ctx.gh.botLogin;
  const stored = Stored.safeParse(await ctx.deps.store.getAppliedAction(issueKey(ctx)));
  if (stored.success) {
    const issue = await ctx.gh.getIssue(stored.data.issue);
    if (ours(issue)) return issue;
  }
  const own = (await ctx.gh.ownIssues.listOwn()).filter(ours);
  return own.find((i) => hasMarker(i.body, DASHBOARD_MARKER)) ?? own.find((i) => i.title === DASHBOARD_TITLE) ?? null;
}

const Verdict = z.object({
  verdict: z.object({ kind: z.string(), target: z.number().int().optional(), winner: z.number().int().optional() }),
  actions: z.array(z.object({ kind: z.string(), queue: z.boolean().optional() })).optional(),
});

/** What a decided winner that has not merged yet waits for, from its plan's merge-path write. */
function mergePathWait(plan: z.infer<typeof Verdict>): string {
  const step = (plan.actions ?? []).find((a) => ['merge', 'auto-merge', 'update-branch'].includes(a.kind));
  if (step?.kind === 'auto-merge')
    return step.queue ? 'the merge queue' : 'its required reviews (auto-merge is enabled; GitHub merges it then)';
  if (step?.kind === 'update-branch') return 'its updated branch to be verified';
  return 'its merge';
}
const GateData = z.object({
  winner: z.number().int().nullable().catch(null),
  candidates: z.array(z.number().int()).catch([]),
  why: z.string().optional().catch(undefined),
  reason: z.string().optional().catch(undefined),
});

/** What the store knows, as the dashboard shows it. */
export function dashboardView(ctx: Pick<RepoContext, 'repoUrl' | 'config'>, rows: DashboardRows): DashboardView {
  const open = rows.candidates.filter((c) => OPEN_STATES.has(c.state));
  const waiting: WaitingChange[] = rows.changes
    .filter((c) => c.state === 'human')
    .map((c) => {
      const mine = open.filter((o) => o.change === c.number);
      const gate = rows.gates.find((g) => g.change === c.number);
      const data = GateData.safeParse(gate?.data ?? {});
      const g = data.success ? data.data : { winner: null, candidates: [], why: undefined, reason: undefined };
      const still = (n: number) => mine.some((o) => o.pr === n);
      const selected = mine.filter((o) => o.state === 'selected');
      const candidates = g.candidates.filter(still).length > 0 ? g.candidates.filter(still) : selected.map((o) => o.pr);
      const winner = g.winner !== null && still(g.winner) ? g.winner : candidates.length === 1 ? candidates[0]! : null;
      const why = g.why ?? g.reason ?? selected[0]?.reason ?? 'A person must decide.';
      return { change: c.number, title: c.title, winner, candidates, why };
    });
  const rounds: OpenRound[] = [];
  for (const c of rows.changes.filter((ch) => ch.state === 'open')) {
    for (const r of rows.rounds.filter((x) => x.change === c.number)) {
      const siblings = open.filter((o) => o.change === c.number && o.base === r.base);
      if (siblings.length === 0) continue;
      const decided = Verdict.safeParse(r.decision);
      if (r.decision !== null && r.decision !== undefined) {
        const winner = decided.success ? decided.data.verdict.winner : undefined;
        if (decided.success && decided.data.verdict.kind === 'ship' && winner !== undefined) {
          // A winner on its merge path says what it waits for, never that it shipped.
          if (!siblings.some((s) => s.pr === winner)) continue;
          const waitingOn = [`#${winner} to merge: it waits for ${mergePathWait(decided.data)}`];
          rounds.push({ change: c.number, title: c.title, base: r.base, round: r.number, waitingOn });
          continue;
        }
        if (!decided.success || decided.data.verdict.kind !== 'repair') continue;
        const target = decided.data.verdict.target;
        rounds.push({
          change: c.number,
          title: c.title,
          base: r.base,
          round: r.number,
          waitingOn: [`a repair${target ? ` of #${target}` : ''} (one more attempt by the agent)`],
        });
        continue;
      }
      const waitingOn = siblings
        .filter((s) => s.state === 'verifying')
        // A reason that names the candidate itself ("@Copilot is still working on #101") is the whole phrase.
        .map((s) =>
          s.reason.includes(`#${s.pr}`) ? s.reason : `#${s.pr} (${s.reason || 'CI and acceptance running'})`,
        );
      rounds.push({ change: c.number, title: c.title, base: r.base, round: r.number, waitingOn });
    }
  }
  // A person's gate that a selection put up is told by the selection's own line already.
  const told = new Set(
    rows.decisions
      .filter((r) => r.kind === 'CANDIDATE_SELECTION' && r.data.verdict === 'human')
      .map((r) => `${r.change}/${r.round}`),
  );
  const decisions = rows.decisions
    .filter((r) => !(r.kind === 'HUMAN_GATE' && r.data.decision === undefined && told.has(`${r.change}/${r.round}`)))
    .map((r) => ({ change: r.change, round: r.round, at: r.at, what: describeDecision(r, ctx.config) }));
  return {
    repoUrl: ctx.repoUrl ?? null,
    prefix: ctx.config.commands.prefix,
    config: ctx.config,
    waiting,
    rounds,
    decisions,
  };
}
