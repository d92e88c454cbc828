// The executor: applies each planned action once. An action whose key is recorded in the store
// is skipped; before retrying a write whose answer was lost, GitHub is asked whether it landed.
import { z } from 'zod';
import { ClaimAnswer, type Action, type GatedPlan } from '../core/actions.ts';
import { findPlanComments, rememberComment, type PlanComments } from './plan-comments.ts';
import { GitHubError, lockedConversation } from '../github/errors.ts';
import { parseRecorded } from '../core/plan-schema.ts';
import type { PullState } from '../github/group-query.ts';
import { freshRead } from '../github/read-age.ts';
import { MergeResult } from '../github/port.ts';
import { forMode } from '../core/shadow.ts';
import { nowIso, otherRepoContext, type RepoContext } from './context.ts';
import { withRetry } from './retry.ts';
import { actionKey, dashboardIssueKey } from '../core/keys.ts';
import { mergeRefused, refusalOf } from './merge-refusals.ts';
import { applyRecord, claimForRun, isRecordAction, isTakeAction } from './execute-records.ts';
import { writeCheck, writtenByContent } from './execute-checks.ts';
import { applyCombine, isCombineWrite } from './execute-combine.ts';
import { dequeueOwn, disableOwnAutoMerge } from './auto-merge-disable.ts';

export { withRetry };

export interface ExecutionResult {
  merge: MergeResult | null;
  applied: string[];
  /** What each action that ran (now or before) answered, by key. */
  results: Map<string, unknown>;
  /** The planned actions the mode's filter kept back (shadow mode): what the step reports it would do. */
  withheld: Action[];
}

const Granted = z.object({ granted: z.boolean() });
/** Whether a plan's `claim-repair` action took the repair (false when it did not run, as in shadow mode). */
export const repairGranted = (result: ExecutionResult, key: string): boolean =>
  Granted.safeParse(result.results.get(key)).data?.granted === true;
/** What a plan's `claim` action keyed `key` answered (null: the plan stopped before it, or it was not in it). */
export const claimAnswer = (result: ExecutionResult, key: string): ClaimAnswer | null =>
  ClaimAnswer.safeParse(result.results.get(key)).data ?? null;

type Close = Extract<Action, { kind: 'close' }>;

const sameLabels = (a: string[], b: string[]): boolean => a.length === b.length && a.every((l) => b.includes(l));

/**
 * Closes a pull request and adds and removes the closure's labels in one `PATCH issues/{n}` that
 * sets `state` and the whole label list. That write replaces the list, so a label a person added
 * after the read would go: acceptable because the list is read moments before, by this job for the
 * decision it carries out (`read`, its group query, used only within GROUP_READ_FRESH_MS of it), or
 * else from GitHub right before the write
 * (a retry, a resumed run, an auto-merge that landed later). Only a PR found closed already (by a
 * person, or this write landed) gets its labels added and removed one by one, overwriting nothing.
 */
async function closeAndRelabel(ctx: RepoContext, action: Close, look: boolean, read?: PullState): Promise<unknown> {
  const { gh } = ctx;
  const add = action.relabel?.add ?? [];
  const remove = action.relabel?.remove ?? [];
  // A retry, or a run resuming its own claim, asks GitHub first: the closure may have landed. So
  // does a run without this job's read that has labels to set: one read and one write, not two writes.
  const relabels = add.length + remove.length > 0;
  const snapshot = look || (!read && relabels) ? await gh.pullState(action.pr) : null;
  const current = snapshot
    ? { open: snapshot.state === 'open', labels: snapshot.labels }
    : read
      ? { open: read.state === 'OPEN', labels: read.labels }
      : null;
  if (current?.open) {
    const labels = [
      ...current.labels.filter((l) => !remove.includes(l)),
      ...add.filter((l) => !current.labels.includes(l)),
    ];
    if (sameLabels(labels, current.labels)) await gh.closePull(action.pr);
    else await gh.closeWithLabels(action.pr, labels);
    return { closed: true };
  }
  const missing = current ? add.filter((l) => !current.labels.includes(l)) : add;
  const present = current ? remove.filter((l) => current.labels.includes(l)) : remove;
  if (missing.length > 0) await gh.addLabels(action.pr, missing);
  for (const label of present) await gh.removeLabel(action.pr, label);
  if (current) return { already: true };
  await gh.closePull(action.pr);
  return { closed: true };
}

