// The job's driver: the one caller that runs a verification and the selection step it asks for.
// Each workflow returns its next steps (steps.ts) instead of calling the next workflow, so the
// path of one webhook goes one way: handler → flow → verify → select → plan → execute.
import type { RepoContext } from './context.ts';
import { selectionStep } from './select.ts';
import type { NextStep } from './steps.ts';
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
    if (step.kind === 'select')
      todo.push(...(await selectionStep(ctx, step.change, step.base, { settled: step.settled, pulls: step.pulls })));
    else todo.push(...(await verifyCandidate(ctx, step.pr, { recheck: step.recheck, state: step.state })).next);
  }
}

/** Verifies a candidate and, once it settled, runs its group's selection step. */
export const verifyAndSelect = (ctx: RepoContext, pr: number, opts: { recheck?: string } = {}): Promise<void> =>
  runSteps(ctx, [{ kind: 'verify', pr, ...opts }]);

/** Runs a group's selection step and what it asks for (a 409's re-verify). */
export const selectAndFollow = (ctx: RepoContext, change: number, base: string): Promise<void> =>
  runSteps(ctx, [{ kind: 'select', change, base }]);
