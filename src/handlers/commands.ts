// issue_comment and check_run.requested_action: slash commands and check-run buttons, both
// through the same verbs and the same permission rules.
import { runButton, runCommand } from '../commands/run.ts';
import { buttonTarget, commentTarget } from '../commands/target.ts';
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
