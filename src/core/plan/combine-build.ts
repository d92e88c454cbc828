// Building the combined candidate (DESIGN.md section 6) one GitHub write at a time: a branch at the
// base head, each side's head merged into it, a draft PR from it. Each step is an action the
// executor applies once under its key; GitHub's answer to it decides the next step, so a restart
// finds the steps that landed answered from the store and goes on from the first that did not.
// A conflict or a refusal deletes the branch, and the build ends with its outcome recorded. Pure.
import { z } from 'zod';
import { recordAction, type Action } from '../actions.ts';
import type { CombineBuild, CombineOutcome } from '../combine.ts';
import { combineKey, combineStepKey } from '../keys.ts';
import { parseRecorded } from '../plan-schema.ts';

/** GitHub's refusal of a step: its status and its whole message, for the outcome and the comparison. */
const Refusal = z.object({ ok: z.literal(false), status: z.number().int(), message: z.string() });

/**
 * The branch step's answer: the base head the branch was cut from, or the refusal. A build that
 * ran before its steps were actions recorded `{ sha }` under the same key.
 */
export const BranchAnswer = z.union([
  z.object({ ok: z.literal(true), sha: z.string() }),
  Refusal,
  z.object({ sha: z.string() }).transform((a) => ({ ok: true as const, sha: a.sha })),
]);
export type BranchAnswer = z.output<typeof BranchAnswer>;

/** A side's merge: the branch's new head (null only when GitHub named none), or the refusal (409: a conflict). */
export const SideAnswer = z.union([
  z.object({ ok: z.literal(true), sha: z.string().nullable() }),
  Refusal,
  // As recorded before the steps were actions.
  z.object({ pr: z.number().int(), sha: z.string().nullable() }).transform((a) => ({ ok: true as const, sha: a.sha })),
]);
export type SideAnswer = z.output<typeof SideAnswer>;

/** Arbiter's own PR from the branch (found, or opened now; `open` false: found closed), or the refusal. */
export const PullAnswer = z.union([
  z.object({ ok: z.literal(true), pr: z.number().int().positive(), headSha: z.string(), open: z.boolean() }),
  Refusal,
]);
export type PullAnswer = z.output<typeof PullAnswer>;

/** GitHub's answers to the build's steps so far. */
export interface BuildAnswers {
  branch: BranchAnswer | null;
  /** One per side merged, in the order of `sides`. */
  merges: SideAnswer[];
  pull: PullAnswer | null;
  /** The branch of a build that ended without a PR is deleted. */
  deleted: boolean;
}

export const NO_ANSWERS: BuildAnswers = { branch: null, merges: [], pull: null, deleted: false };

/**
 * The next step: a write whose answer decides what follows, or (`outcome` set) the record of what
 * the build came to, under the combine's key, which ends it.
 */
export type BuildStep = { action: Action; outcome: CombineOutcome | null };

/** The answers with `value`, GitHub's answer to the step `action` as the executor recorded it (parsed, never cast). */
export function withAnswer(answers: BuildAnswers, action: Action, value: unknown): BuildAnswers {
  const what = `the answer to ${action.key}`;
  switch (action.kind) {
    case 'combine-branch':
      return { ...answers, branch: parseRecorded(BranchAnswer, value, what) };
    case 'combine-merge':
      return { ...answers, merges: [...answers.merges, parseRecorded(SideAnswer, value, what)] };
    case 'combine-pull':
      return { ...answers, pull: parseRecorded(PullAnswer, value, what) };
    case 'combine-delete':
      return { ...answers, deleted: true };
    default:
      return answers;
  }
}

/** What follows the answers so far: the first step not yet answered, or the outcome once the build ended. */
export function planBuildStep(repo: string, build: CombineBuild, answers: BuildAnswers): BuildStep {
  const key = (step: string): string => combineStepKey(repo, build.change, step);
  const end = (outcome: CombineOutcome): BuildStep => ({
    action: recordAction(combineKey(repo, build.change), outcome),
    outcome,
  });
  // A build that ends without a PR leaves no branch behind: it is deleted before the outcome is recorded.
  const endWithout = (outcome: CombineOutcome): BuildStep =>
    answers.deleted
      ? end(outcome)
      : { action: { kind: 'combine-delete', key: key('delete'), branch: build.branch }, outcome: null };

  const { branch } = answers;
  if (branch === null) {
    return {
      action: { kind: 'combine-branch', key: key('branch'), branch: build.branch, base: build.base },
      outcome: null,
    };
  }
  if (!branch.ok) return end({ outcome: 'refused', step: 'branch', status: branch.status, message: branch.message });
  const baseSha = branch.sha;

  const merges: { pr: number; sha: string | null }[] = [];
  for (const [i, side] of build.sides.entries()) {
    const answer = answers.merges[i];
    if (answer === undefined) {
      const merge: Action = {
        kind: 'combine-merge',
        key: key(`merge/${side.pr}`),
        change: build.change,
        branch: build.branch,
        source: side.pr,
        sha: side.sha,
        readHead: true,
      };
      return { action: merge, outcome: null };
    }
    if (!answer.ok) {
      if (answer.status === 409)
        return endWithout({ outcome: 'conflict', with: side.pr, baseSha, message: answer.message });
      return endWithout({ outcome: 'refused', step: 'merge', status: answer.status, message: answer.message });
    }
    merges.push({ pr: side.pr, sha: answer.sha });
  }

  const { pull } = answers;
  if (pull === null) {
    const { branch: from, base, title, body } = build;
    return { action: { kind: 'combine-pull', key: key('pull'), branch: from, base, title, body }, outcome: null };
  }
  if (!pull.ok) return endWithout({ outcome: 'refused', step: 'pull', status: pull.status, message: pull.message });
  if (!pull.open) {
    // A PR of Arbiter's own from this branch that someone closed: not reopened, and the branch is its head.
    const message = `the combined pull request #${pull.pr} from ${build.branch} is closed`;
    return end({ outcome: 'refused', step: 'pull', status: 422, message });
  }
  return end({ outcome: 'opened', pr: pull.pr, headSha: pull.headSha, baseSha, merges });
}
