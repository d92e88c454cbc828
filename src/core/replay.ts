// Replays a decision receipt: the pure planner runs again on the inputs the receipt recorded,
// and what it decides now is compared with what was decided then. A receipt that does not parse
// (recorded by an older version) cannot be replayed, and says why; it is never cast.
import type { Action } from './actions.ts';
import { planSelection } from './plan/selection.ts';
import { isSetsOnly, planSetsOnlyRound } from './plan/sets-only.ts';
import { planCancel, planRejection } from './plan/person.ts';
import { planRepairTimeout, planResumeGivenUp } from './plan/sweep.ts';
import { planPromotion } from './plan/promotion.ts';
import { planMergeAnswer, planShipped } from './plan/after-merge.ts';
import { planWideRound } from './plan/portfolio.ts';
import { CombineOutcome, CombineProposal, CombineRecord, planCombineReceipt } from './combine.ts';
import { isOpened, planRebuildEnded, planRebuilt } from './plan/combine-rebuild.ts';
import { planAutoMergeLost } from './plan/auto-merge-lost.ts';
import { issuesOf, SelectionPlan } from './plan-schema.ts';
import { rankCandidates } from './rank.ts';
import { Receipt, type PlannedBy, type SelectionReceipt } from './receipt.ts';
import { canonicalJson } from './digest.ts';
import { receiptLine } from './replay-lines.ts';

type OtherKind = Exclude<Receipt['kind'], 'CANDIDATE_SELECTION'>;

/**
 * The one kind no planner decides: an acceptance check's results are a model's judgement of a head,
 * kept as evidence the selection then reads (its receipt replays with them). Every other kind is
 * planned, and replays by its planner (or with the plan that made it).
 */
const RECORDS = { ACCEPTANCE: 'an acceptance check’s results (a model’s judgement of a head)' } as const;
type RecordKind = keyof typeof RECORDS;
const isRecordKind = (kind: string): kind is RecordKind => Object.hasOwn(RECORDS, kind);

export type ReplayResult =
  /** The planner decides the same again: every field of the receipt and every planned action. */
  | { result: 'same'; kind: Receipt['kind']; round: number; actions: number; planner?: string }
  | { result: 'different'; kind: Receipt['kind']; round: number; diff: string[]; planner?: string }
  /** A receipt planned as part of a selection (its repair, its human gate): replayed with it. */
  | { result: 'part-of-selection'; kind: OtherKind; round: number }
  /** A receipt another planner made beside its own (a wide round's deep receipt): replayed with that one. */
  | { result: 'part-of-plan'; kind: OtherKind; round: number; planner: string }
  /** A receipt that records a fact no planner decided (an acceptance check's results), not a plan to re-run. */
  | { result: 'record'; kind: RecordKind; round: number }
  | { result: 'cannot-replay'; why: string };

/** Lines only in `before` (-) and only in `after` (+), in order (a longest common subsequence). */
export function lineDiff(before: string[], after: string[]): string[] {
  const n = before.length;
  const m = after.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = before[i] === after[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push(`- ${before[i++]}`);
    } else {
      out.push(`+ ${after[j++]}`);
    }
  }
  return out;
}

/** Recorded inputs that only their own schema reads (they parse apart from the receipt's). */
class UnreadableInputs extends Error {}

function readWith<T>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  what: string,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new UnreadableInputs(`cannot replay: the recorded ${what} does not parse`);
  return parsed.data;
}

/** A rebuild's recorded combine: only an opened combined candidate has parents to follow. */
function openedRecord(value: unknown) {
  const record = readWith(CombineRecord, value, 'combine record');
  if (!isOpened(record)) throw new UnreadableInputs('cannot replay: the recorded combine opened no combined candidate');
  return record;
}

