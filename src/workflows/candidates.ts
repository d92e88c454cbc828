// Recording candidates: linking a PR to its Change (only a trusted author's or an admitted PR, and
// only to a trusted or adopted issue), starting evidence afresh on a new head, storing the patch
// once per head sha, and opening the next round when a decided round sees a new sibling or new commits.
import { z } from 'zod';
import { linkedChange } from '../core/link.ts';
import { candidateStanding } from '../core/trust.ts';
import { OPEN_STATES } from '../core/types.ts';
import type { CandidateRow } from '../store/types.ts';
import { nowIso, type RepoContext } from './context.ts';
import { dropStaleAwaiting } from './clean-ends.ts';
import { executePlan } from './execute.ts';
import {
  planKeptApplied,
  planPatch,
  planRecorded,
  planRecording,
  planWaitingForEvidence,
  type HeadPatch,
  type RecordingHead,
} from '../core/plan/recording.ts';
import { admittedBy, manualLink, selectionLabelBy, showNotCandidate, trustOfLogin, wasAdmitted } from './trust.ts';
import { trackedChange } from './changes.ts';
import { notePortfolioCandidate } from './portfolio.ts';
import { answerLateSibling } from './late-sibling.ts';
import { dropUnadmittedHead, leaveOldGroup, staysRejected } from './regroup.ts';
import { shippedOn } from './shipped.ts';
import type { NextStep, PullFacts } from './model.ts';
import { namesSet } from '../core/candidate-set.ts';
import { noteSetMember } from './candidate-set.ts';

export { OPEN_STATES };

/** The Change a pull request links (DESIGN.md section 1, "Candidate"), or null. */
export const linkOf = (ctx: RepoContext, pull: Pick<PullFacts, 'body' | 'closing'>): number | null =>
  linkedChange(pull.body, { repo: ctx.key, closing: pull.closing ?? null });

/**
 * Why a candidate that left its group may come back: its PR was reopened (`reopened`, confirmed
 * on GitHub, since the payload may be stale), or a maintainer just admitted its open head.
 */
export interface RecordOptions {
  revive?: 'reopened' | 'admitted';
}

/** The candidate when the PR is one and is open, else null; `next`: the groups it left, to compare again. */
export interface Recorded {
  candidate: CandidateRow | null;
  next: NextStep[];
}

const Taken = z.object({ taken: z.number() });

const none = (next: NextStep[] = []): Recorded => ({ candidate: null, next });

