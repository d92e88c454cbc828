// pull_request_review: an approving review by a person with write access ships a gated winner (in
// shadow mode it is answered with what would ship); a changes-requested review with a body is a
// rejection with that reason. A bot's review never counts (neither its author nor the webhook's
// sender may be a bot), nor a failed permission read.
import { z } from 'zod';
import { isBotAccount, personActCounts } from '../core/trust.ts';
import type { RepoContext } from '../workflows/context.ts';
import { isGated, rejectByPerson } from '../workflows/people.ts';
import { approveByReview } from '../workflows/person-promote.ts';
import { lookupPermission } from '../workflows/trust.ts';

const Payload = z.object({
  action: z.literal('submitted'),
  review: z.object({
    state: z.string(),
    body: z.string().nullable(),
    user: z.object({ login: z.string(), type: z.string().optional() }).nullable(),
  }),
  pull_request: z.object({ number: z.number().int() }),
  sender: z.object({ login: z.string(), type: z.string().optional() }).optional(),
});

export async function onReview(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success || !parsed.data.review.user) return;
  const { review, pull_request: pr } = parsed.data;
  const user = review.user!.login;
  const sender = parsed.data.sender ?? review.user!;
  const notAPerson =
    isBotAccount(review.user!) || isBotAccount(sender) || sender.login.toLowerCase() !== user.toLowerCase();
  if (notAPerson) {
    ctx.log.info({ pr: pr.number, user, sender: sender.login }, "a bot's review never counts: ignored");
    return;
  }
  const candidate = await ctx.deps.store.getCandidate(ctx.key, pr.number);
  if (!candidate) return;
  // Before a person as the round's decision says, in either mode (shadow mode records no `selected`
  // and adds no label): the same plan `promote` reads.
  const gated = await isGated(ctx, candidate);
  if (candidate.state !== 'selected' && !gated) return;
  const act = personActCounts({ login: user, isBot: false }, await lookupPermission(ctx, user));
  if (!act.counts) {
    ctx.log.info({ pr: pr.number, user, reason: act.reason }, 'review does not count');
    return;
  }
  const state = review.state.toLowerCase();
  if (state === 'approved' && gated) {
    const result = await approveByReview(ctx, pr.number, user);
    ctx.log.info({ pr: pr.number, ok: result.ok, user }, 'approval');
  } else if (state === 'changes_requested' && review.body && review.body.trim().length > 0) {
    await rejectByPerson(ctx, pr.number, user, review.body.trim().slice(0, 1000));
  }
}
