// issues: editing a Change's body re-parses its criteria; when they changed, acceptance runs
// again for its open candidates (and a decided round starts over).
import { z } from 'zod';
import { OPEN_STATES, refreshChange } from '../workflows/candidates.ts';
import { nowIso, type RepoContext } from '../workflows/context.ts';
import { evaluateCandidate } from '../workflows/evaluate.ts';

const Payload = z.object({ action: z.string(), issue: z.object({ number: z.number().int(), pull_request: z.unknown().optional() }) });

export async function onIssues(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success || parsed.data.action !== 'edited' || parsed.data.issue.pull_request) return;
  const { store } = ctx.deps;
  const number = parsed.data.issue.number;
  const before = await store.getChange(ctx.key, number);
  if (!before) return;
  const after = await refreshChange(ctx, number);
  if (!after || JSON.stringify(after.criteria) === JSON.stringify(before.criteria)) return;
  const open = (await store.listCandidatesOfChange(ctx.key, number)).filter((c) => OPEN_STATES.has(c.state));
  for (const base of new Set(open.map((c) => c.base))) {
    const round = await store.currentRound(ctx.key, number, base, nowIso(ctx));
    if (round.selection !== null) await store.openNextRound(ctx.key, number, base, round.number, nowIso(ctx));
  }
  for (const c of open) {
    await store.setCandidateState(ctx.key, c.pr, 'verifying', 'criteria changed');
    await evaluateCandidate(ctx, c.pr);
  }
}
