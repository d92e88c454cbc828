// The claimant's combine step, before it decides a round: propose a combined candidate (pure),
// build it once per Change, record it as a sibling and hand the round over to the next one (which
// holds the three), or carry the reason no combined candidate came of it into the comparison. In
// a later round the combined PR follows its parents: a parent's new head is merged into it first.
import { z } from 'zod';
import {
  combineBuild,
  combinedOf,
  combineFailureNote,
  CombineOutcome,
  planCombineEnded,
  CombineRecord,
  planCombined,
  planCombineWithheld,
  proposeCombine,
  type CombineProposal,
} from '../core/combine.ts';
import { recordAction } from '../core/actions.ts';
import type { WouldCombineDecision } from '../core/plan-schema.ts';
import type { Ranking } from '../core/types.ts';
import { recordCandidate } from './candidates.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import type { GroupView } from './model.ts';
import type { NextStep } from './model.ts';
import { combinedRecordKey, combineKey } from '../core/keys.ts';
import { buildCombined } from './combine-build.ts';
import {
  isOpened,
  planRebuild,
  planRebuildEnded,
  planRebuilt,
  rebuildEndNote,
  type RebuildAnswer,
} from '../core/plan/combine-rebuild.ts';

/** The Change's combined candidate and its sources, when one was opened. */
export type Combined = { pr: number; sources: number[] } | null;

/**
 * `next`: what recording the combined candidate (or its rebuilt head) left to the driver.
 * `decided`: shadow mode kept the build back; what live mode would do ends the round (recorded as its decision).
 * `without`: a combined PR that left the running in this step; the round is decided without it.
 */
export type CombineStep =
  | { handedOver: true; next: NextStep[]; decided?: WouldCombineDecision }
  | { handedOver: false; notes: string[]; combined: Combined; without?: number };

const recordKey = (ctx: RepoContext, change: number): string => combinedRecordKey(ctx.key, change);

/** The Change's combine so far (at most one per Change), or null. */
export async function readCombineRecord(ctx: RepoContext, change: number): Promise<CombineRecord | null> {
  const parsed = CombineRecord.safeParse(await ctx.deps.store.getAppliedAction(recordKey(ctx, change)));
  return parsed.success ? parsed.data : null;
}

/** The combined candidate of a Change and the siblings it combines, when one was opened. */
export async function combinedCandidate(ctx: RepoContext, change: number): Promise<Combined> {
  return combinedOf(await readCombineRecord(ctx, change));
}

/**
 * Runs before the claimant decides. `handedOver`: a combined candidate is open and recorded, and
 * this round gives way to the next. Otherwise `notes` are lines for this round's comparison.
 */
export async function combineStep(ctx: RepoContext, view: GroupView, ranking: Ranking): Promise<CombineStep> {
  const { store } = ctx.deps;
  const change = view.change.number;
  const existing = await readCombineRecord(ctx, change);
  // A retry of the round that built it finishes what it began; a later round only compares.
  if (existing !== null) {
    if (existing.proposal.round !== view.round.number) return followParents(ctx, view, existing);
    return finish(ctx, existing.proposal, existing.outcome);
  }
  const proposal = proposeCombine({
    repo: ctx.key,
    change: { number: change, title: view.change.title, criteria: view.change.criteria },
    round: view.round.number,
    base: view.siblings[0]?.base ?? 'main',
    siblings: [...view.evidence.values()],
    ranking,
    config: ctx.config.combine,
    attempted: false,
  });
  if (proposal === null) return { handedOver: false, notes: [], combined: null };
  const build = await buildCombined(ctx, combineBuild(proposal, view.change.title));
  if (build === 'withheld') {
    // Kept back (shadow mode): what live mode would do, said as "would", is the round's decision.
    const actions = planCombineWithheld({ repo: ctx.key, proposal, now: nowIso(ctx) });
    const verdict = { kind: 'would-combine' as const, a: proposal.a.pr, b: proposal.b.pr };
    return { handedOver: true, next: [], decided: { verdict, actions } };
  }
  const built = CombineOutcome.safeParse(await store.getAppliedAction(combineKey(ctx.key, change)));
  // Another run holds the build (an earlier round's claimant): it is that run's to finish.
  if (!built.success) return { handedOver: false, notes: [], combined: null };
  const record: CombineRecord = { proposal, outcome: built.data };
  await executePlan(ctx, [recordAction(recordKey(ctx, change), record)]);
  // The first record stands, should two runs of this claim have built at once.
  const first = await readCombineRecord(ctx, change);
  return first ? finish(ctx, first.proposal, first.outcome) : { handedOver: false, notes: [], combined: null };
}

