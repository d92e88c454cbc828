// The plan: a decision is a list of actions, each with an idempotency key, applied once by
// the executor (src/workflows/execute.ts). Pure data; building a plan does no I/O. The schemas
// parse a plan read back from the store: a row is parsed, never cast.
import { z } from 'zod';
import { CheckRunContent } from './check-run.ts';
import { Receipt } from './receipt.ts';
import { AcceptanceEvidence, CandidateState, ChangeState, GateEvidence } from './types.ts';
import { SetRecord } from './candidate-set.ts';
import { digest } from './digest.ts';
import { checkWriteKey } from './keys.ts';
import { PORTFOLIO_ACTIONS } from './portfolio-actions.ts';
import { ROUND_ACTIONS } from './round-actions.ts';
import { RECORD_ACTIONS } from './record-actions.ts';

export { CheckRunAnnotation, CheckRunButton, CheckRunContent, CheckRunName } from './check-run.ts';

const MergeMethod = z.enum(['merge', 'squash', 'rebase']);

const keyed = { key: z.string() };
const pr = z.number().int();

const CommentAction = z.object({
  kind: z.literal('comment'),
  ...keyed,
  issue: pr,
  marker: z.string(),
  body: z.string(),
});
const CloseAction = z.object({
  kind: z.literal('close'),
  ...keyed,
  pr,
  relabel: z.object({ add: z.array(z.string()), remove: z.array(z.string()) }).optional(),
});
const LabelAction = z.object({ kind: z.literal('label'), ...keyed, issue: pr, labels: z.array(z.string()) });
const CheckRunAction = z.object({
  kind: z.literal('check-run'),
  ...keyed,
  pr,
  headSha: z.string(),
  ...CheckRunContent.shape,
});

