// A Change's candidate sets in its selection round (DESIGN.md section 6, "Composite candidate"):
// each settled set is one candidate, named with its members (links to each member in its own
// repository). The acceptance check over a set's members is not built yet, so a set's criteria
// are not judged (gaps): it ranks by its gate. A set wins only when it is promotable and no
// single-repository candidate is; then it ships (core/plan/set-win.ts, set-ship.ts). A set that
// loses to a winner that ships has every member closed with the reason, once the winner merged.
// Pure: the sets, the best single candidate and the round in; words and actions out.
import { shippedWords } from './outcome-text.ts';
import type { Action } from '../actions.ts';
import { refText, type PullRef, type SetRecord } from '../candidate-set.ts';
import { candidateSetDecidedKey, changeActionKey, markerKey } from '../keys.ts';
import { LABEL_LOST } from '../labels.ts';
import { markerFor } from '../render/markers.ts';
import type { RankedCandidate, Ranking } from '../types.ts';
import type { SelectionPlan } from '../plan-schema.ts';
import { winnerSummary } from '../reasons.ts';
import { decidedWords, memberLink, membersOf, setName, shipOrder } from './set-ship.ts';
import { planSetWin, wonBySet, type SingleLoser } from './set-win.ts';

export interface SetsInRoundInput {
  change: PullRef;
  base: string;
  round: number;
  criteria: number;
  /** The Change's sets as recorded; only those that stand as candidates and settled take part. */
  sets: readonly SetRecord[];
  /** The best single-repository candidate of the round (rank 1), or null when there is none. */
  best: RankedCandidate | null;
  /** The web address of GitHub (`https://github.com`), for links to members; null: plain references. */
  web: string | null;
  /** `composite.order` of the Change's repository: the order a winning set's members merge in. */
  order?: readonly string[];
}

export interface SetsInRound {
  /** The sets in the round, in name order. */
  compared: SetRecord[];
  /** The set that outranks every single-repository candidate, or null. */
  winner: SetRecord | null;
  /** One line per set for the comparison comment. */
  notes: string[];
}

export { memberLink, setName };

/** The sets of the round, which of them (if any) wins, and the comparison's words on each. */
export function setsInRound(input: SetsInRoundInput): SetsInRound {
  const compared = input.sets
    .filter((s) => s.state === 'candidate' && s.gate?.settled === true)
    .sort((a, b) => a.name.localeCompare(b.name));
  const singleOk = input.best?.promotable === true;
  const winner = singleOk ? null : (compared.find((s) => s.gate?.promotable === true) ?? null);
  const unjudged = `its ${input.criteria === 1 ? 'criterion' : `${input.criteria} criteria`} not judged (the acceptance check over a set's members is not built yet)`;
  const notes = compared.map((s) => {
    const name = setName(s, input.web);
    if (s.gate?.promotable !== true) return `Candidate ${name}: unpromotable (${s.gate?.reason ?? 'its gate failed'}).`;
    if (winner === s)
      return `Candidate ${name}: every required check of every member passed, and no single-repository candidate is promotable, so the set is the best candidate. ${decidedWords(s, shipOrder(membersOf(s), input.order ?? []), input.web).line}`;
    if (winner !== null)
      return `Candidate ${name}: every required check of every member passed; ranks below ${setName(winner, input.web)} (name order).`;
    return `Candidate ${name}: every required check of every member passed, ${input.criteria > 0 ? unjudged : 'no criteria'}; ranks below #${input.best?.pr}.`;
  });
  return { compared, winner, notes };
}

/**
 * Every member of each set that lost to `winner` (the shipped single-repository candidate): its
 * `Arbiter / selection` check, a note with the reason, and the close (labelled lost), each in its own
 * repository. Applied after the winner merged.
 */