/** Records the PR as a candidate (or notes its new head). */
export async function recordCandidate(ctx: RepoContext, pull: PullFacts, opts: RecordOptions = {}): Promise<Recorded> {
  const { store } = ctx.deps;
  const existing = await store.getCandidate(ctx.key, pull.number);
  if (pull.state !== 'open') return none();
  let changeNumber: number;
  if (existing) {
    changeNumber = existing.change;
    if (!(await mayRecordAgain(ctx, existing, opts))) return none();
    // An admission covers the head it vouched for: an untrusted author's new head leaves the comparison.
    const moved = existing.headSha !== pull.headSha || !OPEN_STATES.has(existing.state);
    if (moved && (await wasAdmitted(ctx, pull.number)) && !(await trustOfLogin(ctx, pull.author)).trusted) {
      if (!(await admittedBy(ctx, pull.number, pull.headSha, changeNumber))) {
        return none(await dropUnadmittedHead(ctx, existing, pull));
      }
    }
  } else {
    // A member of a composite candidate (`Candidate-set:`) is never a candidate alone: its set is.
    if (namesSet(pull.body)) {
      return none(await noteSetMember(ctx, pull));
    }
    // A maintainer's `/arbiter link #N` first, then the body's line, then GitHub's closing list.
    const manual = await manualLink(ctx, pull.number);
    const linked = manual?.change ?? linkOf(ctx, pull);
    if (linked === null) return none();
    const label = ctx.config.selection.label;
    // The label accepts a non-draft PR only when a trusted account added it; so does a maintainer's link.
    const accepted =
      pull.draft ||
      manual !== null ||
      (label !== null && pull.labels.includes(label) && (await selectionLabelBy(ctx, pull.number)) !== null);
    if (!accepted) return none();
    changeNumber = linked;
    // Only a trusted author's PR, or this head admitted for this Change by a trusted account (forks alike).
    const author = await trustOfLogin(ctx, pull.author);
    const standing = candidateStanding(
      author,
      author.trusted ? null : await admittedBy(ctx, pull.number, pull.headSha, linked),
    );
    if (!standing.counts) {
      await showNotCandidate(ctx, pull, changeNumber, standing);
      return none();
    }
  }
  const change = await trackedChange(ctx, changeNumber, existing ? null : pull);
  if (!change) return none();
  if (await answerLateSibling(ctx, change, pull, existing)) return none();
  if (await staysRejected(ctx, existing, pull)) return none();
  await dropStaleAwaiting(ctx, existing, pull.labels, pull.headSha);
  if (existing && existing.headSha === pull.headSha && existing.base === pull.base && OPEN_STATES.has(existing.state))
    return { candidate: existing, next: [] };
  const now = nowIso(ctx);
  const round = await store.currentRound(ctx.key, changeNumber, pull.base, now);
  const head: RecordingHead = {
    repo: ctx.key,
    change: changeNumber,
    pr: pull.number,
    base: pull.base,
    headSha: pull.headSha,
    author: pull.author,
    token: ctx.token,
  };
  const recording = planRecording({ head, existing: existing !== null }, now);
  const { results } = await executePlan(ctx, recording.actions);
  // The row as the store now holds it: its head's first sighting stays while the head does.
  const { token: _token, ...row } = head;
  const candidate: CandidateRow = {
    ...row,
    state: 'verifying',
    reason: existing ? 'new commits' : 'recorded',
    headSeenAt: existing && existing.headSha === pull.headSha ? existing.headSeenAt : now,
    createdAt: existing?.createdAt ?? now,
  };
  const kept = Taken.safeParse(results.get(recording.takesKept)).data?.taken ?? 0;
  if (kept > 0) await executePlan(ctx, planKeptApplied(head, kept, now));
  await notePortfolioCandidate(ctx, candidate, pull.body);
  const next = await leaveOldGroup(ctx, existing, candidate);
  // A cancelled Change compares nothing; a base that shipped answered its late siblings above.
  if (change.state === 'cancelled') return { candidate, next };
  // A base that shipped opens no new round: the round that shipped still closes its losers (its
  // claimant's retry, or the sweep), and a newer round would hide it from both.
  if (await shippedOn(ctx, changeNumber, pull.base)) return { candidate, next };
  const decided = round.decision !== null || round.selection !== null;
  await executePlan(
    ctx,
    planRecorded(
      { head, existing: existing !== null, round: { number: round.number, decided }, changeState: change.state },
      now,
    ),
  );
  await executePlan(ctx, [...planPatch(head, await patchToStore(ctx, candidate), now), planWaitingForEvidence(head)]);
  return { candidate, next };
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

/** The patch and merge-base of a head as GitHub gives it, or null when stored already (fetched once per head sha). */
async function patchToStore(ctx: RepoContext, candidate: CandidateRow): Promise<HeadPatch | null> {
  if (await ctx.deps.store.getPatch(ctx.key, candidate.pr, candidate.headSha)) return null;
  const { repo: _repo, ...patch } = await ctx.gh.fetchPatch({
    pr: candidate.pr,
    baseRef: candidate.base,
    headSha: candidate.headSha,
  });
  return patch;
}

/** The patch and merge-base of a head, fetched once per head sha and stored. */
export async function ensurePatch(ctx: RepoContext, candidate: CandidateRow): Promise<void> {
  const patch = await patchToStore(ctx, candidate);
  if (patch === null) return;
  const head = {
    repo: ctx.key,
    change: candidate.change,
    pr: candidate.pr,
    headSha: candidate.headSha,
    token: ctx.token,
  };
  await executePlan(ctx, planPatch(head, patch, nowIso(ctx)));
}
