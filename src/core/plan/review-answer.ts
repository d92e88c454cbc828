// The answer to a person's approving review whose merge the executor kept back (shadow mode): the
// words `/arbiter promote` answers with, from the same promotion plan, on the pull request, once
// per head. Live mode needs none: the merge itself is the answer. Pure.
import type { Action } from '../actions.ts';
import { changeActionKey, markerKey } from '../keys.ts';
import { markerFor } from '../render/markers.ts';

export interface ReviewAnswerInput {
  repo: string;
  change: number;
  pr: number;
  /** The head the approval would have shipped. */
  sha: string;
  user: string;
  /** What promoting said (the promotion's own answer). */
  message: string;
}

export function planReviewAnswer(input: ReviewAnswerInput): Action[] {
  const { repo, change, pr, sha, user, message } = input;
  const marker = markerKey('review', pr);
  return [
    {
      kind: 'comment',
      key: changeActionKey(repo, change, 'review', `${pr}@${sha}`, 'answer'),
      issue: pr,
      marker,
      body: `${markerFor(marker)}\n@${user} approved #${pr} in a review. ${message}`,
    },
  ];
}
