// A Change's candidate sets in its selection round (DESIGN.md section 6, "Composite candidate"):
// each settled set is one candidate, named with its members (links to each member in its own
// repository) and ranked as set-rank.ts says. A set that wins and met every criterion ships
// (core/plan/set-win.ts, set-ship.ts), and the other candidates close once its members merged; a set
// that wins short of that goes to a person with the order to merge its members, and every other set
// loses now; a set that loses to a single winner that ships has every member closed with the reason,
// once the winner merged. Pure: the round's inputs and plan in; words and actions out.
import { shippedWords } from './outcome-text.ts';
import type { Action } from '../actions.ts';
import { refText, type PullRef } from '../candidate-set.ts';
import { candidateSetDecidedKey, changeActionKey, markerKey } from '../keys.ts';
import { LABEL_LOST } from '../labels.ts';
import { markerFor } from '../render/markers.ts';
import type { RankedCandidate, Ranking } from '../types.ts';
import type { SelectionPlan, Verdict } from '../plan-schema.ts';
import type { SelectionReceipt } from '../receipt.ts';
import { compareOn, SET_KEYS } from '../rank.ts';
import { renderRankingTable, renderReceiptText, type SetRanking } from '../render/check-text.ts';
import type { SelectionInput } from './verdict.ts';
import {
  belowWords,
  membersOf,
  rankSets,
  setSummary,
  setText,
  setWinnerWhy,
  shipOrder,
  type RankedSet,
  type SetsStanding,
  setHeldWhy,
  type SetShipRules,
} from './set-rank.ts';
import { decidedWords, setShipped } from './set-ship.ts';
import { planSetWin, type SingleLoser } from './set-win.ts';

/**
 * The sets' standing in the round, the comparison's line on each, and whether the set at the top
 * ships by itself (`ships`: Arbiter merges it, no person is asked).
 */
export function setsInRound(input: SelectionInput): SetsStanding & { notes: string[]; ships: boolean } {
  const none = { compared: [], winner: null, tied: null, notes: [], ships: false };
  if (!input.sets) return none;
  const standing = rankSets(input.sets.records, input.ranking);
  const best = input.ranking.ordered.find((c) => c.rank === 1) ?? null;
  const criteria = input.change.criteria.length;
  const rules = { required: input.config.acceptance.required, policy: input.config.policy };
  const notes = setNotes(standing, {
    best,
    criteria,
    web: input.sets.web,
    order: input.sets.order ?? [],
    ...rules,
  });
  const ships = standing.winner !== null && setHeldWhy(standing.winner, criteria, rules) === null;
  return { ...standing, notes, ships };
}

/** The comparison's line on each set, against the best single-repository candidate (`best`, or null) and the other sets. */
export function setNotes(
  standing: SetsStanding,
  at: {
    best: RankedCandidate | null;
    criteria: number;
    web: string | null;
    order: readonly string[];
  } & SetShipRules,
): string[] {
  const { best, criteria, web } = at;
  return standing.compared.map((s) => {
    const name = setText(s.record, web);
    if (!s.summary.promotable)
      return `Candidate ${name}: unpromotable (${s.record.gate?.reason ?? 'its gate failed'}).`;
    const summary = setSummary(s, criteria);
    const held = standing.winner === s ? setHeldWhy(s, criteria, at) : null;
    if (standing.winner === s)
      return held === null
        ? `Candidate ${name}: ${summary}, so the set is the best candidate. ${decidedWords(s.record, shipOrder(membersOf(s.record), at.order), web).line}`
        : `Candidate ${name}: ${summary}, so the set is the best candidate; ${held}, so a person merges its members in order (${membersOf(
            s.record,
          )
            .map(refText)
            .join(', then ')}) or cancels the Change.`;
    if (standing.tied?.sets.includes(s)) return `Candidate ${name}: ${summary}; a person chooses (see above).`;
    if (standing.winner !== null)
      return `Candidate ${name}: ${summary}; ranks below ${setText(standing.winner.record, web)}: ${belowWords({ name: `set \`${standing.winner.record.name}\``, summary: standing.winner.summary }, { what: 'set', summary: s.summary }, criteria)}.`;
    if (best !== null && best.promotable)
      return `Candidate ${name}: ${summary}; ranks below #${best.pr}: ${belowWords({ name: `#${best.pr}`, summary: best }, { what: 'set', summary: s.summary }, criteria)}.`;
    return `Candidate ${name}: ${summary}.`;
  });
}

