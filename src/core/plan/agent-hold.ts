// A candidate held by something other than CI running: its agent still at work (a [WIP] title)
// or GitHub Actions runs waiting for a maintainer's approval. The planner says so on the
// candidate's own selection check and in its stored reason (the dashboard's words); pure.
import type { Action } from '../actions.ts';
import { approvalWords, isComposing, stillWorking } from '../agent-work.ts';
import type { GateEvidence } from '../types.ts';

export interface AgentHold {
  kind: 'composing' | 'approval';
  /** "@Copilot is still working on #101", or what to approve and where. */
  words: string;
}

/** What holds a candidate's head, if anything: a work-in-progress title first (no acceptance runs on it), then runs awaiting approval. */
export function agentHold(input: { pr: number; author: string; title: string; gate: GateEvidence }): AgentHold | null {
  if (isComposing(input.title)) return { kind: 'composing', words: stillWorking(input.author, input.pr) };
  if (input.gate.awaitingApproval && !input.gate.settled) return { kind: 'approval', words: input.gate.reason };
  return null;
}

/** Whether a composing candidate's head has held the round for `selection.siblingTimeout` (then the round goes on without it). */
export function composingTimedOut(headSeenAt: string, siblingTimeoutSeconds: number, now: string): boolean {
  return Date.parse(now) - Date.parse(headSeenAt) >= siblingTimeoutSeconds * 1000;
}

export interface HoldInput {
  repo: string;
  change: number;
  pr: number;
  headSha: string;
  hold: AgentHold;
  /** The candidate's state: only a `verifying` one's reason is rewritten (a settled one keeps its own). */
  state: string;
}

/** The held candidate's selection check and stored reason, once per head and kind of hold. */
export function planAgentHold(input: HoldInput): Action[] {
  const { repo, change, pr, headSha, hold } = input;
  const k = (suffix: string): string => `${repo}#${change}/hold/${pr}@${headSha}/${hold.kind}/${suffix}`;
  const title = hold.kind === 'composing' ? hold.words : 'Waiting for a maintainer to approve the GitHub Actions runs';
  const summary =
    hold.kind === 'composing'
      ? `${hold.words}: its title still starts with a work-in-progress marker. ` +
        'It holds the round (up to `selection.siblingTimeout`), no acceptance check runs on its interim heads, ' +
        'and it is never closed as a loser while it works. Once the title drops the marker it is verified as usual.'
      : `${hold.words}.\n\nThey have not run, so nothing has failed: this candidate waits for that approval ` +
        '(it is not timed out), and its evidence counts as usual once the runs conclude.';
  return [
    {
      kind: 'check-run',
      key: k('selection'),
      pr,
      headSha,
      name: 'Arbiter / selection',
      status: 'in_progress',
      title: title.slice(0, 200),
      summary,
    },
    ...(input.state === 'verifying'
      ? [{ kind: 'set-state' as const, key: k('reason'), pr, state: 'verifying' as const, reason: hold.words }]
      : []),
  ];
}

/** Whether a stored reason is one a hold wrote (the sweep reads it; a hold that ended must not leave it). */
export function isHoldReason(reason: string, author: string, pr: number): boolean {
  return reason === stillWorking(author, pr) || reason.startsWith(approvalWords(null));
}

/**
 * The hold on a head ended (the title dropped its marker, the runs were approved): its reason goes,
 * so neither the dashboard nor the sweep reads it as still held. Nothing when no hold reason is stored.
 */
export function planHoldCleared(input: Omit<HoldInput, 'hold'> & { author: string; reason: string }): Action[] {
  const { repo, change, pr, headSha } = input;
  if (input.state !== 'verifying' || !isHoldReason(input.reason, input.author, pr)) return [];
  return [
    {
      kind: 'set-state',
      key: `${repo}#${change}/hold/${pr}@${headSha}/cleared`,
      pr,
      state: 'verifying',
      reason: '',
    },
  ];
}