/** The writes whose answer is a MergeResult: the plan stops at a refusal, and the caller plans what follows. */
const MERGE_PATH: ReadonlySet<Action['kind']> = new Set(['merge', 'auto-merge', 'update-branch']);

/**
 * Writes another run holds that end the plan here: what follows depends on their answer (a merge's;
 * an auto-merge withdrawn, whose store mark is taken only after GitHub was asked), and the holder,
 * or its retry, carries on from it.
 */
const STOPS_WHEN_HELD: ReadonlySet<Action['kind']> = new Set([...MERGE_PATH, 'disable-auto-merge', 'dequeue']);

/** Whether the mode's filter kept back the plan's merge (shadow mode): nothing merged, and nothing follows a merge. */
export const mergeWithheld = (result: ExecutionResult): boolean => result.withheld.some((a) => MERGE_PATH.has(a.kind));

/** What an action may take from the job that applies it, instead of reading GitHub again. */
export interface ExecuteOptions {
  /** The pull requests as this job read them moments before (its group query). */
  group?: ReadonlyMap<number, PullState>;
  /**
   * Shared by the plans one job applies in turn (a decision, then what follows its merge): the
   * first comment looks for the markers of `ahead`'s comments too, so the later plan needs no read.
   */
  comments?: SharedComments;
}

/** The comment lookup of several plans in one job; `found` is kept current as comments are written. */
export interface SharedComments {
  ahead: Action[];
  found: PlanComments | null;
}

