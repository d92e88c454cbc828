// The combined candidate's build, step by step (core/plan/combine-build.ts): each of GitHub's answers
// decides the next write, a conflict or a refusal deletes the branch before the outcome is recorded,
// and GitHub's whole message is kept in the outcome.
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.ts';
import type { CombineBuild, CombineOutcome } from '../../src/core/combine.ts';
import { NO_ANSWERS, planBuildStep, withAnswer, type BuildAnswers } from '../../src/core/plan/combine-build.ts';

const REPO = 'acme/todo';
const build: CombineBuild = {
  change: 42,
  branch: 'arbiter/combined/42',
  base: 'main',
  sides: [
    { pr: 12, sha: 'a'.repeat(40) },
    { pr: 13, sha: 'b'.repeat(40) },
  ],
  title: 'Combined candidate for #42: Calendar',
  body: 'Candidate-for: #42',
};

/** Runs the build against scripted answers (by step kind, in order): the steps taken and the outcome. */
function run(script: Partial<Record<Action['kind'], unknown[]>>): { steps: string[]; outcome: CombineOutcome | null } {
  let answers: BuildAnswers = NO_ANSWERS;
  const steps: string[] = [];
  for (let i = 0; i < 10; i++) {
    const step = planBuildStep(REPO, build, answers);
    steps.push(`${step.action.kind} ${step.action.key}`);
    if (step.outcome !== null) return { steps, outcome: step.outcome };
    const answer = script[step.action.kind]?.shift();
    answers = withAnswer(answers, step.action, answer);
  }
  return { steps, outcome: null };
}

const K = `${REPO}#42/combine`;
const merged = (sha: string) => ({ ok: true, sha });
const openedPull = { ok: true, pr: 43, headSha: 'c'.repeat(40), open: true };

describe('planBuildStep', () => {
  it('branch, each side, the PR, then the outcome under the combine key', () => {
    const { steps, outcome } = run({
      'combine-branch': [{ ok: true, sha: 'base-sha' }],
      'combine-merge': [merged('m1'), merged('m2')],
      'combine-pull': [openedPull],
    });
    expect(steps).toEqual([
      `combine-branch ${K}/step/branch`,
      `combine-merge ${K}/step/merge/12`,
      `combine-merge ${K}/step/merge/13`,
      `combine-pull ${K}/step/pull`,
      `record ${K}`,
    ]);
    expect(outcome).toEqual({
      outcome: 'opened',
      pr: 43,
      headSha: 'c'.repeat(40),
      baseSha: 'base-sha',
      merges: [
        { pr: 12, sha: 'm1' },
        { pr: 13, sha: 'm2' },
      ],
    });
  });

  it('each side is merged with its head, and its answer carries the branch head when GitHub names none', () => {
    const step = planBuildStep(REPO, build, { ...NO_ANSWERS, branch: { ok: true, sha: 'base-sha' } });
    expect(step.action).toMatchObject({
      kind: 'combine-merge',
      branch: build.branch,
      source: 12,
      sha: 'a'.repeat(40),
      readHead: true,
    });
  });

  it('a conflict deletes the branch, then records the conflict with GitHub’s message', () => {
    const { steps, outcome } = run({
      'combine-branch': [{ ok: true, sha: 'base-sha' }],
      'combine-merge': [merged('m1'), { ok: false, status: 409, message: 'Merge conflict' }],
      'combine-delete': [{ deleted: true }],
    });
    expect(steps.slice(-2)).toEqual([`combine-delete ${K}/step/delete`, `record ${K}`]);
    expect(outcome).toEqual({ outcome: 'conflict', with: 13, baseSha: 'base-sha', message: 'Merge conflict' });
  });

  it('another refused merge is the merge step refused, the branch deleted', () => {
    const message = 'Resource not accessible by integration';
    const { steps, outcome } = run({
      'combine-branch': [{ ok: true, sha: 'base-sha' }],
      'combine-merge': [{ ok: false, status: 403, message }],
      'combine-delete': [{ deleted: true }],
    });
    expect(steps).toContain(`combine-delete ${K}/step/delete`);
    expect(outcome).toEqual({ outcome: 'refused', step: 'merge', status: 403, message });
  });

  it('a refused branch ends the build: nothing to delete', () => {
    const message = 'Resource not accessible by integration';
    const { steps, outcome } = run({ 'combine-branch': [{ ok: false, status: 403, message }] });
    expect(steps).toEqual([`combine-branch ${K}/step/branch`, `record ${K}`]);
    expect(outcome).toEqual({ outcome: 'refused', step: 'branch', status: 403, message });
  });

  it('a refused PR deletes the branch; a PR of its own found closed keeps it (it is that PR’s head)', () => {
    const message = 'Validation Failed: No commits between main and arbiter/combined/42';
    const refusedPull = run({
      'combine-branch': [{ ok: true, sha: 'base-sha' }],
      'combine-merge': [merged('m1'), merged('m2')],
      'combine-pull': [{ ok: false, status: 422, message }],
      'combine-delete': [{ deleted: true }],
    });
    expect(refusedPull.steps).toContain(`combine-delete ${K}/step/delete`);
    expect(refusedPull.outcome).toEqual({ outcome: 'refused', step: 'pull', status: 422, message });

    const closed = run({
      'combine-branch': [{ ok: true, sha: 'base-sha' }],
      'combine-merge': [merged('m1'), merged('m2')],
      'combine-pull': [{ ...openedPull, open: false }],
    });
    expect(closed.steps.some((s) => s.startsWith('combine-delete'))).toBe(false);
    expect(closed.outcome).toEqual({
      outcome: 'refused',
      step: 'pull',
      status: 422,
      message: 'the combined pull request #43 from arbiter/combined/42 is closed',
    });
  });

  it('reads the steps a build recorded before its steps were actions', () => {
    const { outcome } = run({
      'combine-branch': [{ sha: 'base-sha' }],
      'combine-merge': [
        { pr: 12, sha: 'm1' },
        { pr: 13, sha: null },
      ],
      'combine-pull': [openedPull],
    });
    expect(outcome).toMatchObject({
      outcome: 'opened',
      baseSha: 'base-sha',
      merges: [
        { pr: 12, sha: 'm1' },
        { pr: 13, sha: null },
      ],
    });
  });

  it('an answer that does not parse is an error, not a guess', () => {
    const step = planBuildStep(REPO, build, NO_ANSWERS);
    expect(() => withAnswer(NO_ANSWERS, step.action, { ok: 'yes' })).toThrow();
  });
});
