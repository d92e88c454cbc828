// Normalises the two webhook payloads that carry a command (issue_comment.created and
// check_run.requested_action on `Arbiter / selection`) into a CommandTarget, with zod safeParse.
import { z } from 'zod';
import { isBotAccount } from '../core/trust.ts';
import type { CommandTarget } from './types.ts';

export const SELECTION_CHECK_NAME = 'Arbiter / selection';

export type TargetResult<T> = ({ ok: true } & T) | { ok: false; reason: string };

const Account = z.object({ login: z.string().min(1), type: z.string() });
const Installation = z.object({ id: z.number().int() });
const Repository = z.object({ name: z.string().min(1), owner: z.object({ login: z.string().min(1) }) });

const CommentPayload = z.object({
  action: z.string(),
  installation: Installation,
  repository: Repository,
  issue: z.object({ number: z.number().int().positive(), pull_request: z.unknown().optional() }),
  comment: z.object({ id: z.number().int(), body: z.string().nullable(), user: Account }),
  sender: Account,
});

const ButtonPayload = z.object({
  action: z.string(),
  installation: Installation,
  repository: Repository,
  requested_action: z.object({ identifier: z.string() }),
  check_run: z.object({
    name: z.string(),
    pull_requests: z.array(z.object({ number: z.number().int().positive() })),
  }),
  sender: Account,
});

const issuesOf = (error: z.ZodError): string =>
  error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');

/** A newly created comment as a command target; edits and deletions are not commands. */
export function commentTarget(payload: unknown): TargetResult<{ target: CommandTarget }> {
  const parsed = CommentPayload.safeParse(payload);
  if (!parsed.success) return { ok: false, reason: `not an issue comment: ${issuesOf(parsed.error)}` };
  const p = parsed.data;
  if (p.action !== 'created') return { ok: false, reason: `comment ${p.action}, not created` };
  return {
    ok: true,
    target: {
      owner: p.repository.owner.login,
      repo: p.repository.name,
      installationId: p.installation.id,
      issueNumber: p.issue.number,
      isPullRequest: p.issue.pull_request !== undefined && p.issue.pull_request !== null,
      user: p.comment.user.login,
      userIsBot: isBotAccount(p.comment.user) || isBotAccount(p.sender),
      commentId: p.comment.id,
      commentBody: p.comment.body ?? '',
      source: 'comment',
    },
  };
}

/** A button click on Arbiter's selection check as a target and the button's identifier. */
export function buttonTarget(
  payload: unknown,
  checkName: string = SELECTION_CHECK_NAME,
): TargetResult<{ target: CommandTarget; identifier: string }> {
  const parsed = ButtonPayload.safeParse(payload);
  if (!parsed.success) return { ok: false, reason: `not a check-run action: ${issuesOf(parsed.error)}` };
  const p = parsed.data;
  if (p.action !== 'requested_action') return { ok: false, reason: `check_run ${p.action}, not requested_action` };
  if (p.check_run.name !== checkName)
    return { ok: false, reason: `check run "${p.check_run.name}" is not ${checkName}` };
  // GitHub lists no pull request for a head in a fork; the caller must resolve it by head sha.
  const pr = p.check_run.pull_requests[0];
  if (!pr) return { ok: false, reason: 'the check run lists no pull request' };
  return {
    ok: true,
    identifier: p.requested_action.identifier,
    target: {
      owner: p.repository.owner.login,
      repo: p.repository.name,
      installationId: p.installation.id,
      issueNumber: pr.number,
      isPullRequest: true,
      user: p.sender.login,
      userIsBot: isBotAccount(p.sender),
      commentId: null,
      commentBody: null,
      source: 'button',
    },
  };
}
