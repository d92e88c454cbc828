// Recording candidates: linking a PR to its Change (only a trusted author's or an admitted PR, and
// only to a trusted or adopted issue), starting evidence afresh on a new head, storing the patch
// once per head sha, and opening the next round when a decided round sees a new sibling or new commits.
import { parseCriteria } from '../core/criteria.ts';
import { linkedChange } from '../core/link.ts';
import { candidateStanding } from '../core/trust.ts';
import { OPEN_STATES, type CandidateState } from '../core/types.ts';
import type { CandidateRow, ChangeRow } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { dropStaleAwaiting } from './clean-ends.ts';
import { writeCheck } from './execute.ts';
import { admittedBy, issueStanding, showNotCandidate, showUntrackedChange, trustOfLogin } from './trust.ts';
import { notePortfolioCandidate } from './portfolio.ts';
import { answerLateSibling } from './late-sibling.ts';
import { leaveOldGroup, staysRejected } from './regroup.ts';

export { OPEN_STATES };

export interface PullFacts {
  number: number;
  draft: boolean;
  state: string; // open | closed
  body: string | null;
  base: string;
  headSha: string;
  author: string;
  labels: string[];
}

type Issue = NonNullable<Awaited<ReturnType<RepoContext['gh']['getIssue']>>>;

/** Reads the Change issue and stores it with its parsed criteria. Null when it is not an issue. */
export async function refreshChange(ctx: RepoContext, number: number, read?: Issue): Promise<ChangeRow | null> {
  const issue = read ?? (await ctx.gh.getIssue(number));
  if (!issue || issue.pull_request) return null;
  const existing = await ctx.deps.store.getChange(ctx.key, number);
  return ctx.deps.store.upsertChange({
    repo: ctx.key,
    number,
    installationId: ctx.installationId,
    title: issue.title,
    body: issue.body ?? '',
    criteria: parseCriteria(issue.body ?? ''),
    state: existing?.state ?? 'open',
  });
}

/**
 * Records the PR as a candidate (or notes its new head). Returns the candidate when it is
 * one and is open, else null.
 */
export async function recordCandidate(ctx: RepoContext, pull: PullFacts): Promise<CandidateRow | null> {
  const { store } = ctx.deps;
  const existing = await store.getCandidate(ctx.key, pull.number);
  if (pull.state !== 'open') return null;
  let changeNumber: number;
  if (existing) {
    changeNumber = existing.change;
  } else {
    const linked = linkedChange(pull.body);
    if (linked === null) return null;
    const accepted = pull.draft || (ctx.config.selection.label !== null && pull.labels.includes(ctx.config.selection.label));
    if (!accepted) return null;
    changeNumber = linked;
    // Only a trusted author's PR, or one a trusted account admitted, becomes a sibling (forks alike).
    const standing = candidateStanding(await trustOfLogin(ctx, pull.author), await admittedBy(ctx, pull.number));
    if (!standing.counts) {
      await showNotCandidate(ctx, pull, changeNumber, standing);
      return null;
    }
  }
  const change = await trackedChange(ctx, changeNumber, existing ? null : pull);
  if (!change) return null;
  if (await answerLateSibling(ctx, change, pull, existing)) return null;
  if (await staysRejected(ctx, existing, pull.headSha)) return null;
  await dropStaleAwaiting(ctx, existing, pull.labels, pull.headSha);
  if (existing && existing.headSha === pull.headSha && existing.base === pull.base && OPEN_STATES.has(existing.state)) return existing;
  const now = nowIso(ctx);
  const reopened = existing !== null && !OPEN_STATES.has(existing.state);
  if (existing && (existing.state === 'promoted' || existing.state === 'stale') && !reopened) return null;
  const round = await store.currentRound(ctx.key, changeNumber, pull.base, now);
  const candidate = await store.upsertCandidate({
    repo: ctx.key,
    pr: pull.number,
    change: changeNumber,
    base: pull.base,
    headSha: pull.headSha,
    author: pull.author,
    state: 'verifying',
    reason: existing ? 'new commits' : 'recorded',
    headSeenAt: now,
  });
  await notePortfolioCandidate(ctx, candidate, pull.body);
  await leaveOldGroup(ctx, existing, candidate);
  if (change.state !== 'open' && change.state !== 'human') return candidate;
  // A decided round sees a new sibling or new commits: the comparison starts again.
  if (round.decision !== null || round.selection !== null) {
    await store.openNextRound(ctx.key, changeNumber, pull.base, round.number, now);
    if (change.state === 'human') await store.setChangeState(ctx.key, changeNumber, 'open');
  }
  await store.addEvent(ctx.key, existing ? 'candidate.new-head' : 'candidate.recorded', { pr: pull.number, change: changeNumber, headSha: pull.headSha }, now);
  await ensurePatch(ctx, candidate);
  await writeCheck(ctx, {
    pr: pull.number,
    headSha: pull.headSha,
    name: 'Arbiter / selection',
    status: 'in_progress',
    title: 'Waiting for evidence',
    summary: `Candidate for #${changeNumber}. Arbiter compares it with its siblings once every one has settled.`,
  });
  return candidate;
}

/**
 * The stored Change, or the issue recorded as one when a trusted account opened or adopted it.
 * Null otherwise; `pull`, a PR linking it, then gets its one neutral check saying why.
 */
export async function trackedChange(ctx: RepoContext, number: number, pull: PullFacts | null): Promise<ChangeRow | null> {
  const stored = await ctx.deps.store.getChange(ctx.key, number);
  if (stored) return stored;
  const issue = await ctx.gh.getIssue(number);
  if (!issue || issue.pull_request) return null;
  const standing = await issueStanding(ctx, number, issue.user?.login ?? '');
  if (!standing.counts) {
    if (pull) await showUntrackedChange(ctx, pull, number, standing);
    return null;
  }
  return refreshChange(ctx, number, issue);
}

/** The patch and merge-base of a head, fetched once per head sha and stored. */
export async function ensurePatch(ctx: RepoContext, candidate: CandidateRow): Promise<void> {
  const { store } = ctx.deps;
  if (await store.getPatch(ctx.key, candidate.pr, candidate.headSha)) return;
  const patch = await ctx.gh.fetchPatch({ pr: candidate.pr, baseRef: candidate.base, headSha: candidate.headSha });
  await store.putPatch(patch);
}