const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The last words of a losing set's member note: what comes next for it. */
const setLostWords = (winner: string, change: string, shipped: boolean): string =>
  shipped
    ? shippedWords(winner, change)
    : `Arbiter does not bring a losing set back; its members' branches stay, to reuse by hand.`;

/**
 * Every member of each losing set: its `Arbiter / selection` check, a note with the reason, and the
 * close (labelled lost), each in its own repository. After a shipped winner: applied once it merged.
 */
export function planSetLosers(input: {
  change: PullRef;
  base: string;
  round: number;
  /**
   * The winner as named ("acme/app#12", "set `good` (…)"), its summary, and whether it ships
   * (`shippedAs`: who shipped, as a closed loser's last sentence names it; default its name).
   */
  winner: { name: string; summary: RankedCandidate; shipped: boolean; shippedAs?: string };
  criteria: number;
  sets: readonly RankedSet[];
}): Action[] {
  const actions: Action[] = [];
  const { winner } = input;
  for (const { record: set, summary } of input.sets) {
    // Its members close now: their own closed events re-plan the set no more.
    actions.push({
      kind: 'record',
      key: candidateSetDecidedKey(input.change.repo, input.change.number, set.name),
      value: { lost: winner.name },
    });
    const why = belowWords(
      { name: winner.name, summary: winner.summary },
      { what: 'set', summary, gateReason: set.gate?.reason },
      input.criteria,
    );
    const reason = `Lost to ${winner.name}: ${why}. The set \`${set.name}\` (${membersOf(set).map(refText).join(', ')}) was one candidate of ${refText(input.change)}; every member closes.`;
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
            title: `Lost to ${winner.name}`.replace(/`/g, '').slice(0, 250),
            summary: reason,
          },
          {
            kind: 'comment',
            key: k('note'),
            issue: member.number,
            marker,
            body: `${markerFor(marker)}\n${reason} See the comparison on ${refText(input.change)}. ${setLostWords(winner.shippedAs ?? winner.name, refText(input.change), winner.shipped)}`,
          },
          { kind: 'close', key: k('close'), pr: member.number, relabel: { add: [LABEL_LOST], remove: [] } },
        ],
      });
    }
  }
  return actions;
}

/**
 * The set that outranks every other candidate but did not meet every criterion: Arbiter does not
 * merge it, so each member's `Arbiter / selection` check says a person decides, and in which order
 * the members merge.
 */
export function planSetToPerson(input: {
  change: PullRef;
  base: string;
  round: number;
  set: RankedSet;
  criteria: number;
  comparisonUrl: string | null;
  /** Why Arbiter does not merge it (core/plan/set-rank.ts `setHeldWhy`). */
  held?: string;
  /** The ranking table and the receipt, folded into each member's check (as into a winner's). */
  text?: string;
}): Action[] {
  const { record: set } = input.set;
  const order = membersOf(set).map(refText).join(', then ');
  const summary = `The set \`${set.name}\` is the best candidate of ${refText(input.change)}: it ${setSummary(input.set, input.criteria)}, above every other candidate. ${upperFirst(input.held ?? 'not every criterion was met')}, so Arbiter merged nothing: a person merges the members in order (${order}) or cancels the Change.`;
  const actions: Action[] = [];
  for (const member of membersOf(set)) {
    const headSha = set.heads[refText(member)];
    if (headSha === undefined) continue;
    const k = (what: string): string =>
      changeActionKey(
        input.change.repo,
        input.change.number,
        input.base,
        `r${input.round}`,
        'set-person',
        set.name,
        refText(member),
        what,
      );
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
          conclusion: 'action_required',
          title: `Best candidate of ${refText(input.change)}: a person merges set ${set.name} (${order})`.slice(0, 250),
          summary,
          ...(input.text ? { text: input.text } : {}),
          ...(input.comparisonUrl ? { detailsUrl: input.comparisonUrl } : {}),
        },
      ],
    });
  }
  return actions;
}

/**
 * The round's plan with its sets' part: losing sets close once a shipped winner merged (a single
 * candidate, or a set that met every criterion and ships); a set that wins short of that is shown to
 * a person on each member, and the other sets close at once.
 */
