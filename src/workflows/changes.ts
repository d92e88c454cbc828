// Recording Changes: an issue is stored with its parsed criteria once a trusted account opened
// or adopted it; a PR linking any other issue gets its one neutral check saying why.
import { parseCriteria } from '../core/criteria.ts';
import { DASHBOARD_MARKER } from '../core/render/dashboard.ts';
import { hasMarker } from '../core/render/markers.ts';
import type { Standing } from '../core/trust.ts';
import { singleFlight } from '../single-flight.ts';
import type { ChangeRow } from '../store/types.ts';
import type { PullFacts } from './model.ts';
import { nowIso, type RepoContext } from './context.ts';
import { digest } from '../core/digest.ts';
import { changeIssueKey } from '../core/keys.ts';
import { executePlan } from './execute.ts';
import { issueStanding, showUntrackedChange } from './trust.ts';

type Issue = NonNullable<Awaited<ReturnType<RepoContext['gh']['getIssue']>>>;

/** Reads the Change issue and stores it with its parsed criteria. Null when it is not an issue. */
export async function refreshChange(ctx: RepoContext, number: number, read?: Issue): Promise<ChangeRow | null> {
  const issue = read ?? (await ctx.gh.getIssue(number));
  if (!issue || issue.pull_request) return null;
  // Arbiter's own dashboard is never a Change, whatever links to it.
  if (issue.user?.login === ctx.gh.botLogin && hasMarker(issue.body, DASHBOARD_MARKER)) return null;
  const { store } = ctx.deps;
  const existing = await store.getChange(ctx.key, number);
  const change = {
    number,
    installationId: ctx.installationId,
    title: issue.title,
    body: issue.body ?? '',
    criteria: parseCriteria(issue.body ?? ''),
    state: existing?.state ?? 'open',
  };
  const key = changeIssueKey(ctx.key, number, nowIso(ctx), ctx.token, digest(change));
  await executePlan(ctx, [{ kind: 'upsert-change', key, change }]);
  return store.getChange(ctx.key, number);
}

/**
 * The stored Change, or the issue recorded as one when a trusted account opened or adopted it.
 * Null otherwise; `pull`, a PR linking it, then gets its one neutral check saying why. The first
 * candidates of a Change often arrive together: their jobs in this process share one read of the
 * issue (and of its author's permission), each still answering its own PR.
 */
export async function trackedChange(
  ctx: RepoContext,
  number: number,
  pull: PullFacts | null,
): Promise<ChangeRow | null> {
  const stored = await ctx.deps.store.getChange(ctx.key, number);
  if (stored) return stored;
  const found = await changeFlight(ctx.deps.store, `change\u0000${ctx.key}\u0000${number}`, () =>
    recordChange(ctx, number),
  );
  if (found.untracked && pull) await showUntrackedChange(ctx, pull, number, found.untracked);
  return found.change;
}

/** A Change read for its first candidates; `untracked`: why the issue is not one. */
type FoundChange = { change: ChangeRow | null; untracked?: Extract<Standing, { counts: false }> };
const changeFlight = singleFlight<FoundChange>();

/** Reads the issue and records it as a Change when it is one. */
async function recordChange(ctx: RepoContext, number: number): Promise<FoundChange> {
  const issue = await ctx.gh.getIssue(number);
  if (!issue || issue.pull_request) return { change: null };
  const standing = await issueStanding(ctx, number, issue.user?.login ?? '');
  if (!standing.counts) return { change: null, untracked: standing };
  return { change: await refreshChange(ctx, number, issue) };
}
