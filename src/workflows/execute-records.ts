// The executor's store records: actions that write only Arbiter's own store (a candidate's or a
// Change's state, a round, evidence, an event, a fact in the ledger, the Change's one repair).
// Applied once under their keys by executePlan (execute.ts), like every action; kept apart so the
// executor's GitHub writes read on their own. Kept in shadow mode unless src/core/shadow.ts says
// otherwise. Those that decide a race are answered afresh on every run instead (ASKED_KINDS). And
// the store's upkeep (`executeUpkeep`), which no repository's plan holds.
import { z } from 'zod';
import type { Action, ClaimAnswer } from '../core/actions.ts';
import { sameRef, type PullRef, type SetRecord } from '../core/candidate-set.ts';
import { candidateSetHeadKey, candidateSetKey, claimKey, repairKey } from '../core/keys.ts';
import { AutoMergeOn } from '../core/plan/auto-merge-off.ts';
import type { UpkeepAction } from '../core/record-actions.ts';
import type { Store } from '../store/types.ts';
import { readSetRecord } from './candidate-set-store.ts';
import { nowIso, type RepoContext } from './context.ts';

/**
 * The records that decide a race between runs, each one conditional write whose answer depends on
 * who asks or on what is left: a claim (its holder), a take of model calls (the budget), a round's
 * claim, release and decision (src/core/round-actions.ts), a mark taken by whoever does its work.
 * Their answer is the store's as it is now, so the executor asks it every time, never under an
 * action's claim, and records nothing under their keys: an earlier answer read back would be wrong
 * once the round was given back or the mark taken, and a retry asks again.
 */
const ASKED_KINDS = ['claim', 'take-budget', 'claim-round', 'release-round', 'record-decision', 'mark'] as const;

const RECORD_KINDS = [
  'receipt',
  'record-candidate',
  'set-change-state',
  'put-evidence',
  'take-kept-checks',
  'set-state',
  'open-round',
  'forget-evidence',
  'event',
  'record',
  'record-set',
  'record-deep',
  'portfolio-phase',
  'settle-slot',
  'settle-deep',
  'put-readings',
  'put-patch',
  'keep-check',
  'claim-repair',
  ...ASKED_KINDS,
  'forget',
  'take-mark',
  'put-record',
  'upsert-change',
] as const;

export type RecordAction = Extract<Action, { kind: (typeof RECORD_KINDS)[number] }>;

const recordKinds: ReadonlySet<string> = new Set(RECORD_KINDS);

export const isRecordAction = (action: Action): action is RecordAction => recordKinds.has(action.kind);

const askedKinds: ReadonlySet<string> = new Set(ASKED_KINDS);

/** A record asked of the store every time it is planned (ASKED_KINDS), never skipped for an earlier answer. */
export const isTakeAction = (action: Action): action is RecordAction => askedKinds.has(action.kind);

const Holder = z.object({ token: z.string() });

/**
 * Takes store key `key` for `holder` in one insert-once statement: `new` when this call took it,
 * `mine` when the same holder took it before (a retry, or another run under the same token), `taken`
 * when another holds it.
 */
async function takeClaim(ctx: RepoContext, key: string, holder: string, at?: string): Promise<ClaimAnswer> {
  const value = at === undefined ? { token: holder } : { token: holder, at };
  const { result, inserted } = await ctx.deps.store.claimAppliedAction(key, value, nowIso(ctx));
  if (inserted) return 'new';
  const held = Holder.safeParse(result);
  return held.success && held.data.token === holder ? 'mine' : 'taken';
}

/** The executor's own claim of `key` for this run (an action's, a check's creation, the repair), under `claim:`. */
export const claimForRun = (ctx: RepoContext, key: string): Promise<ClaimAnswer> =>
  takeClaim(ctx, claimKey(key), ctx.token);

/** True for the first run to claim `key` and for any retry of it (same token). */
export const claimOnceForRun = async (ctx: RepoContext, key: string): Promise<boolean> =>
  (await claimForRun(ctx, key)) !== 'taken';

