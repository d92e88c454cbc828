// check_run, check_suite and status: a check on a candidate head concluded or changed, so its
// gate evidence is read again. Arbiter's own check runs never count.
import { z } from 'zod';
import { isArbiterCheck } from '../core/gate.ts';
import type { RepoContext } from '../workflows/context.ts';
import { evaluateCandidate } from '../workflows/evaluate.ts';

const Payload = z.object({
  check_run: z.object({ name: z.string(), head_sha: z.string(), check_suite: z.object({ app: z.object({ slug: z.string() }).nullable().optional() }).optional(), app: z.object({ slug: z.string() }).nullable().optional() }).optional(),
  check_suite: z.object({ head_sha: z.string(), app: z.object({ slug: z.string() }).nullable().optional() }).optional(),
  sha: z.string().optional(),
  context: z.string().optional(),
});

export async function onCheckEvent(ctx: RepoContext, payload: Record<string, unknown>): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) return;
  const p = parsed.data;
  const slug = p.check_run?.app?.slug ?? p.check_run?.check_suite?.app?.slug ?? p.check_suite?.app?.slug;
  if (slug === ctx.deps.appSlug) return;
  if (p.check_run && isArbiterCheck(p.check_run.name)) return;
  const sha = p.check_run?.head_sha ?? p.check_suite?.head_sha ?? p.sha;
  if (!sha) return;
  // A candidate that left its group (shipped, lost) is verified no more, but the retry of the run
  // that decided its group on this check's delivery still finishes that decision.
  const candidates = await ctx.deps.store.listCandidatesByHead(ctx.key, sha);
  for (const c of candidates) await evaluateCandidate(ctx, c.pr);
}
