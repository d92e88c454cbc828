// The job's driver: the one caller that runs a verification and the selection step it asks for.
// Each workflow returns its next steps (steps.ts) instead of calling the next workflow, so the
// path of one webhook goes one way: handler → flow → verify → select → plan → execute.
import { OPEN_STATES } from '../core/types.ts';
import type { CandidateRow } from '../store/types.ts';
import { nowIso, otherRepoContext, type RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { planTakeKept } from '../core/plan/kept-check.ts';
import { selectionStep } from './select.ts';
import { decideSetsOnly } from './set-ship.ts';
import type { NextStep } from './model.ts';
import { selectStep } from './steps.ts';
import { verifyCandidate } from './verify.ts';

/**
 * Steps one job runs at most. Each step asks for more only once per cause (a candidate settles
 * once per event, a 409 re-verifies once per sha), so this bound is never reached but by a bug.
 */
export const MAX_STEPS = 100;

/** Runs the steps in order, and the steps each one asks for after them. */
export async function runSteps(ctx: RepoContext, steps: NextStep[]): Promise<void> {
  const todo = [...steps];
  for (let done = 0; todo.length > 0; done++) {
    if (done >= MAX_STEPS) {
      ctx.log.error({ left: todo }, 'a job asked for more steps than any cause allows: the rest are dropped');
      return;
    }
    const step = todo.shift();
    if (step === undefined) return;
    if (
      (step.kind === 'select' || step.kind === 'sets') &&
      step.repo !== undefined &&
      step.repo.toLowerCase() !== ctx.key.toLowerCase()
    ) {
      // Another repository's group (a set's member settled here): its steps run in its own context.
      const other = await otherRepoContext(ctx, step.repo);
      if (other !== null) await runSteps(other, [{ ...step, repo: undefined }]);
    } else if (step.kind === 'sets') todo.push(...(await decideSetsOnly(ctx, step.change)));
    else if (step.kind === 'select')
      todo.push(...(await selectionStep(ctx, step.change, step.base, { settled: step.settled, pulls: step.pulls })));
    else
      todo.push(
        ...(await verifyCandidate(ctx, step.pr, { recheck: step.recheck, state: step.state, group: step.group })).next,
      );
  }
}

/** Verifies a candidate and, once it settled, runs its group's selection step. */
export const verifyAndSelect = (ctx: RepoContext, pr: number, opts: { recheck?: string } = {}): Promise<void> =>
  runSteps(ctx, [{ kind: 'verify', pr, ...opts }]);

/** Runs a group's selection step and what it asks for (a 409's re-verify). */
export const selectAndFollow = (ctx: RepoContext, change: number, base: string): Promise<void> =>
  runSteps(ctx, [{ kind: 'select', change, base }]);

/**
 * Groups up to this size are verified whole when a check event arrives on one of their heads:
 * one read of the group, each sibling verified from it, one selection step. CI results of
 * siblings that land together (a burst, see src/core/check-subject.ts) then cost one read and
 * no waiting lists. A larger group verifies the event's candidate alone.
 */
export const GROUP_VERIFY_MAX = 5;

/** The open siblings of a candidate's group (itself included), when the group is small enough to verify whole. */
export async function smallGroupOf(ctx: RepoContext, pr: number): Promise<CandidateRow[] | null> {
  const c = await ctx.deps.store.getCandidate(ctx.key, pr);
  if (!c || !OPEN_STATES.has(c.state)) return null;
  const open = (await ctx.deps.store.listCandidates(ctx.key, c.change, c.base)).filter((s) => OPEN_STATES.has(s.state));
  return open.length <= GROUP_VERIFY_MAX && open.some((s) => s.pr === pr) ? open : null;
}

/**
 * A check event on `pr`'s head: in a small group every open sibling is verified from ONE read of
 * the group (at once, so their acceptance calls run side by side), then the group's selection
 * step runs once, told which siblings settled in this run; otherwise `pr` alone, as any job does.
 */
export async function verifyOnCheckEvent(ctx: RepoContext, pr: number): Promise<void> {
  const group = await smallGroupOf(ctx, pr);
  if (group === null || group.length === 1) return verifyAndSelect(ctx, pr);
  const first = group[0];
  if (!first) return;
  const pulls = await ctx.gh.readGroup(group.map((s) => s.pr));
  // Every sibling's head is read now: an event kept on one of them (left to this run) is covered.
  const now = nowIso(ctx);
  await executePlan(
    ctx,
    group.flatMap((s) => planTakeKept({ repo: ctx.key, headSha: s.headSha, token: ctx.token }, now, pr)),
  );
  // Side by side, and each to its end: a failure of one is thrown once every other has finished,
  // so a retry never runs beside a verification (and its model call) still going.
  const outcomes = await Promise.allSettled(
    group.map(async (s) => {
      const state = pulls.get(s.pr);
      if (!state) return { pr: s.pr, was: s.state, settled: false, next: [] as NextStep[] };
      return { pr: s.pr, was: s.state, ...(await verifyCandidate(ctx, s.pr, { state, group: pulls })) };
    }),
  );
  const failed = outcomes.find((o) => o.status === 'rejected');
  if (failed) throw failed.reason;
  const verified = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const sameGroup = (step: NextStep): boolean =>
    step.kind === 'select' && step.change === first.change && step.base === first.base;
  const next = verified.flatMap((v) => v.next.filter((step) => !sameGroup(step)));
  if (verified.some((v) => v.next.some(sameGroup))) {
    // The selection step tells the siblings that settled in this run what they wait for.
    const settled = verified.filter((v) => v.settled && v.was === 'verifying').map((v) => v.pr);
    next.push(selectStep(first.change, first.base, settled, pulls));
  }
  await runSteps(ctx, next);
}
