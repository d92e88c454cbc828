// Links that send no webhook. `/arbiter link #N`: a maintainer links a pull request to a Change at
// once (the permission check happened before: the verb needs write; here the link is recorded and
// the PR recorded with it). The sweep: a link made in the Development sidebar shows in GitHub's
// list of the pull requests that close the Change, read for every Change with open candidates.
import type { VerbResult } from '../commands/types.ts';
import type { PullState } from '../github/group-query.ts';
import { planLink } from '../core/plan/link.ts';
import { OPEN_STATES } from '../core/types.ts';
import { recordCandidate } from './candidates.ts';
import type { RepoContext } from './context.ts';
import { runSteps } from './flow.ts';
import { recordLink } from './trust.ts';

export async function linkPull(
  ctx: RepoContext,
  pr: number,
  isPullRequest: boolean,
  by: string,
  change: number,
): Promise<VerbResult> {
  const { store } = ctx.deps;
  const existing = isPullRequest ? await store.getCandidate(ctx.key, pr) : null;
  const candidateFor = existing && OPEN_STATES.has(existing.state) ? existing.change : null;
  const reads = isPullRequest && candidateFor === null && change !== pr;
  const state = reads ? (await ctx.gh.readGroup([pr])).get(pr) : undefined;
  const issue = reads && state?.state === 'OPEN' ? await ctx.gh.getIssue(change) : null;
  const plan = planLink({
    pr,
    by,
    prefix: ctx.config.commands.prefix,
    change,
    isPullRequest,
    candidateFor,
    pull: state ? { open: state.state === 'OPEN', headSha: state.headSha } : null,
    issue: issue ? { isPullRequest: Boolean(issue.pull_request), open: issue.state === 'open' } : null,
  });
  if (plan.kind === 'answer') return plan.reply;
  await recordLink(ctx, pr, { change: plan.change, by });
  // The plan links only a pull request it was shown open.
  const recorded = await recordCandidate(ctx, factsOf(state!));
  if (!recorded.candidate) {
    await runSteps(ctx, recorded.next);
    return plan.replies.notRecorded;
  }
  await runSteps(ctx, [...recorded.next, { kind: 'verify', pr }]);
  return plan.replies.recorded;
}

const factsOf = (read: PullState) => ({
  number: read.number,
  draft: read.isDraft,
  state: 'open',
  body: read.body,
  base: read.baseRef,
  headSha: read.headSha,
  author: read.author,
  labels: read.labels,
  closing: read.closing,
});

/**
 * The sweep's look for links that sent no webhook: the open pull requests GitHub lists as closing
 * the Change that Arbiter has not recorded are read and recorded (a candidate, or the check that
 * says why not), as their next event would.
 */
export async function pickUpLinkedPulls(ctx: RepoContext, change: number): Promise<void> {
  const fresh: number[] = [];
  for (const pr of await ctx.gh.linkedPulls(change))
    if (pr !== change && !(await ctx.deps.store.getCandidate(ctx.key, pr))) fresh.push(pr);
  if (fresh.length === 0) return;
  for (const pull of (await ctx.gh.readGroup(fresh)).values()) {
    if (pull.state !== 'OPEN') continue;
    const recorded = await recordCandidate(ctx, factsOf(pull));
    await runSteps(ctx, [
      ...recorded.next,
      ...(recorded.candidate ? [{ kind: 'verify' as const, pr: pull.number, state: pull }] : []),
    ]);
  }
}
