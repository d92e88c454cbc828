// pull_request: record candidates and new heads; a closure by someone else withdraws the
// candidate; a merge (by anyone) ships it and closes its siblings as stale.
import { z } from 'zod';
import { recordCandidate } from '../workflows/candidates.ts';
import { OPEN_STATES } from '../core/types.ts';
import { completeOwnChecks } from '../workflows/clean-ends.ts';
import { nowIso, type RepoContext } from '../workflows/context.ts';
import { writeCheck } from '../workflows/execute.ts';
import { afterMerged } from '../workflows/promote.ts';
import { runSteps, selectAndFollow } from '../workflows/flow.ts';
import { recordSelectionLabel, trustOfLogin } from '../workflows/trust.ts';

const Payload = z.object({
  action: z.string(),
  sender: z.object({ login: z.string(), type: z.string().optional() }),
  label: z.object({ name: z.string() }).optional(),
  pull_request: z.object({
    number: z.number().int(),
    state: z.string(),
    draft: z.boolean().optional(),
    merged: z.boolean().nullable().optional(),
    body: z.string().nullable(),
    user: z.object({ login: z.string() }).nullable(),
    base: z.object({ ref: z.string() }),
    head: z.object({ sha: z.string() }),
    labels: z.array(z.object({ name: z.string() })).default([]),
  }),
});

const RECORD_ACTIONS = new Set(['opened', 'reopened', 'edited', 'synchronize', 'ready_for_review', 'converted_to_draft', 'labeled']);

export async function onPullRequest(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) return;
  const { action, sender, pull_request: pr, label } = parsed.data;
  const own = sender.login === ctx.gh.botLogin;
  if (action === 'closed') return onClosed(ctx, pr.number, pr.merged === true, own, sender.login, pr.head.sha);
  if (action === 'labeled' && label?.name === ctx.config.selection.label && !own) {
    // The selection label accepts a PR only when a trusted account added it: record who did.
    if ((await trustOfLogin(ctx, sender.login, sender.type === 'Bot')).trusted) await recordSelectionLabel(ctx, pr.number, sender.login);
  }
  if (!RECORD_ACTIONS.has(action)) return;
  // Arbiter's own acts (marking ready, labelling) are never read as a person's; a PR it opened
  // itself (the combined candidate) is recorded like any candidate.
  if (own && action !== 'synchronize' && action !== 'opened') return;
  const recorded = await recordCandidate(ctx, {
    number: pr.number,
    draft: pr.draft === true,
    state: pr.state,
    body: pr.body,
    base: pr.base.ref,
    headSha: pr.head.sha,
    author: pr.user?.login ?? '',
    labels: pr.labels.map((l) => l.name),
  }, { revive: action === 'reopened' ? 'reopened' : undefined });
  // The group it left (if any) first, as recording found it; then the candidate itself.
  await runSteps(ctx, [...recorded.next, ...(recorded.candidate ? [{ kind: 'verify' as const, pr: pr.number }] : [])]);
}

async function onClosed(ctx: RepoContext, number: number, merged: boolean, own: boolean, by: string, headSha: string): Promise<void> {
  const { store } = ctx.deps;
  const candidate = await store.getCandidate(ctx.key, number);
  if (!candidate) return;
  const change = await store.getChange(ctx.key, candidate.change);
  if (!change) return;
  if (merged) {
    const round = await store.currentRound(ctx.key, candidate.change, candidate.base, nowIso(ctx));
    await afterMerged(ctx, { change, base: candidate.base, pr: number, sha: headSha, by: own ? null : by, round: round.number, scope: 'merged' });
    return;
  }
  if (own || !OPEN_STATES.has(candidate.state)) return;
  await store.setCandidateState(ctx.key, number, 'withdrawn', `closed by @${by}`);
  await store.addEvent(ctx.key, 'candidate.withdrawn', { pr: number, by }, nowIso(ctx));
  await writeCheck(ctx, { pr: number, headSha: candidate.headSha, name: 'Arbiter / selection', status: 'completed', conclusion: 'neutral', title: `Withdrawn: closed by @${by}`, summary: `@${by} closed this candidate; it leaves the comparison for #${candidate.change}.` });
  await completeOwnChecks(ctx, candidate, `Withdrawn: closed by @${by}`);
  // A withdrawn sibling may have been the one the others were waiting on.
  await selectAndFollow(ctx, candidate.change, candidate.base);
}