/** Applies one store record; what it returns is recorded as the action's answer. */
export async function applyRecord(ctx: RepoContext, action: RecordAction): Promise<unknown> {
  const { store } = ctx.deps;
  switch (action.kind) {
    case 'receipt':
      return { id: await store.addReceipt(action.receipt) };
    case 'record-candidate':
      return { state: (await store.upsertCandidate({ repo: ctx.key, ...action.candidate })).state };
    case 'set-change-state':
      await store.setChangeState(ctx.key, action.change, action.state);
      return { state: action.state };
    case 'put-evidence':
      await store.putEvidence(ctx.key, action.pr, action.headSha, action.evidence.of, action.evidence.data);
      return { stored: action.evidence.of };
    case 'take-kept-checks':
      return { taken: await store.takeKeptCheckEvents(ctx.key, action.headSha) };
    case 'set-state': {
      await store.setCandidateState(ctx.key, action.pr, action.state, action.reason);
      return { state: action.state };
    }
    case 'open-round':
      return {
        round: (await store.openNextRound(ctx.key, action.change, action.base, action.from, action.at)).number,
      };
    case 'forget-evidence':
      await store.putEvidence(ctx.key, action.pr, action.headSha, action.evidence, null);
      return { forgotten: action.evidence };
    case 'event':
      await store.addEvent(ctx.key, action.event, action.data, action.at);
      return { event: action.event };
    case 'record':
      // The executor records the answer under the action's key: the fact is the answer.
      return action.value;
    case 'record-set':
      return recordSet(ctx, action.record);
    case 'record-deep': {
      const { change, portfolio, dispatchedAt } = action;
      const awaiting = { repo: ctx.key, change, portfolio, state: 'awaiting' as const, dispatchedAt };
      await store.addDeep(action.deep.map((d) => ({ ...awaiting, ...d })));
      return { deep: action.deep.map((d) => d.pr) };
    }
    case 'portfolio-phase':
      return {
        changed: await store.setPortfolioPhase(ctx.key, action.change, action.portfolio, action.from, action.to),
      };
    case 'settle-slot': {
      const { change, slot, to } = action;
      return to.state === 'open'
        ? { changed: await store.fillSlot(ctx.key, change, slot, to.pr) }
        : { changed: await store.dropSlot(ctx.key, change, slot, to.reason) };
    }
    case 'settle-deep':
      return {
        changed: await store.settleDeep(ctx.key, action.change, action.portfolio, action.pr, action.state),
      };
    case 'put-readings': {
      const { change, portfolio } = action;
      await store.putReadings(action.readings.map((r) => ({ repo: ctx.key, change, portfolio, ...r })));
      return { readings: action.readings.length };
    }
    case 'put-patch':
      // The patch itself is not the answer: it is stored once, in its own row.
      await store.putPatch({ repo: ctx.key, ...action.patch });
      return { stored: action.patch.headSha };
    case 'keep-check':
      await store.keepCheckEvent(ctx.key, action.headSha, action.at);
      return { kept: action.headSha };
    case 'claim-repair': {
      // A retry of the run that took the repair still holds it (claimRepair inserts only once).
      const mine = await claimOnceForRun(ctx, repairKey(ctx.key, action.change));
      const granted =
        mine &&
        ((await store.claimRepair(ctx.key, action.change, action.pr, nowIso(ctx))) ||
          (await store.getRepair(ctx.key, action.change))?.pr === action.pr);
      return { granted };
    }
    case 'claim':
      return takeClaim(ctx, action.key, action.holder, action.at);
    case 'take-budget': {
      const { change, day, calls } = action;
      return store.takeModelBudget(
        { installationId: ctx.installationId, repo: ctx.key, change, day, calls },
        action.limits,
      );
    }
    case 'claim-round':
      return { claim: await store.claimRound(action.roundId, ctx.token) };
    case 'release-round':
      return { changed: await store.releaseRound(action.roundId, ctx.token) };
    case 'record-decision':
      return { changed: await store.recordDecision(action.roundId, action.decision, action.at, ctx.token) };
    case 'mark':
      await store.recordAppliedAction(action.key, action.value, action.at);
      return { marked: action.key };
    case 'forget':
      return { forgotten: await store.forgetAppliedAction(action.record) };
    case 'take-mark': {
      // Only while it still names this auto-merge or queue entry: a later winner's mark is its own.
      const mark = AutoMergeOn.safeParse(await store.getAppliedAction(action.marker));
      const ours = mark.success && mark.data.pr === action.pr && mark.data.sha === action.sha;
      return { taken: ours && (await store.forgetAppliedAction(action.marker)) };
    }
    case 'put-record':
      if (action.replace) await store.putAppliedAction(action.record, action.value, nowIso(ctx));
      else await store.recordAppliedAction(action.record, action.value, nowIso(ctx));
      return { stored: action.record };
    case 'upsert-change':
      // The row itself is not the answer (its body may be long): the step reads it back.
      return { state: (await store.upsertChange({ repo: ctx.key, ...action.change })).state };
  }
}