/** `resumed`: this run claimed the action before and died before recording it, so it may have landed. */
async function apply(
  ctx: RepoContext,
  action: Action,
  resumed: boolean,
  comments: PlanComments,
  opts: ExecuteOptions,
): Promise<unknown> {
  const { gh, deps } = ctx;
  // A label list replaced from the job's read only while that read is recent (model calls may
  // have run since): else the closure reads the PR first.
  const labelsRead = opts.group && freshRead(opts.group, ctx.deps.clock.now()) ? opts.group : undefined;
  if (isRecordAction(action)) return applyRecord(ctx, action);
  if (isCombineWrite(action)) return applyCombine(ctx, action);
  switch (action.kind) {
    case 'comment':
      try {
        return await withRetry(ctx, 'comment', async (attempt) => {
          // A retry, or a run resuming its own claim, may follow a comment that landed after the
          // plan's lookup: it lists the issue afresh.
          const ours = attempt === 1 && !resumed ? comments.get(action.issue) : undefined;
          const written = await gh.upsertComment(action.issue, action.marker, action.body, ours);
          rememberComment(comments, action, written.id);
          return written;
        });
      } catch (error) {
        // A locked conversation takes no comment from Arbiter: the rest of the decision goes on
        // (its checks say the same), and the comment is recorded as skipped, never retried.
        if (!lockedConversation(error)) throw error;
        ctx.log.info({ issue: action.issue, marker: action.marker }, 'conversation locked: comment skipped');
        return { skipped: 'locked' };
      }
    case 'close':
      return withRetry(ctx, 'close', (attempt) =>
        closeAndRelabel(ctx, action, attempt > 1 || resumed, labelsRead?.get(action.pr)),
      );
    case 'label':
      return withRetry(ctx, 'label', () => gh.addLabels(action.issue, action.labels));
    case 'react':
      return withRetry(ctx, 'react', () => gh.react(action.commentId, action.content));
    case 'unlabel':
      return withRetry(ctx, 'unlabel', () => gh.removeLabel(action.issue, action.label));
    case 'mark-ready':
      return withRetry(ctx, 'mark ready', async (attempt) => {
        // The job's own group read (which planned this action) names the draft's node id: no read first.
        const read = attempt > 1 || resumed ? undefined : opts.group?.get(action.pr);
        if (read?.isDraft) {
          try {
            await gh.markReady(read.id);
            return { ready: true };
          } catch (error) {
            // Marked ready (or closed) by someone since the read: GitHub is asked below.
            if (!(error instanceof GitHubError) || error.transient) throw error;
          }
        }
        const pull = await gh.pullState(action.pr);
        if (!pull.draft) return { already: true };
        await gh.markReady(pull.nodeId);
        return { ready: true };
      });
    case 'merge':
      return withRetry(ctx, 'merge', async (attempt) => {
        if (attempt > 1 || resumed) {
          const pull = await gh.pullState(action.pr);
          if (pull.merged) return { ok: true, sha: null } satisfies MergeResult;
        }
        const result = await gh.merge(action.pr, action.sha, action.method);
        if (!result.ok && result.status === 405) return mergeRefused(ctx, action, result, (a) => executePlan(ctx, a));
        return result;
      });
    case 'auto-merge':
      return withRetry(ctx, 'auto-merge', async (attempt) => {
        const pull = await gh.pullState(action.pr);
        if (pull.headSha !== action.sha) return { ok: false, status: 409, message: 'head moved' } satisfies MergeResult;
        if (pull.merged) return { ok: true, sha: null } satisfies MergeResult;
        if (attempt > 1 || resumed) {
          // A lost answer: GitHub may hold the request already (found by the soak: a replica killed
          // right after its enqueue, and the retry queued the pull request a second time).
          const held = (await gh.readGroup([action.pr])).get(action.pr);
          if (action.queue ? held?.merge?.inMergeQueue : held?.autoMergeBy)
            return { ok: true, sha: null, queued: true } satisfies MergeResult;
        }
        try {
          await gh.enableAutoMerge(pull.nodeId, action.sha, action.method, action.queue);
        } catch (error) {
          // GitHub refused (a GraphQL error in a 200, or a 4xx): its whole words are the answer, and
          // the plan of that answer names what follows (planMergeAnswer); never thrown to a retry.
          if (error instanceof GitHubError && !error.transient) return refusalOf(error);
          throw error;
        }
        return { ok: true, sha: null, queued: true };
      });
    case 'disable-auto-merge':
      return withRetry(ctx, 'disable auto-merge', () => disableOwnAutoMerge(ctx, action));
    case 'dequeue':
      return withRetry(ctx, 'dequeue', () => dequeueOwn(ctx, action));
    case 'update-branch':
      return withRetry(ctx, 'update branch', async (attempt) => {
        if (attempt > 1 || resumed) {
          // A lost answer: the head moved from the expected sha means the update landed.
          const pull = await gh.pullState(action.pr);
          if (pull.headSha !== action.sha) return { ok: true, sha: null, updated: true } satisfies MergeResult;
        }
        try {
          await gh.updateBranch(action.pr, action.sha);
        } catch (error) {
          if (!(error instanceof GitHubError) || error.transient) throw error;
          // 422 "expected head sha didn't match current head ref": the head moved, as a merge's 409.
          if (error.status === 422 && /expected head sha/i.test(error.message))
            return { ok: false, status: 409, message: error.githubWords } satisfies MergeResult;
          return refusalOf(error);
        }
        return { ok: true, sha: null, updated: true } satisfies MergeResult;
      });
    case 'request-review':
      return withRetry(ctx, 'request review', () => gh.requestReviewers(action.pr, action.reviewers, action.teams));
    case 'check-run':
      await writeCheck(ctx, action);
      return { written: true };
    case 'dispatch':
      return withRetry(ctx, 'dispatch', () => gh.dispatch(action.eventType, action.payload));
    case 'rerun':
      await withRetry(ctx, 'rerun', () => gh.portfolio.rerun(action.run));
      return { rerun: action.run.id };
    case 'start-portfolio': {
      const { portfolio: p } = action;
      let round = await deps.store.currentRound(ctx.key, p.change, p.base, p.startedAt);
      if (p.wideRound === null && (round.decision !== null || round.selection !== null))
        round = await deps.store.openNextRound(ctx.key, p.change, p.base, round.number, p.startedAt);
      const wideRound = p.wideRound ?? round.number;
      const start = await deps.store.startPortfolio({ ...p, repo: ctx.key, phase: 'wide', wideRound });
      const { number, startedAt } = start.portfolio;
      const composing = { repo: ctx.key, change: p.change, portfolio: number, state: 'composing' as const };
      const slots = action.slots.map((s) => ({ ...composing, ...s, pr: null, reason: '', dispatchedAt: startedAt }));
      if (start.started) await deps.store.addSlots(slots);
      return start;
    }
    case 'dashboard-issue': {
      // No retry: after a lost answer the job's retry finds the issue among Arbiter's own first.
      if (action.issue !== null) {
        await gh.ownIssues.editBody(action.issue, action.body);
        return { edited: action.issue };
      }
      const opened = await gh.ownIssues.open(action.title, action.body);
      await deps.store.recordAppliedAction(dashboardIssueKey(ctx.key), { issue: opened.number }, nowIso(ctx));
      return { issue: opened.number };
    }
    case 'in-repo': {
      // Another repository of the installation (a set's member): its own gateway and config.
      const other = await otherRepoContext(ctx, action.repo);
      if (other === null) return { skipped: `the config of ${action.repo} does not validate` };
      await executePlan(other, action.actions);
      return { done: true };
    }
  }
}

