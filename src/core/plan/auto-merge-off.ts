// When the auto-merge Arbiter enabled on a winner must go (DESIGN.md section 6, "Winner"): GitHub
// keeps a pull request's auto-merge through a push by anyone with write access, so a head Arbiter
// never verified would merge. The auto-merge stays only while its head is still the one the
// group's current round ships; a new head, a new round, a rejection, a cancelled Change or a
// sibling's win ends it. Pure: no I/O, no clock.
import { z } from 'zod';
import type { Action } from '../actions.ts';
import { autoMergeOnKey, markerKey } from '../keys.ts';
import { markerFor } from '../render/markers.ts';
import { OPEN_STATES, type CandidateState, type ChangeState } from '../types.ts';

/** The store's mark of the auto-merge Arbiter enabled in a group: the winner, its head, the round. */
export const AutoMergeOn = z.object({
  pr: z.number().int(),
  sha: z.string(),
  round: z.number().int(),
  /** Queued in the merge queue (`enqueuePullRequest`) rather than auto-merge: it is ended by a dequeue. */
  queue: z.boolean().optional(),
});
export type AutoMergeOn = z.infer<typeof AutoMergeOn>;

export interface AutoMergeOffView {
  repo: string;
  change: number;
  base: string;
  on: AutoMergeOn;
  /** That pull request as GitHub reports it now (null: GitHub does not know it any more). */
  live: { open: boolean; headSha: string; autoMergeBy: string | null; inMergeQueue?: boolean } | null;
  /** Arbiter's login, as GitHub names whoever enabled an auto-merge. */
  bot: string;
  changeState: ChangeState | null;
  candidateState: CandidateState | null;
  /** The group's current round, and the winner and head its decision promotes (null: undecided, or no ship). */
  round: { number: number; ships: { pr: number; sha: string } | null };
}

const short = (sha: string): string => sha.slice(0, 7);

/** Why the auto-merge can no longer stand, or null while its head is still the one the round ships. */
export function autoMergeEnd(view: AutoMergeOffView): string | null {
  const { on, live, round } = view;
  if (!live || !live.open) return `#${on.pr} is no longer open`;
  if (on.queue === true ? live.inMergeQueue === false : live.autoMergeBy !== view.bot)
    return on.queue === true
      ? `GitHub shows #${on.pr} out of the merge queue`
      : `GitHub shows no auto-merge of Arbiter's on #${on.pr}`;
  if (view.changeState === 'cancelled') return `#${view.change} was cancelled`;
  if (view.candidateState !== null && !OPEN_STATES.has(view.candidateState))
    return `#${on.pr} left the comparison (${view.candidateState})`;
  if (live.headSha !== on.sha)
    return `the head of #${on.pr} moved from ${short(on.sha)} to ${short(live.headSha)}, which Arbiter has not verified`;
  if (round.ships === null)
    return round.number === on.round
      ? `round ${round.number} no longer ships #${on.pr}`
      : `round ${round.number} started: the candidates are compared again`;
  if (round.ships.pr !== on.pr) return `#${round.ships.pr} won round ${round.number}`;
  if (round.ships.sha !== live.headSha) return `round ${round.number} ships another head of #${on.pr}`;
  return null;
}

/**
 * The action that disables the auto-merge Arbiter enabled, when it can no longer stand; none while
 * it can. Also when GitHub already shows none (disabled on a push, merged, closed): the executor asks
 * GitHub first, and the plan's `take-mark` then takes the store's mark.
 */
export function planAutoMergeOff(view: AutoMergeOffView): Action[] {
  const why = autoMergeEnd(view);
  if (why === null) return [];
  const { on } = view;
  const marker = autoMergeOnKey(view.repo, view.change, view.base);
  const key = `${view.repo}#${view.change}@${view.base}/r${on.round}/auto-merge-off/${on.pr}@${on.sha}`;
  // Once GitHub was asked (and it went, or was gone already), the store's mark of it goes too.
  const take: Action = { kind: 'take-mark', key: `${key}/mark`, marker, pr: on.pr, sha: on.sha };
  if (on.queue === true) {
    const note = markerKey('dequeued', on.pr, on.sha);
    return [
      { kind: 'dequeue', key, pr: on.pr, sha: on.sha, marker, why },
      take,
      // Said where people look, only when GitHub still showed it queued (else GitHub took it out itself).
      ...(view.live?.inMergeQueue === true
        ? [
            {
              kind: 'comment' as const,
              key: `${key}/note`,
              issue: on.pr,
              marker: note,
              body: `${markerFor(note)}\nArbiter took #${on.pr} out of the merge queue: ${why}. Nothing was merged.`,
            },
          ]
        : []),
    ];
  }
  return [
    {
      kind: 'disable-auto-merge',
      key,
      pr: on.pr,
      sha: on.sha,
      marker,
      why,
    },
    take,
  ];
}
