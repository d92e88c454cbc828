// While the repository's `.github/arbiter.yml` does not validate, Arbiter acts on nothing, but it is
// never silent about it: a pull request that links a Change gets the failing `Arbiter / config` check
// on its head (naming the lines), and a slash command gets a reply that points at the problem.
import { z } from 'zod';
import { parseCommand } from '../commands/parse.ts';
import { commentTarget } from '../commands/target.ts';
import { checkConfigOnCommit } from '../config/check.ts';
import { CONFIG_PATH } from '../core/config-file.ts';
import { defaultConfig } from '../config/schema.ts';
import { linkedChange } from '../core/link.ts';
import type { Deps } from '../deps.ts';
import { deliveryToken, repoContext } from '../workflows/context.ts';
import { replyWhileConfigInvalid } from '../workflows/config-invalid.ts';

const LinkedPull = z.object({
  action: z.enum(['opened', 'reopened', 'synchronize', 'edited', 'ready_for_review']),
  pull_request: z.object({
    number: z.number(),
    state: z.literal('open'),
    body: z.string().nullable(),
    head: z.object({ sha: z.string(), ref: z.string() }),
  }),
});

/** What Arbiter answers in a repository whose configuration is invalid (and nothing else happens). */
export async function answerWhileConfigInvalid(
  deps: Deps,
  gh: NonNullable<Parameters<typeof repoContext>[1]['gh']>,
  delivery: { id: string; name: string; payload: Record<string, unknown> },
  installationId: number,
): Promise<'pull-checked' | 'replied' | 'nothing'> {
  if (delivery.name === 'pull_request') {
    const pull = LinkedPull.safeParse(delivery.payload);
    if (!pull.success || linkedChange(pull.data.pull_request.body) === null) return 'nothing';
    const { head } = pull.data.pull_request;
    // The config at the PR's head: the default branch's broken file unless the PR fixes it.
    await checkConfigOnCommit(deps, gh, {
      owner: gh.owner,
      repo: gh.repo,
      sha: head.sha,
      ref: head.ref,
      pullRequest: true,
    });
    return 'pull-checked';
  }
  if (delivery.name !== 'issue_comment') return 'nothing';
  const target = commentTarget(delivery.payload);
  if (!target.ok || target.target.userIsBot || target.target.user === gh.botLogin) return 'nothing';
  // The configured prefix cannot be read from a file that does not validate: the default one.
  const config = defaultConfig();
  const command = parseCommand(target.target.commentBody ?? '', config.commands.prefix);
  if (!command) return 'nothing';
  const ctx = await repoContext(deps, {
    owner: gh.owner,
    repo: gh.repo,
    installationId,
    config,
    token: deliveryToken(delivery.id),
    gh,
  });
  const problems = await deps.store.configProblems(ctx.key);
  await replyWhileConfigInvalid(ctx, target.target, command.line, CONFIG_PATH, problems);
  return 'replied';
}
