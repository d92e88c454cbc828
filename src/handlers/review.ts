// pull_request_review: an approving review by someone with write access ships a gated winner;
// a changes-requested review with a body is a rejection with that reason.
import { z } from 'zod';
import { LABEL_AWAITING } from '../core/plan.ts';
import type { RepoContext } from '../workflows/context.ts';
import { promoteByPerson, rejectByPerson } from '../workflows/people.ts';

const Payload = z.object({
  action: z.literal('submitted'),
  review: z.object({ state: z.string(), body: z.string().nullable(), user: z.object({ login: z.string(), type: z.string().optional() }).nullable() }),
  pull_request: z.object({ number: z.number().int(), labels: z.array(z.object({ name: z.string() })).default([]) }),
});

const MAY_SHIP = new Set(['write', 'maintain', 'admin']);

export async function onReview(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success || !parsed.data.review.user) return;
  const { review, pull_request: pr } = parsed.data;
  const user = review.user!.login;
  if (review.user!.type === 'Bot' || user.endsWith('[bot]')) return;
  const candidate = await ctx.deps.store.getCandidate(ctx.key, pr.number);
  if (!candidate || candidate.state !== 'selected') return;
  if (!MAY_SHIP.has(await ctx.gh.permission(user))) return;
  const state = review.state.toLowerCase();
  if (state === 'approved' && pr.labels.some((l) => l.name === LABEL_AWAITING)) {
    const result = await promoteByPerson(ctx, pr.number, user, 'review');
    ctx.log.info({ pr: pr.number, ok: result.ok, user }, 'approval');
  } else if (state === 'changes_requested' && review.body && review.body.trim().length > 0) {
    await rejectByPerson(ctx, pr.number, user, review.body.trim().slice(0, 1000));
  }
}
