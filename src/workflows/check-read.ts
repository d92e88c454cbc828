// A check event's first step, before it reads GitHub: what decides on the candidates of its head
// (config, the branch's rules, the scoring check, the criteria's checks) and their gates as last
// read, planned by src/core/plan/check-read.ts into "read" or "recorded without a read"; and which
// later deliveries this one may leave its read to (only those that surely read). A check event it
// leaves to another run is kept, and taken by the run that verifies its head (core/plan/kept-check.ts).
import { decidesOn, planCheckRead, type CheckRead, type DecidingChecks } from '../core/plan/check-read.ts';
import { planKeepCheck, planTakeKept } from '../core/plan/kept-check.ts';
import type { CandidateRow } from '../store/types.ts';
import { branchRulesOf } from './branch-rules.ts';
import { nowIso, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { storedGate } from './evidence.ts';

/** What decides on a Change's candidates on one base, as the gate reads it (src/core/gate.ts `computeGate`). */
async function decidingChecks(ctx: RepoContext, change: number, base: string): Promise<DecidingChecks> {
  const { required: configured, score } = ctx.config.gate;
  // The branch's rules count only without `gate.required` (read once per window, branch-rules.ts).
  const rules = configured.length > 0 ? null : (await branchRulesOf(ctx, base)).required;
  const required = configured.length > 0 ? configured : rules && rules.length > 0 ? rules : null;
  const criteria = (await ctx.deps.store.getChange(ctx.key, change))?.criteria ?? [];
  return { required, score, criteria: criteria.flatMap((c) => (c.check ? [c.check] : [])) };
}

export interface CheckEventRead {
  plan: CheckRead;
  /** Whether a later delivery naming this check surely reads: only to such a one may this run leave its read. */
  laterReads: (check: string | null) => boolean;
}

/** A later delivery with no candidate known to this run reads surely only without a name (a suite). */
export const onlyUnnamedRead = (check: string | null): boolean => check === null;

/**
 * Plans this delivery's check event over the open candidates on its head. `took` says the run
 * took events kept for the head (a recorder raced it): it then reads, so none of them is dropped.
 * `passed`: the event's payload says its check passed. The payload only lets a read wait for a
 * later one, which reads GitHub itself: a stale payload can delay a read, never decide.
 */
export async function planCheckEvent(
  ctx: RepoContext,
  delivery: string | undefined,
  candidates: CandidateRow[],
  took = false,
  passed = false,
): Promise<CheckEventRead> {
  const deciding = new Map<string, DecidingChecks>();
  const viewed: { pr: number; deciding: DecidingChecks; gate: Awaited<ReturnType<typeof storedGate>> }[] = [];
  for (const c of candidates) {
    const group = `${c.change}\u0000${c.base}`;
    const d = deciding.get(group) ?? (await decidingChecks(ctx, c.change, c.base));
    deciding.set(group, d);
    viewed.push({ pr: c.pr, deciding: d, gate: await storedGate(ctx, c) });
  }
  const row = delivery && !took ? await ctx.deps.store.getDeliveryCheck(delivery) : null;
  const plan = planCheckRead({
    check: row?.check ?? null,
    passed,
    delivered: row?.delivered ?? [],
    retry: row?.evaluated ?? false,
    candidates: viewed,
  });
  const all = [...deciding.values()];
  return { plan, laterReads: (check) => check === null || all.some((d) => decidesOn(d, check)) };
}

/** Keeps this run's check event on `headSha` (no candidate recorded yet, or a later delivery reads it). */
export async function keepCheckEvent(ctx: RepoContext, headSha: string): Promise<void> {
  await executePlan(ctx, planKeepCheck({ repo: ctx.key, headSha, token: ctx.token }, nowIso(ctx)));
}

/** Takes the check events kept on `headSha`: this run verifies its candidates. */
export async function takeKeptChecks(ctx: RepoContext, headSha: string): Promise<void> {
  await executePlan(ctx, planTakeKept({ repo: ctx.key, headSha, token: ctx.token }, nowIso(ctx)));
}
