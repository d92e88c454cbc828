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
import { admittedBy, issueStanding, selectionLabelBy, showNotCandidate, showUntrackedChange, trustOfLogin, wasAdmitted } from './trust.ts';
import { notePortfolioCandidate } from './portfolio.ts';
import { answerLateSibling } from './late-sibling.ts';
import { dropUnadmittedHead, leaveOldGroup, staysRejected } from './regroup.ts';

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
 * Why a candidate that left its group may come back: its PR was reopened (`reopened`, confirmed
 * on GitHub, since the payload may be stale), or a maintainer just admitted its open head.
 */
export interface RecordOptions {
  revive?: 'reopened' | 'admitted';
}

/**
 * Records the PR as a candidate (or notes its new head). Returns the candidate when it is
 * one and is open, else null.
 */
export async function recordCandidate(ctx: RepoContext, pull: PullFacts, opts: RecordOptions = {}): Promise<CandidateRow | null> {
  const { store } = ctx.deps;
  const existing = await store.getCandidate(ctx.key, pull.number);
  if (pull.state !== 'open') return null;
  let changeNumber: number;
  if (existing) {
    changeNumber = existing.change;
    if (!(await mayRecordAgain(ctx, existing, opts))) return null;
    // An admission covers the head it vouched for: an untrusted author's new head leaves the comparison.
    const moved = existing.headSha !== pull.headSha || !OPEN_STATES.has(existing.state);
    if (moved && (await wasAdmitted(ctx, pull.number)) && !(await trustOfLogin(ctx, pull.author)).trusted) {
      if (!(await admittedBy(ctx, pull.number, pull.headSha, changeNumber))) {
        await dropUnadmittedHead(ctx, existing, pull);
        return null;
      }
    }
  } else {
    const linked = linkedChange(pull.body);
    if (linked === null) return null;
    const label = ctx.config.selection.label;
    // The label accepts a non-draft PR only when a trusted account added it.
    const accepted = pull.draft || (label !== null && pull.labels.includes(label) && (await selectionLabelBy(ctx, pull.number)) !== null);
    if (!accepted) return null;
    changeNumber = linked;
    // Only a trusted author's PR, or this head admitted for this Change by a trusted account (forks alike).
    const author = await trustOfLogin(ctx, pull.author);
    const standing = candidateStanding(author, author.trusted ? null : await admittedBy(ctx, pull.number, pull.headSha, linked));
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
  // A cancelled Change compares nothing; a base that shipped answered its late siblings above.
  if (change.state === 'cancelled') return candidate;
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
 * Whether a stored candidate may be recorded again: while it is in its group; after it left
 * (withdrawn, stale) only when reopened on GitHub or admitted again; never once it shipped. A
 * rejected one is left to `staysRejected` (a repair's new head brings it back).
 */
async function mayRecordAgain(ctx: RepoContext, existing: CandidateRow, opts: RecordOptions): Promise<boolean> {
  if (OPEN_STATES.has(existing.state) || existing.state === 'rejected') return true;
  if (existing.state === 'promoted' || opts.revive === undefined) return false;
  if (opts.revive === 'admitted') return true; // admitPull read the PR open just now
  const live = await ctx.gh.pullState(existing.pr);
  return live.state === 'open' && !live.merged;
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