export const Action = z.discriminatedUnion('kind', [
  ...PORTFOLIO_ACTIONS,
  ...ROUND_ACTIONS,
  ...RECORD_ACTIONS,
  CommentAction,
  /**
   * `relabel`: the labels the closure adds and removes. With the PR's labels read by this job at
   * hand, one write closes and relabels it; otherwise each is its own write (workflows/execute.ts).
   */
  CloseAction,
  LabelAction,
  /** A reaction on a person's comment (a command's acknowledgement). */
  z.object({
    kind: z.literal('react'),
    ...keyed,
    commentId: z.number().int(),
    content: z.enum(['+1', 'eyes', 'confused']),
  }),
  z.object({ kind: z.literal('unlabel'), ...keyed, issue: pr, label: z.string() }),
  z.object({ kind: z.literal('mark-ready'), ...keyed, pr }),
  z.object({ kind: z.literal('merge'), ...keyed, pr, sha: z.string(), method: MergeMethod }),
  z.object({ kind: z.literal('auto-merge'), ...keyed, pr, sha: z.string(), method: MergeMethod, queue: z.boolean() }),
  /**
   * Turns off the auto-merge Arbiter enabled on `pr` at `sha` (GraphQL `disablePullRequestAutoMerge`):
   * that head lost its place (moved, a new round, rejected, cancelled, a sibling won). `marker` is the
   * store's mark of that auto-merge, taken once GitHub shows none of Arbiter's; `why` says what ended it.
   */
  z.object({
    kind: z.literal('disable-auto-merge'),
    ...keyed,
    pr,
    sha: z.string(),
    marker: z.string(),
    why: z.string(),
  }),
  /**
   * Takes `pr` out of the merge queue (GraphQL `dequeuePullRequest`) when Arbiter queued it and it must
   * not merge any more (cancelled, its head moved, another winner); `why` says what ended it. GitHub is
   * asked first: a pull request no longer queued is left as it is.
   */
  z.object({ kind: z.literal('dequeue'), ...keyed, pr, sha: z.string(), marker: z.string(), why: z.string() }),
  /** Brings the PR's branch up to date with its base (`PUT …/update-branch`, `expected_head_sha`: `sha`); its new head is verified before any merge. */
  z.object({ kind: z.literal('update-branch'), ...keyed, pr, sha: z.string() }),
  z.object({
    kind: z.literal('request-review'),
    ...keyed,
    pr,
    reviewers: z.array(z.string()),
    teams: z.array(z.string()),
  }),
  CheckRunAction,
  z.object({
    kind: z.literal('dispatch'),
    ...keyed,
    eventType: z.string(),
    payload: z.record(z.string(), z.unknown()),
  }),
  z.object({ kind: z.literal('receipt'), ...keyed, receipt: Receipt }),
  /** `observed`: records what already happened on GitHub (a merge, a closure), kept in shadow mode. */
  z.object({
    kind: z.literal('set-state'),
    ...keyed,
    pr,
    state: CandidateState,
    reason: z.string(),
    observed: z.boolean().optional(),
  }),
  /**
   * Records a pull request as a candidate of `change` in `state` (a late sibling recorded stale).
   * Kept in shadow mode, as the record of a pull request Arbiter answered.
   */
  z.object({
    kind: z.literal('record-candidate'),
    ...keyed,
    candidate: z.object({
      pr,
      change: z.number().int(),
      base: z.string(),
      headSha: z.string(),
      author: z.string(),
      state: CandidateState,
      reason: z.string(),
      /** When its head was seen (the step's clock). */
      headSeenAt: z.string(),
    }),
  }),
  /**
   * Stores what a head's check found, under its kind (`gate`: its required checks; `acceptance`: its
   * criteria judged, stamped with the criteria's hash), for the steps that read it back. Kept in
   * shadow mode: it changes nothing on GitHub.
   */
  z.object({
    kind: z.literal('put-evidence'),
    ...keyed,
    pr,
    headSha: z.string(),
    evidence: z.discriminatedUnion('of', [
      z.object({ of: z.literal('gate'), data: GateEvidence }),
      z.object({ of: z.literal('acceptance'), data: AcceptanceEvidence.extend({ criteriaHash: z.string() }) }),
    ]),
  }),
  /**
   * Takes the check events kept for `headSha` (handlers/checks.ts): the step verifies that head's
   * candidates itself, so no later run repeats it. Kept in shadow mode: it changes nothing on GitHub.
   */
  z.object({ kind: z.literal('take-kept-checks'), ...keyed, headSha: z.string() }),
  /**
   * A decided state of the Change (`human`: it waits for a person); dropped in shadow mode unless
   * `observed`: it records what happened or was said in both modes (a merge, a decided round's gate).
   */
  z.object({
    kind: z.literal('set-change-state'),
    ...keyed,
    change: z.number().int(),
    state: ChangeState,
    observed: z.boolean().optional(),
  }),
  /** Opens round `from + 1` of `change` on `base` when `from` is its newest round (the store's conditional insert). */
  z.object({
    kind: z.literal('open-round'),
    ...keyed,
    change: z.number().int(),
    base: z.string(),
    from: z.number().int(),
    at: z.string(),
  }),
  /** Forgets the evidence of one kind stored for a head (`/arbiter recheck`: acceptance is judged again). */
  z.object({
    kind: z.literal('forget-evidence'),
    ...keyed,
    pr,
    headSha: z.string(),
    evidence: z.enum(['gate', 'acceptance']),
  }),
  /** Adds an entry to the store's event log (`promotion.head-moved`, what a person's word did, …). Kept in shadow mode. */
  z.object({ kind: z.literal('event'), ...keyed, event: z.string(), data: z.unknown(), at: z.string() }),
  /** Takes the Change's one repair for `pr` (a conditional insert: at most one per Change). */
  z.object({ kind: z.literal('claim-repair'), ...keyed, change: z.number().int(), pr }),
  /**
   * The combined candidate's build, one GitHub write a step (core/plan/combine-build.ts), each
   * answer the next step's input: creates `branch` at `base`'s head (a branch found there already
   * is this build's, from before a restart).
   */
  z.object({ kind: z.literal('combine-branch'), ...keyed, branch: z.string(), base: z.string() }),
  /**
   * Merges `sha` (parent #`source`) into `branch`: a side of the build, or a parent's new head into
   * the combined PR's head (core/plan/combine-rebuild.ts). The answer (merged, nothing to merge, or
   * GitHub's refusal) is the next step's input. `readHead`: a merge without a sha (nothing to merge:
   * it landed before a restart) answers with the branch's head, read after it.
   */
  z.object({
    kind: z.literal('combine-merge'),
    ...keyed,
    change: z.number().int(),
    branch: z.string(),
    source: pr,
    sha: z.string(),
    readHead: z.boolean().optional(),
  }),
  /** Opens the build's draft PR from `branch` into `base`, once: Arbiter's own PR from it is looked for first. */
  z.object({
    kind: z.literal('combine-pull'),
    ...keyed,
    branch: z.string(),
    base: z.string(),
    title: z.string(),
    body: z.string(),
  }),
  /** Deletes the branch of a build that ended without a combined PR. */
  z.object({ kind: z.literal('combine-delete'), ...keyed, branch: z.string() }),
  /**
   * Records a fact under its key in the store's ledger (the first record stands): what a step
   * learned or did that a later step reads (a repair a rejection granted, a branch Arbiter updated,
   * the combined candidate built). Kept in shadow mode: it changes nothing on GitHub.
   */
  z.object({ kind: z.literal('record'), ...keyed, value: z.unknown() }),
  /** Stores what a composite candidate's plan found (workflows/candidate-set.ts): its members and standing. */
  z.object({ kind: z.literal('record-set'), ...keyed, record: SetRecord }),
  /**
   * Actions on pull requests of another repository of the installation (a candidate set's members:
   * a check, a note, a label, a closure), applied there in order, each once by its own key.
   */
  /** Another reading of the scoring check on `pr`: its run asked to run again (an Actions job, or a check-run rerequest). */
  z.object({
    kind: z.literal('rerun'),
    ...keyed,
    pr,
    run: z.object({ id: z.number().int(), appSlug: z.string().nullable() }),
  }),
  z.object({
    kind: z.literal('in-repo'),
    ...keyed,
    repo: z.string(),
    actions: z.array(z.discriminatedUnion('kind', [CheckRunAction, CommentAction, CloseAction, LabelAction])),
  }),
  /**
   * Writes the repository's dashboard issue (workflows/dashboard.ts): `issue` null opens it, its
   * number recorded under the dashboard's key; else its body is replaced. Kept in shadow mode: the
   * issue is Arbiter's own, and changes no pull request.
   */
  z.object({
    kind: z.literal('dashboard-issue'),
    ...keyed,
    issue: z.number().int().nullable(),
    title: z.string(),
    body: z.string(),
  }),
  /**
   * Keeps a check event on `headSha`, a head no candidate has recorded yet (or one a later delivery
   * reads): the run that records or verifies that head takes it, and the sweep otherwise. Kept in
   * shadow mode: it changes nothing on GitHub.
   */
  z.object({ kind: z.literal('keep-check'), ...keyed, headSha: z.string(), at: z.string() }),
  /**
   * Takes the store key `key` for the run whose token is `holder` (one insert-once row, holding
   * `{ token, at? }`): the race it decides (one acceptance per head, one dashboard run per minute)
   * goes to the first run. Never recorded as applied: the executor answers each time who holds it
   * (ClaimAnswer, by `key`). Kept in shadow mode: a record that decides a race, no PR-state write.
   */
  z.object({ kind: z.literal('claim'), ...keyed, holder: z.string(), at: z.string().optional() }),
  /**
   * Takes `calls` model calls from the Change's budget and the installation's day (`day`, YYYY-MM-DD)
   * within `limits`, or nothing: answered each time (true when taken, by `key`), never recorded.
   * Kept in shadow mode: the acceptance check judges there too.
   */
  z.object({
    kind: z.literal('take-budget'),
    ...keyed,
    change: z.number().int(),
    day: z.string(),
    calls: z.number().int(),
    limits: z.object({ perChange: z.number().int(), dailyPerInstallation: z.number().int() }),
  }),
  /**
   * Stores the patch and merge base of a head, as GitHub gave them (read once per head sha), for the
   * acceptance check to judge. Kept in shadow mode: it changes nothing on GitHub.
   */
  z.object({
    kind: z.literal('put-patch'),
    ...keyed,
    patch: z.object({
      pr,
      headSha: z.string(),
      mergeBase: z.string(),
      patch: z.string(),
      truncated: z.boolean(),
      files: z.array(
        z.object({
          path: z.string(),
          status: z.string(),
          additions: z.number().int(),
          deletions: z.number().int(),
          binary: z.boolean().optional(),
        }),
      ),
    }),
  }),
]);
export type Action = z.infer<typeof Action>;

