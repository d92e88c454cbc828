// What follows a merge's answer, as plans: queued (auto-merge enabled), merged (PROMOTION receipt,
// the winner promoted, its open siblings closed as stale), 409 (the head moved) and refused (a
// person must act). Pure: the shell reads the round, the siblings and their labels, and applies
// the store writes the answer needs (a new round, the Change's state) around the plan.
import { markerFor } from '../render/markers.ts';
import type { Action } from '../actions.ts';
import { LABEL_AWAITING } from '../labels.ts';
import type { SelectionPlan } from '../plan-schema.ts';
import type { Receipt } from '../receipt.ts';
import { OPEN_STATES, type CandidateState } from '../types.ts';
import { combinedIntoReason } from '../combine.ts';
import { plannedActions } from '../replay-lines.ts';
import { humanGateReceipt } from './human-gate.ts';

/** The merge's answer as the plan needs it (`queued`: GitHub enabled auto-merge instead of merging). */
export type MergeAnswer =
  { ok: true; queued: boolean; updated?: boolean } | { ok: false; status: number; message: string };

export interface MergeAnswerInput {
  repo: string;
  change: number;
  round: number;
  pr: number;
  sha: string;
  /** Names the decision the answer belongs to, in every key: `base/rN`, or `promote/PR@SHA`. */
  scope: string;
  result: MergeAnswer;
  /** The method a "clean status" refusal merges with (absent: such a refusal goes to a person). */
  method?: 'merge' | 'squash' | 'rebase';
  /** Arbiter already updated this PR's branch once: a merge refused as behind again goes to a person. */
  branchUpdated?: boolean;
  /**
   * The decision's ranking text, when the answer is to the round's own merge: the winner's check
   * was not written before the merge, so the answer's check is the first to show it.
   */
  text?: string;
  now: string;
}

export type MergeAnswerPlan =
  | { kind: 'queued'; actions: Action[] }
  | { kind: 'merged' }
  | { kind: 'moved'; actions: Action[] }
  /** The branch was brought up to date: nothing merged; the new head is verified in the next round. */
  | { kind: 'updated'; actions: Action[] }
  /** Another path: GitHub refused auto-merge because the PR can merge now ("clean status"): merge it with `sha`. */
  | { kind: 'merge-now'; actions: Action[] }
  /** Another path: the merge was refused because the branch is behind a base it must be up to date with: update it once. */
  | { kind: 'update'; actions: Action[] }
  | { kind: 'refused'; actions: Action[] };

/** GitHub's refusal of auto-merge on a pull request that can merge right now. */
const CLEAN_STATUS = /clean status/i;
/** A 405 whose pull request GitHub reports behind its base (execute.ts adds its mergeable_state). */
const BEHIND = /\(mergeable_state: behind\)/;

