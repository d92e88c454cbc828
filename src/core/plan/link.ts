// `/arbiter link #N` on a pull request: a maintainer links it to a Change at once, as a link in
// GitHub's Development sidebar does (which sends no webhook). Pure: what to answer, or the link to
// record, from what the shell read.
import type { PersonReply as VerbResult } from './person.ts';

export interface LinkInput {
  pr: number;
  by: string;
  prefix: string;
  /** The Change named in the command. */
  change: number;
  isPullRequest: boolean;
  /** The Change the pull request is already an open candidate for (null: none). */
  candidateFor: number | null;
  /** The pull request now (null: not read or not found). */
  pull: { open: boolean; headSha: string } | null;
  /** The named issue now (null: none with that number). */
  issue: { isPullRequest: boolean; open: boolean } | null;
}

export type LinkPlan =
  | { kind: 'answer'; reply: VerbResult }
  | {
      kind: 'link';
      change: number;
      replies: { recorded: VerbResult; notRecorded: VerbResult };
    };

const refuse = (code: string, message: string): LinkPlan => ({ kind: 'answer', reply: { ok: false, code, message } });

export function planLink(input: LinkInput): LinkPlan {
  const { pr, change, prefix } = input;
  if (!input.isPullRequest)
    return refuse(
      'not_a_pull_request',
      `#${pr} is an issue; \`${prefix} link #N\` links a pull request to the Change #N (run it on the pull request).`,
    );
  if (change === pr) return refuse('not_an_issue', `#${pr} cannot be a candidate for itself.`);
  if (input.candidateFor === change)
    return { kind: 'answer', reply: { ok: true, message: `#${pr} is already a candidate for #${change}.` } };
  if (input.candidateFor !== null)
    return refuse(
      'already_a_candidate',
      `#${pr} is a candidate for #${input.candidateFor}; a candidate keeps its Change until it is closed.`,
    );
  if (!input.pull || !input.pull.open) return refuse('not_open', `#${pr} is not open, so it cannot be linked.`);
  if (!input.issue || input.issue.isPullRequest)
    return refuse('not_an_issue', `#${change} is not an issue of this repository, so #${pr} cannot be linked to it.`);
  if (!input.issue.open) return refuse('not_open', `#${change} is closed, so #${pr} cannot be linked to it.`);
  return {
    kind: 'link',
    change,
    replies: {
      recorded: {
        ok: true,
        message: `Linked #${pr} to #${change} on @${input.by}'s word: it is a candidate for #${change} and is compared with its siblings.`,
      },
      notRecorded: {
        ok: true,
        message: `Linked #${pr} to #${change} on @${input.by}'s word, but it is not a candidate: its \`Arbiter / selection\` check says why.`,
      },
    },
  };
}
