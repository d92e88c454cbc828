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

const PullRefs = z.array(z.object({ number: z.number().int().positive() }));
const RerunPayload = z.object({
  action: z.literal('rerequested'),
  installation: Installation,
  repository: Repository,
  check_run: z.object({ name: z.string(), pull_requests: PullRefs }).optional(),
  check_suite: z.object({ pull_requests: PullRefs }).optional(),
  sender: Account,
});

/** Arbiter's checks of a candidate that GitHub's "Re-run" verifies again (not `Arbiter / config`). */
export const RERUN_CHECKS: readonly string[] = ['Arbiter / acceptance', 'Arbiter / gate', SELECTION_CHECK_NAME];

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

/**
 * GitHub's "Re-run" (`check_run.rerequested` on one of RERUN_CHECKS, or `check_suite.rerequested`
 * of Arbiter's suite; GitHub sends both only to the checks' own app) as a target on its candidate.
 */
export function rerunTarget(
  event: 'check_run' | 'check_suite',
  payload: unknown,
): TargetResult<{ target: CommandTarget; checkName: string }> {
  const parsed = RerunPayload.safeParse(payload);
  if (!parsed.success) return { ok: false, reason: `not a re-run: ${issuesOf(parsed.error)}` };
  const p = parsed.data;
  const checkName = event === 'check_run' ? p.check_run?.name : 'every check of its suite';
  if (checkName === undefined) return { ok: false, reason: 'check_run.rerequested without its check run' };
  if (event === 'check_run' && !RERUN_CHECKS.includes(checkName))
    return { ok: false, reason: `"${checkName}" is not a check of a candidate` };
  // GitHub lists no pull request for a head in a fork.
  const pr = (event === 'check_run' ? p.check_run?.pull_requests : p.check_suite?.pull_requests)?.[0];
  if (!pr) return { ok: false, reason: 'the re-run lists no pull request' };
  return {
    ok: true,
    checkName,
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
