// The winner's merge path (DESIGN.md section 6, "Winner"): chosen from what GitHub says now, read
// in the decision's own group query (mergeStateStatus, reviewDecision, isInMergeQueue, the
// repository's auto-merge setting and merge methods) and the branch's rules (rulesets and classic
// protection). Pure: no I/O, no clock.
import type { Action } from '../actions.ts';
import type { MergeMethod, MergeView } from '../merge-view.ts';
import { inMode, type ModeConfig } from '../render/mode-words.ts';

export type { MergeMethod, MergeView };

export type MergePath =
  | { kind: 'merge'; method: MergeMethod }
  | { kind: 'auto-merge'; method: MergeMethod; requestReviews: boolean }
  | { kind: 'enqueue'; method: MergeMethod }
  | { kind: 'update-branch'; method: MergeMethod }
  /** Already in the merge queue: GitHub merges it; nothing to write. */
  | { kind: 'queued'; method: MergeMethod }
  /** A person must act: `why` names GitHub's reason, `ask` what to give. */
  | { kind: 'person'; why: string; ask: string };

export interface MergePathInput {
  pr: number;
  method: MergeMethod;
  branch: { requiredReviews: number; mergeQueue: boolean };
  merge?: MergeView;
  /** The command prefix, for the words that tell a person what to do. */
  prefix: string;
}

const REVIEWS_MISSING = new Set(['REVIEW_REQUIRED', 'CHANGES_REQUESTED']);

/** The review a person is asked for, in words. */
function reviewWords(input: MergePathInput): string {
  const n = Math.max(1, input.branch.requiredReviews);
  return `${n === 1 ? 'an approving review' : `${n} approving reviews`} from someone with write access`;
}

/** Chooses how the winner reaches its base branch, or who must act first and why. */
export function planMergePath(input: MergePathInput): MergePath {
  const { merge, branch, pr } = input;
  if (!merge) {
    // A receipt from before the merge state was read: the path it took then.
    if (branch.mergeQueue) return { kind: 'enqueue', method: input.method };
    if (branch.requiredReviews > 0) return { kind: 'auto-merge', method: input.method, requestReviews: false };
    return { kind: 'merge', method: input.method };
  }
  // The configured method where the repository allows it, else the first one it allows.
  const method = merge.methods.length === 0 || merge.methods.includes(input.method) ? input.method : merge.methods[0]!;
  if (merge.inMergeQueue) return { kind: 'queued', method };
  const status = merge.status.toUpperCase();
  if (status === 'DIRTY')
    return {
      kind: 'person',
      why: `#${pr} conflicts with its base branch (GitHub reports mergeStateStatus DIRTY)`,
      ask: `resolve the conflict on #${pr}; its new head is compared again`,
    };
  const reviewsMissing = merge.reviewDecision !== null && REVIEWS_MISSING.has(merge.reviewDecision);
  if (merge.reviewDecision === 'CHANGES_REQUESTED')
    return {
      kind: 'person',
      why: `a reviewer requested changes on #${pr} (GitHub reports reviewDecision CHANGES_REQUESTED)`,
      ask: `dismiss or resolve that review and approve #${pr} to merge it, or cancel the change`,
    };
  if (branch.mergeQueue) {
    // The queue takes only a pull request whose reviews are in: otherwise it refuses the entry.
    if (reviewsMissing)
      return {
        kind: 'person',
        why: `the branch merges through a merge queue, which does not take #${pr} until it has ${reviewWords(input)} (GitHub reports reviewDecision REVIEW_REQUIRED)`,
        ask: `approve #${pr}; Arbiter then merges it through the queue`,
      };
    return { kind: 'enqueue', method };
  }
  if (reviewsMissing) {
    if (merge.autoMergeAllowed) return { kind: 'auto-merge', method, requestReviews: true };
    return {
      kind: 'person',
      why: `the branch requires ${reviewWords(input)} before #${pr} merges, and this repository does not allow auto-merge ("Allow auto-merge" is off in its settings)`,
      ask: `approve #${pr}: the approval merges it`,
    };
  }
  if (status === 'BEHIND' && merge.strict) {
    // Updated once, with `expected_head_sha`; its new head is verified before any merge.
    if (!merge.branchUpdated) return { kind: 'update-branch', method };
    return {
      kind: 'person',
      why: `#${pr} fell behind its base branch again after Arbiter updated it once, and the branch must be up to date before merging`,
      ask: `update the branch of #${pr} (its new head is verified again), or promote it with \`${input.prefix} promote\` once it is up to date`,
    };
  }
  // CLEAN, HAS_HOOKS, UNSTABLE (every required check of the winner passed: it is promotable),
  // DRAFT (marked ready first), BLOCKED or UNKNOWN with reviews in: the merge with `sha` is
  // GitHub's own check, and its refusal names the reason (planMergeAnswer).
  return { kind: 'merge', method };
}

/** The headline's words for a winner on that path: what it waits for, never "ships" before it does. */
export function pathWords(path: MergePath, config: ModeConfig): string {
  const would = (text: string): string => inMode(config, { live: `It ${text}`, shadow: `It would ${text}` });
  switch (path.kind) {
    case 'merge':
      return inMode(config, { live: 'It ships', shadow: 'It would ship' });
    case 'auto-merge':
      return would('merge by auto-merge once its required reviews are in; reviews are requested');
    case 'enqueue':
      return would('go through the merge queue');
    case 'queued':
      return inMode(config, { live: 'It waits for the merge queue', shadow: 'It would wait for the merge queue' });
    case 'update-branch':
      return would('have its branch brought up to date first; the new head is verified before it merges');
    case 'person':
      return `It waits for a person: ${path.why}`;
  }
}

/** The write that takes the winner on its merge path (merge-path.ts); a person's path is a human verdict, never here. */
export function promotion(
  path: MergePath,
  w: number,
  sha: string,
  k: (suffix: string) => string,
  reviewers: { users: string[]; teams: string[] },
): Action[] {
  switch (path.kind) {
    case 'merge':
      return [{ kind: 'merge', key: k(`merge/${w}`), pr: w, sha, method: path.method }];
    case 'auto-merge': {
      const ask = reviewers.users.length + reviewers.teams.length > 0 && path.requestReviews;
      return [
        ...(ask
          ? [
              {
                kind: 'request-review' as const,
                key: k(`review/${w}`),
                pr: w,
                reviewers: reviewers.users,
                teams: reviewers.teams,
              },
            ]
          : []),
        { kind: 'auto-merge', key: k(`auto-merge/${w}`), pr: w, sha, method: path.method, queue: false },
      ];
    }
    case 'enqueue':
    case 'queued':
      // Already queued: the enqueue answers as queued again (the executor asks GitHub first).
      return [{ kind: 'auto-merge', key: k(`auto-merge/${w}`), pr: w, sha, method: path.method, queue: true }];
    case 'update-branch':
      return [{ kind: 'update-branch', key: k(`update-branch/${w}`), pr: w, sha }];
    case 'person':
      return [];
  }
}
