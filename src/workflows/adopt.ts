// `/arbiter admit` and `/arbiter track`: a trusted account vouches for a pull request or an issue
// that an account without write access opened. The permission check happened before (the verb
// needs write); here the vouch is recorded and the PR or issue is read from GitHub and recorded.
import type { VerbResult } from '../commands/types.ts';
import { linkedChange } from '../core/link.ts';
import { recordCandidate } from './candidates.ts';
import { refreshChange, trackedChange } from './changes.ts';
import { OPEN_STATES } from '../core/types.ts';
import type { RepoContext } from './context.ts';
import { runSteps } from './flow.ts';
import { recordAdmission, recordAdoption } from './trust.ts';

export async function admitPull(ctx: RepoContext, pr: number, isPullRequest: boolean, by: string): Promise<VerbResult> {
  const prefix = ctx.config.commands.prefix;
  if (!isPullRequest) {
    return {
      ok: false,
      code: 'not_a_pull_request',
      message: `#${pr} is an issue; \`${prefix} admit\` applies to a pull request (\`${prefix} track\` adopts an issue).`,
    };
  }
  const { store } = ctx.deps;
  const existing = await store.getCandidate(ctx.key, pr);
  if (existing && OPEN_STATES.has(existing.state))
    return { ok: true, message: `#${pr} is already a candidate for #${existing.change}.` };
  const state = (await ctx.gh.readGroup([pr])).get(pr);
  if (!state || state.state !== 'OPEN')
    return { ok: false, code: 'not_open', message: `#${pr} is not open, so it cannot be admitted.` };
  const change = linkedChange(state.body);
  // The admission covers this head for this Change only: new code or a new link needs a new admission.
  await recordAdmission(ctx, pr, { by, headSha: state.headSha, change });
  if (change === null) {
    return {
      ok: false,
      code: 'not_linked',
      message: `#${pr} links no Change, so there is nothing to admit it for: add a \`Candidate-for: #N\` line to its description, then run \`${prefix} admit\` again.`,
    };
  }
  const pull = {
    number: pr,
    draft: state.isDraft,
    state: 'open',
    body: state.body,
    base: state.baseRef,
    headSha: state.headSha,
    author: state.author,
    labels: state.labels,
  };
  if (!(await trackedChange(ctx, change, null))) {
    return {
      ok: false,
      code: 'not_a_change',
      message: `#${pr} is admitted, but #${change} is not a Change Arbiter tracks; \`${prefix} track\` on #${change} adopts it.`,
    };
  }
  const recorded = await recordCandidate(ctx, pull, { revive: 'admitted' });
  if (!recorded.candidate) {
    await runSteps(ctx, recorded.next);
    const label = ctx.config.selection.label;
    return {
      ok: false,
      code: 'not_recorded',
      message: `#${pr} is admitted but is not recorded yet: a candidate must be a draft when it is first recorded${label ? ` (or carry \`${label}\`)` : ''}.`,
    };
  }
  await runSteps(ctx, [...recorded.next, { kind: 'verify', pr }]);
  return {
    ok: true,
    message: `Admitted on @${by}'s word: #${pr} is a candidate for #${change}, compared with its siblings like any other.`,
  };
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