/** The planner a receipt names, run again on the inputs it recorded: its actions, receipt included. */
function rerun(planned: PlannedBy): Action[] {
  switch (planned.planner) {
    case 'repair-timeout': {
      const decided = planned.inputs.decided;
      return planRepairTimeout({
        ...planned.inputs,
        decided: decided == null ? null : readWith(SelectionPlan, decided, 'selection plan'),
      }).actions;
    }
    case 'rejection':
      return planRejection(planned.inputs).actions;
    case 'cancel':
      return planCancel(planned.inputs).actions;
    case 'promotion': {
      const plan = planPromotion(planned.inputs);
      return 'actions' in plan ? plan.actions : [];
    }
    case 'merge-answer': {
      const plan = planMergeAnswer(planned.inputs);
      return 'actions' in plan ? plan.actions : [];
    }
    case 'shipped':
      return planShipped(planned.inputs);
    case 'resume-given-up':
      return planResumeGivenUp(planned.inputs).actions;
    case 'combine':
      return planCombineReceipt({
        ...planned.inputs,
        proposal: readWith(CombineProposal, planned.inputs.proposal, 'combine proposal'),
        outcome: readWith(CombineOutcome.nullable(), planned.inputs.outcome, 'build outcome'),
      });
    case 'rebuild-ended':
      return planRebuildEnded({ ...planned.inputs, record: openedRecord(planned.inputs.record) });
    case 'rebuilt':
      return planRebuilt({ ...planned.inputs, record: openedRecord(planned.inputs.record) });
    case 'auto-merge-lost': {
      const plan = planAutoMergeLost(planned.inputs);
      return 'actions' in plan ? plan.actions : [];
    }
    case 'portfolio-wide': {
      const { readings, ...inputs } = planned.inputs;
      return planWideRound({
        ...inputs,
        readings: new Map(Object.entries(readings).map(([pr, values]) => [Number(pr), values])),
      }).actions;
    }
  }
}

/** The fields of two receipts' data that differ, and the planned lines only one of them holds. */
function receiptDiff(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  outcome: string[],
  replayed: string[],
): string[] {
  const diff: string[] = [];
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = field in before ? canonicalJson(before[field]) : '(not recorded)';
    const now = field in after ? canonicalJson(after[field]) : '(not planned)';
    if (was !== now) diff.push(`${field}: ${was} → ${now}`);
  }
  return [...diff, ...lineDiff(outcome, replayed)];
}

/** A receipt that carries its planner's inputs: that planner runs again, and its receipt and actions are compared. */
function replayPlanned(recorded: Receipt, planned: PlannedBy): ReplayResult {
  let actions: Action[];
  try {
    actions = rerun(planned);
  } catch (err) {
    if (err instanceof UnreadableInputs) return { result: 'cannot-replay', why: err.message };
    throw err;
  }
  const again = actions.find(
    (a): a is Extract<Action, { kind: 'receipt' }> => a.kind === 'receipt' && a.receipt.kind === recorded.kind,
  )?.receipt;
  const head = (r: Receipt) => ({ repo: r.repo, change: r.change, round: r.round, at: r.at });
  const strip = (r: Receipt | undefined): Record<string, unknown> => {
    if (!r) return {};
    const data = Object.entries(r.data).filter(([field]) => field !== 'planned');
    return { ...head(r), ...Object.fromEntries(data) };
  };
  const replayedOutcome = again && 'planned' in again.data ? (again.data.planned?.outcome ?? []) : [];
  const diff = receiptDiff(strip(recorded), strip(again), planned.outcome, replayedOutcome);
  const { kind, round } = recorded;
  if (diff.length > 0) return { result: 'different', kind, round, diff, planner: planned.planner };
  return { result: 'same', kind, round, actions: planned.outcome.length, planner: planned.planner };
}

function replaySelection(recorded: SelectionReceipt): ReplayResult {
  const { inputs, outcome, ...decided } = recorded.data;
  if (!inputs || !outcome) {
    return {
      result: 'cannot-replay',
      why: 'cannot replay: recorded by an older version (the receipt carries no planner inputs)',
    };
  }
  // A Change whose only candidates are sets is decided by its own planner; no decision now replays as nothing planned.
  const receipt = isSetsOnly(inputs)
    ? (planSetsOnlyRound(inputs)?.receipt ?? null)
    : planSelection({ ...inputs, ranking: rankCandidates(inputs.siblings) }).receipt;
  const { inputs: _inputs, outcome: replayedOutcome = [], ...again } = receipt?.data ?? {};
  const head = (r: SelectionReceipt) => ({ repo: r.repo, change: r.change, round: r.round, at: r.at });
  const before: Record<string, unknown> = { ...head(recorded), ...decided };
  const after: Record<string, unknown> = receipt === null ? {} : { ...head(receipt), ...again };
  const diff = receiptDiff(before, after, outcome, replayedOutcome);
  if (diff.length > 0) return { result: 'different', kind: 'CANDIDATE_SELECTION', round: recorded.round, diff };
  return { result: 'same', kind: 'CANDIDATE_SELECTION', round: recorded.round, actions: outcome.length };
}