export function withSets(plan: SelectionPlan, input: SelectionInput, standing: SetsStanding): SelectionPlan {
  if (standing.compared.length === 0) return plan;
  const criteria = input.change.criteria.length;
  const at = {
    change: { repo: input.repo, number: input.change.number },
    base: input.base,
    round: input.round,
    criteria,
  };
  const repoUrl = input.display?.repoUrl ?? null;
  if (plan.verdict.kind === 'ship') {
    const w = plan.verdict.winner;
    const won = input.ranking.ordered.find((c) => c.pr === w)!;
    const losers = planSetLosers({
      ...at,
      winner: { name: refText({ repo: input.repo, number: w }), summary: won, shipped: true },
      sets: standing.compared,
    });
    return { ...plan, afterShip: [...(plan.afterShip ?? []), ...losers] };
  }
  const winner = standing.winner;
  if (winner === null) return plan;
  const others = standing.compared.filter((s) => s !== winner);
  const comparisonUrl = repoUrl ? `${repoUrl}/issues/${input.change.number}` : null;
  const table = setTableRows(plan.receipt.data.sets ?? [], input.ranking);
  const text = [renderRankingTable(input.ranking, repoUrl, table), '', renderReceiptText(plan.receipt)].join('\n');
  const held = setHeldWhy(winner, criteria, {
    required: input.config.acceptance.required,
    policy: input.config.policy,
  });
  if (held === null) {
    const web = input.sets?.web ?? null;
    const order = shipOrder(membersOf(winner.record), input.sets?.order ?? []);
    const name = `set \`${winner.record.name}\``;
    const singles: SingleLoser[] = input.siblings.map((e) => ({
      pr: e.pr,
      headSha: e.headSha,
      why: belowWords(
        { name: setText(winner.record), summary: winner.summary },
        {
          what: 'one',
          summary: input.ranking.ordered.find((c) => c.pr === e.pr)!,
          gateReason: e.gate.reason,
        },
        criteria,
      ),
    }));
    return planSetWin(plan, {
      ...at,
      set: winner.record,
      order: input.sets?.order ?? [],
      web,
      headline: setWinnerWhy(winner, criteria, web, order),
      singles,
      text,
      setLosers: planSetLosers({
        ...at,
        winner: { name, summary: winner.summary, shipped: true, shippedAs: setShipped(winner.record) },
        sets: others,
      }),
    });
  }
  const losers = planSetLosers({
    ...at,
    winner: { name: `set \`${winner.record.name}\``, summary: winner.summary, shipped: false },
    sets: others,
  });
  return {
    ...plan,
    actions: [...plan.actions, ...planSetToPerson({ ...at, set: winner, comparisonUrl, text, held }), ...losers],
  };
}

export type SetRows = NonNullable<SelectionReceipt['data']['sets']>;

/** The receipt's row of each set: its rank keys, members and what became of it. */
export function setRows(sets: SetsStanding, verdict: Verdict): SetRows {
  return sets.compared.map((s) => ({
    set: s.record.name,
    members: membersOf(s.record).map(refText),
    promotable: s.summary.promotable,
    met: s.summary.met,
    gaps: s.summary.gaps,
    score: s.summary.score,
    passing: s.summary.passing,
    rank: 1 + sets.compared.filter((o) => compareOn(o.summary, s.summary, SET_KEYS).order > 0).length,
    // Losing sets close when a set wins, or once a shipped winner merged; otherwise they stay open.
    outcome:
      sets.winner === s
        ? 'won'
        : sets.tied?.sets.includes(s)
          ? 'tied'
          : sets.winner !== null || verdict.kind === 'ship'
            ? 'lost'
            : 'open',
  }));
}

/**
 * The ranking table's row of each set. Its rank among every candidate: one more than the
 * candidates and sets above it on the keys a set is ranked on.
 */
export function setTableRows(rows: SetRows, ranking: Ranking): SetRanking | null {
  if (rows.length === 0) return null;
  const keys = (r: SetRows[number]): RankedCandidate => ({ ...r, pr: 0, score: null });
  // A candidate moves down by the sets above it.
  const rankOf = (pr: number): number => {
    const c = ranking.ordered.find((o) => o.pr === pr);
    return c === undefined ? 0 : c.rank + rows.filter((r) => compareOn(keys(r), c, SET_KEYS).order > 0).length;
  };
  const setRows = rows.map((r) => ({
    label: `set \`${r.set}\` (${r.members.join(', ')})`,
    rank:
      1 +
      ranking.ordered.filter((c) => compareOn(c, keys(r), SET_KEYS).order > 0).length +
      rows.filter((o) => compareOn(keys(o), keys(r), SET_KEYS).order > 0).length,
    promotable: r.promotable,
    met: r.met,
    gaps: r.gaps,
    passing: r.passing,
  }));
  return { rows: setRows, rankOf };
}
