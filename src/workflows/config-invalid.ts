// Answers a slash command while the repository's configuration does not validate: one reply per
// comment (the command services' idempotent reply), pointing at the file and its failing check.
import type { CommandTarget } from '../commands/types.ts';
import { renderConfigInvalidReply } from '../core/render/config-reply.ts';
import type { RepoContext } from './context.ts';
import { commandServices } from './services.ts';

export async function replyWhileConfigInvalid(
  ctx: RepoContext,
  target: CommandTarget,
  line: string,
  path: string,
  problems: string,
): Promise<void> {
  const branch = await ctx.gh.defaultBranch({ owner: ctx.owner, repo: ctx.repo });
  const body = renderConfigInvalidReply({
    line,
    user: target.user,
    path,
    problems,
    fileUrl: `${ctx.repoUrl}/blob/${encodeURIComponent(branch)}/${path}`,
  });
  await commandServices(ctx).reply(target, body);
}