/** Whether `line` is one of the actions another receipt's plan recorded: a selection's, or a planner's. */
function plannedBy(line: string, others: unknown[]): 'selection' | string | null {
  for (const s of others) {
    const r = Receipt.safeParse(s);
    if (!r.success) continue;
    if (r.data.kind === 'CANDIDATE_SELECTION') {
      if ((r.data.data.outcome ?? []).includes(line)) return 'selection';
    } else if ('planned' in r.data.data && r.data.data.planned?.outcome.includes(line)) {
      return r.data.data.planned.planner;
    }
  }
  return null;
}

/**
 * Replays one receipt. `others` are the other receipts of the same Change (as read back), so a
 * receipt another plan made (a selection's repair or human gate, a wide round's deep receipt) is
 * found among that plan's actions.
 */
export function replayReceipt(value: unknown, others: unknown[] = []): ReplayResult {
  const parsed = Receipt.safeParse(value);
  if (!parsed.success) {
    const kind = typeof value === 'object' && value !== null && 'kind' in value ? String(value.kind) : 'unknown';
    return {
      result: 'cannot-replay',
      why: `cannot replay: recorded by an older version (${kind}: ${issuesOf(parsed.error).join('; ')})`,
    };
  }
  const receipt = parsed.data;
  if (receipt.kind === 'CANDIDATE_SELECTION') return replaySelection(receipt);
  if ('planned' in receipt.data && receipt.data.planned) return replayPlanned(receipt, receipt.data.planned);
  const planner = plannedBy(receiptLine(receipt), others);
  if (planner === 'selection') return { result: 'part-of-selection', kind: receipt.kind, round: receipt.round };
  if (planner !== null) return { result: 'part-of-plan', kind: receipt.kind, round: receipt.round, planner };
  if (isRecordKind(receipt.kind)) return { result: 'record', kind: receipt.kind, round: receipt.round };
  // A planned kind with no inputs of its own and no plan among `others` that made it.
  return {
    result: 'cannot-replay',
    why:
      `cannot replay: this ${receipt.kind} receipt carries no planner inputs (recorded by an older version), ` +
      'and no receipt given holds the plan that made it',
  };
}

const by = (planner: string | undefined): string => (planner ? ` (${planner})` : '');

/** What a replay result says, in words. */
export function describeReplay(r: ReplayResult): string[] {
  switch (r.result) {
    case 'same':
      return [
        `same decision: the ${r.kind}${by(r.planner)} of round ${r.round} plans the same ${r.actions} actions again`,
      ];
    case 'different':
      return [
        `different decision: the ${r.kind}${by(r.planner)} of round ${r.round} replays differently (- recorded, + now):`,
        ...r.diff.map((d) => `  ${d}`),
      ];
    case 'part-of-selection':
      return [
        `same decision: this ${r.kind} receipt of round ${r.round} is one of the actions its selection planned, and replays with it`,
      ];
    case 'part-of-plan':
      return [
        `same decision: this ${r.kind} receipt of round ${r.round} is one of the actions the ${r.planner} plan recorded beside its own receipt, and replays with it`,
      ];
    case 'record':
      return [`nothing to replay: a ${r.kind} receipt records ${RECORDS[r.kind]}, not a plan`];
    case 'cannot-replay':
      return [r.why];
  }
}

/** 0 when nothing differs and every receipt could be read; 1 otherwise. */
export const replayExitCode = (results: ReplayResult[]): number =>
  results.some((r) => r.result === 'different' || r.result === 'cannot-replay') ? 1 : 0;
