// A round's claim, its release and its decision as plan actions (src/core/actions.ts joins them to
// the plan's union), and the mark of a group whose waiting lists are behind. Each is a conditional
// store write that decides a race between runs: its answer is the store's as it is now, asked of it
// every time the step asks (workflows/execute-records.ts), never an earlier run's answer read back
// from the ledger. All are kept in shadow mode: they change nothing on GitHub, and shadow mode
// claims and decides rounds as live mode does.
import { z } from 'zod';
import { roundActKey } from './keys.ts';

const keyed = { key: z.string() };
/** The round's row id (`RoundRow.id`), not its number in the group. */
const roundId = z.number().int();

/**
 * Claims round `roundId` for the run (the store's conditional update of its selection from none).
 * The answer: `claimed` (this action took it), `mine` (the run's token held it already) or `taken`.
 */
const ClaimRound = z.object({ kind: z.literal('claim-round'), ...keyed, roundId });
/** Gives back the run's claim of round `roundId` while it has no decision; the answer says whether it did. */
const ReleaseRound = z.object({ kind: z.literal('release-round'), ...keyed, roundId });
/**
 * Records the decision of round `roundId` when it has none and the run holds the round (the first
 * stands; a run whose claim was given back records nothing); the answer says whether it did.
 */
const RecordDecision = z.object({
  kind: z.literal('record-decision'),
  ...keyed,
  roundId,
  decision: z.unknown(),
  at: z.string(),
});

export const ROUND_ACTIONS = [
  ClaimRound,
  ReleaseRound,
  RecordDecision,
  /**
   * Sets the mark keyed `key` unless it is set (a mark says "work to do" and is taken by whoever
   * does it, so it may be set again after: it is asked every time, not applied once).
   */
  z.object({ kind: z.literal('mark'), ...keyed, value: z.unknown(), at: z.string() }),
] as const;

/** What a `claim-round` answers, parsed where the step reads it. */
export const RoundClaim = z.object({ claim: z.enum(['claimed', 'mine', 'taken']) });
/** What a `release-round` and a `record-decision` answer. */
export const RoundChanged = z.object({ changed: z.boolean() });

/** A round as its actions name it: its row id, and the group and number its keys are built from. */
export interface RoundRef {
  id: number;
  repo: string;
  change: number;
  base: string;
  number: number;
}

const keyOf = (round: RoundRef, what: string): string =>
  roundActKey(round.repo, round.change, round.base, round.number, what);

/** The run claims `round`; the answer is `RoundClaim`. */
export const claimRoundAction = (round: RoundRef): z.infer<typeof ClaimRound> => ({
  kind: 'claim-round',
  key: keyOf(round, 'claim-round'),
  roundId: round.id,
});

/** The run gives back its claim of `round` while it is undecided; the answer is `RoundChanged`. */
export const releaseRoundAction = (round: RoundRef): z.infer<typeof ReleaseRound> => ({
  kind: 'release-round',
  key: keyOf(round, 'release-round'),
  roundId: round.id,
});

/** The run records `decision` as the decision of `round` it holds; the answer is `RoundChanged`. */
export const recordDecisionAction = (
  round: RoundRef,
  decision: unknown,
  at: string,
): z.infer<typeof RecordDecision> => ({
  kind: 'record-decision',
  key: keyOf(round, 'decision'),
  roundId: round.id,
  decision,
  at,
});
