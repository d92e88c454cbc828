// Shipping a winning candidate set, and deciding a Change whose only candidates are sets. Each pass
// reads every member fresh from GitHub (each in its own repository: state, head, merge state) and
// Arbiter's recorded merge answers, asks the pure planner (core/plan/set-ship.ts) for the next one
// merge or the end, and hands that to the executor. A merge's answer is read back from its key, so
// a redelivered or restarted job resumes where the last one stopped: a merged member is never
// merged again, and none merges before the members ahead of it.
import { refText, type PullRef } from '../core/candidate-set.ts';
import { Action } from '../core/actions.ts';
import { candidateSetMergeKey, candidateSetDecidedKey, candidateSetsDecisionKey } from '../core/keys.ts';
import { ShipSet, type SelectionPlan } from '../core/plan-schema.ts';
import { planSetShip, type ShipDecided, type ShipMember } from '../core/plan/set-ship.ts';
import { setHold } from '../core/plan/set-hold.ts';
import { planSetsOnlyRound, SETS_ONLY, setsDiagnostics } from '../core/plan/sets-only.ts';
import { OPEN_STATES } from '../core/types.ts';
import type { PullState } from '../github/group-query.ts';
import { MergeResult } from '../github/port.ts';
import { z } from 'zod';
import { listSetRecords, readSetRecord } from './candidate-set-store.ts';
import { nowIso, otherRepoContext, type RepoContext } from './context.ts';
import { executePlan, mergeWithheld } from './execute.ts';
import type { NextStep } from './model.ts';

/** GitHub's web address, from the repository's (`https://github.com/acme/app`); null when unknown. */
export const webOf = (ctx: RepoContext): string | null =>
  ctx.repoUrl?.endsWith(`/${ctx.key}`) ? ctx.repoUrl.slice(0, -ctx.key.length - 1) : null;

/** Whether the set's fate is decided (it ships, or it lost and closes): then its members' own events plan it no more. */
export async function setDecided(ctx: RepoContext, change: PullRef, name: string): Promise<boolean> {
  return (await ctx.deps.store.getAppliedAction(candidateSetDecidedKey(change.repo, change.number, name))) !== null;
}

/**
 * A set member's pull request as one group read in its own repository shows it now, with the state
 * both set steps read from it (open, merged, head); null when there is none. `issueFirst`: ask first
 * whether the number is a pull request at all, since the group query answers a missing one with an error.
 */
export async function readMemberPull(
  mctx: RepoContext,
  ref: PullRef,
  { issueFirst }: { issueFirst: boolean },
): Promise<{ live: PullState; pull: { open: boolean; merged: boolean; headSha: string } } | null> {
  if (issueFirst) {
    const issue = await mctx.gh.getIssue(ref.number);
    if (!issue || !issue.pull_request) return null;
  }
  const live = (await mctx.gh.readGroup([ref.number])).get(ref.number);
  if (!live) return null;
  return {
    live,
    pull: { open: live.state === 'OPEN', merged: live.merged || live.state === 'MERGED', headSha: live.headSha },
  };
}

/** One member as GitHub shows it now, with Arbiter's recorded answer to its merge at the verified head. */
async function readShipMember(
  ctx: RepoContext,
  change: PullRef,
  name: string,
  ref: PullRef,
  verified: string,
  known: Map<string, RepoContext | null>,
): Promise<ShipMember> {
  const mctx = await otherRepoContext(ctx, ref.repo, known);
  const recorded = await ctx.deps.store.getAppliedAction(
    candidateSetMergeKey(change.repo, change.number, name, ref.repo, ref.number, verified),
  );
  const answer = MergeResult.safeParse(recorded).data ?? null;
  const method = mctx?.config.policy.mergeMethod ?? 'squash';
  if (mctx === null) return { ref, verified, pull: null, answer, method };
  const read = await readMemberPull(mctx, ref, { issueFirst: false });
  const methods = read?.live.merge?.methods ?? [];
  return {
    ref,
    verified,
    answer: answer === null ? null : answer.ok ? { ok: true } : answer,
    // The configured method where the repository allows it, else the first one it allows.
    method: methods.length === 0 || methods.includes(method) ? method : methods[0]!,
    pull: read ? { ...read.pull, draft: read.live.isDraft, status: read.live.merge?.status ?? null } : null,
  };
}

/**
 * Ships the set `ship.name` of the Change: one merge per pass, in order, each with its verified head,
 * until every member merged, a refusal stops it, or (shadow mode) the executor keeps the merge back.
 * `scope` and `round` name the decision (`main/r2`, or `sets` for a Change of sets only).
 */
