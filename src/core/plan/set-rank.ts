// Where a Change's candidate sets stand in its round (DESIGN.md sections 3 and 6): each settled set
// is one candidate, summarised as a single candidate is (its gate over every member, its criteria
// from the one acceptance call over every member) and ranked against the best single-repository
// candidate and the other sets on the keys that mean the same for both (rank.ts SET_KEYS). A set
// above every other candidate wins; a tie at the top with a set in it, or a set whose unjudged
// criteria could lift it to the top, goes to a person (the judge does not compare sets). Pure.
import { refText, setAcceptance, type PullRef, type SetRecord } from '../candidate-set.ts';
import { compareOn, SET_KEYS } from '../rank.ts';
import { criteriaWord } from '../reasons.ts';
import type { RankedCandidate, RankKey, Ranking, RiskPolicy } from '../types.ts';
import { assessSetRisk } from './set-risk.ts';
import type { Verdict } from '../plan-schema.ts';

/** A set as a candidate of the round: its record, and its summary on the ranking keys (`pr` 0: it has none here). */
export interface RankedSet {
  record: SetRecord;
  summary: RankedCandidate;
}

export interface SetsStanding {
  /** The settled sets that stand as candidates, best first (name order among equals). */
  compared: RankedSet[];
  /** The one set above every other candidate, or null. */
  winner: RankedSet | null;
  /** A tie at the top with a set in it (or a set not fully judged that could reach the top): a person chooses among these. */
  tied: { sets: RankedSet[]; singles: number[] } | null;
}

export const membersOf = (set: SetRecord): PullRef[] => set.parts ?? set.seen;

/** The members in the order they merge: repositories named in `composite.order` first, in that order, then the rest in `Parts:` order. */
export function shipOrder(members: readonly PullRef[], order: readonly string[]): PullRef[] {
  const place = (r: PullRef): number => {
    const i = order.findIndex((o) => o.toLowerCase() === r.repo.toLowerCase());
    return i === -1 ? order.length : i;
  };
  return members
    .map((ref, i) => ({ ref, i }))
    .sort((a, b) => place(a.ref) - place(b.ref) || a.i - b.i)
    .map((m) => m.ref);
}

/** A link to one member, in its own repository (`web`: GitHub's address; null: a plain reference). */
export const memberLink = (ref: PullRef, web: string | null): string =>
  web === null ? refText(ref) : `[${refText(ref)}](${web}/${ref.repo}/pull/${ref.number})`;

/** "set `good` (acme/api#7, acme/ui#9)", plain, or with a link to each member. */
export const setText = (set: SetRecord, web: string | null = null): string =>
  `set \`${set.name}\` (${membersOf(set)
    .map((r) => memberLink(r, web))
    .join(', ')})`;

/** A set summarised on the ranking keys, as rank.ts summarises one candidate. */
export function summariseSet(record: SetRecord): RankedCandidate {
  const results = setAcceptance(record)?.results ?? [];
  return {
    pr: 0,
    rank: 0,
    promotable: record.gate?.promotable === true,
    met: results.filter((r) => r.status === 'met').length,
    gaps: results.filter((r) => r.status === 'gap').length,
    score: null,
    passing: record.gate?.passing ?? 0,
  };
}

const above = (a: RankedCandidate, b: RankedCandidate): number => compareOn(a, b, SET_KEYS).order;

/** Where the sets stand against the best single-repository candidate (`ranking`) and each other. */
export function rankSets(records: readonly SetRecord[], ranking: Pick<Ranking, 'ordered' | 'top'>): SetsStanding {
  const compared = records
    .filter((s) => s.state === 'candidate' && s.gate?.settled === true)
    .map((record) => ({ record, summary: summariseSet(record) }))
    .sort((a, b) => above(b.summary, a.summary) || a.record.name.localeCompare(b.record.name));
  const top = compared[0];
  if (top === undefined || !top.summary.promotable) return { compared, winner: null, tied: null };
  const topSets = compared.filter((s) => above(top.summary, s.summary) === 0);
  const best = ranking.ordered.find((c) => c.rank === 1 && c.promotable) ?? null;
  const order = best === null ? 1 : above(top.summary, best);
  if (order > 0)
    return topSets.length === 1
      ? { compared, winner: top, tied: null }
      : { compared, winner: null, tied: { sets: topSets, singles: [] } };
  if (order === 0) return { compared, winner: null, tied: { sets: topSets, singles: [...ranking.top] } };
  // A single-repository candidate ranks first; a set whose criteria were not all judged has not lost on evidence.
  const unjudged = compared.filter(
    (s) =>
      s.summary.promotable &&
      s.summary.gaps > 0 &&
      best !== null &&
      above({ ...s.summary, met: s.summary.met + s.summary.gaps, gaps: 0 }, best) >= 0,
  );
  return unjudged.length > 0
    ? { compared, winner: null, tied: { sets: unjudged, singles: [...ranking.top] } }
    : { compared, winner: null, tied: null };
}

