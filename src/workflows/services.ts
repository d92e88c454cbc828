// The CommandServices that slash commands and check-run buttons call: each verb goes to the
// same workflow the automatic path uses. Replies are idempotent per comment or click.
import type { CommandServices, CommandTarget } from '../commands/types.ts';
import { markerFor } from '../core/render/markers.ts';
import { admitPull, trackIssue } from './adopt.ts';
import { linkPull } from './link.ts';
import type { RepoContext } from './context.ts';
import { executePlan } from './execute.ts';
import { explore } from './portfolio.ts';
import { cancelChange, rankNow, recheckCandidate, rejectByPerson, statusOf } from './people.ts';
import { promoteByPerson } from './person-promote.ts';

export function commandServices(ctx: RepoContext): CommandServices {
  const { store } = ctx.deps;
  const replyMarker = (t: CommandTarget): string => `reply:${t.commentId ?? `click-${ctx.token}`}`;
  return {
    prefix: ctx.config.commands.prefix,
    permission: (user) => ctx.gh.permission(user),
    async candidate(issueNumber) {
      const c = await store.getCandidate(ctx.key, issueNumber);
      return c ? { pr: c.pr, change: c.change, author: c.author, state: c.state } : null;
    },
    async isChange(issueNumber) {
      return (await store.getChange(ctx.key, issueNumber)) !== null;
    },
    status: (t) => statusOf(ctx, t.issueNumber),
    rank: (t) => rankNow(ctx, t.issueNumber),
    recheck: (t) => recheckCandidate(ctx, t.issueNumber),
    promote: (t) => promoteByPerson(ctx, t.issueNumber, t.user, t.source),
    reject: (t, reason) => rejectByPerson(ctx, t.issueNumber, t.user, reason),
    async cancel(t) {
      const candidate = await store.getCandidate(ctx.key, t.issueNumber);
      return cancelChange(ctx, candidate ? candidate.change : t.issueNumber, t.user);
    },
    admit: (t) => admitPull(ctx, t.issueNumber, t.isPullRequest, t.user),
    track: (t) => trackIssue(ctx, t.issueNumber, t.isPullRequest, t.user),
    link: (t, change) => linkPull(ctx, t.issueNumber, t.isPullRequest, t.user, change),
    async changeIssue(issueNumber) {
      // Only whether it is an issue: the verb itself records it, with the maintainer's adoption.
      if ((await store.getChange(ctx.key, issueNumber)) !== null) return true;
      const issue = await ctx.gh.getIssue(issueNumber);
      return issue !== null && !issue.pull_request;
    },
    explore: (t, n) => explore(ctx, t, n),
    // Both once per comment or click (their keys); a locked conversation takes no reply (the
    // command's effect stands): the executor records it as skipped, never retried.
    async reply(t, body) {
      const marker = replyMarker(t);
      const key = `${ctx.key}/${marker}`;
      await executePlan(ctx, [
        { kind: 'comment', key, issue: t.issueNumber, marker, body: `${markerFor(marker)}\n${body}` },
      ]);
    },
    async react(t, content) {
      if (t.commentId === null) return;
      const key = `${ctx.key}/react:${t.commentId}:${content}`;
      await executePlan(ctx, [{ kind: 'react', key, commentId: t.commentId, content }]);
    },
  };
}