/** Plans what the merge's answer asks for; a merge that shipped is planned by `planShipped`. */
export function planMergeAnswer(input: MergeAnswerInput): MergeAnswerPlan {
  const { pr, sha, result, round } = input;
  const k = (suffix: string): string => `${input.repo}#${input.change}/${input.scope}/after/${suffix}`;
  if (result.ok && result.updated) {
    return {
      kind: 'updated',
      actions: [
        {
          kind: 'check-run',
          key: k(`updated/${pr}`),
          pr,
          headSha: sha,
          name: 'Arbiter / selection',
          status: 'completed',
          conclusion: 'neutral',
          title: 'Branch updated: verifying the new head',
          summary: `#${pr} won, but its branch was behind its base and the branch must be up to date before merging. Arbiter updated the branch once; nothing was merged. The new head is verified (checks and acceptance) in round ${round + 1} before any merge.`,
          text: input.text,
        },
      ],
    };
  }
  if (result.ok && result.queued) {
    return {
      kind: 'queued',
      actions: [
        {
          kind: 'check-run',
          key: k(`check/${pr}`),
          pr,
          headSha: sha,
          name: 'Arbiter / selection',
          status: 'completed',
          conclusion: 'success',
          title: 'Selected: waiting for required reviews or the merge queue',
          summary: `#${pr} won. It is not merged yet: GitHub merges it once the branch's required reviews are in or its merge queue takes it (auto-merge is enabled).`,
          text: input.text,
        },
      ],
    };
  }
  if (!result.ok && result.status === 422 && CLEAN_STATUS.test(result.message) && input.method) {
    // Another path, not a person: the PR can merge now, so it merges with the same sha.
    return {
      kind: 'merge-now',
      actions: [{ kind: 'merge', key: k(`merge-now/${pr}`), pr, sha, method: input.method }],
    };
  }
  if (result.ok) return { kind: 'merged' };
  if (result.status === 405 && BEHIND.test(result.message) && input.branchUpdated === false) {
    return { kind: 'update', actions: [{ kind: 'update-branch', key: k(`update-branch/${pr}`), pr, sha }] };
  }
  if (result.status === 409) {
    return {
      kind: 'moved',
      actions: [
        {
          kind: 'check-run',
          key: k(`moved/${pr}`),
          pr,
          headSha: sha,
          name: 'Arbiter / selection',
          status: 'completed',
          conclusion: 'neutral',
          title: 'Head moved during promotion',
          summary: `GitHub refused the merge of ${sha.slice(0, 7)} because the head moved. Nothing was merged; the new head starts round ${round + 1}.`,
          text: input.text,
        },
      ],
    };
  }
  const why = `GitHub refused to merge #${pr} (${result.status}: ${result.message || 'not mergeable, for example a conflict'}). Resolve it and approve, or cancel the change.`;
  // GitHub's reason, named in the receipt too (never only "refused").
  const refused: Action[] = [
    { kind: 'label', key: k(`awaiting/${pr}`), issue: pr, labels: [LABEL_AWAITING] },
    {
      kind: 'comment',
      key: k(`refused/${pr}`),
      issue: pr,
      marker: `refused:${pr}:${input.scope}`,
      body: `${markerFor(`refused:${pr}:${input.scope}`)}\n${why}`,
    },
    {
      kind: 'check-run',
      key: k(`refused-check/${pr}`),
      pr,
      headSha: sha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: 'Not mergeable: a person must act',
      summary: why,
      text: input.text,
    },
    humanGateReceipt(
      k('receipt/human'),
      { repo: input.repo, change: input.change, round, now: input.now },
      {
        candidates: [pr],
        winner: pr,
        why: result.message
          ? `merge refused (${result.status}: ${result.message.slice(0, 300)})`
          : `merge refused (${result.status})`,
      },
    ),
  ];
  return { kind: 'refused', actions: plannedActions(refused, { planner: 'merge-answer', inputs: input }) };
}

/** A group whose candidate `winner` shipped, as the merge's step reads it. */
interface ShippedGroup<C> {
  candidates: C[];
  winner: number;
  decided: SelectionPlan | null;
  queued: boolean;
}

/**
 * The siblings a shipped candidate closes as stale: its other open candidates, except the losers
 * the round's own merge leaves to its claimant (who closes them as lost). `decided` is the round's
 * plan when it shipped this very candidate; `queued` says its merge was an auto-merge that landed later,
 * or one that came after the claimant's run ended (a person promoted the winner of a refused merge).
 */
export function staleSiblings<C extends { pr: number; state: CandidateState }>(input: ShippedGroup<C>): C[] {
  const leftToClaimant = claimantCloses(input);
  return input.candidates.filter((c) => c.pr !== input.winner && OPEN_STATES.has(c.state) && !leftToClaimant.has(c.pr));
}

const claimantCloses = (input: { decided: SelectionPlan | null; queued: boolean }): Set<number> =>
  new Set(
    input.decided && !input.queued
      ? (input.decided.afterShip ?? []).flatMap((a) => (a.kind === 'close' ? [a.pr] : []))
      : [],
  );