/** "met 1 of 1 criterion" for a set, or why it has no criteria judged. */
export function setSummary(set: RankedSet, criteria: number): string {
  if (criteria === 0) return 'every required check of every member passed (no criteria)';
  const gaps = set.summary.gaps > 0 ? `, ${set.summary.gaps} not judged` : '';
  return `met ${set.summary.met} of ${criteria} ${criteriaWord(criteria)}${gaps}; every required check of every member passed`;
}

/** Why `loser` ranks below `winner`, on the key that decided (both summarised on SET_KEYS). */
export function belowWords(
  winner: { name: string; summary: RankedCandidate },
  loser: { what: 'set' | 'one'; summary: RankedCandidate; gateReason?: string },
  criteria: number,
): string {
  const key: RankKey | null = compareOn(winner.summary, loser.summary, SET_KEYS).key;
  const self = loser.what === 'set' ? 'this set' : 'this one';
  const of = (n: number): string => `${n} of ${criteria} ${criteriaWord(criteria)}`;
  if (key === 'promotable')
    return `${self} is unpromotable${loser.gateReason ? ` (${loser.gateReason})` : ''}, and ${winner.name} passed every required check`;
  if (key === 'met') return `${winner.name} met ${of(winner.summary.met)}, ${self} ${of(loser.summary.met)}`;
  if (key === 'gaps')
    return `both met ${of(loser.summary.met)}, but ${self} has ${loser.summary.gaps} not judged, ${winner.name} ${winner.summary.gaps}`;
  return `${self} is level with ${winner.name} on the evidence`;
}

/** What decides whether a winning set ships by itself: `acceptance.required` and the risk policy (the Change's). */
export interface SetShipRules {
  required: boolean;
  policy: RiskPolicy;
}

/**
 * Why Arbiter does not merge a winning set by itself, or null when it does: every criterion met (or
 * none, with `acceptance.required` off, as a single winner must), and a risk the policy ships without
 * a person (core/plan/set-risk.ts: each member's changes, by the Change's policy and its own).
 */
export function setHeldWhy(set: RankedSet, criteria: number, rules: SetShipRules): string | null {
  if (!set.summary.promotable) return 'a required check did not pass';
  if (criteria === 0 ? rules.required : set.summary.met !== criteria) return 'not every criterion was met';
  return assessSetRisk(set.record, rules.policy).held;
}

export const setShips = (set: RankedSet, criteria: number, rules: SetShipRules): boolean =>
  setHeldWhy(set, criteria, rules) === null;

/**
 * The comparison's headline when a set is the best candidate: with `ship` (its members in merge
 * order) Arbiter merges them; without, a person merges them in order or cancels the Change.
 */
export function setWinnerWhy(
  set: RankedSet,
  criteria: number,
  web: string | null = null,
  ship: readonly PullRef[] | null = null,
  held = 'not every criterion was met',
): string {
  const lead = `The best candidate is ${setText(set.record, web)}: it ${setSummary(set, criteria)}, above every other candidate.`;
  if (ship !== null)
    return `${lead} Arbiter merges its members one at a time in this order, each at its verified head: ${ship.map(refText).join(', then ')}.`;
  const order = membersOf(set.record).map(refText).join(', then ');
  return `${lead} ${held.charAt(0).toUpperCase()}${held.slice(1)}, so Arbiter does not merge it: a person merges its members in order (${order}) or cancels the Change.`;
}

/**
 * The round's verdict when its sets decide it, or null when the single-repository candidates do
 * (no set at the top): a set above all ships (core/plan/set-win.ts) when it met every criterion, else
 * goes to a person with its merge order, every
 * single-repository candidate losing to it; a tie with a set in it goes to a person, naming them.
 */
export function setVerdict(
  standing: SetsStanding,
  ranking: Ranking,
  at: { criteria: number; prefix: string; web: string | null; order: readonly string[] } & SetShipRules,
): Verdict | null {
  const all = ranking.ordered.map((c) => c.pr);
  if (standing.winner !== null) {
    const w = standing.winner;
    const held = setHeldWhy(w, at.criteria, at);
    const ship = held === null ? shipOrder(membersOf(w.record), at.order) : null;
    return {
      kind: 'human',
      winner: null,
      before: [],
      losers: all,
      why: setWinnerWhy(w, at.criteria, at.web, ship, held ?? undefined),
    };
  }
  if (standing.tied === null) return null;
  const { sets, singles } = standing.tied;
  const prefix = at.prefix;
  const names = [...sets.map((s) => setText(s.record, at.web)), ...singles.map((n) => `#${n}`)].join(', ');
  const unjudged = sets.some((s) => s.summary.gaps > 0);
  const why = unjudged
    ? `${names} could rank first: ${sets
        .filter((s) => s.summary.gaps > 0)
        .map((s) => setText(s.record))
        .join(', ')} has criteria the acceptance check could not judge (model error or budget).`
    : `${names} are tied at the top on the evidence (gate and criteria); the judge does not compare a set.`;
  return {
    kind: 'human',
    winner: null,
    before: singles,
    losers: all.filter((n) => !singles.includes(n)),
    why: `${why} A person chooses: \`${prefix} promote\` on a pull request of this repository, or merges a set's members in order, or cancels the Change.`,
  };
}
