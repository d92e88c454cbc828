// check_run, check_suite and status: a check on a candidate head concluded or changed, so its
// gate evidence is read again. Arbiter's own check runs never count. A check on a head no
// candidate has recorded yet (its `synchronize` is still on its way) is kept, and applied when
// that head is recorded (src/workflows/candidates.ts).
import { z } from 'zod';
import { isArbiterCheck } from '../core/gate.ts';
import { nowIso, type RepoContext } from '../workflows/context.ts';
import { verifyAndSelect } from '../workflows/flow.ts';

const OnPulls = z.array(z.object({ number: z.number() })).optional();
const Payload = z.object({
  check_run: z
    .object({
      name: z.string(),
      head_sha: z.string(),
      pull_requests: OnPulls,
      check_suite: z.object({ app: z.object({ slug: z.string() }).nullable().optional() }).optional(),
      app: z.object({ slug: z.string() }).nullable().optional(),
    })
    .optional(),
  check_suite: z
    .object({ head_sha: z.string(), pull_requests: OnPulls, app: z.object({ slug: z.string() }).nullable().optional() })
    .optional(),
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
  const { store } = ctx.deps;
  // A candidate that left its group (shipped, lost) is verified no more, but the retry of the run
  // that decided its group on this check's delivery still finishes that decision: every candidate
  // on the head is looked at.
  const onHead = () => store.listCandidatesByHead(ctx.key, sha);
  let candidates = await onHead();
  if (candidates.length === 0) {
    // Only a check GitHub ties to a pull request is kept: CI on the default branch, or on a branch
    // nobody proposes, costs no write (and evaluating a head reads its checks from GitHub anyway).
    const pulls = p.check_run?.pull_requests ?? p.check_suite?.pull_requests ?? [];
    if (pulls.length === 0) return;
    await store.keepCheckEvent(ctx.key, sha, nowIso(ctx));
    // The head may have been recorded between the read and the keep, after its recorder looked
    // for kept events: read again, so one of the two always applies it.
    candidates = await onHead();
    if (candidates.length === 0) return;
    await store.takeKeptCheckEvents(ctx.key, sha);
  }
  for (const c of candidates) await verifyAndSelect(ctx, c.pr);
}
