// When GitHub turns off the auto-merge Arbiter enabled on a winner, or takes the winner it queued out
// of the merge queue (`pull_request.auto_merge_disabled` / `dequeued`, with GitHub's reason): the
// winner was announced as shipping, so this is never silent. Planned from the pull request as GitHub
// reports it now (never the payload): still the verified head the round ships, the merge path is
// taken again once per head (turned back on, merged with `sha`, or queued again); else the Change
// goes to a person with GitHub's reason in words. Pure: no I/O, no clock.
import type { Action } from '../actions.ts';
import { SELECTION_BUTTONS } from '../buttons.ts';
import { autoMergeAgainKey, dequeuedKey } from '../keys.ts';
import type { AutoMergeOn } from './auto-merge-off.ts';
import type { MergeMethod, MergeView } from '../merge-view.ts';
import { planMergePath, promotion, type MergePath } from './merge-path.ts';
import { humanGateReceipt, planHumanGate } from './human-gate.ts';
import { plannedActions } from '../replay-lines.ts';
import {
  OPEN_STATES,
  type CandidateEvidence,
  type CandidateState,
  type ChangeState,
  type Criterion,
} from '../types.ts';

export interface AutoMergeLostView {
  repo: string;
  change: { number: number; criteria: Criterion[] };
  base: string;
  pr: number;
  /** What GitHub ended: Arbiter's auto-merge, or its merge-queue entry. */
  lost: 'auto-merge' | 'queue';
  /** Arbiter's mark of what it enabled in this group (null: none, or already withdrawn by Arbiter itself). */
  on: AutoMergeOn | null;
  /** GitHub's reason, as its webhook words it (words for a person, never state). */
  reason: string;
  /** Who GitHub names as the sender, and whether that is a person with write access (their own choice). */
  by: string;
  byPerson: boolean;
  /** The pull request as GitHub reports it now (null: GitHub does not know it). */
  live: {
    open: boolean;
    headSha: string;
    /** The base it targets now: a retarget makes it another group's candidate. */
    baseRef: string;
    autoMergeBy: string | null;
    inMergeQueue: boolean;
    merge: MergeView | null;
  } | null;
  bot: string;
  changeState: ChangeState | null;
  candidateState: CandidateState | null;
  /** The group's current round and what its decision ships (null: nothing). */
  round: { number: number; ships: { pr: number; sha: string } | null };
  /** Arbiter already took the merge path again on this head once after GitHub ended it. */
  actedBefore: boolean;
  method: MergeMethod;
  branch: { requiredReviews: number; mergeQueue: boolean };
  prefix: string;
  evidence: CandidateEvidence | null;
  repoUrl: string | null;
  reviewers: { users: string[]; teams: string[] };
  now: string;
}

export type AutoMergeLostPlan =
  /** Nothing to do here: `why` says who carries on (a new head's verification, its merge's webhook…). */
  | { kind: 'none'; why: string }
  | { kind: 'again'; path: MergePath; why: string; actions: Action[] }
  | { kind: 'person'; why: string; actions: Action[] };

const short = (sha: string): string => sha.slice(0, 7);

/** Why nothing is Arbiter's to do about it, or null while the winner is still the round's verified head. */
function notOurs(view: AutoMergeLostView): string | null {
  const { on, live, pr, round } = view;
  if (!on || on.pr !== pr)
    return `Arbiter ${view.lost === 'queue' ? 'queued' : 'enabled auto-merge on'} no winner #${pr} here`;
  if (!live || !live.open) return `#${pr} is no longer open; its own webhook says how it ended`;
  if (view.lost === 'auto-merge' && live.autoMergeBy === view.bot) return `Arbiter's auto-merge is on #${pr} again`;
  if (view.lost === 'queue' && live.inMergeQueue) return `#${pr} is in the merge queue again`;
  if (view.changeState === 'cancelled') return `#${view.change.number} was cancelled`;
  if (view.candidateState !== null && !OPEN_STATES.has(view.candidateState))
    return `#${pr} left the comparison (${view.candidateState})`;
  // The base changed (a retarget sends auto_merge_disabled too, maybe before its `edited` is
  // handled): merging now would ship it into a base it was never selected for.
  if (live.baseRef !== view.base)
    return `#${pr} now targets ${live.baseRef}, not ${view.base}: it is compared afresh in that base's group`;
  if (live.headSha !== on.sha)
    return `the head of #${pr} moved to ${short(live.headSha)}: it is verified and compared afresh`;
  if (round.ships === null || round.ships.pr !== pr || round.ships.sha !== on.sha)
    return `round ${round.number} no longer ships #${pr} at ${short(on.sha)}`;
  return null;
}

