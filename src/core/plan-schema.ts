// The selection plan as data: its verdict and the plan itself as zod schemas, so a plan recorded
// in the store is parsed where it is read back, never cast. A row that does not parse is an error
// that names what is wrong (a plan recorded by an older version), not a plan.
import { z } from 'zod';
import { Action } from './actions.ts';
import { PullRefSchema } from './candidate-set.ts';
import { SelectionReceipt } from './receipt.ts';
import { Criterion } from './types.ts';

const pr = z.number().int();

export const Verdict = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('ship'),
    winner: pr,
    losers: z.array(pr),
    risk: z.object({ risk: z.enum(['low', 'medium', 'high']), reasons: z.array(z.string()), mayShip: z.boolean() }),
  }),
  z.object({
    kind: z.literal('human'),
    winner: pr.nullable(),
    before: z.array(pr),
    losers: z.array(pr),
    why: z.string(),
  }),
  z.object({
    kind: z.literal('repair'),
    target: pr,
    losers: z.array(pr),
    objective: z.string(),
    unmet: z.array(Criterion),
  }),
]);
export type Verdict = z.infer<typeof Verdict>;

/** What a winning candidate set's ship needs from its decision (core/plan/set-win.ts, set-ship.ts). */
export const ShipSet = z.object({
  name: z.string(),
  /** The members in the order they merge. */
  order: z.array(PullRefSchema),
  /** The comparison's bold headline and the set's merge line as decided, which the ship rewrites. */
  headline: z.string(),
  line: z.string(),
  /** The ranking table and the receipt, folded into each member's selection check (as into a winner's). */
  text: z.string().optional(),
});
export type ShipSet = z.infer<typeof ShipSet>;

export const SelectionPlan = z.object({
  verdict: Verdict,
  actions: z.array(Action),
  receipt: SelectionReceipt,
  /** Ship verdict: the losers' closures, applied only once the winner's merge succeeded. */
  afterShip: z.array(Action).optional(),
  /** Ship verdict: the comparison as it reads when the merge ends with a person (the losers stay open). */
  onRefused: z.array(Action).optional(),
  /** Ship verdict on a strict branch: the comparison as it reads when the winner's branch was updated (its new head is verified first). */
  onUpdated: z.array(Action).optional(),
  /** A candidate set won: its members merge in order after the plan's actions (`afterShip` once all merged). */
  shipSet: ShipSet.optional(),
});
export type SelectionPlan = z.infer<typeof SelectionPlan>;

/** A recorded value that does not have the shape this version reads (recorded by an older one). */
export class RecordedShapeError extends Error {
  constructor(
    readonly what: string,
    readonly issues: string[],
  ) {
    super(`${what} recorded by an older version does not parse: ${issues.join('; ')}`);
    this.name = 'RecordedShapeError';
  }
}

export const issuesOf = (error: z.ZodError): string[] =>
  error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`);

/** Parses a recorded value; a mismatch is a RecordedShapeError naming the issues. */
export function parseRecorded<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RecordedShapeError(what, issuesOf(parsed.error));
  return parsed.data;
}

/** A portfolio's wide round decides no winner: who goes deep, who is out, and the actions. */
export const WideDecision = z.object({
  verdict: z.object({ kind: z.literal('portfolio-wide'), deep: z.array(pr), out: z.array(pr) }),
  actions: z.array(Action),
});
export type WideDecision = z.infer<typeof WideDecision>;

/**
 * Shadow mode kept a combine back: what live mode would do (combine A and B, and ship the combined
 * candidate if it passes) is where the shadow round ends. Nothing is built, so no next round follows.
 */
export const WouldCombineDecision = z.object({
  verdict: z.object({ kind: z.literal('would-combine'), a: pr, b: pr }),
  actions: z.array(Action),
});
export type WouldCombineDecision = z.infer<typeof WouldCombineDecision>;

/**
 * A round's recorded decision as a selection plan: null while none is recorded, and for a
 * portfolio's wide round or a shadow round that would combine (neither has a selection plan).
 * Anything else is a RecordedShapeError.
 */
export function readSelectionPlan(decision: unknown): SelectionPlan | null {
  if (decision === null || decision === undefined) return null;
  if (WideDecision.safeParse(decision).success || WouldCombineDecision.safeParse(decision).success) return null;
  return parseRecorded(SelectionPlan, decision, 'the selection plan');
}

export const readWideDecision = (decision: unknown): WideDecision =>
  parseRecorded(WideDecision, decision, 'the wide round');
