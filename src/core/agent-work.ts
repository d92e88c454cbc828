// What a candidate's head waits for that is not CI running: its agent still at work (a
// work-in-progress title: "composing"), or GitHub Actions runs that wait for a maintainer's
// approval. Pure: the shell passes in what GitHub reported (the title, the head's check suites).
import { agentOfLogin } from './agents.ts';

/**
 * Work-in-progress markers an agent puts at the start of its title while it works: Copilot's
 * `[WIP] …` until it is done, and the common `WIP:` and `Draft:` forms. Case-insensitive; leading
 * space is ignored. A marker must end the word (`WIPE the cache` and `Drafting docs` are titles).
 */
const WIP_MARKER = /^\s*(\[\s*wip\s*\]|wip\s*:|draft\s*:)/i;

/** The marker a title starts with (`[WIP]`, `WIP:`, `Draft:`, as written), or null. */
export function workInProgressMarker(title: string): string | null {
  const match = WIP_MARKER.exec(title);
  return match ? (match[1] ?? null) : null;
}

/** A candidate whose title says its agent is still at work. */
export const isComposing = (title: string): boolean => workInProgressMarker(title) !== null;

/**
 * How a login is mentioned: `@Copilot`, `@anthropic-code-agent` (a bot's `[bot]` suffix dropped). A
 * known agent is named by the login its pull requests show (`Copilot`, whichever form was read).
 */
export const mention = (login: string): string => {
  const shown = agentOfLogin(login)?.logins[0] ?? login;
  return `@${shown.replace(/\[bot\]$/i, '') || 'the agent'}`;
};

/** "@Copilot is still working on #101": the waiting list's, the selection check's and the dashboard's words. */
export const stillWorking = (author: string, pr: number): string => `${mention(author)} is still working on #${pr}`;

/** The app whose check suites are GitHub Actions workflow runs. */
export const ACTIONS_APP = 'github-actions';

/** One check suite on a head, as GitHub reports it (REST `check_suites` or GraphQL `checkSuites`). */
export interface SuiteSeen {
  /** The app's slug (`github-actions`). */
  app: string | null;
  /** `queued`, `in_progress`, `completed` (any case). */
  status: string | null;
  /** `action_required`, `success`… or null while not completed (any case). */
  conclusion: string | null;
  /** How many check runs the suite holds (`latest_check_runs_count`, GraphQL `checkRuns.totalCount`). */
  runs: number;
}

/**
 * Whether the head's GitHub Actions runs wait for a maintainer's approval: a suite of the Actions
 * app concluded `action_required` before any job ran (no check run in it). That is the state
 * GitHub shows on a bot's or a first-time contributor's push; it waits for a person, it is not a
 * failure. An `action_required` check run that ran (a suite that holds runs) is a real conclusion.
 */
export function awaitsWorkflowApproval(suites: readonly SuiteSeen[]): boolean {
  return suites.some(
    (s) =>
      s.app?.toLowerCase() === ACTIONS_APP &&
      s.conclusion?.toLowerCase() === 'action_required' &&
      (s.status === null || s.status.toLowerCase() === 'completed') &&
      s.runs === 0,
  );
}

const APPROVAL_WAIT = "GitHub Actions runs wait for a maintainer's approval";

/** What a person does about a head whose Actions runs wait: the words, with the pull request's address. */
export function approvalWords(url: string | null): string {
  const where = url ? ` (${url})` : '';
  return `${APPROVAL_WAIT}: "Approve and run workflows" on the pull request${where}`;
}