/** GitHub's act in words: who ended it and GitHub's reason. */
function saidOf(view: AutoMergeLostView): string {
  const what =
    view.lost === 'queue' ? `took #${view.pr} out of the merge queue` : `turned off auto-merge on #${view.pr}`;
  const reason = view.reason.trim();
  if (view.byPerson) return `@${view.by} ${what}${reason ? ` ("${reason}")` : ''}`;
  return `GitHub ${what}${reason ? `: "${reason}"` : ''}`;
}

/** Plans what follows GitHub ending the winner's auto-merge or queue entry. */
export function planAutoMergeLost(view: AutoMergeLostView): AutoMergeLostPlan {
  const skip = notOurs(view);
  if (skip !== null) return { kind: 'none', why: skip };
  const sha = view.on!.sha;
  const said = saidOf(view);
  const person = (why: string, ask: string): AutoMergeLostPlan => {
    const stem = (view.lost === 'queue' ? dequeuedKey : autoMergeAgainKey)(
      view.repo,
      view.change.number,
      view.base,
      view.pr,
      sha,
    );
    const key = (suffix: string): string => `${stem}/person/${suffix}`;
    const words = `${why}. ${ask[0]!.toUpperCase()}${ask.slice(1)}.`;
    const actions: Action[] = [
      ...planHumanGate({
        repo: view.repo,
        change: view.change,
        base: view.base,
        before: [view.pr],
        winner: view.pr,
        why: words,
        evidence: new Map(view.evidence ? [[view.pr, view.evidence]] : []),
        heads: new Map([[view.pr, sha]]),
        repoUrl: view.repoUrl,
        prefix: view.prefix,
        reviewers: view.reviewers,
        // Shadow mode enables no auto-merge and queues nothing, so it leaves no mark to get here.
        config: { mode: 'live' },
        losers: [],
        buttons: [...SELECTION_BUTTONS],
        title: () =>
          view.lost === 'queue' ? 'Out of the merge queue: a person must act' : 'Auto-merge off: a person must act',
        key,
      }),
      { kind: 'set-change-state', key: key('change-state'), change: view.change.number, state: 'human' },
      humanGateReceipt(
        key('receipt'),
        { repo: view.repo, change: view.change.number, round: view.round.number, now: view.now },
        { candidates: [view.pr], winner: view.pr, why: words.slice(0, 500) },
      ),
    ];
    // The receipt keeps the view it was planned from: `npm run replay` decides the hand-over again.
    return {
      kind: 'person',
      why: words,
      actions: plannedActions(actions, { planner: 'auto-merge-lost', inputs: view }),
    };
  };
  const promote = `approve #${view.pr} or promote it with \`${view.prefix} promote\` to ship it, or cancel the change`;
  // A person's own choice is never undone by Arbiter. The queue removes a pull request when its merge
  // group failed (or for a reason Arbiter cannot see from here): queued again, it would fail again.
  if (view.byPerson || view.lost === 'queue') return person(said, promote);
  if (view.actedBefore) return person(`${said}, again after Arbiter took its merge path once more`, promote);
  const path = planMergePath({
    pr: view.pr,
    method: view.method,
    branch: view.branch,
    merge: view.live!.merge ?? undefined,
    prefix: view.prefix,
  });
  if (path.kind === 'person') return person(`${said}; ${path.why}`, path.ask);
  if (path.kind === 'queued') return { kind: 'none', why: `#${view.pr} is in the merge queue` };
  const stem = autoMergeAgainKey(view.repo, view.change.number, view.base, view.pr, sha);
  // Once per head: the keys name the head, not the reason, so a second turning off goes to a person.
  const actions = promotion(path, view.pr, sha, (suffix) => `${stem}/${suffix.split('/')[0]}`, {
    users: [],
    teams: [],
  });
  return {
    kind: 'again',
    path,
    why: `${said}; #${view.pr} is still the verified head, so Arbiter takes its merge path again`,
    actions,
  };
}

/** The keys of what Arbiter may have done once on this head after GitHub ended its merge path: any applied means it acted before. */
export const actedAgainKeys = (repo: string, change: number, base: string, pr: number, sha: string): string[] =>
  ['merge', 'auto-merge', 'update-branch'].map((k) => `${autoMergeAgainKey(repo, change, base, pr, sha)}/${k}`);
