// Builds the combined candidate on GitHub as a sequence of planned steps: the planner names the next
// write from GitHub's answers so far (core/plan/combine-build.ts), and the executor applies it once
// under its key. A restart goes through the steps again: those that landed are answered from the
// store, so no second branch, merge or PR is made, and the build goes on from the first that did not.
import type { CombineBuild } from '../core/combine.ts';
import { NO_ANSWERS, planBuildStep, withAnswer } from '../core/plan/combine-build.ts';
import type { RepoContext } from './context.ts';
import { executePlan } from './execute.ts';

/**
 * `recorded`: the build ended and its outcome is recorded under the combine's key. `withheld`: the
 * mode's filter kept its first write back (shadow mode). `held`: another run holds one of its steps,
 * and the build is that run's to finish.
 */
export type BuildRun = 'recorded' | 'withheld' | 'held';

export async function buildCombined(ctx: RepoContext, build: CombineBuild): Promise<BuildRun> {
  let answers = NO_ANSWERS;
  // A branch, a merge per side, a PR or a deletion, and the outcome: the planner moves on at each answer.
  for (let steps = 0; steps < build.sides.length + 4; steps++) {
    const step = planBuildStep(ctx.key, build, answers);
    const result = await executePlan(ctx, [step.action]);
    if (result.withheld.length > 0) return 'withheld';
    if (!result.results.has(step.action.key)) return 'held';
    if (step.outcome !== null) return 'recorded';
    answers = withAnswer(answers, step.action, result.results.get(step.action.key));
  }
  throw new Error(`the combine build of #${build.change} did not end in ${build.sides.length + 4} steps`);
}