const union = (a: PullRef[], b: PullRef[]): PullRef[] => [...a, ...b.filter((r) => !a.some((o) => sameRef(o, r)))];

/**
 * Stores a set's record (a `record-set` action). Members seen by a run that planned at the same
 * moment are kept (the union), and so are parts another run stored first; the first time the set
 * stands as a candidate is an event of the Change's repository.
 */
async function recordSet(ctx: RepoContext, record: SetRecord): Promise<{ state: SetRecord['state'] }> {
  const { store } = ctx.deps;
  const before = await readSetRecord(ctx, record.change, record.name);
  const at = nowIso(ctx);
  const sameHeads =
    before !== null &&
    JSON.stringify(Object.entries(before.heads).sort()) === JSON.stringify(Object.entries(record.heads).sort());
  const merged: SetRecord = {
    ...record,
    seen: union(before?.seen ?? [], record.seen),
    first: record.first ?? before?.first ?? null,
    parts: record.parts ?? before?.parts ?? null,
    // A run that planned without the evidence another run just recorded keeps it (it names the heads it judged).
    ...((record.acceptance ?? before?.acceptance) ? { acceptance: record.acceptance ?? before?.acceptance } : {}),
    // A set holds its Change's round from these moments (core/plan/set-hold.ts).
    since: before?.since ?? at,
    headsAt: sameHeads ? (before?.headsAt ?? before?.since ?? at) : at,
  };
  // Each member's head names its set, so a check concluding on it re-plans the set.
  for (const [member, sha] of Object.entries(record.heads)) {
    const repo = member.slice(0, member.lastIndexOf('#'));
    await store.recordAppliedAction(candidateSetHeadKey(repo, sha), { change: record.change, name: record.name }, at);
  }
  // The record changes with its set (a recorded action is written once): it is replaced.
  await store.putAppliedAction(candidateSetKey(record.change.repo, record.change.number, record.name), merged, at);
  if (record.state !== before?.state)
    await store.addEvent(
      record.change.repo,
      `candidate-set.${record.state}`,
      { change: record.change.number, set: record.name, parts: merged.parts, reason: record.reason },
      at,
    );
  return { state: record.state };
}

/** What the store's upkeep writes. */
export type UpkeepStore = Pick<
  Store,
  'pruneAppliedActions' | 'pruneAppliedActionsMatching' | 'pruneKeptCheckEvents' | 'dropCachedConfig'
>;

/**
 * Applies the store's upkeep (core/record-actions.ts), in order. Idempotent, so neither claimed nor
 * recorded: a run that dies part-way is repeated whole by the next (the sweep's next minute).
 */
export async function executeUpkeep(deps: { store: UpkeepStore }, actions: UpkeepAction[]): Promise<void> {
  const { store } = deps;
  for (const action of actions) {
    switch (action.kind) {
      case 'prune':
        await store.pruneKeptCheckEvents(action.keptBefore);
        for (const rule of action.ledger)
          if ('prefix' in rule) await store.pruneAppliedActions(rule.prefix, rule.before);
          else await store.pruneAppliedActionsMatching(rule.pattern, rule.before);
        break;
      case 'drop-config':
        await store.dropCachedConfig(action.repo);
        break;
    }
  }
}
