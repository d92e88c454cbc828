// A candidate set that wins (DESIGN.md section 6, "Composite candidate"): the decision that hands it
// to its ship (core/plan/set-ship.ts). In a round with single-repository candidates, the round's plan
// keeps its comparison (the set's words lead) and its receipt, and the other candidates close with
// their reasons once every member merged. A Change whose only candidates are sets is decided here
// too. Pure: the round's plan or the sets in; the plan out.
import type { Action } from '../actions.ts';
import type { PullRef, SetRecord } from '../candidate-set.ts';
import { candidateSetDecidedKey, changeActionKey, markerKey } from '../keys.ts';
import { LABEL_AWAITING, LABEL_LOST } from '../labels.ts';
import { markerFor } from '../render/markers.ts';
import type { SelectionPlan, ShipSet } from '../plan-schema.ts';
import { comparisonMarker } from './comparison.ts';
import { shippedWords } from './outcome-text.ts';
import { decidedWords, membersOf, setShipped, shipOrder } from './set-ship.ts';

/** A single-repository candidate of the round, as the set's win closes it. */
export interface SingleLoser {
  pr: number;
  headSha: string;
  /** Why it ranks below the set ("this one is unpromotable (required check `test` failed), and set `good` (…) passed every required check"). */
  why: string;
}

/** Each single-repository candidate closes, labelled lost, once every member of the winning set merged. */
function singleLosers(input: {
  change: PullRef;
  base: string;
  round: number;
  set: SetRecord;
  singles: readonly SingleLoser[];
}): Action[] {
  return input.singles.flatMap((s): Action[] => {
    const k = (what: string): string =>
      changeActionKey(input.change.repo, input.change.number, input.base, `r${input.round}`, 'set-won', s.pr, what);
    const reason = `Lost to set ${input.set.name}: ${s.why}.`;
    const marker = markerKey('note', s.pr, `r${input.round}`);
    return [
      {
        kind: 'check-run',
        key: k('check'),
        pr: s.pr,
        headSha: s.headSha,
        name: 'Arbiter / selection',
        status: 'completed',
        conclusion: 'neutral',
        title: `Lost to set ${input.set.name}`,
        summary: reason,
      },
      {
        kind: 'comment',
        key: k('note'),
        issue: s.pr,
        marker,
        body: `${markerFor(marker)}\n${reason} See the comparison on #${input.change.number}. ${shippedWords(setShipped(input.set), `#${input.change.number}`)}`,
      },
      { kind: 'close', key: k('close'), pr: s.pr, relabel: { add: [LABEL_LOST], remove: [LABEL_AWAITING] } },
      { kind: 'set-state', key: k('state'), pr: s.pr, state: 'rejected', reason },
    ];
  });
}

/**
 * The round's plan when a set outranks every single-repository candidate: its comparison (the set's
 * words lead) and receipt stay, the person's gate on the others goes (the set ships instead), the
 * set is marked shipping, and the others close once every member merged.
 */
