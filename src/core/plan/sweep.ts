// The sweep's decision on a repair that never arrived (either origin: selection or a person's
// rejection): the Change goes to the human gate, in full. Pure: the shell finds the targets and reviewers.
// Its receipt carries its inputs and what it planned, so `npm run replay` decides it again. And the
// sweep's steps around a round its claimant left (each failed try recorded, and the budget's end),
// and around a head whose kept check events no run verified.
import { markerFor } from '../render/markers.ts';
import { recordAction, type Action } from '../actions.ts';
import type { SelectionPlan } from '../plan-schema.ts';
import type { RepairTimeoutInputs } from '../receipt.ts';
import { plannedActions } from '../replay-lines.ts';
import { humanGateReceipt, planHumanGate } from './human-gate.ts';
import { planRoundViews } from './views.ts';
import { changeActionKey, keptTakenKey, markerKey, repairExpiredKey, resumeFailedKey, roundDoneKey } from '../keys.ts';

/** The recorded inputs (core/receipt.ts), with the round's recorded plan read as one. */
export interface RepairTimeoutInput extends Omit<RepairTimeoutInputs, 'decided'> {
  /** The round's recorded plan: its inputs give the gate its criteria, evidence and links (null: none recorded). */
  decided: SelectionPlan | null;
}

/**
 * The repair never arrived: the full human gate (the same one a decided round puts a winner
 * before: criteria by why, reviewers mentioned, commands, the Promote button, one conclusion), and
 * the round's views rendered again for it (views.ts). The Change hears it once, in its comparison.
 */
export function planRepairTimeout(input: RepairTimeoutInput): { actions: Action[]; why: string } {
  const { repo, change, round, repairOf, prefix } = input;
  const minutes = Math.round(input.timeout / 60);
  const names = input.targets.map((t) => `#${t.pr}`).join(', ');
  const choose = repairOf.rejected
    ? input.targets.some((t) => t.pr !== repairOf.pr)
      ? `#${repairOf.pr} was rejected by a person and stays out. Choose one of ${names} with \`${prefix} promote\`, or cancel the change.`
      : `#${repairOf.pr} was rejected by a person and stays out; no other candidate is open. Close it and wait for a new candidate, or cancel the change.`
    : 'Approve to ship it as it is or cancel the change.';
  const arrived = `The requested repair of #${repairOf.pr} did not arrive within ${minutes} minutes.`;
  const why = `${arrived} ${choose}`;
  const k = (s: string): string => changeActionKey(repo, change, input.base, `r${round}`, 'repair-timeout', s);
  const inputs = input.decided?.receipt.data.inputs;
  const recorded = new Map((inputs?.siblings ?? []).map((e) => [e.pr, e]));
  // The evidence the round decided on, when it is of the head the repair was asked for.
  const evidence = new Map(
    input.targets.flatMap((t) => {
      const e = recorded.get(t.pr);
      return e && e.headSha === t.headSha ? [[t.pr, e] as const] : [];
    }),
  );
  const before = input.targets.filter((t) => !(repairOf.rejected && t.pr === repairOf.pr)).map((t) => t.pr);
  const gated = before.length > 0 ? before : input.targets.map((t) => t.pr);
  const actions: Action[] = planHumanGate({
    repo,
    change: { number: change, criteria: inputs?.change.criteria ?? [] },
    base: input.base,
    before: gated,
    winner: repairOf.rejected ? (gated.length === 1 ? gated[0] : null) : repairOf.pr,
    why,
    evidence,
    heads: new Map(input.targets.map((t) => [t.pr, t.headSha])),
    titles: inputs?.display?.titles,
    repoUrl: inputs?.display?.repoUrl ?? null,
    prefix,
    reviewers: input.reviewers,
    // The words of the mode the round was decided in (a repair is claimed in live mode only).
    config: inputs?.config ?? { mode: 'live' },
    losers: input.decided?.verdict.losers ?? [],
    buttons: input.buttons,
    title: () => 'Repair timed out: a person must decide',
    askAgain: true,
    key: k,
  });
  for (const t of input.targets) {
    if (repairOf.rejected && t.pr === repairOf.pr) continue;
    actions.push({ kind: 'set-state', key: k(`state/${t.pr}`), pr: t.pr, state: 'selected', reason: why });
  }
  if (input.decided) {
    actions.push(
      ...planRoundViews({
        decided: input.decided,
        end: { kind: 'repair-timeout', pr: repairOf.pr, before: gated, why: arrived },
        prefix,
        repair: { pr: repairOf.pr },
      }),
    );
  }
  actions.push(
    humanGateReceipt(k('receipt'), input, {
      candidates: input.targets.map((t) => t.pr),
      winner: repairOf.rejected ? null : repairOf.pr,
      why: 'repair timed out',
      reviewers: input.reviewers,
    }),
  );
  return { actions: plannedActions(actions, { planner: 'repair-timeout', inputs: input }), why };
}

