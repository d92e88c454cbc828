// pull_request: a webhook says "look again". The PR's state, draft flag, base, head, body and
// labels are read from GitHub (the group query), never from the payload, which may be older than
// another delivered before it: a stale payload never reopens, re-records or closes a candidate.
// Only a merge is taken from the payload: `merged` and the head it merged never change again.
// A new head is recorded; a closure by someone else withdraws the candidate; a merge (by anyone)
// ships it and closes its siblings as stale.
import { z } from 'zod';
import type { PullState } from '../github/group-query.ts';
import { recordCandidate } from '../workflows/candidates.ts';
import { isBotAccount } from '../core/trust.ts';
import type { CandidateState } from '../core/types.ts';
import type { Store } from '../store/types.ts';
import { withdrawClosed } from '../workflows/clean-ends.ts';
import { nowIso, type RepoContext } from '../workflows/context.ts';
import { afterMerged } from '../workflows/promote.ts';
import { withdrawAutoMerge } from '../workflows/auto-merge-off.ts';
import { onAutoMergeLost } from '../workflows/auto-merge-lost.ts';
import { runSteps, selectAndFollow } from '../workflows/flow.ts';
import { recordSelectionLabel, trustOfLogin } from '../workflows/trust.ts';
import { closingWithdraws } from '../workflows/regroup.ts';
import { noteClosedSetMember } from '../workflows/candidate-set.ts';

/** What the payload is trusted for: which PR, what happened, and who did it. */
const Payload = z.object({
  action: z.string(),
  sender: z.object({ login: z.string(), type: z.string().optional() }),
  label: z.object({ name: z.string() }).optional(),
  /** GitHub's words on why auto-merge went off or the PR left the merge queue: words only, never state. */
  reason: z.string().nullable().optional(),
  pull_request: z.object({ number: z.number().int(), body: z.string().nullable() }),
});

/** A merge is final: a `closed` payload that says merged, with the head it merged, needs no read to be believed. */
const Merged = z.object({
  pull_request: z.object({ merged: z.literal(true), head: z.object({ sha: z.string() }) }),
});

const RECORD_ACTIONS = new Set([
  'opened',
  'reopened',
  'edited',
  'synchronize',
  'ready_for_review',
  'converted_to_draft',
  'labeled',
]);

/** The payload fields that tell Arbiter's own act apart before anything is read. */
const OwnAct = z.object({
  action: z.string(),
  sender: z.object({ login: z.string() }),
  pull_request: z.object({ number: z.number().int(), merged: z.boolean().nullable().optional() }),
});

/** States in which a candidate has left its group for good: Arbiter closed it as lost or stale. */
const LEFT_BY_ARBITER = new Set<CandidateState>(['rejected', 'stale']);

/**
 * Whether this `pull_request` webhook is an act of Arbiter's own that asks for nothing, decided
 * before the configuration or the PR is read: its marking ready or labelling (never read as a
 * person's), or its closing of a candidate the store already holds as lost or stale. Not a
 * merge: a merge's `closed` (sender Arbiter) still finishes what a killed claimant left
 * (`afterMerged`), and `merged` on a `closed` payload is final, so a stale payload cannot hide one.
 */
export async function ownActNeedsNothing(
  store: Pick<Store, 'getCandidate'>,
  key: string,
  botLogin: string,
  payload: unknown,
): Promise<boolean> {
  const parsed = OwnAct.safeParse(payload);
  if (!parsed.success || parsed.data.sender.login !== botLogin) return false;
  const { action, pull_request: pr } = parsed.data;
  if (!['closed', 'opened', 'synchronize', 'reopened'].includes(action)) return true;
  if (action !== 'closed' || pr.merged !== false) return false;
  const stored = await store.getCandidate(key, pr.number);
  return stored !== null && LEFT_BY_ARBITER.has(stored.state);
}

