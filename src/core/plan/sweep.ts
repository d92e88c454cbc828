// The sweep's decision on a repair that never arrived (either origin: selection or a person's
// rejection): the Change goes to the human gate, in full. Pure: the shell finds the targets and reviewers.
import { markerFor } from '../render/markers.ts';
import type { Action } from '../actions.ts';
import { LABEL_AWAITING } from '../labels.ts';
import { changeActionKey, markerKey } from '../keys.ts';

export interface RepairTimeoutInput {
  repo: string;
  change: number;
  round: number;
  base: string;
  /** The candidate the repair was for, and whether a person rejected it (then it never ships). */
  repairOf: { pr: number; rejected: boolean };
  /** Who goes before the person: the repair's candidate, or (when it was rejected) the open siblings. */
  targets: { pr: number; headSha: string }[];
  reviewers: { users: string[]; teams: string[] };
  timeout: number; // seconds
  prefix: string;
  now: string;
}

export function planRepairTimeout(input: RepairTimeoutInput): { actions: Action[]; why: string } {
  const { repo, change, round, repairOf, prefix } = input;
  const minutes = Math.round(input.timeout / 60);
  const names = input.targets.map((t) => `#${t.pr}`).join(', ');
  const choose = repairOf.rejected
    ? input.targets.some((t) => t.pr !== repairOf.pr)
      ? `#${repairOf.pr} was rejected by a person and stays out. Choose one of ${names} with \`${prefix} promote\`, or cancel the change.`
      : `#${repairOf.pr} was rejected by a person and stays out; no other candidate is open. Close it and wait for a new candidate, or cancel the change.`
    : 'Approve to ship it as it is or cancel the change.';
  const why = `The requested repair of #${repairOf.pr} did not arrive within ${minutes} minutes. ${choose}`;
  const k = (s: string): string => changeActionKey(repo, change, input.base, `r${round}`, 'repair-timeout', s);
  const asked = input.reviewers.users.length + input.reviewers.teams.length > 0;
  const actions: Action[] = [];
  for (const t of input.targets) {
    const out = repairOf.rejected && t.pr === repairOf.pr;
    actions.push(
      { kind: 'label', key: k(`label/${t.pr}`), issue: t.pr, labels: [LABEL_AWAITING] },
      ...(asked
        ? [
            {
              kind: 'request-review' as const,
              key: k(`review/${t.pr}`),
              pr: t.pr,
              reviewers: input.reviewers.users,
              teams: input.reviewers.teams,
            },
          ]
        : []),
      {
        kind: 'comment',
        key: k(`note/${t.pr}`),
        issue: t.pr,
        marker: markerKey('repair-timeout', t.pr),
        body: `${markerFor(markerKey('repair-timeout', t.pr))}\n${why}`,
      },
      {
        kind: 'check-run',
        key: k(`check/${t.pr}`),
        pr: t.pr,
        headSha: t.headSha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: 'Repair timed out: a person must decide',
        summary: why,
      },
      ...(out
        ? []
        : [{ kind: 'set-state' as const, key: k(`state/${t.pr}`), pr: t.pr, state: 'selected' as const, reason: why }]),
    );
  }
  actions.push(
    {
      kind: 'comment',
      key: k('change-note'),
      issue: change,
      marker: markerKey('repair-timeout', change),
      body: `${markerFor(markerKey('repair-timeout', change))}\n${why}`,
    },
    {
      kind: 'receipt',
      key: k('receipt'),
      receipt: {
        kind: 'HUMAN_GATE',
        repo,
        change,
        round,
        at: input.now,
        data: {
          candidates: input.targets.map((t) => t.pr),
          winner: repairOf.rejected ? null : repairOf.pr,
          why: 'repair timed out',
          reviewers: input.reviewers,
        },
      },
    },
  );
  return { actions, why };
}

export interface ResumeGivenUpInput {
  repo: string;
  change: number;
  round: number;
  base: string;
  attempts: number;
  /** What the last try answered: GitHub's words when GitHub refused. */
  error: string;
  prefix: string;
  now: string;
}

/**
 * The sweep's retry budget for a round its claimant left is spent: the same refused write is not
 * sent again for good. The Change goes to a person, with GitHub's words and what to do.
 */
export function planResumeGivenUp(input: ResumeGivenUpInput): { actions: Action[]; why: string } {
  const { repo, change, round } = input;
  const k = (s: string): string => changeActionKey(repo, change, input.base, `r${round}`, 'resume-given-up', s);
  const why = `Arbiter could not finish round ${round} of #${change} after ${input.attempts} tries; the last answer was: ${input.error.slice(0, 500)}. A person must act: resolve it and use \`${input.prefix} promote\` on the candidate to ship, or cancel the change.`;
  const marker = markerKey('resume-given-up', `${change}@${input.base}/r${round}`);
  return {
    why,
    actions: [
      { kind: 'comment', key: k('note'), issue: change, marker, body: `${markerFor(marker)}\n${why}` },
      {
        kind: 'receipt',
        key: k('receipt'),
        receipt: {
          kind: 'HUMAN_GATE',
          repo,
          change,
          round,
          at: input.now,
          data: { candidates: [], winner: null, why: `retry budget spent: ${input.error.slice(0, 300)}` },
        },
      },
    ],
  };
}
