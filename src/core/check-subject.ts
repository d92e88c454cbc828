// Which head a check event asks Arbiter to look at again. Check events on one head are
// interchangeable: each says "read this head's checks from GitHub", so of several deliveries
// still pending on one head only the last needs to read (src/handlers/checks.ts). CI reports
// each check run and suite on its own, a burst of them per head.
import { z } from 'zod';
import { isArbiterCheck } from './gate.ts';
import { checkSubjectKey } from './keys.ts';

const App = z.object({ slug: z.string() }).nullable().optional();
const Payload = z.object({
  action: z.string().optional(),
  repository: z.object({ full_name: z.string() }).optional(),
  check_run: z
    .object({
      name: z.string(),
      head_sha: z.string(),
      status: z.string().optional(),
      app: App,
      check_suite: z.object({ app: App }).optional(),
    })
    .optional(),
  check_suite: z
    .object({
      head_sha: z.string(),
      app: App,
      conclusion: z.string().nullable().optional(),
      latest_check_runs_count: z.number().optional(),
    })
    .optional(),
  sha: z.string().optional(),
  state: z.string().optional(),
  context: z.string().optional(),
});

/**
 * Whether a check event says a check concluded: a check run completed (also one created
 * completed), a suite completed, a commit status other than pending. Only a conclusion can
 * settle a candidate, and each conclusion has its own event, so one that says a check was queued
 * or started asks for no read (its payload may be old anyway: the conclusion's event follows).
 * A suite that holds check runs concludes nothing of its own: GitHub sends each run's
 * `check_run.completed` to every app that reads checks, and the last of them reads the head. A
 * suite with no run (Actions runs awaiting a maintainer's approval complete their suite
 * `action_required` before any job runs), or a payload that does not say, concludes.
 */
export function concludesCheck(event: string, payload: unknown): boolean {
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) return true; // not ours to judge: the handler reads what it can
  const p = parsed.data;
  if (event === 'check_run') return p.check_run?.status === undefined || p.check_run.status === 'completed';
  if (event === 'check_suite') {
    if (p.action !== undefined && p.action !== 'completed') return false;
    const suite = p.check_suite;
    const runsReport = (suite?.latest_check_runs_count ?? 0) > 0 && suite?.conclusion !== 'action_required';
    return !runsReport;
  }
  if (event === 'status') return p.state !== 'pending';
  return true;
}

/**
 * The subject of a check event that makes Arbiter read its head again, or null: a button click, a
 * check of Arbiter's own (by name, or by app once `appSlug` is known) and anything else read no head.
 */
export function checkEventSubject(event: string, payload: unknown, appSlug?: string): string | null {
  if (event !== 'check_run' && event !== 'check_suite' && event !== 'status') return null;
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) return null;
  const p = parsed.data;
  if (event === 'check_run' && (!p.check_run || p.action === 'requested_action')) return null;
  if (event === 'check_suite' && !p.check_suite) return null;
  if (!concludesCheck(event, payload)) return null;
  if (ownCheck(p, appSlug)) return null;
  const sha = event === 'check_run' ? p.check_run?.head_sha : event === 'check_suite' ? p.check_suite?.head_sha : p.sha;
  return sha && p.repository ? checkSubjectKey(p.repository.full_name, sha) : null;
}

const ownCheck = (p: z.infer<typeof Payload>, appSlug: string | undefined): boolean => {
  const slug = p.check_run?.app?.slug ?? p.check_run?.check_suite?.app?.slug ?? p.check_suite?.app?.slug;
  return (slug !== undefined && slug === appSlug) || (p.check_run !== undefined && isArbiterCheck(p.check_run.name));
};

/**
 * A check event that asks Arbiter for nothing, known from the payload alone: one about Arbiter's
 * own checks, or one that says a check was queued or started. A click on a check-run button
 * (`requested_action`) and a "Re-run" (`rerequested`) always ask for something.
 */
export function checkEventAsksNothing(event: string, payload: unknown, appSlug: string | undefined): boolean {
  if (event !== 'check_run' && event !== 'check_suite' && event !== 'status') return false;
  const parsed = Payload.safeParse(payload);
  if (!parsed.success || parsed.data.action === 'requested_action') return false;
  // GitHub's "Re-run" on one of Arbiter's checks (sent only to the run's app) asks to verify again.
  if (parsed.data.action === 'rerequested' && event !== 'status') return false;
  return ownCheck(parsed.data, appSlug) || !concludesCheck(event, payload);
}

/**
 * The subject stored with a delivery at intake: only events whose job surely reads their head
 * again may be waited for by another. While the app's slug is not known yet, a check suite (it may
 * be Arbiter's own, whose job reads nothing) gets none; Arbiter's check runs are told by name.
 */
export function intakeSubject(event: string, payload: unknown, appSlug: string | undefined): string | null {
  if (event === 'check_suite' && appSlug === undefined) return null;
  return checkEventSubject(event, payload, appSlug);
}

/**
 * The name of the check a check event concludes, stored with the delivery at intake beside its
 * subject: a check run's name, a commit status's context. Null for a check suite (it concludes
 * several checks) and for an event that asks for something else (a click, a "Re-run"): a job
 * yields only to a later delivery that surely reads (src/core/plan/check-read.ts), and a null
 * name always reads.
 */
export function intakeCheckName(event: string, payload: unknown, appSlug: string | undefined): string | null {
  if (intakeSubject(event, payload, appSlug) === null) return null;
  const parsed = Payload.safeParse(payload);
  if (!parsed.success) return null;
  const p = parsed.data;
  if (p.action === 'rerequested' || p.action === 'requested_action') return null;
  if (event === 'check_run') return p.check_run?.name ?? null;
  if (event === 'status') return p.context ?? null;
  return null;
}
