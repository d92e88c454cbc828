// check_run, check_suite and status: a check on a candidate head concluded or changed, so its
// gate evidence is read again. Arbiter's own check runs never count. A check on a head no
// candidate has recorded yet (its `synchronize` is still on its way) is kept, and applied when
// that head is recorded (src/workflows/candidates.ts). Of several check events still pending on
// one head (CI reports each run and suite on its own), or on the heads of one small group, only
// the last that surely reads does; a check nobody decides on, concluding while a required one is
// still pending, reads nothing, nor does a required one that passes while another required one has
// not reported yet (src/workflows/check-read.ts).
import { z } from 'zod';
import { checkEventAsksNothing, checkEventSubject } from '../core/check-subject.ts';
import { checkOutcome } from '../core/gate.ts';
import { checkSubjectKey } from '../core/keys.ts';
import { deliveryOfToken, type RepoContext } from '../workflows/context.ts';
import { runSteps, smallGroupOf, verifyOnCheckEvent } from '../workflows/flow.ts';
import { replanSetOfHead } from '../workflows/candidate-set.ts';
import { keepCheckEvent, onlyUnnamedRead, planCheckEvent, takeKeptChecks } from '../workflows/check-read.ts';

const OnPulls = z.array(z.object({ number: z.number() })).optional();
const Payload = z.object({
  check_run: z
    .object({
      name: z.string(),
      head_sha: z.string(),
      status: z.string().optional(),
      conclusion: z.string().nullable().optional(),
      pull_requests: OnPulls,
    })
    .optional(),
  check_suite: z.object({ head_sha: z.string(), pull_requests: OnPulls }).optional(),
  sha: z.string().optional(),
  state: z.string().optional(),
  context: z.string().optional(),
});

/** The payload says its check passed: a check run or a commit status, never a suite. */
function payloadPassed(event: string, p: z.infer<typeof Payload>): boolean {
  if (event === 'check_run' && p.check_run)
    return checkOutcome('check', p.check_run.status ?? 'completed', p.check_run.conclusion ?? null) === 'pass';
  if (event === 'status' && p.state !== undefined) return checkOutcome('status', p.state, null) === 'pass';
  return false;
}

export async function onCheckEvent(
  ctx: RepoContext,
  payload: Record<string, unknown>,
  event = 'check_run',
): Promise<void> {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) return;
  const p = parsed.data;
  // Arbiter's own checks, and a check queued or started (it settles nothing: its conclusion's own
  // event asks for the read). handleDelivery drops these before the config read already.
  if (checkEventAsksNothing(event, payload, ctx.deps.appSlug)) return;
  const sha = p.check_run?.head_sha ?? p.check_suite?.head_sha ?? p.sha;
  if (!sha) return;
  const { store } = ctx.deps;
  const subject = checkEventSubject(event, payload, ctx.deps.appSlug);
  const delivery = deliveryOfToken(ctx.token);
  /**
   * A later delivery still to run on one of these heads reads them after this event (its job runs
   * after it was recorded): this run leaves the work to it. One on a sibling's head verifies this
   * head only if its group is still this one when it runs, so this head is kept meanwhile: the run
   * that verifies the group takes it, and the sweep verifies it should nobody have.
   */
  const yields = async (
    heads: string[],
    laterReads: (check: string | null, subject: string) => boolean,
  ): Promise<boolean> => {
    if (!subject || !delivery) return false;
    const subjects = [...new Set([subject, ...heads.map((h) => checkSubjectKey(ctx.key, h))])];
    const later = await store.yieldsToLaterDelivery(delivery, subjects, laterReads);
    if (later === null) return false;
    if (later !== subject) await keepCheckEvent(ctx, sha);
    ctx.log.debug({ subject, later }, 'check event: a later delivery on this group reads it');
    return true;
  };
  // A candidate that left its group (shipped, lost) is verified no more, but the retry of the run
  // that decided its group on this check's delivery still finishes that decision: every candidate
  // on the head is looked at.
  const onHead = () => store.listCandidatesByHead(ctx.key, sha);
  let candidates = await onHead();
  let took = false;
  // A composite candidate's member: its set's gate follows the check (workflows/candidate-set.ts).
  if (candidates.length === 0) {
    const setSteps = await replanSetOfHead(ctx, sha);
    if (setSteps !== null) return runSteps(ctx, setSteps);
  }
  if (candidates.length === 0) {
    // Only a check GitHub ties to a pull request is kept: CI on the default branch, or on a branch
    // nobody proposes, costs no write (and evaluating a head reads its checks from GitHub anyway).
    const pulls = p.check_run?.pull_requests ?? p.check_suite?.pull_requests ?? [];
    if (pulls.length === 0 || (await yields([], onlyUnnamedRead))) return;
    await keepCheckEvent(ctx, sha);
    // The head may have been recorded between the read and the keep, after its recorder looked
    // for kept events: read again, so one of the two always applies it.
    candidates = await onHead();
    if (candidates.length === 0) return;
    await takeKeptChecks(ctx, sha);
    took = true;
  }
  // A check nobody decides on, while a required one is still pending or once the gate settled, is
  // recorded without a read.
  const passed = payloadPassed(event, p);
  const step = await planCheckEvent(ctx, delivery ?? undefined, candidates, took, passed);
  if (!step.plan.read) {
    ctx.log.debug(
      { subject, waitingOn: step.plan.waitingOn },
      'check event: decides nothing (required checks still run, or the gate settled)',
    );
    return;
  }
  // A small group is verified whole (flow.ts), so a later event on any of its heads covers this one.
  const only = candidates.length === 1 ? candidates[0] : undefined;
  const group = only ? await smallGroupOf(ctx, only.pr) : null;
  // A later delivery that passed may wait in turn for a check not reported yet on its own head. So a
  // check that did not pass (it settles its gate) leaves its read only to a delivery that surely
  // reads, and one that passed leaves it to a later one on a sibling's head only if that surely
  // reads: on its own head the last delivery to read sees every earlier one, on another it may not.
  const laterReads = (check: string | null, on: string): boolean =>
    passed && on === subject ? step.laterReads(check) : onlyUnnamedRead(check);
  if (await yields(group?.map((s) => s.headSha) ?? [], laterReads)) return;
  for (const c of candidates) await verifyOnCheckEvent(ctx, c.pr);
}