/**
 * The rejected candidates (a round's losers, or ones a person rejected) a shipped candidate closes
 * as stale too when a person reopened them: nothing more ships for the Change on that base, and an
 * open pull request would say otherwise. The shell keeps those it reads open on GitHub.
 */
export function rejectedToRecheck<C extends { pr: number; state: CandidateState }>(input: ShippedGroup<C>): C[] {
  const leftToClaimant = claimantCloses(input);
  return input.candidates.filter((c) => c.pr !== input.winner && c.state === 'rejected' && !leftToClaimant.has(c.pr));
}

export interface ShippedInput {
  repo: string;
  change: number;
  round: number;
  pr: number;
  /** The merged head; empty when unknown (then no check is written on it). */
  sha: string;
  /** The person who promoted it, or null for Arbiter's own merge. */
  by: string | null;
  method: 'merge' | 'squash' | 'rebase';
  /** False when the round's own plan writes the winner's check after its merge (`afterShip`). */
  winnerCheck: boolean;
  /**
   * The siblings closed as stale, and whether each carries `arbiter:awaiting-approval`. `rejected`:
   * one out of the running that a person reopened; it is closed with the note, and its check and
   * state keep saying why it was out (a person's rejection, or its loss).
   */
  stale: { pr: number; headSha: string; awaiting: boolean; rejected?: boolean }[];
  /** The Change's combined candidate: when it is the one that shipped, its sources close "Combined into" it. */
  combined?: { pr: number; sources: number[] } | null;
  now: string;
}

/** A candidate shipped: PROMOTION receipt, its state and check, and its open siblings closed as stale. */
export function planShipped(input: ShippedInput): Action[] {
  const { pr, by } = input;
  const k = (suffix: string): string => `${input.repo}#${input.change}/shipped/${suffix}`;
  const receipt: Receipt = {
    kind: 'PROMOTION',
    repo: input.repo,
    change: input.change,
    round: input.round,
    at: input.now,
    data: { candidate: pr, headSha: input.sha, by: by ?? 'arbiter', method: input.method },
  };
  const actions: Action[] = [
    { kind: 'receipt', key: k('receipt'), receipt },
    {
      kind: 'set-state',
      key: k(`state/${pr}`),
      pr,
      state: 'promoted',
      reason: by ? `promoted by @${by}` : 'merged',
      observed: true,
    },
  ];
  if (input.sha && input.winnerCheck) {
    actions.push({
      kind: 'check-run',
      key: k(`check/${pr}`),
      pr,
      headSha: input.sha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'success',
      title: by ? `Promoted by @${by}` : 'Selected: shipped',
      summary: `#${pr} was merged${by ? ` on @${by}'s word` : ''}.`,
    });
  }
  for (const s of input.stale) {
    const reason = combinedIntoReason(input.combined, pr, s.pr) ?? `Superseded: #${pr} shipped.`;
    const title = reason.split(':')[0];
    const note: Action[] = [
      {
        kind: 'comment',
        key: k(`stale-note/${s.pr}`),
        issue: s.pr,
        marker: `stale:${s.pr}`,
        body: `${markerFor(`stale:${s.pr}`)}\n${reason}`,
      },
      // A sibling that waited before a person carries the awaiting-approval label: it goes too.
      {
        kind: 'close',
        key: k(`stale-close/${s.pr}`),
        pr: s.pr,
        ...(s.awaiting ? { relabel: { add: [], remove: [LABEL_AWAITING] } } : {}),
      },
    ];
    if (s.rejected) {
      actions.push(...note);
      continue;
    }
    actions.push(
      {
        kind: 'check-run',
        key: k(`stale-check/${s.pr}`),
        pr: s.pr,
        headSha: s.headSha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: reason.startsWith('Superseded') ? reason : title,
        summary: reason,
      },
      ...note,
      { kind: 'set-state', key: k(`stale-state/${s.pr}`), pr: s.pr, state: 'stale', reason },
    );
  }
  return plannedActions(actions, { planner: 'shipped', inputs: input });
}
