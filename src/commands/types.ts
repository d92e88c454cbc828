// The contract between slash commands / check-run buttons and the workflows that act on them:
// who asked where (CommandTarget), what the workflows offer (CommandServices), and a verb module.
import type { Permission } from '../core/trust.ts';

export type { Permission };
export interface CommandTarget {
  owner: string;
  repo: string;
  installationId: number;
  issueNumber: number; // the PR or issue the comment / button is on
  isPullRequest: boolean;
  user: string; // who commented / clicked
  userIsBot: boolean;
  commentId: number | null; // null for a button click
  commentBody: string | null;
  source: 'comment' | 'button';
}
export interface CandidateInfo {
  pr: number;
  change: number;
  author: string;
  state: string;
}
export type VerbResult =
  | { ok: true; message: string }
  | { ok: false; code: string /* e.g. selection_pending, not_a_candidate, failed_required_check */; message: string };
export interface CommandServices {
  prefix: string; // from config commands.prefix, default '/arbiter'
  permission(user: string): Promise<Permission>; // collaborator permission (role) on the repo
  candidate(issueNumber: number): Promise<CandidateInfo | null>; // null when the PR is not a candidate
  isChange(issueNumber: number): Promise<boolean>;
  /** A Change, or an issue (not a PR) that becomes one now: explore is used before any candidate exists. */
  changeIssue(issueNumber: number): Promise<boolean>;
  status(t: CommandTarget): Promise<VerbResult>;
  rank(t: CommandTarget): Promise<VerbResult>;
  recheck(t: CommandTarget): Promise<VerbResult>;
  promote(t: CommandTarget): Promise<VerbResult>;
  reject(t: CommandTarget, reason: string): Promise<VerbResult>;
  cancel(t: CommandTarget): Promise<VerbResult>;
  explore(t: CommandTarget, n: number | null): Promise<VerbResult>;
  admit(t: CommandTarget): Promise<VerbResult>; // vouch for a linked PR whose author has no write access
  track(t: CommandTarget): Promise<VerbResult>; // adopt an issue opened without write access as a Change
  link(t: CommandTarget, change: number): Promise<VerbResult>; // link this PR to the Change #change now
  reply(t: CommandTarget, body: string): Promise<void>; // a comment on t.issueNumber (idempotent per comment/button event: the implementation handles that)
  react(t: CommandTarget, content: '+1' | 'eyes' | 'confused'): Promise<void>; // on the comment (no-op for buttons)
}

// --- additive: the shape of one verb module (Prow's plugin registration, as data) ---

export interface VerbHelp {
  /** e.g. `reject REASON`; rendered after the prefix. */
  usage: string;
  description: string;
  /** Who may run it, in words: "anyone", "write, maintain or admin". */
  who: string;
  /** e.g. `reject misses the calendar view`; rendered after the prefix. */
  example: string;
  /** What the arguments may be, in words (`N is a whole number from 1 to 10`); said with the usage line. */
  arguments?: string;
}

/** Where a verb applies: on a candidate PR, on a Change issue, on either, anywhere at all, or on an issue that is or becomes a Change. */
export type VerbWhere = 'candidate' | 'change' | 'either' | 'anywhere' | 'issue';

export interface VerbModule {
  name: string;
  aliases?: readonly string[];
  /** Anchored pattern the trimmed arguments must match; a mismatch is refused with the usage. */
  pattern?: RegExp;
  help: VerbHelp;
  /** `write` means write, maintain or admin; `anyone` includes read and no access. */
  permission: 'anyone' | 'write';
  /** The author of the candidate may run it only as an admin (promote: nobody ships their own work). */
  authorNeedsAdmin?: boolean;
  where: VerbWhere;
  /** Whether the verb changes state (a refusal must never reach one of these). */
  changesState: boolean;
  run(t: CommandTarget, args: string, services: CommandServices): Promise<VerbResult>;
}