/** What follows the build: record the combined PR as a sibling, or say why there is none. */
async function finish(ctx: RepoContext, proposal: CombineProposal, outcome: CombineOutcome): Promise<CombineStep> {
  const now = nowIso(ctx);
  if (outcome.outcome !== 'opened') {
    await executePlan(ctx, planCombineEnded({ repo: ctx.key, proposal, outcome, now }));
    return { handedOver: false, notes: [combineFailureNote(proposal, outcome)], combined: null };
  }
  // First the receipt and the notes: once the combined PR is recorded, a retry of this run finds
  // the next round open and never comes back here.
  await executePlan(ctx, planCombined({ repo: ctx.key, proposal, outcome, now }));
  // Recorded here, not only from its `opened` webhook: a candidate Arbiter itself opened. A
  // sibling recorded while this round is claimed opens the next round, which holds all three.
  const pull = (await ctx.gh.readGroup([outcome.pr])).get(outcome.pr);
  if (pull && pull.state === 'OPEN') {
    const recorded = await recordCandidate(ctx, {
      number: pull.number,
      draft: pull.isDraft,
      state: 'open',
      body: pull.body,
      base: pull.baseRef,
      headSha: pull.headSha,
      author: ctx.gh.botLogin,
      labels: pull.labels,
    });
    return { handedOver: true, next: recorded.next };
  }
  return { handedOver: true, next: [] };
}

const Answer: z.ZodType<RebuildAnswer> = z.union([
  z.object({ ok: z.literal(true), sha: z.string().nullable() }),
  z.object({ ok: z.literal(false), status: z.number().int(), message: z.string() }),
]);

/**
 * A later round of a Change with an open combined PR: before it is decided, each parent whose head
 * moved since the build is merged into the combined branch (one merge per head, GitHub's answer
 * read back). A new head on the combined PR is recorded, and the round gives way to the next,
 * which waits for its evidence; a refused merge closes the combined PR with the reason, and the
 * round is decided on the parents alone.
 */
async function followParents(ctx: RepoContext, view: GroupView, record: CombineRecord): Promise<CombineStep> {
  const combined = combinedOf(record);
  const unchanged: CombineStep = { handedOver: false, notes: [], combined };
  if (!isOpened(record) || combined === null) return unchanged;
  const c = record.outcome.pr;
  const held = view.evidence.get(c);
  if (!held) return unchanged;
  const heads = new Map<number, string>();
  for (const pr of combined.sources) {
    const head = view.evidence.get(pr)?.headSha;
    if (head !== undefined) heads.set(pr, head);
  }
  const merges = planRebuild(ctx.key, record, heads);
  if (merges.length === 0) return unchanged;
  const result = await executePlan(ctx, merges);
  const merged: { pr: number; sha: string | null }[] = [];
  for (const merge of merges) {
    if (merge.kind !== 'combine-merge') continue;
    const answer = Answer.safeParse(result.results.get(merge.key));
    // Not applied by this run (shadow mode has no combined PR to follow): decided as it stands.
    if (!answer.success) return unchanged;
    if (!answer.data.ok) {
      const ended = { repo: ctx.key, record, source: merge.source, sha: merge.sha, answer: answer.data };
      await executePlan(ctx, planRebuildEnded({ ...ended, headSha: held.headSha, now: nowIso(ctx) }));
      return {
        handedOver: false,
        notes: [rebuildEndNote(record, merge.source, merge.sha, answer.data)],
        combined: null,
        without: c,
      };
    }
    merged.push({ pr: merge.source, sha: answer.data.sha });
  }
  // GitHub's answer is the branch itself: the combined PR's head now, against the head judged.
  const pull = (await ctx.gh.readGroup([c])).get(c);
  if (!pull || pull.state !== 'OPEN') return { ...unchanged, combined: null, without: c };
  if (pull.headSha === held.headSha) return unchanged;
  const now = nowIso(ctx);
  await executePlan(ctx, planRebuilt({ repo: ctx.key, record, merged, headSha: pull.headSha, now }));
  const recorded = await recordCandidate(ctx, {
    number: pull.number,
    draft: pull.isDraft,
    state: 'open',
    body: pull.body,
    base: pull.baseRef,
    headSha: pull.headSha,
    author: ctx.gh.botLogin,
    labels: pull.labels,
  });
  return { handedOver: true, next: recorded.next };
}
