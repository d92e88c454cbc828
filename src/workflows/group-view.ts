// A group's state as one typed view (the store, plus one GraphQL read of every sibling): what the
// selection step, `status` and the portfolio's wide round read before they plan.
import { composingTimedOut } from '../core/plan/agent-hold.ts';
import { isComposing, stillWorking } from '../core/agent-work.ts';
import type { CandidateEvidence } from '../core/types.ts';
import { OPEN_STATES } from '../core/types.ts';
import type { PullState } from '../github/group-query.ts';
import { freshRead, sameRead } from '../github/read-age.ts';
import { awaitedCriterionChecks } from './acceptance.ts';
import { branchRulesOf } from './branch-rules.ts';
import { nowIso, type RepoContext } from './context.ts';
import { gateFrom, storedAcceptance, storedGate } from './evidence.ts';
import { portfolioPending } from './portfolio.ts';
import { setsHoldingRound } from '../core/plan/set-hold.ts';
import { listSetRecords } from './candidate-set-store.ts';
import { measuredInWide } from './portfolio-wide.ts';
import type { GroupView } from './model.ts';

/**
 * Reads the whole group's state: the store, plus ONE GraphQL query for every sibling, unless
 * `read` (this job's own read of the group, within GROUP_READ_FRESH_MS) already holds every sibling.
 * `bringing`: a candidate of the group that a round closed as a loser and a person now promotes,
 * read as a sibling (its pull request, and its evidence when it is open at the head it lost with).
 */
export async function readGroupView(
  ctx: RepoContext,
  changeNumber: number,
  base: string,
  read?: ReadonlyMap<number, PullState>,
  bringing?: number,
): Promise<GroupView | null> {
  const { store } = ctx.deps;
  const change = await store.getChange(ctx.key, changeNumber);
  if (!change) return null;
  const round = await store.currentRound(ctx.key, changeNumber, base, nowIso(ctx));
  const siblings = (await store.listCandidates(ctx.key, changeNumber, base)).filter(
    (c) => OPEN_STATES.has(c.state) || c.pr === bringing,
  );
  const reused = new Map<number, PullState>();
  for (const s of siblings) {
    const pull = read?.get(s.pr);
    if (pull) reused.set(s.pr, pull);
  }
  if (read) sameRead(read, reused);
  // The job's read, unless model calls made it old: a decision works from a recent view (labels it
  // rewrites, heads it merges), and one read of the group costs less than one per loser.
  const pulls =
    read && reused.size === siblings.length && freshRead(reused, ctx.deps.clock.now())
      ? reused
      : await ctx.gh.readGroup(siblings.map((s) => s.pr));
  const branch = await branchRulesOf(ctx, base);
  const measured = await measuredInWide(ctx, changeNumber, round);
  // In a wide round being measured, the round waits for its own re-runs of the scoring check.
  const unscored = { ...ctx, config: { ...ctx.config, gate: { ...ctx.config.gate, score: null } } };
  const evidence = new Map<number, CandidateEvidence>();
  const pending: GroupView['pending'] = [];
  for (const s of siblings) {
    const pull = pulls.get(s.pr);
    if (!pull || pull.state !== 'OPEN') {
      pending.push({ pr: s.pr, why: 'closing' });
      continue;
    }
    if (pull.headSha !== s.headSha) {
      pending.push({ pr: s.pr, why: 'new commits' });
      continue;
    }
    // An agent still at work holds the round up to `selection.siblingTimeout`; after that the round
    // goes on without it, and it is neither ranked nor closed while its title says it works.
    if (isComposing(pull.title)) {
      if (!composingTimedOut(s.headSeenAt, ctx.config.selection.siblingTimeout, nowIso(ctx)))
        pending.push({ pr: s.pr, why: 'composing', says: stillWorking(s.author, s.pr) });
      continue;
    }
    const stored = await storedGate(ctx, s);
    const fresh = gateFrom(ctx, pull, stored, branch.required);
    // The job's read came before its own verification: a sibling that settled since (its job
    // stored its gate before its selection step) counts as settled, so of two siblings settling
    // at once the later selection step always sees both.
    let gate = read && !fresh.settled && stored?.settled ? stored : fresh;
    if (!gate.settled && measured.has(s.pr)) {
      const required = gateFrom(unscored, pull, stored, branch.required);
      if (required.settled) gate = required;
    }
    const acceptance = await storedAcceptance(ctx, s, change);
    if (!gate.settled && gate.awaitingApproval) pending.push({ pr: s.pr, why: gate.reason });
    else if (!gate.settled) pending.push({ pr: s.pr, why: 'CI running' });
    else if (!acceptance && !gate.timedOut) pending.push({ pr: s.pr, why: 'acceptance' });
    else if (acceptance && awaitedCriterionChecks(ctx, s, change, pull).length > 0)
      pending.push({ pr: s.pr, why: 'criterion checks' });
    const patch = await store.getPatch(ctx.key, s.pr, s.headSha);
    evidence.set(s.pr, {
      pr: s.pr,
      headSha: s.headSha,
      gate,
      acceptance,
      changedPaths: patch?.files.map((f) => f.path) ?? [],
      changedLines: patch?.files.reduce((n, f) => n + f.additions + f.deletions, 0) ?? 0,
      labels: pull.labels,
      author: s.author,
    });
  }
  pending.push(...(await portfolioPending(ctx, changeNumber, base, siblings)));
  // A composite candidate of the Change (its members live in other repositories) is a sibling too.
  const sets = await listSetRecords(ctx, { repo: ctx.key, number: changeNumber });
  pending.push(...setsHoldingRound(sets, ctx.config.selection.siblingTimeout, nowIso(ctx)));
  return { change, round, siblings, pulls, evidence, pending, branch };
}

export const waitingList = (pending: GroupView['pending']): string =>
  pending.map((p) => p.says ?? `${p.label ?? `#${p.pr}`} (${p.why})`).join(', ');
