// The portfolio's store records as plan actions (src/core/actions.ts joins them to the plan's
// union): an explore's start, its phases, its slots and refines settled, its readings kept. Each
// is a conditional store write whose answer the step reads (workflows/execute.ts).
import { z } from 'zod';

const keyed = { key: z.string() };
const pr = z.number().int();

export const PORTFOLIO_ACTIONS = [
  /** A portfolio's deep round: the refines it awaits (one per PR that goes deep), recorded before they are dispatched. */
  z.object({
    kind: z.literal('record-deep'),
    ...keyed,
    change: pr,
    portfolio: z.number().int(),
    deep: z.array(z.object({ pr, headSha: z.string() })),
    dispatchedAt: z.string(),
  }),
  /**
   * Starts explore `number` of `change` (`/arbiter explore`): opens the next round on `base` when its
   * round was claimed or decided already (`wideRound` null: not a retry of the run that started it,
   * which keeps its round), then records the portfolio and its composing slots. Its answer (started,
   * or the explore still running) is the step's input. A decided state change: dropped in shadow
   * mode, which dispatches nothing and so awaits no slot.
   */
  z.object({
    kind: z.literal('start-portfolio'),
    ...keyed,
    portfolio: z.object({
      change: pr,
      number: z.number().int(),
      base: z.string(),
      baseSha: z.string(),
      policy: z.enum(['top-k', 'successive-halving']),
      k: z.number().int(),
      wideRound: z.number().int().nullable(),
      requestedBy: z.string(),
      token: z.string(),
      startedAt: z.string(),
    }),
    slots: z.array(z.object({ slot: z.string(), approach: z.string() })),
  }),
  /**
   * Moves explore `portfolio` of `change` from phase `from` to `to` (a conditional update): its answer
   * says whether this action moved it, and the step reads it. Kept in shadow mode, as a record.
   */
  z.object({
    kind: z.literal('portfolio-phase'),
    ...keyed,
    change: pr,
    portfolio: z.number().int(),
    from: z.enum(['wide', 'deep', 'done']),
    to: z.enum(['wide', 'deep', 'done']),
  }),
  /**
   * A composing slot of `change` fills with `pr` (`open`) or is dropped with the reason, only while it
   * composes: the answer says whether this action settled it. Kept in shadow mode, as a record.
   */
  z.object({
    kind: z.literal('settle-slot'),
    ...keyed,
    change: pr,
    slot: z.string(),
    to: z.discriminatedUnion('state', [
      z.object({ state: z.literal('open'), pr }),
      z.object({ state: z.literal('dropped'), reason: z.string() }),
    ]),
  }),
  /** An awaited refine of `pr` arrived or expired (only while awaited); the answer says whether this action settled it. */
  z.object({
    kind: z.literal('settle-deep'),
    ...keyed,
    change: pr,
    portfolio: z.number().int(),
    pr,
    state: z.enum(['arrived', 'expired']),
  }),
  /** Readings of the scoring check kept with explore `portfolio` (GitHub keeps only a run's latest output). */
  z.object({
    kind: z.literal('put-readings'),
    ...keyed,
    change: pr,
    portfolio: z.number().int(),
    readings: z.array(z.object({ pr, run: z.number().int(), value: z.number() })),
  }),
] as const;
