// The decision of a Change whose only candidates are sets (DESIGN.md section 6, "Composite
// candidate"; nothing opened in its own repository): the best set ships when it met every criterion
// and the policy lets it, the other sets close once it merged; otherwise a person decides. Its
// inputs are a selection's with no single-repository sibling (scope `sets`, round 1), kept on its
// CANDIDATE_SELECTION receipt with one line per planned action, so `npm run replay` decides it again
// (core/replay.ts). Pure: the recorded inputs in; the decision and its receipt out.
import type { SetRecord } from '../candidate-set.ts';
import { changeActionKey } from '../keys.ts';
import type { Verdict } from '../plan-schema.ts';
import { selectionConfigOf, type SelectionInputs, type SelectionReceipt } from '../receipt.ts';
import { describePlan } from '../replay-lines.ts';
import { receiptMarker } from '../render/markers.ts';
import type { Diagnostics } from '../types.ts';
import { rankSets, setHeldWhy, setVerdict } from './set-rank.ts';
import { planSetLosers, planSetToPerson, setNotes, setRows } from './set-round.ts';
import { setShipped } from './set-ship.ts';
import { noSetPromotable, planSetsOnly, type SetsOnlyDecision } from './set-win.ts';

/** The scope of a sets-only decision, in place of a base branch: its keys, its ship and its receipt say `sets`. */
export const SETS_ONLY = 'sets';

/** Whether recorded selection inputs are a sets-only decision's: no single-repository sibling, sets, scope `sets`. */
export const isSetsOnly = (inputs: Pick<SelectionInputs, 'siblings' | 'sets' | 'base'>): boolean =>
  inputs.siblings.length === 0 && inputs.sets !== undefined && inputs.base === SETS_ONLY;

/**
 * The receipt's diagnostics for the sets: every set that stands as a candidate was submitted; a
 * promotable one is eligible, one whose gate failed is excluded as a failure, one still verifying
 * (held past its timeout) as inconclusive. Sets are never compared by the judge.
 */
export function setsDiagnostics(records: readonly SetRecord[]): Diagnostics {
  const candidates = records.filter((r) => r.state === 'candidate');
  const settled = candidates.filter((r) => r.gate?.settled === true);
  return {
    submittedCandidates: candidates.length,
    eligibleCandidates: settled.filter((r) => r.gate?.promotable === true).length,
    excludedCandidates: {
      fail: settled.filter((r) => r.gate?.promotable !== true).length,
      inconclusive: candidates.length - settled.length,
    },
    comparison: 'not-compared',
  };
}

export interface SetsOnlyRound extends SetsOnlyDecision {
  /** The CANDIDATE_SELECTION receipt, with the inputs and the planned lines (its action leads `actions`). */
  receipt: SelectionReceipt;
}

/**
 * The sets-only decision from its inputs, or null when no set stands settled as a candidate (there
 * is nothing to decide yet). `input.sets` holds the Change's set records, GitHub's web address and
 * `composite.order`.
 */
export function planSetsOnlyRound(input: SelectionInputs): SetsOnlyRound | null {
  const records = input.sets?.records ?? [];
  const web = input.sets?.web ?? null;
  const order = input.sets?.order ?? [];
  const change = { repo: input.repo, number: input.change.number };
  const criteria = input.change.criteria.length;
  const rules = { required: input.config.acceptance.required, policy: input.config.policy };
  const none = { ordered: [], top: [], tiedAtTop: false };
  const standing = rankSets(records, none);
  if (standing.compared.length === 0) return null;
  const top = standing.winner;
  // Why the best set does not ship by itself (a criterion not met, or its risk), or null: it ships.
  const held = top === null ? null : setHeldWhy(top, criteria, rules);
  const winner = held === null ? top : null;
  const at = { change, base: SETS_ONLY, round: input.round, criteria };
  const prefix = input.config.commands.prefix;
  const verdict = setVerdict(standing, none, { criteria, prefix, web, order, ...rules });
  const setLosers =
    winner === null
      ? []
      : planSetLosers({
          ...at,
          winner: {
            name: `set \`${winner.record.name}\``,
            summary: winner.summary,
            shipped: true,
            shippedAs: setShipped(winner.record),
          },
          sets: standing.compared.filter((s) => s !== winner),
        });
  // The set at the top (ships, or goes to a person), a tie with a set in it, or nothing promotable.
  const headline = verdict?.kind === 'human' ? verdict.why : noSetPromotable(change.number);
  const decided = {
    change,
    compared: standing.compared.map((s) => s.record),
    winner: winner?.record ?? null,
    headline,
    notes: setNotes(standing, { best: null, criteria, web, order, ...rules }),
    order,
    web,
    setLosers,
  };
  // The comparison carries the receipt in its hidden marker, as a round's does.
  const receipt = decisionReceipt(input, standing, verdict, winner !== null, headline);
  const plan = planSetsOnly({ ...decided, receiptMarker: receiptMarker(receipt) });
  // A set at the top that does not ship: each member's check asks for a person, saying why.
  if (winner === null && top !== null)
    plan.actions.push(
      ...planSetToPerson({
        ...at,
        set: top,
        comparisonUrl: input.display?.repoUrl ? `${input.display.repoUrl}/issues/${change.number}` : null,
        ...(held === null ? {} : { held }),
      }),
    );
  const recorded: SelectionReceipt = {
    ...receipt,
    data: {
      ...receipt.data,
      inputs: inputsOf(input),
      outcome: describePlan({ ...plan, ...(plan.ship ? { shipSet: plan.ship } : {}) }),
    },
  };
  const key = changeActionKey(input.repo, change.number, SETS_ONLY, `r${input.round}`, 'receipt', 'selection');
  return { ...plan, actions: [{ kind: 'receipt', key, receipt: recorded }, ...plan.actions], receipt: recorded };
}

/** The inputs as the receipt keeps them: no single-repository sibling, the config cut to what the planner reads. */
const inputsOf = (input: SelectionInputs): SelectionInputs => ({
  ...input,
  siblings: [],
  drafts: [],
  config: selectionConfigOf(input.config),
});

/** The receipt without its inputs and lines: what the comparison's hidden marker carries. */
function decisionReceipt(
  input: SelectionInputs,
  standing: ReturnType<typeof rankSets>,
  verdict: Verdict | null,
  ships: boolean,
  headline: string,
): SelectionReceipt {
  const kind: Verdict = verdict ?? { kind: 'human', winner: null, before: [], losers: [], why: headline };
  // Losing sets close only when the winner ships; otherwise they stay open for the person.
  const sets = setRows(standing, kind).map((r) =>
    r.outcome === 'lost' && !ships ? { ...r, outcome: 'open' as const } : r,
  );
  return {
    kind: 'CANDIDATE_SELECTION',
    repo: input.repo,
    change: input.change.number,
    round: input.round,
    at: input.now,
    data: {
      // No pull request of the Change's repository wins: a set that ships by itself is a ship, anything else a person's.
      verdict: ships ? 'ship' : 'human',
      winner: null,
      repairTarget: null,
      beforePerson: [],
      losers: [],
      ranking: [],
      judge: null,
      risk: null,
      diagnostics: input.diagnostics,
      // Recorded, not acted on: what shadow mode keeps back is the executor's filter's (core/shadow.ts).
      mode: input.config.mode,
      headline,
      sets,
    },
  };
}
