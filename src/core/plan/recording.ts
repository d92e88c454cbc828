// What recording a pull request's head as a candidate writes (workflows/candidates.ts), planned:
// the candidate row and the check events kept for its head, the next round when a decided round
// sees it, its patch, and its selection check waiting for evidence. Pure: the step reads the stored
// candidate, the Change and its round, and fetches the patch between plans. All but the check are
// the store's records, kept in shadow mode (as they were when written directly).
import { checkAction, type Action } from '../actions.ts';
import { recordingActionKey } from '../keys.ts';
import type { ChangeState } from '../types.ts';

/** The head being recorded, and the run (its token) that records it. */
export interface RecordingHead {
  repo: string;
  change: number;
  pr: number;
  base: string;
  headSha: string;
  author: string;
  token: string;
}

/** What names a head's records: enough of it to store its patch (verification does too). */
export type HeadOf = Pick<RecordingHead, 'repo' | 'change' | 'pr' | 'headSha' | 'token'>;

const keyOf = (head: HeadOf, now: string, what: string): string =>
  recordingActionKey(head.repo, head.change, head.pr, head.headSha, now, head.token, what);

export interface RecordingPlan {
  actions: Action[];
  /** The key of the action that takes the head's kept check events: its answer says how many it took. */
  takesKept: string;
}

/**
 * The candidate, verifying afresh (`new commits` on a stored one), then the check events that named
 * this head before it was recorded: the evaluation that follows applies them, reading its checks again.
 */
export function planRecording(view: { head: RecordingHead; existing: boolean }, now: string): RecordingPlan {
  const { head } = view;
  const takesKept = keyOf(head, now, 'kept');
  const actions: Action[] = [
    {
      kind: 'record-candidate',
      key: keyOf(head, now, 'candidate'),
      candidate: {
        pr: head.pr,
        change: head.change,
        base: head.base,
        headSha: head.headSha,
        author: head.author,
        state: 'verifying',
        reason: view.existing ? 'new commits' : 'recorded',
        headSeenAt: now,
      },
    },
    { kind: 'take-kept-checks', key: takesKept, headSha: head.headSha },
  ];
  return { actions, takesKept };
}

/** The kept check events taken for the head (`taken`: how many), logged when there were any. */
export function planKeptApplied(head: RecordingHead, taken: number, now: string): Action[] {
  if (taken === 0) return [];
  const data = { pr: head.pr, headSha: head.headSha, events: taken };
  return [{ kind: 'event', key: keyOf(head, now, 'kept-applied'), event: 'check.kept-applied', data, at: now }];
}

export interface RecordedView {
  head: RecordingHead;
  existing: boolean;
  /** The group's current round: its number, and whether it was decided or claimed by a selection. */
  round: { number: number; decided: boolean };
  /** The Change's state. */
  changeState: ChangeState;
}

/**
 * A decided round sees a new sibling or new commits: the comparison starts again (its next round,
 * and a Change that waited for a person is open again). Then the recording is logged.
 */
export function planRecorded(view: RecordedView, now: string): Action[] {
  const { head } = view;
  const again: Action[] = view.round.decided
    ? [
        {
          kind: 'open-round',
          key: keyOf(head, now, 'round'),
          change: head.change,
          base: head.base,
          from: view.round.number,
          at: now,
        },
        ...(view.changeState === 'human'
          ? [
              {
                kind: 'set-change-state' as const,
                key: keyOf(head, now, 'change:open'),
                change: head.change,
                state: 'open' as const,
                // What a new head did to the Change, in both modes (as before this was planned).
                observed: true,
              },
            ]
          : []),
      ]
    : [];
  const data = { pr: head.pr, change: head.change, headSha: head.headSha };
  const event = view.existing ? 'candidate.new-head' : 'candidate.recorded';
  return [...again, { kind: 'event', key: keyOf(head, now, event), event, data, at: now }];
}

/** The patch of a head as GitHub gave it; `pr` and `headSha` name it. */
export type HeadPatch = Extract<Action, { kind: 'put-patch' }>['patch'];

/** The head's patch, stored once fetched (null: stored already, nothing to store). */
export const planPatch = (head: HeadOf, patch: HeadPatch | null, now: string): Action[] =>
  patch ? [{ kind: 'put-patch', key: keyOf(head, now, 'patch'), patch }] : [];

/** The new candidate's selection check: it waits for its evidence, and says what that is. */
export const planWaitingForEvidence = (head: RecordingHead): Action =>
  checkAction(head.repo, {
    pr: head.pr,
    headSha: head.headSha,
    name: 'Arbiter / selection',
    status: 'in_progress',
    title: 'Waiting for evidence',
    summary:
      `Candidate for #${head.change}. Arbiter compares it with its siblings once every one has settled: ` +
      'its required checks concluded (`Arbiter / gate` shows them once the first concludes) and its ' +
      'acceptance criteria judged (`Arbiter / acceptance` shows the result).',
  });
