// `/arbiter admit` and `/arbiter track`: a trusted account vouches for a pull request or an issue
// that an account without write access opened. The permission check happened before (the verb
// needs write); here the vouch is recorded and the PR or issue is read from GitHub and recorded.
import type { VerbResult } from '../commands/types.ts';
import { planAdmission } from '../core/plan/person.ts';
import { recordCandidate } from './candidates.ts';
import { refreshChange, trackedChange } from './changes.ts';
import { OPEN_STATES } from '../core/types.ts';
import type { RepoContext } from './context.ts';
import { runSteps } from './flow.ts';
import { recordAdmission, recordAdoption } from './trust.ts';
import { namesSet } from '../core/candidate-set.ts';
import { admitSetMember } from './candidate-set.ts';

export async function admitPull(ctx: RepoContext, pr: number, isPullRequest: boolean, by: string): Promise<VerbResult> {
  const { store } = ctx.deps;
  // Read only what the decision needs: an issue reads nothing, a known candidate not its pull request.
  const existing = isPullRequest ? await store.getCandidate(ctx.key, pr) : null;
  const candidateFor = existing && OPEN_STATES.has(existing.state) ? existing.change : null;
  const state = isPullRequest && candidateFor === null ? (await ctx.gh.readGroup([pr])).get(pr) : undefined;
  // A member of a composite candidate is admitted for its set's Change (workflows/candidate-set.ts).
  if (state && namesSet(state.body)) {
    const { result, next } = await admitSetMember(
      ctx,
      { number: pr, open: state.state === 'OPEN', body: state.body, headSha: state.headSha },
      by,
    );
    await runSteps(ctx, next);
    return result;
  }
  const plan = planAdmission({
    pr,
    by,
    prefix: ctx.config.commands.prefix,
    label: ctx.config.selection.label,
    isPullRequest,
    candidateFor,
    pull: state
      ? {
          open: state.state === 'OPEN',
          body: state.body,
          headSha: state.headSha,
          links: { repo: ctx.key, closing: state.closing ?? null },
        }
      : null,
  });
  if (plan.kind === 'answer') return plan.reply;
  // The admission covers this head for this Change only: new code or a new link needs a new admission.
  await recordAdmission(ctx, pr, { by, headSha: plan.headSha, change: plan.kind === 'admit' ? plan.change : null });
  if (plan.kind === 'unlinked') return plan.reply;
  const { change, replies } = plan;
  // The plan admits only a pull request it was shown.
  const read = state!;
  const pull = {
    number: pr,
    draft: read.isDraft,
    state: 'open',
    body: read.body,
    base: read.baseRef,
    headSha: read.headSha,
    author: read.author,
    labels: read.labels,
    closing: read.closing,
  };
  if (!(await trackedChange(ctx, change, null))) return replies.notAChange;
  const recorded = await recordCandidate(ctx, pull, { revive: 'admitted' });
  if (!recorded.candidate) {
    await runSteps(ctx, recorded.next);
    return replies.notRecorded;
  }
  await runSteps(ctx, [...recorded.next, { kind: 'verify', pr }]);
  return replies.admitted;
}

export async function trackIssue(
  ctx: RepoContext,
  number: number,
  isPullRequest: boolean,
  by: string,
): Promise<VerbResult> {
  const prefix = ctx.config.commands.prefix;
  if (isPullRequest) {
    return {
      ok: false,
      code: 'not_an_issue',
      message: `#${number} is a pull request; \`${prefix} track\` adopts an issue (\`${prefix} admit\` admits a pull request).`,
    };
  }
  const issue = await ctx.gh.getIssue(number);
  if (!issue || issue.pull_request)
    return { ok: false, code: 'not_an_issue', message: `#${number} is not an issue Arbiter can read.` };
  if (issue.state !== 'open')
    return { ok: false, code: 'not_open', message: `#${number} is closed, so it cannot be tracked.` };
  const known = await ctx.deps.store.getChange(ctx.key, number);
  await recordAdoption(ctx, number, by, 'command');
  if (known) return { ok: true, message: `#${number} is already a Change Arbiter tracks.` };
  const change = await refreshChange(ctx, number, issue);
  const n = change?.criteria.length ?? 0;
  return {
    ok: true,
    message:
      `Tracking #${number} as a Change on @${by}'s word (${n} acceptance criteri${n === 1 ? 'on' : 'a'}). ` +
      `A pull request that links it becomes a candidate when it next opens or changes, if its author has write access or a maintainer runs \`${prefix} admit\` on it.`,
  };
}
