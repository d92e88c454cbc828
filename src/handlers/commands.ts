// issue_comment, check_run.requested_action and GitHub's "Re-run" on Arbiter's own checks
// (check_run/check_suite.rerequested): slash commands, check-run buttons and re-runs, all through
// the same verbs and the same permission rules.
import { runButton, runCommand, runRerun } from '../commands/run.ts';
import { buttonTarget, commentTarget, rerunTarget } from '../commands/target.ts';
import type { RepoContext } from '../workflows/context.ts';
import { commandServices } from '../workflows/services.ts';

export async function onIssueComment(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const target = commentTarget(payload);
  if (!target.ok || target.target.user === ctx.gh.botLogin) return;
  const run = await runCommand(target.target, commandServices(ctx));
  if (run.handled) ctx.log.info({ verb: run.verb, outcome: run.outcome, user: target.target.user }, 'command');
}

export async function onRequestedAction(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const target = buttonTarget(payload);
  if (!target.ok) return;
  const run = await runButton(target.target, target.identifier, commandServices(ctx));
  ctx.log.info({ button: target.identifier, outcome: run.outcome, user: target.target.user }, 'button');
}

/**
 * GitHub's "Re-run" on one of Arbiter's check runs of a candidate (or "Re-run all checks" of its
 * suite): the candidate is verified again, its acceptance judged afresh (the `recheck` verb).
 */
export async function onRerun(
  ctx: RepoContext,
  payload: Record<string, unknown>,
  event: 'check_run' | 'check_suite',
): Promise<void> {
  const target = rerunTarget(event, payload);
  if (!target.ok) {
    ctx.log.info({ event, reason: target.reason }, 're-run: nothing to verify again');
    return;
  }
  const run = await runRerun(target.target, target.checkName, commandServices(ctx));
  ctx.log.info({ check: target.checkName, outcome: run.outcome, user: target.target.user }, 're-run');
}