export async function shipWinningSet(
  ctx: RepoContext,
  input: {
    change: PullRef;
    scope: string;
    round: number;
    ship: ShipSet;
    comparison: Extract<Action, { kind: 'comment' }> | null;
    afterShip: Action[];
  },
): Promise<void> {
  const { change, ship } = input;
  const record = await readSetRecord(ctx, change, ship.name);
  if (record === null) {
    ctx.log.warn({ set: ship.name, change: refText(change) }, 'a winning set has no record: nothing ships');
    return;
  }
  const decided: ShipDecided = {
    comparison: input.comparison,
    headline: ship.headline,
    line: ship.line,
    ...(ship.text ? { text: ship.text } : {}),
  };
  const known = new Map<string, RepoContext | null>();
  let shadow = false;
  // One pass per member and one to end: a pass whose merge another run holds ends the loop early.
  for (let pass = 0; pass <= ship.order.length + 1; pass++) {
    const members: ShipMember[] = [];
    for (const ref of ship.order)
      members.push(await readShipMember(ctx, change, ship.name, ref, record.heads[refText(ref)] ?? '', known));
    const plan = planSetShip({
      change,
      scope: input.scope,
      round: input.round,
      set: record,
      members,
      decided,
      afterShip: input.afterShip,
      web: webOf(ctx),
      comparisonUrl: ctx.repoUrl ? `${ctx.repoUrl}/issues/${change.number}` : null,
      shadow,
    });
    if (plan.kind === 'end') {
      await executePlan(ctx, plan.actions);
      ctx.log.info({ set: ship.name, change: refText(change), end: plan.end }, 'candidate set ship ended');
      return;
    }
    const mctx = await otherRepoContext(ctx, plan.member.repo, known);
    if (mctx === null) return;
    const result = await executePlan(mctx, plan.actions);
    if (mergeWithheld(result)) shadow = true;
    // Claimed by another run under another token (it is merging this member now): left to it.
    else if (result.merge === null) return;
  }
}

/** A round's decision whose winner is a set (`plan.shipSet`): its members ship after the plan's actions. */
export async function shipFromRound(
  ctx: RepoContext,
  input: { change: number; base: string; round: number; plan: SelectionPlan },
): Promise<void> {
  const { plan } = input;
  if (!plan.shipSet) return;
  const comparison = plan.actions.find(
    (a): a is Extract<Action, { kind: 'comment' }> => a.kind === 'comment' && a.marker.startsWith('comparison:'),
  );
  await shipWinningSet(ctx, {
    change: { repo: ctx.key, number: input.change },
    scope: `${input.base}/r${input.round}`,
    round: input.round,
    ship: plan.shipSet,
    comparison: comparison ?? null,
    afterShip: plan.afterShip ?? [],
  });
}

const Decision = z.object({
  ship: ShipSet.nullable(),
  comparison: Action,
  afterShip: z.array(Action),
  /** The decision's actions, its receipt first (absent on decisions recorded before sets-only decisions had receipts). */
  actions: z.array(Action).optional(),
});

/**
 * A Change whose only candidates are sets (no single-repository candidate is open): once no set
 * holds the round (composing, or its members' checks running), the best set ships, or a person
 * decides when none is promotable. The first decision recorded stands: it is recorded before any of
 * its actions is applied, and every run (a redelivery, a second replica) applies that decision's
 * actions, its receipt with them, and resumes its ship.
 */
export async function decideSetsOnly(ctx: RepoContext, changeNumber: number): Promise<NextStep[]> {
  const { store } = ctx.deps;
  const change = { repo: ctx.key, number: changeNumber };
  const row = await store.getChange(ctx.key, changeNumber);
  if (!row || row.state === 'cancelled' || row.state === 'shipped') return [];
  const open = (await store.listCandidatesOfChange(ctx.key, changeNumber)).filter((c) => OPEN_STATES.has(c.state));
  if (open.length > 0) return [];
  const records = await listSetRecords(ctx, change);
  const now = nowIso(ctx);
  if (records.some((r) => setHold(r, ctx.config.selection.siblingTimeout, now).holds)) return [];
  // A selection's inputs with no single-repository sibling: what the receipt keeps for the replay.
  const plan = planSetsOnlyRound({
    repo: ctx.key,
    change: { number: changeNumber, title: row.title, criteria: row.criteria },
    round: 1,
    base: SETS_ONLY,
    siblings: [],
    judge: null,
    diagnostics: setsDiagnostics(records),
    config: ctx.config,
    repairAvailable: false,
    reviewers: { users: [], teams: [] },
    branch: { requiredReviews: 0, mergeQueue: false },
    drafts: [],
    now,
    buttons: [],
    display: { repoUrl: ctx.repoUrl ?? null },
    sets: { records, web: webOf(ctx), order: ctx.config.composite.order },
  });
  if (plan === null) return [];
  // Two runs may decide at once: the first decision recorded stands, and each action (each merge)
  // is applied once by its key, so a second run's ship finds the first run's merge claimed and stops.
  const key = candidateSetsDecisionKey(ctx.key, changeNumber);
  const { receipt: _receipt, ...decided } = plan;
  await executePlan(ctx, [{ kind: 'record', key, value: decided }]);
  const recorded = Decision.safeParse(await store.getAppliedAction(key));
  const decision = recorded.success ? recorded.data : decided;
  await executePlan(ctx, decision.actions ?? plan.actions);
  if (decision.ship === null) return [];
  await shipWinningSet(ctx, {
    change,
    scope: SETS_ONLY,
    round: 1,
    ship: decision.ship,
    comparison: decision.comparison.kind === 'comment' ? decision.comparison : null,
    afterShip: decision.afterShip,
  });
  return [];
}