export type ActionKind = Action['kind'];

/** Writes that change PR state (or run CI) on GitHub; shadow mode drops them from a plan. */
export const PR_STATE_ACTIONS: ReadonlySet<ActionKind> = new Set([
  'close',
  'label',
  'unlabel',
  'mark-ready',
  'merge',
  'auto-merge',
  'disable-auto-merge',
  'dequeue',
  'update-branch',
  'request-review',
  'dispatch',
  'combine-branch',
  'combine-merge',
  'combine-pull',
  'combine-delete',
  'rerun',
]);

/** The action that records `value` under `key` (the first record stands). */
export const recordAction = (key: string, value: unknown): Extract<Action, { kind: 'record' }> => ({
  kind: 'record',
  key,
  value,
});

/** A `claim` action's answer: this action took the key, its holder held it before (a retry), or another run holds it. */
export const ClaimAnswer = z.enum(['new', 'mine', 'taken']);
export type ClaimAnswer = z.infer<typeof ClaimAnswer>;

/** The claim of store key `key` for the run whose token is `holder` (`at`: kept with it, for a claim read by time). */
export const claimAction = (key: string, holder: string, at?: string): Extract<Action, { kind: 'claim' }> => ({
  kind: 'claim',
  key,
  holder,
  ...(at === undefined ? {} : { at }),
});

/**
 * A plan whose action keyed `gate` is a conditional store record (a slot still composing, a refine
 * still awaited, an explore still in its phase): `then` follows when it changed what it guards,
 * `otherwise` when it found it changed already (workflows/execute.ts `executeGated`).
 */
export interface GatedPlan {
  actions: Action[];
  gate: string;
  then: Action[];
  otherwise: Action[];
}

export type CheckRunAction = Extract<Action, { kind: 'check-run' }>;

/**
 * A check run written on its own (a waiting list, a gate in progress, a refusal), as an action the
 * executor applies: keyed by its content, and skipped while the check shows that content already,
 * so the same content twice in a row is written once and content that came back is written again.
 */
export function checkAction(repo: string, check: Omit<CheckRunAction, 'kind' | 'key'>): CheckRunAction {
  return { kind: 'check-run', key: checkWriteKey(repo, check.headSha, check.name, digest(check)), ...check };
}