/**
 * Applies a plan in order, as the mode allows (src/core/shadow.ts: the one place shadow mode is
 * decided). Stops at a merge that GitHub refused (409 head moved, 405 not mergeable): the caller
 * decides what follows. A failure throws, and the job's retry resumes.
 */
export async function executePlan(
  ctx: RepoContext,
  planned: Action[],
  opts: ExecuteOptions = {},
): Promise<ExecutionResult> {
  const { store } = ctx.deps;
  const actions = forMode(planned, ctx.config);
  const withheld = planned.filter((a) => !actions.includes(a));
  const applied: string[] = [];
  const results = new Map<string, unknown>();
  let merge: MergeResult | null = null;
  // Found at the first comment to write, for it and every later one.
  let comments: PlanComments | null = null;
  // What is recorded already, for the whole plan in one read.
  const known = await store.getAppliedActions(actions.filter((a) => !isTakeAction(a)).map((a) => a.key));
  for (const [index, action] of actions.entries()) {
    if (isTakeAction(action)) {
      // One conditional write answered afresh for whoever asks: never claimed or recorded as an action.
      results.set(action.key, await applyRecord(ctx, action));
      continue;
    }
    // Its key returns with its content, so not its key's record but what the check shows decides.
    if (writtenByContent(action)) {
      const check = await writeCheck(ctx, action);
      if (check.written) applied.push(action.key);
      results.set(action.key, check);
      continue;
    }
    let result: unknown = known.get(action.key) ?? null;
    if (result === null) {
      const held = await claimForRun(ctx, actionKey(action.key));
      // Claimed before (this run died, or another run under its token is at it): it may have
      // been applied and recorded since the plan was read. Another run's claim is left to it.
      if (held !== 'new') result = await store.getAppliedAction(action.key);
      if (result === null && held !== 'taken') {
        if (action.kind === 'comment' && comments === null) {
          comments =
            opts.comments?.found ??
            (await findPlanComments(ctx, [...actions.slice(index), ...(opts.comments?.ahead ?? [])], known));
          if (opts.comments) opts.comments.found = comments;
        }
        result = (await apply(ctx, action, held === 'mine', comments ?? new Map(), opts)) ?? { done: true };
        await store.recordAppliedAction(action.key, result, nowIso(ctx));
        applied.push(action.key);
      }
      if (result === null) {
        if (STOPS_WHEN_HELD.has(action.kind)) break;
        continue;
      }
    }
    results.set(action.key, result);
    if (MERGE_PATH.has(action.kind)) {
      merge = parseRecorded(MergeResult, result, `the merge result of ${action.key}`);
      if (!merge.ok) break;
    }
  }
  return { merge, applied, results, withheld };
}

const Changed = z.object({ changed: z.boolean() });

/**
 * Applies a gated plan, then the branch its gate's answer names (null: another run holds the gate,
 * and what follows is that run's). Whether the gate changed what it guards, or null.
 */
export async function executeGated(ctx: RepoContext, plan: GatedPlan): Promise<boolean | null> {
  const answer = Changed.safeParse((await executePlan(ctx, plan.actions)).results.get(plan.gate));
  if (!answer.success) return null;
  const next = answer.data.changed ? plan.then : plan.otherwise;
  if (next.length > 0) await executePlan(ctx, next);
  return answer.data.changed;
}