/**
 * The sweep's step on a repair past its timeout, asked for at `askedAt`: the decision (its receipt
 * replays as it did), then the Change set to wait for a person (observed: shadow mode keeps it, as
 * the sweep's own write did before it was planned) and the expiry recorded, so the repair is never handled twice.
 */
export function planRepairExpired(input: RepairTimeoutInput, askedAt: string): { actions: Action[]; why: string } {
  const { repo, change, round } = input;
  const plan = planRepairTimeout(input);
  const key = changeActionKey(repo, change, input.base, `r${round}`, 'repair-timeout', askedAt, 'change-state');
  return {
    why: plan.why,
    actions: [
      ...plan.actions,
      // Kept in shadow mode, as the sweep's own write was: the Change does wait for a person.
      { kind: 'set-change-state', key, change, state: 'human', observed: true },
      recordAction(repairExpiredKey(repo, change, askedAt), { round }),
    ],
  };
}

export interface ResumeGivenUpInput {
  repo: string;
  change: number;
  round: number;
  base: string;
  attempts: number;
  /** What the last try answered: GitHub's words when GitHub refused. */
  error: string;
  prefix: string;
  now: string;
}

/**
 * The sweep's retry budget for a round its claimant left is spent: the same refused write is not
 * sent again for good. The Change goes to a person, with GitHub's words and what to do.
 */
export function planResumeGivenUp(input: ResumeGivenUpInput): { actions: Action[]; why: string } {
  const { repo, change, round } = input;
  const k = (s: string): string => changeActionKey(repo, change, input.base, `r${round}`, 'resume-given-up', s);
  const why = `Arbiter could not finish round ${round} of #${change} after ${input.attempts} tries; the last answer was: ${input.error.slice(0, 500)}. A person must act: resolve it and use \`${input.prefix} promote\` on the candidate to ship, or cancel the change.`;
  const marker = markerKey('resume-given-up', `${change}@${input.base}/r${round}`);
  const actions: Action[] = [
    { kind: 'comment', key: k('note'), issue: change, marker, body: `${markerFor(marker)}\n${why}` },
    humanGateReceipt(k('receipt'), input, {
      candidates: [],
      winner: null,
      why: `retry budget spent: ${input.error.slice(0, 300)}`,
    }),
  ];
  return { why, actions: plannedActions(actions, { planner: 'resume-given-up', inputs: input }) };
}

/** A round whose claimant left it, and a resumed try of it that failed with a refusal (not GitHub's "try later"). */
export interface ResumeFailureView {
  round: { id: number; repo: string; change: number; number: number; base: string };
  /** The failed tries of this round recorded before this one. */
  recorded: number;
  /** How many failed tries give the round up. */
  budget: number;
  /** What this try answered: GitHub's words when GitHub refused. */
  error: string;
  prefix: string;
}

export interface ResumeFailurePlan {
  actions: Action[];
  /** Which try this was (at most the budget). */
  attempts: number;
  /** The budget is spent: the Change goes to a person and the round is done. */
  gaveUp: boolean;
}

/**
 * A resumed round failed again: the try is recorded (one record per try, the first free slot),
 * and the last try of the budget gives the round up: a person is told with GitHub's words, the
 * Change waits for them (a decided state: shadow mode keeps it back) and the round is done.
 */
export function planResumeFailure(view: ResumeFailureView, now: string): ResumeFailurePlan {
  const { round, budget } = view;
  const attempts = Math.min(budget, view.recorded + 1);
  const tried = recordAction(resumeFailedKey(round.id, Math.max(1, attempts)), { error: view.error.slice(0, 1000) });
  if (attempts < budget) return { actions: [tried], attempts, gaveUp: false };
  const plan = planResumeGivenUp({
    repo: round.repo,
    change: round.change,
    round: round.number,
    base: round.base,
    attempts,
    error: view.error,
    prefix: view.prefix,
    now,
  });
  const k = (s: string): string =>
    changeActionKey(round.repo, round.change, round.base, `r${round.number}`, 'resume-given-up', s);
  return {
    attempts,
    gaveUp: true,
    actions: [
      tried,
      ...plan.actions,
      { kind: 'set-change-state', key: k('change-state'), change: round.change, state: 'human', observed: true },
      recordAction(roundDoneKey(round.id), { gaveUp: true, attempts }),
    ],
  };
}

/** A head whose check events were kept for a later run that did not verify it, and its open candidates. */
export interface KeptHeadView {
  repo: string;
  headSha: string;
  /** The open candidates at that head (none: it is not a candidate's yet). */
  open: number[];
}

/**
 * The sweep verifies a kept head's open candidates itself: their kept events are taken first (no
 * later run repeats it), then each is verified. A head no open candidate has stays kept for its recording.
 */
export function planKeptHead(view: KeptHeadView, now: string): { actions: Action[]; verify: number[] } {
  if (view.open.length === 0) return { actions: [], verify: [] };
  const take: Action = {
    kind: 'take-kept-checks',
    key: keptTakenKey(view.repo, view.headSha, now),
    headSha: view.headSha,
  };
  return { actions: [take], verify: view.open };
}