export function planSetLosers(input: {
  change: PullRef;
  base: string;
  round: number;
  /** The shipped winner and its summary ("met 1 of 1 criterion"); `label` and `shipped` name a set that won. */
  winner: { pr: number; summary: string; label?: string; shipped?: string };
  criteria: number;
  sets: readonly SetRecord[];
}): Action[] {
  const actions: Action[] = [];
  const winner = input.winner.label ?? refText({ repo: input.change.repo, number: input.winner.pr });
  for (const set of input.sets) {
    // Its members close now: their own closed events re-plan the set no more.
    actions.push({
      kind: 'record',
      key: candidateSetDecidedKey(input.change.repo, input.change.number, set.name),
      value: { lost: winner },
    });
    const why =
      set.gate?.promotable === true
        ? `${winner} ${input.winner.summary}; this set's required checks passed in every member, but its ${input.criteria === 1 ? 'criterion was' : `${input.criteria} criteria were`} not judged (the acceptance check over a set's members is not built yet)`
        : `this set is unpromotable: ${set.gate?.reason ?? 'its gate failed'}`;
    const reason = `Lost to ${winner}: ${why}. The set \`${set.name}\` (${membersOf(set).map(refText).join(', ')}) was one candidate of ${refText(input.change)}; every member closes.`;
    for (const member of membersOf(set)) {
      const headSha = set.heads[refText(member)];
      if (headSha === undefined) continue;
      const k = (what: string): string =>
        changeActionKey(
          input.change.repo,
          input.change.number,
          `${input.base}`,
          `r${input.round}`,
          'set-lost',
          set.name,
          refText(member),
          what,
        );
      const marker = markerKey('note', member.number, `r${input.round}`);
      actions.push({
        kind: 'in-repo',
        key: k('all'),
        repo: member.repo,
        actions: [
          {
            kind: 'check-run',
            key: k('check'),
            pr: member.number,
            headSha,
            name: 'Arbiter / selection',
            status: 'completed',
            conclusion: 'neutral',
            title: `Lost to ${winner}`,
            summary: reason,
          },
          {
            kind: 'comment',
            key: k('note'),
            issue: member.number,
            marker,
            body: `${markerFor(marker)}\n${reason} See the comparison on ${refText(input.change)}. ${shippedWords(input.winner.shipped ?? winner, refText(input.change))}`,
          },
          { kind: 'close', key: k('close'), pr: member.number, relabel: { add: [LABEL_LOST], remove: [] } },
        ],
      });
    }
  }
  return actions;
}

/** The round's plan with its sets' part: losing sets close once the winner merged; a winning set ships (core/plan/set-win.ts). */
export function withSets(
  plan: SelectionPlan,
  sets: SetsInRound,
  at: {
    change: { repo: string; number: number };
    base: string;
    round: number;
    ranking: Ranking;
    criteria: number;
    comparisonUrl: string | null;
    web: string | null;
    /** `composite.order` of the Change's repository. */
    order?: readonly string[];
    /** The round's single-repository candidates, which close once a winning set's members all merged. */
    singles?: readonly SingleLoser[];
  },
): SelectionPlan {
  if (sets.compared.length === 0) return plan;
  const { criteria } = at;
  if (plan.verdict.kind === 'ship') {
    const won = at.ranking.ordered.find((c) => plan.verdict.kind === 'ship' && c.pr === plan.verdict.winner);
    const losers = planSetLosers({
      ...at,
      winner: { pr: won?.pr ?? 0, summary: won ? winnerSummary(won, criteria) : 'won' },
      criteria,
      sets: sets.compared,
    });
    return { ...plan, afterShip: [...(plan.afterShip ?? []), ...losers] };
  }
  if (sets.winner === null) return plan;
  const won = sets.winner;
  return planSetWin(plan, {
    ...at,
    set: won,
    order: at.order ?? [],
    why: plan.verdict.kind === 'human' ? plan.verdict.why : '',
    singles: at.singles ?? [],
    setLosers: planSetLosers({
      ...at,
      winner: wonBySet(won),
      criteria,
      sets: sets.compared.filter((s) => s !== won),
    }),
  });
}