export async function onPullRequest(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) return;
  const { action, sender, pull_request: pr, label } = parsed.data;
  const own = sender.login === ctx.gh.botLogin;
  if (action === 'labeled' && label?.name === ctx.config.selection.label && !own) {
    // The selection label accepts a PR only when a trusted account added it: record who did.
    if ((await trustOfLogin(ctx, sender.login, isBotAccount(sender))).trusted)
      await recordSelectionLabel(ctx, pr.number, sender.login);
  }
  if (action === 'auto_merge_disabled' || action === 'dequeued') {
    // GitHub ended the merge path of a winner Arbiter announced as shipping: read again, and never silent.
    const lost = action === 'dequeued' ? ('queue' as const) : ('auto-merge' as const);
    await runSteps(ctx, await onAutoMergeLost(ctx, { pr: pr.number, lost, reason: parsed.data.reason ?? '', sender }));
    return;
  }
  if (action !== 'closed' && !RECORD_ACTIONS.has(action)) return;
  // Arbiter's own acts (marking ready, labelling) are never read as a person's; a PR it opened
  // itself (the combined candidate) is recorded like any candidate.
  if (action !== 'closed' && own && action !== 'synchronize' && action !== 'opened') return;
  // A PR that is no candidate is read (its closing references with it): a link made in the
  // Development sidebar sends no webhook and shows in no payload, so its next event finds it.
  const stored = await ctx.deps.store.getCandidate(ctx.key, pr.number);
  if (!stored && action === 'closed') {
    // A composite candidate's member is no candidate alone: its set is read again.
    await runSteps(ctx, await noteClosedSetMember(ctx, { number: pr.number, body: pr.body }));
    return;
  }
  const merged = action === 'closed' ? Merged.safeParse(payload) : null;
  if (merged?.success) {
    await onClosed(
      ctx,
      { number: pr.number, merged: true, headSha: merged.data.pull_request.head.sha },
      own,
      sender.login,
    );
    return;
  }
  const live = (await ctx.gh.readGroup([pr.number])).get(pr.number);
  if (!live) return;
  if (action === 'closed') {
    // Reopened since: the `reopened` webhook records it. Only the `closed` webhook says who closed it.
    if (live.state !== 'OPEN') await onClosed(ctx, live, own, sender.login);
    return;
  }
  if (live.state !== 'OPEN') return; // closed since: its `closed` webhook says by whom
  const recorded = await recordCandidate(
    ctx,
    {
      number: live.number,
      draft: live.isDraft,
      state: 'open',
      body: live.body,
      base: live.baseRef,
      headSha: live.headSha,
      author: live.author,
      labels: live.labels,
      closing: live.closing,
    },
    { revive: action === 'reopened' ? 'reopened' : undefined },
  );
  // An auto-merge Arbiter enabled in this PR's group goes once its head lost its place (a new head,
  // a new round): before any verification, so GitHub merges nothing Arbiter has not verified.
  const group = recorded.candidate ?? stored;
  if (group) await withdrawAutoMerge(ctx, group.change, group.base, { pulls: new Map([[live.number, live]]) });
  // The group it left (if any) first, as recording found it; then the candidate itself.
  await runSteps(ctx, [
    ...recorded.next,
    ...(recorded.candidate ? [{ kind: 'verify' as const, pr: pr.number, state: live }] : []),
  ]);
}

async function onClosed(
  ctx: RepoContext,
  live: Pick<PullState, 'number' | 'merged' | 'headSha'>,
  own: boolean,
  by: string,
): Promise<void> {
  const { store } = ctx.deps;
  const number = live.number;
  const candidate = await store.getCandidate(ctx.key, number);
  if (!candidate) return;
  const change = await store.getChange(ctx.key, candidate.change);
  if (!change) return;
  if (live.merged) {
    const round = await store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
    await afterMerged(ctx, {
      change,
      base: candidate.base,
      pr: number,
      sha: live.headSha,
      by: own ? null : by,
      round: round.number,
      scope: 'merged',
    });
    return;
  }
  if (own || !closingWithdraws(candidate)) return;
  await withdrawClosed(ctx, candidate, by);
  // A withdrawn sibling may have been the one the others were waiting on.
  await selectAndFollow(ctx, candidate.change, candidate.base);
}