export function planSetWin(
  plan: SelectionPlan,
  input: {
    change: PullRef;
    base: string;
    round: number;
    set: SetRecord;
    order: readonly string[];
    web: string | null;
    /** The comparison's headline for the set (core/plan/set-rank.ts `setWinnerWhy`); default the merge order alone. */
    headline?: string;
    singles: readonly SingleLoser[];
    /** The ranking table and the receipt, for each member's selection check. */
    text?: string;
    /** The losing sets' closures (core/plan/set-round.ts). */
    setLosers: Action[];
  },
): SelectionPlan {
  const order = shipOrder(membersOf(input.set), input.order);
  const words = decidedWords(input.set, order, input.web);
  const headline = input.headline ?? words.headline;
  const actions: Action[] = plan.actions.flatMap((a): Action[] => {
    if (a.kind === 'receipt') return [a];
    if (a.kind === 'comment' && a.marker.startsWith('comparison:'))
      // The round's bold headline (in shadow mode too, whose words differ) gives way to the set's.
      return [{ ...a, body: a.body.replace(/^\*\*.+\*\*$/m, () => `**${headline}**`) }];
    return [];
  });
  // The others' checks say the set is the best candidate (closed with their reasons once it shipped).
  for (const s of input.singles)
    actions.push({
      kind: 'check-run',
      key: changeActionKey(
        input.change.repo,
        input.change.number,
        input.base,
        `r${input.round}`,
        'set-won',
        s.pr,
        'best',
      ),
      pr: s.pr,
      headSha: s.headSha,
      name: 'Arbiter / selection',
      status: 'completed',
      conclusion: 'neutral',
      title: `Not the best candidate: set ${input.set.name} ships`,
      summary: `${headline}\n\nThis candidate: ${s.why}.`,
    });
  actions.push(shipMark(input.change, input.set, `${input.base}/r${input.round}`));
  return {
    ...plan,
    actions,
    afterShip: [...singleLosers(input), ...input.setLosers],
    shipSet: { name: input.set.name, order, headline, line: words.line, ...(input.text ? { text: input.text } : {}) },
  };
}

/** The mark that the set ships from this decision: its members' own events re-plan it no more. */
const shipMark = (change: PullRef, set: SetRecord, scope: string): Action => ({
  kind: 'record',
  key: candidateSetDecidedKey(change.repo, change.number, set.name),
  value: { scope },
});

/** The decision of a Change whose only candidates are sets: its comparison, and the winner's ship (or a person). */
export interface SetsOnlyDecision {
  comparison: Extract<Action, { kind: 'comment' }>;
  ship: ShipSet | null;
  /** The losing sets' closures, once every member of the winner merged. */
  afterShip: Action[];
  actions: Action[];
}

/** The headline of a Change of sets only when none passed every required check of every member. */
export const noSetPromotable = (change: number): string =>
  `No candidate is promotable: every candidate of #${change} is a set, and none passed every required check of every member. A person decides.`;

/** A Change whose only candidates are sets (no single-repository candidate is open): the best set ships. */
export function planSetsOnly(input: {
  change: PullRef;
  compared: readonly SetRecord[];
  /** The set that ships (it met every criterion), or null: a person decides. */
  winner: SetRecord | null;
  /** The headline: the winner's (core/plan/set-rank.ts `setWinnerWhy`), or why a person decides. */
  headline?: string;
  notes: readonly string[];
  order: readonly string[];
  web: string | null;
  setLosers: Action[];
  /** The decision's receipt in its hidden marker (core/render/markers.ts `receiptMarker`), ending the comparison. */
  receiptMarker?: string;
}): SetsOnlyDecision {
  const { winner } = input;
  const k = (what: string): string => changeActionKey(input.change.repo, input.change.number, 'sets', what);
  const order = winner === null ? [] : shipOrder(membersOf(winner), input.order);
  const words = winner === null ? null : decidedWords(winner, order, input.web);
  const headline = input.headline ?? words?.headline ?? noSetPromotable(input.change.number);
  const marker = comparisonMarker(input.change.number, 'sets');
  const comparison: Extract<Action, { kind: 'comment' }> = {
    kind: 'comment',
    key: k(`comparison/${winner === null ? 'none' : winner.name}`),
    issue: input.change.number,
    marker,
    body: [
      markerFor(marker),
      `### Arbiter: comparison of the candidates for #${input.change.number} (candidate sets only)`,
      `**${headline}**`,
      ...input.notes,
      ...(input.receiptMarker ? [input.receiptMarker] : []),
    ].join('\n\n'),
  };
  const actions: Action[] = [comparison];
  if (winner === null)
    actions.push({ kind: 'set-change-state', key: k('state/human'), change: input.change.number, state: 'human' });
  else actions.push(shipMark(input.change, winner, 'sets'));
  return {
    comparison,
    ship: winner === null || words === null ? null : { name: winner.name, order, headline, line: words.line },
    afterShip: input.setLosers,
    actions,
  };
}
