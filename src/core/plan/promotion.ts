// A person's promotion as a plan (`/arbiter promote`, the Promote button, an approving review):
// the merge at the verified head, or a refusal saying why. A loser a person reopened is brought back
// first; a person's rejection stands. Pure: the shell reads the candidate and its group.
import type { Action } from '../actions.ts';
import { LABEL_AWAITING, LABEL_LOST } from '../labels.ts';
import { changeActionKey } from '../keys.ts';
import { plannedActions } from '../replay-lines.ts';
import { planMergePath, promotion, type MergePathInput, type MergeView } from './merge-path.ts';
import type { Refusal } from './person.ts';
import { humanGateReceipt } from './human-gate.ts';

export interface PromotionInput {
  repo: string;
  pr: number;
  user: string;
  /** Where the promotion came from (a command, a check-run button, an approval). */
  source: string;
  method: 'merge' | 'squash' | 'rebase';
  /** The base's rules: a merge queue (a direct merge is refused there) and the approving reviews it requires. */
  branch?: MergePathInput['branch'];
  /** What GitHub says now of merging the candidate (the group read); absent: the path follows the rules alone. */
  merge?: MergeView;
  /** Who is asked for the review when the path is auto-merge waiting for one. */
  reviewers?: { users: string[]; teams: string[] };
  /**
   * The candidate's Change and how it stands (default `open`, in its group); null when `pr` is no
   * candidate, or one that left its group otherwise (withdrawn, stale, shipped).
   */
  candidate: { change: number; standing?: Standing } | null;
  /** The command prefix, for the refusals that name a command (default `/arbiter`). */
  prefix?: string;
  /** The candidate's group as read now; null when its Change is not one Arbiter knows. */
  group: {
    round: number;
    /** The siblings still pending, as the reply lists them; null when none is. */
    waiting: string | null;
    /** The candidate's verified evidence for its head; null when its new commits are not verified yet. */
    evidence: { headSha: string; gate: { promotable: boolean; reason: string } } | null;
    isDraft: boolean;
  } | null;
  now: string;
}

/**
 * How a candidate stands when a person promotes it. `lost`: a round closed it as a loser (Arbiter's
 * act, which a person may overrule once the PR is reopened, unless its base already shipped
 * `shipped`). `rejected`: a person rejected it (`reason`, as recorded), which stands.
 */
export type Standing =
  { kind: 'open' } | { kind: 'lost'; reopened: boolean; shipped: number | null } | { kind: 'rejected'; reason: string };

const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/** Why a candidate out of its group cannot be promoted, or null when a person may bring it back. */
function outOfGroup(input: PromotionInput, change: number, standing: Standing): Refusal | null {
  const { pr } = input;
  const promote = `\`${input.prefix ?? '/arbiter'} promote\``;
  if (standing.kind === 'rejected')
    return {
      code: 'rejected_by_person',
      message: `#${pr} stays out of the running (${lowerFirst(standing.reason.replace(/\.$/, ''))}). A person's rejection stands, so ${promote} does not bring it back.`,
    };
  if (standing.kind !== 'lost') return null;
  if (standing.shipped !== null)
    return {
      code: 'base_shipped',
      message: `#${standing.shipped} already shipped for #${change}, so #${pr} cannot ship as well: Arbiter ships one candidate per Change and base branch.`,
    };
  if (!standing.reopened)
    return {
      code: 'not_open',
      message: `#${pr} lost the comparison and is closed: reopen it first, then comment ${promote} on it.`,
    };
  return null;
}

/**
 * A person's promotion: the same merge as the automatic path at the verified head, never past a
 * failed required check nor before every sibling settled. A loser the person reopened is brought
 * back first (it becomes the one that ships); a person's rejection stands. Pure: the shell reads the group.
 */
export function planPromotion(input: PromotionInput): { refused: Refusal } | { actions: Action[]; sha: string } {
  const { pr, candidate, group } = input;
  if (!candidate) return { refused: { code: 'not_open', message: `#${pr} is not an open candidate.` } };
  const standing = candidate.standing ?? { kind: 'open' };
  const out = outOfGroup(input, candidate.change, standing);
  if (out) return { refused: out };
  if (!group)
    return { refused: { code: 'not_a_candidate', message: `#${pr} is not linked to a Change Arbiter knows.` } };
  if (group.waiting !== null)
    return {
      refused: { code: 'selection_pending', message: `Siblings are still pending: waiting on ${group.waiting}.` },
    };
  const evidence = group.evidence;
  if (!evidence)
    return { refused: { code: 'selection_pending', message: `#${pr} has new commits that are not verified yet.` } };
  if (!evidence.gate.promotable)
    return { refused: { code: 'failed_required_check', message: `#${pr} cannot ship: ${evidence.gate.reason}.` } };
  const sha = evidence.headSha;
  // The merge path a decision takes (merge-path.ts): auto-merge or the queue where GitHub requires
  // them, a person's act where only a person can give what is missing.
  const path = planMergePath({
    pr,
    method: input.method,
    branch: input.branch ?? { requiredReviews: 0, mergeQueue: false },
    ...(input.merge ? { merge: input.merge } : {}),
    prefix: input.prefix ?? '/arbiter',
  });
  if (path.kind === 'person')
    return {
      refused: {
        code: 'needs_person',
        message: `#${pr} cannot merge yet: ${lowerFirst(path.why)}. To ship it, ${path.ask}.`,
      },
    };
  const k = (s: string): string => changeActionKey(input.repo, candidate.change, 'promote', `${pr}@${sha}`, s);
  const lost = standing.kind === 'lost';
  // A loser brought back is the Change's chosen candidate again, without the label that said it lost.
  const back: Action[] = lost
    ? [
        { kind: 'set-state', key: k('back'), pr, state: 'selected', reason: `brought back by @${input.user}` },
        { kind: 'unlabel', key: k('unlabel-lost'), issue: pr, label: LABEL_LOST },
      ]
    : [];
  const actions: Action[] = [
    ...back,
    humanGateReceipt(
      k('receipt'),
      { repo: input.repo, change: candidate.change, round: group.round, now: input.now },
      {
        candidates: [pr],
        winner: pr,
        decision: 'promoted by a person',
        by: input.user,
        source: input.source,
        ...(lost ? { broughtBack: true } : {}),
      },
    ),
    // A loser never carries the awaiting label: closing it took that off.
    ...(lost ? [] : [{ kind: 'unlabel' as const, key: k('unlabel'), issue: pr, label: LABEL_AWAITING }]),
  ];
  if (group.isDraft) actions.push({ kind: 'mark-ready', key: k('ready'), pr });
  actions.push(...promotion(path, pr, sha, k, input.reviewers ?? { users: [], teams: [] }));
  return { actions: plannedActions(actions, { planner: 'promotion', inputs: input }), sha };
}
